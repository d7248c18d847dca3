"""Response bodies keep their fields, every JSON route declares its schema, and list routes page
(`limit`, `cursor`, `X-Next-Cursor`) without reaching another account. Paging and the fields read
back from storage are the store's, so those run on every store; a refused cursor or limit is refused
before the store is asked, so those run on memory."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from pydantic import BaseModel

from dreamchat.api.app import create_app
from dreamchat.api.pages import NEXT_CURSOR
from dreamchat.services.paging import cursor_after
from dreamchat.wiring import Runtime
from tests.api.conftest import Person
from tests.services.conftest import runtime  # noqa: F401 (the fixture: memory, or every store)

AI_USER_FIELDS = {
    "id", "user_id", "name", "avatar", "base_soul", "timezone", "night_owl", "visibility", "model",
    "greeting", "tags", "from_card", "created_at", "updated_at", "is_owner", "moderation", "romance",  # moderation: issue 37; romance: issue 38
    "category",  # discover (issue 40)
    "voice", "voice_replies",  # the AI's voice (issue 41)
}  # fmt: skip
FRIEND_FIELDS = AI_USER_FIELDS | {
    "since", "relationship", "unread", "next_heartbeat", "pinned", "muted", "heartbeat", "last_message",  # heartbeat: the per-friend mode (issue 26)
    "stopped",  # the person stopped it (a way out, issue 38)
}  # fmt: skip
MESSAGE_FIELDS = {
    "id", "role", "content", "timestamp", "topic_id", "kind", "delay_ms", "read_no_reply", "reasoning", "safety",
    "alternatives", "alternative", "rating", "rating_reason",  # the person's controls (issue 40)
    "media_id", "media_kind", "duration_s",  # a photo or voice note (issue 41)
}  # fmt: skip


@pytest.fixture
def client(runtime: Runtime) -> Iterator[TestClient]:  # noqa: F811 (the fixture imported above)
    """The offline app on the runtime's store: memory, or every store for a test of paging."""
    with TestClient(create_app(runtime.settings, runtime)) as test_client:
        yield test_client


def friends_pages(person: Person, limit: int) -> list[list[dict]]:
    pages, cursor = [], None
    while True:
        response = person.get("/api/friends", params={"limit": limit, **({"cursor": cursor} if cursor else {})})
        assert response.status_code == 200, response.text
        pages.append(response.json()["friends"])
        cursor = response.headers.get(NEXT_CURSOR)
        if cursor is None:
            return pages


@pytest.mark.every_store
def test_the_friend_list_pages_through_every_friend_once(alice: Person, bob: Person) -> None:
    made = {alice.create_ai_user(name=f"友{i}")["id"] for i in range(5)}
    public = bob.create_ai_user(name="公开", visibility="public")
    alice.post(f"/api/friends/{public['id']}")
    pages = friends_pages(alice, 2)
    assert [len(p) for p in pages] == [2, 2, 2]
    listed = [f["id"] for p in pages for f in p]
    assert sorted(listed) == sorted(made | {public["id"]}) and listed == sorted(listed)
    whole = alice.get("/api/friends")
    assert NEXT_CURSOR not in whole.headers and len(whole.json()["friends"]) == 6  # the default covers normal use


@pytest.mark.every_store
def test_a_page_that_ends_the_list_says_so(alice: Person) -> None:
    for i in range(2):
        alice.create_ai_user(name=f"友{i}")
    assert [len(p) for p in friends_pages(alice, 2)] == [2]


@pytest.mark.every_store
def test_friend_entries_keep_every_field_the_client_reads(alice: Person) -> None:
    ai = alice.create_ai_user(greeting="你好呀")
    alice.post(f"/api/ai-users/{ai['id']}/greet")
    (friend,) = alice.get("/api/friends").json()["friends"]
    assert set(friend) == FRIEND_FIELDS
    assert set(friend["last_message"]) == {"role", "content", "timestamp", "kind"}
    assert friend["last_message"]["content"] == "你好呀" and friend["unread"] == 1 and friend["relationship"] == "一般"


@pytest.mark.parametrize("cursor", ["abc", "e30", "%%%", cursor_after("x") + "x", "eyJhZnRlciI6MX0", "W10"])
def test_a_tampered_friend_list_cursor_is_a_422(alice: Person, cursor: str) -> None:
    alice.create_ai_user()
    response = alice.get("/api/friends", params={"cursor": cursor})
    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == "validation_error"


@pytest.mark.parametrize("limit", ["0", "-1", "201", "many", "1.5"])
def test_a_bad_limit_is_a_422(alice: Person, limit: str) -> None:
    assert alice.get("/api/friends", params={"limit": limit}).status_code == 422
    assert alice.get("/api/ai-users", params={"limit": limit}).status_code == 422


@pytest.mark.every_store
def test_a_cursor_from_another_account_reaches_only_the_callers_own_friends(alice: Person, bob: Person) -> None:
    for i in range(3):
        alice.create_ai_user(name=f"A{i}")
    bobs = {bob.create_ai_user(name=f"B{i}")["id"] for i in range(3)}
    alices_cursor = alice.get("/api/friends", params={"limit": 1}).headers[NEXT_CURSOR]
    seen = bob.get("/api/friends", params={"cursor": alices_cursor})
    assert seen.status_code == 200 and {f["id"] for f in seen.json()["friends"]} <= bobs
    forged = bob.get("/api/friends", params={"cursor": cursor_after("ai_")})  # before every id there is
    assert {f["id"] for f in forged.json()["friends"]} == bobs


@pytest.mark.every_store
def test_my_ai_users_page_with_next_cursor(alice: Person, bob: Person) -> None:
    made = [alice.create_ai_user(name=f"我的{i}")["id"] for i in range(3)]
    public = bob.create_ai_user(name="公开", visibility="public")
    alice.post(f"/api/friends/{public['id']}")
    first = alice.get("/api/ai-users", params={"limit": 3}).json()
    assert len(first["ai_users"]) == 3 and first["next_cursor"]
    rest = alice.get("/api/ai-users", params={"limit": 3, "cursor": first["next_cursor"]}).json()
    assert rest["next_cursor"] is None
    assert sorted(a["id"] for a in first["ai_users"] + rest["ai_users"]) == sorted([*made, public["id"]])
    assert set(first["ai_users"][0]) == AI_USER_FIELDS
    assert alice.get("/api/ai-users", params={"cursor": "%%%"}).status_code == 422


@pytest.mark.every_store
def test_history_and_saved_messages_keep_their_fields(alice: Person) -> None:
    ai = alice.create_ai_user()
    saved = alice.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": "你好"})
    assert saved.status_code == 201 and set(saved.json()) == {"message", "topic_ended", "safety"}
    assert set(saved.json()["message"]) == MESSAGE_FIELDS
    page = alice.get(f"/api/ai-users/{ai['id']}/messages").json()
    assert set(page) == {"messages", "next_cursor", "retry_message_id"}
    assert [set(m) for m in page["messages"]] == [MESSAGE_FIELDS]


@pytest.mark.every_store
def test_memory_files_keep_their_shape(alice: Person) -> None:
    ai = alice.create_ai_user()
    alice.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": "我喜欢猫"})
    added = alice.put(f"/api/memory/{ai['id']}/core", json={"content": "怕黑", "importance": 9})
    assert added.status_code == 200, added.text
    assert set(added.json()["memory"]) == {"id", "content", "importance", "category", "created_at", "source"}
    files = alice.get(f"/api/memory/{ai['id']}/files").json()
    tiers = {"short_term", "short_term_pending", "mid_term", "long_term", "core", "self_soul", "relationship"}
    tiers |= {"relationship_history"}
    assert set(files) == tiers
    assert set(files["short_term"]) == {"topic_id", "conversations", "created_at", "message_ids"}
    assert files["short_term"]["conversations"][0]["content"] == "我喜欢猫"
    assert set(files["relationship"]) == {"level", "heartbeat_hours", "reason", "updated_at"}
    assert [c["content"] for c in files["core"]] == ["怕黑"] and files["relationship_history"] == []


def test_every_json_route_declares_a_response_schema(client: TestClient) -> None:
    undeclared = [
        f"{sorted(route.methods)} {route.path}"
        for route in client.app.routes
        if isinstance(route, APIRoute)
        and route.include_in_schema
        and route.response_class.media_type == "application/json"
        and not (isinstance(route.response_model, type) and issubclass(route.response_model, BaseModel))
        and route.path not in ("/api/ai-users/{user_id}/card",)  # a card or a PNG, as the client asks
    ]
    assert undeclared == []


@pytest.mark.every_store
def test_the_heartbeat_status_pages_its_ai_friends(alice: Person) -> None:
    made = sorted(alice.create_ai_user(name=f"友{i}")["id"] for i in range(3))
    first = alice.get("/api/heartbeat/status", params={"limit": 2})
    assert set(first.json()) == {"prefs", "ai_users"} and len(first.json()["ai_users"]) == 2
    rest = alice.get("/api/heartbeat/status", params={"limit": 2, "cursor": first.headers[NEXT_CURSOR]})
    assert NEXT_CURSOR not in rest.headers and rest.json()["prefs"] == first.json()["prefs"]
    assert [e["ai_user_id"] for e in first.json()["ai_users"] + rest.json()["ai_users"]] == made
    assert alice.get("/api/heartbeat/status", params={"cursor": "%%%"}).status_code == 422
    configured = alice.post("/api/heartbeat/configure", json={"daily_cap": 3})
    assert configured.json()["prefs"]["daily_cap"] == 3 and len(configured.json()["ai_users"]) == 3
