"""Scheduled heartbeats (list, cancel) and pin/mute per friend, through the API (the races and the retry on every
storage adapter)."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from fastapi.testclient import TestClient

from dreamchat import keys
from dreamchat.api.app import create_app
from dreamchat.config import Settings
from dreamchat.domain.heartbeat import add_scheduled
from dreamchat.domain.models import ScheduledHeartbeat
from dreamchat.services.answering import RETRIES_PER_MESSAGE
from tests.api.conftest import Person, register
from tests.api.sse import parse_sse
from tests.fakes.fake_llm import Reply
from tests.services.conftest import runtime  # noqa: F401 - a fixture (memory, or every adapter)


@pytest.fixture
def app(runtime):  # noqa: F811
    return create_app(runtime.settings, runtime)


@pytest.fixture
def client(app) -> Iterator[TestClient]:
    with TestClient(app) as test_client:
        yield test_client


def schedule(app, person: Person, ai_user_id: str, hour: int, minute: int, text: str) -> None:
    """What the AI's set_scheduled_heartbeat tool does."""
    services = app.state.services
    pair, ai_user = services.ai_users.companion(person.id, ai_user_id)
    relationship = services.repo.relationship(pair)
    entry = ScheduledHeartbeat(hour=hour, minute=minute, message_template=text)
    services.heartbeat_states.change(pair, ai_user, relationship, lambda s: add_scheduled(s, entry))


def test_scheduled_heartbeats_are_listed_and_cancelled(app, client) -> None:
    alice = register(client, "alice")
    ai = alice.create_ai_user(name="小梦")
    assert alice.get(f"/api/heartbeat/scheduled/{ai['id']}").json() == {"ai_user_id": ai["id"], "scheduled": []}
    schedule(app, alice, ai["id"], 21, 30, "提醒喝水")
    schedule(app, alice, ai["id"], 9, 0, "叫你起床")
    listed = alice.get(f"/api/heartbeat/scheduled/{ai['id']}").json()["scheduled"]
    assert [(s["hour"], s["minute"], s["message_template"]) for s in listed] == [
        (9, 0, "叫你起床"),
        (21, 30, "提醒喝水"),
    ]

    cancelled = alice.delete(f"/api/heartbeat/scheduled/{ai['id']}/9/0")
    assert cancelled.status_code == 200, cancelled.text
    assert [s["hour"] for s in cancelled.json()["scheduled"]] == [21]
    assert [s["hour"] for s in alice.get(f"/api/heartbeat/scheduled/{ai['id']}").json()["scheduled"]] == [21]
    status = alice.get("/api/heartbeat/status").json()["ai_users"][0]
    assert [s["hour"] for s in status["scheduled"]] == [21]

    gone = alice.delete(f"/api/heartbeat/scheduled/{ai['id']}/9/0")
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "not_found"
    assert alice.delete(f"/api/heartbeat/scheduled/{ai['id']}/24/0").status_code == 422
    assert alice.delete(f"/api/heartbeat/scheduled/{ai['id']}/9/60").status_code == 422
    assert alice.delete(f"/api/heartbeat/scheduled/{ai['id']}/nine/0").status_code == 422
    assert client.get(f"/api/heartbeat/scheduled/{ai['id']}").status_code == 401


def test_another_accounts_scheduled_heartbeats_are_not_found(app, client) -> None:
    alice = register(client, "alice")
    bob = register(client, "bob")
    ai = alice.create_ai_user(name="小梦", visibility="public")
    schedule(app, alice, ai["id"], 9, 0, "叫你起床")
    # bob sees the public AI user but has no pair with it: neither alice's list nor a cancel
    assert bob.get(f"/api/heartbeat/scheduled/{ai['id']}").status_code == 404
    assert bob.delete(f"/api/heartbeat/scheduled/{ai['id']}/9/0").status_code == 404
    # once friends, bob's pair is his own: empty, and cancelling alice's time is a 404
    assert bob.post(f"/api/friends/{ai['id']}").status_code == 201
    assert bob.get(f"/api/heartbeat/scheduled/{ai['id']}").json()["scheduled"] == []
    assert bob.delete(f"/api/heartbeat/scheduled/{ai['id']}/9/0").status_code == 404
    assert [s["hour"] for s in alice.get(f"/api/heartbeat/scheduled/{ai['id']}").json()["scheduled"]] == [9]


def test_pin_and_mute_are_kept_per_friend(client) -> None:
    alice = register(client, "alice")
    first = alice.create_ai_user(name="甲")
    second = alice.create_ai_user(name="乙")
    changed = alice.client.patch(f"/api/friends/{first['id']}", headers=alice.headers, json={"pinned": True})
    assert changed.status_code == 200, changed.text
    assert changed.json() == {"ai_user_id": first["id"], "pinned": True, "muted": False}
    alice.client.patch(f"/api/friends/{second['id']}", headers=alice.headers, json={"muted": True})
    alice.client.patch(f"/api/friends/{first['id']}", headers=alice.headers, json={})  # nothing changes
    friends = {f["name"]: (f["pinned"], f["muted"]) for f in alice.get("/api/friends").json()["friends"]}
    assert friends == {"甲": (True, False), "乙": (False, True)}
    # reading keeps the settings
    alice.post(f"/api/ai-users/{first['id']}/save-message", json={"content": "在吗"})
    alice.get(f"/api/ai-users/{first['id']}/messages")
    assert next(f for f in alice.get("/api/friends").json()["friends"] if f["name"] == "甲")["pinned"] is True
    bad = alice.client.patch(f"/api/friends/{first['id']}", headers=alice.headers, json={"pinned": "yes please"})
    assert bad.status_code == 422
    assert alice.client.patch(f"/api/friends/{first['id']}", headers=alice.headers, json={"spam": 1}).status_code == 422


def test_another_account_cannot_pin_or_mute_for_someone_else(client) -> None:
    alice = register(client, "alice")
    bob = register(client, "bob")
    private = alice.create_ai_user(name="甲")
    public = alice.create_ai_user(name="乙", visibility="public")
    assert (
        bob.client.patch(f"/api/friends/{private['id']}", headers=bob.headers, json={"muted": True}).status_code == 404
    )
    assert (
        bob.client.patch(f"/api/friends/{public['id']}", headers=bob.headers, json={"muted": True}).status_code == 404
    )
    assert all(not f["muted"] for f in alice.get("/api/friends").json()["friends"])
    assert bob.client.patch(f"/api/friends/{public['id']}", json={"muted": True}).status_code == 401


@pytest.fixture
def chat_client(runtime, fake_llm, tmp_path) -> Iterator[TestClient]:  # noqa: F811
    settings = Settings(
        data_dir=tmp_path,
        run_scheduler=False,
        llm_base_url=fake_llm.base_url,
        llm_api_key="test-key",
        llm_timeout_seconds=2,
        llm_max_retries=0,
        reply_decision="model",
    )
    with TestClient(create_app(settings, dataclasses.replace(runtime, settings=settings))) as test_client:
        yield test_client


def after_a_failed_turn(client: TestClient, fake_llm) -> tuple[Person, dict, dict]:
    """Alice, her AI user, and her message whose turn failed (the model answered 500)."""
    alice = register(client, "alice")
    ai = alice.create_ai_user(name="小梦")
    fake_llm.script("deepseek-chat", Reply.error(500))
    alice.post(f"/api/ai-users/{ai['id']}/chat", json={"content": "在吗"})
    return alice, ai, alice.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"][-1]


@pytest.mark.every_store
def test_a_failed_turn_is_answered_again_without_storing_the_message_twice(chat_client, fake_llm) -> None:
    alice = register(chat_client, "alice")
    ai = alice.create_ai_user(name="小梦")
    fake_llm.script("deepseek-chat", Reply.error(500))
    failed = parse_sse(alice.post(f"/api/ai-users/{ai['id']}/chat", json={"content": "在吗"}).text)
    assert failed[-1][0] == "error"
    [stored] = alice.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"]

    fake_llm.script("deepseek-chat", Reply.text("在的在的"))
    retried = alice.post(f"/api/ai-users/{ai['id']}/messages/{stored['id']}/retry")
    assert retried.status_code == 200, retried.text
    events = parse_sse(retried.text)
    assert [data["content"] for name, data in events if name == "message"] == ["在的在的"]
    assert events[-1][0] == "done"
    history = alice.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"]
    assert [(m["role"], m["content"]) for m in history] == [("user", "在吗"), ("assistant", "在的在的")]

    # answered now: a second retry is a conflict, not a second answer
    again = alice.post(f"/api/ai-users/{ai['id']}/messages/{stored['id']}/retry")
    assert again.status_code == 409 and again.json()["error"]["code"] == "conflict"
    assert alice.post(f"/api/ai-users/{ai['id']}/messages/msg_nope/retry").status_code == 404
    assert chat_client.post(f"/api/ai-users/{ai['id']}/messages/{stored['id']}/retry").status_code == 401


def test_another_account_cannot_retry_someone_elses_turn(chat_client, fake_llm) -> None:
    alice = register(chat_client, "alice")
    bob = register(chat_client, "bob")
    ai = alice.create_ai_user(name="小梦", visibility="public")
    fake_llm.script("deepseek-chat", Reply.error(500))
    alice.post(f"/api/ai-users/{ai['id']}/chat", json={"content": "在吗"})
    [stored] = alice.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"]
    assert bob.post(f"/api/ai-users/{ai['id']}/messages/{stored['id']}/retry").status_code == 404
    bob.post(f"/api/friends/{ai['id']}")
    assert bob.post(f"/api/ai-users/{ai['id']}/messages/{stored['id']}/retry").status_code == 404
    assert len(alice.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"]) == 1


def test_a_message_is_deleted_from_the_chat_and_short_term_memory(client) -> None:
    alice = register(client, "alice")
    bob = register(client, "bob")
    ai = alice.create_ai_user(name="小梦", visibility="public")
    for text in ("第一句", "说错了的话", "第三句"):
        assert alice.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": text}).status_code == 201
    stored = alice.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"]
    wrong = stored[1]["id"]
    bob.post(f"/api/friends/{ai['id']}")
    assert bob.delete(f"/api/ai-users/{ai['id']}/messages/{wrong}").status_code == 404
    deleted = alice.delete(f"/api/ai-users/{ai['id']}/messages/{wrong}")
    assert deleted.status_code == 200 and deleted.json() == {"deleted": wrong}
    assert [m["content"] for m in alice.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"]] == [
        "第一句",
        "第三句",
    ]
    short = alice.get(f"/api/memory/{ai['id']}/files").json()["short_term"]
    assert wrong not in short["message_ids"] and len(short["message_ids"]) == 2
    assert alice.delete(f"/api/ai-users/{ai['id']}/messages/{wrong}").status_code == 404
    assert client.delete(f"/api/ai-users/{ai['id']}/messages/{wrong}").status_code == 401


def test_a_greeting_is_stored_once_when_the_chat_is_first_opened(client) -> None:
    alice = register(client, "alice")
    bob = register(client, "bob")
    ai = alice.create_ai_user(name="小梦", greeting="嗨，我是小梦，今天过得怎么样？", visibility="public")
    assert ai["greeting"] == "嗨，我是小梦，今天过得怎么样？"
    first = alice.post(f"/api/ai-users/{ai['id']}/greet").json()["message"]
    assert (first["role"], first["kind"], first["content"]) == ("assistant", "greeting", ai["greeting"])
    assert alice.post(f"/api/ai-users/{ai['id']}/greet").json() == {"message": None}
    assert [m["content"] for m in alice.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"]] == [
        ai["greeting"]
    ]
    # bob's own pair gets its own greeting, once he is a friend
    assert bob.post(f"/api/ai-users/{ai['id']}/greet").status_code == 404
    bob.post(f"/api/friends/{ai['id']}")
    assert bob.post(f"/api/ai-users/{ai['id']}/greet").json()["message"]["content"] == ai["greeting"]
    # editable; too long is refused
    assert alice.put(f"/api/ai-users/{ai['id']}", json={"greeting": "新的开场白"}).json()["greeting"] == "新的开场白"
    assert alice.put(f"/api/ai-users/{ai['id']}", json={"greeting": "长" * 501}).status_code == 422
    # no greeting: nothing stored
    quiet = alice.create_ai_user(name="安静")
    assert alice.post(f"/api/ai-users/{quiet['id']}/greet").json() == {"message": None}


def test_about_me_is_the_callers_own(client) -> None:
    alice = register(client, "alice")
    bob = register(client, "bob")
    # the profile also carries the person's time zone (null: each AI user's own)
    assert alice.get("/api/profile").json() == {"about_me": "", "timezone": None, "nickname": None}
    assert alice.put("/api/profile", json={"about_me": " 我叫小林 "}).json() == {
        "about_me": "我叫小林",
        "timezone": None,
        "nickname": None,
    }
    assert alice.get("/api/profile").json() == {"about_me": "我叫小林", "timezone": None, "nickname": None}
    assert bob.get("/api/profile").json() == {"about_me": "", "timezone": None, "nickname": None}
    assert alice.put("/api/profile", json={"about_me": "长" * 1001}).status_code == 422
    assert alice.put("/api/profile", json={}).status_code == 422
    assert client.get("/api/profile").status_code == 401


@pytest.mark.every_store
def test_two_tabs_opening_a_new_chat_at_once_store_the_greeting_once(client) -> None:
    alice = register(client, "alice")
    ai = alice.create_ai_user(name="小梦", greeting="嗨，我是小梦")
    start = threading.Barrier(6)

    def open_chat(_: int) -> dict:
        start.wait()
        return alice.post(f"/api/ai-users/{ai['id']}/greet").json()

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(open_chat, range(6)))
    assert sum(answer["message"] is not None for answer in answers) == 1
    assert [m["content"] for m in alice.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"]] == [
        "嗨，我是小梦"
    ]


@pytest.mark.every_store
def test_two_retries_at_once_answer_once(chat_client, fake_llm) -> None:
    alice, ai, stored = after_a_failed_turn(chat_client, fake_llm)
    fake_llm.script("deepseek-chat", Reply.slow(0.5, "在的"), Reply.slow(0.5, "在的在的"))
    start = threading.Barrier(2)

    def retry(_: int) -> int:
        start.wait()
        return alice.post(f"/api/ai-users/{ai['id']}/messages/{stored['id']}/retry").status_code

    with ThreadPoolExecutor(2) as pool:
        statuses = sorted(pool.map(retry, range(2)))
    assert statuses == [200, 409]
    history = alice.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"]
    assert [m["role"] for m in history] == ["user", "assistant"]


def test_a_retry_while_the_messages_own_turn_may_still_run_is_a_409(chat_client, fake_llm, runtime) -> None:  # noqa: F811
    """A phone that lost the stream shows 重试 while the server still answers: no second answer."""
    alice = register(chat_client, "alice")
    ai = alice.create_ai_user(name="小梦")
    alice.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": "在吗"})
    [stored] = alice.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"]
    retry = f"/api/ai-users/{ai['id']}/messages/{stored['id']}/retry"
    refused = alice.post(retry)
    assert refused.status_code == 409 and "still being answered" in refused.json()["error"]["message"]
    runtime.clock.advance(seconds=runtime.settings.chat_turn_seconds + 10)  # no turn runs that long
    fake_llm.script("deepseek-chat", Reply.text("在的"))
    assert alice.post(retry).status_code == 200


def test_history_names_the_message_a_reload_can_retry(chat_client, fake_llm, runtime) -> None:  # noqa: F811
    """A page reloaded after a failed turn still offers 重试: history names the unanswered message."""
    alice, ai, person = after_a_failed_turn(chat_client, fake_llm)
    history = f"/api/ai-users/{ai['id']}/messages"
    body = alice.get(history).json()
    assert body["retry_message_id"] == person["id"] == body["messages"][-1]["id"]
    assert alice.get(f"{history}?before={body['messages'][-1]['id']}").json()["retry_message_id"] is None

    fake_llm.script("deepseek-chat", Reply.text("在的"))
    assert alice.post(f"/api/ai-users/{ai['id']}/messages/{body['retry_message_id']}/retry").status_code == 200
    assert alice.get(history).json()["retry_message_id"] is None  # answered

    # saved without a turn: not while a turn could still be answering it, then yes
    alice.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": "睡了吗"})
    assert alice.get(history).json()["retry_message_id"] is None
    runtime.clock.advance(seconds=runtime.settings.chat_turn_seconds + 10)
    body = alice.get(history).json()
    assert body["retry_message_id"] == body["messages"][-1]["id"]
    assert alice.get(f"{history}?after={body['messages'][0]['id']}&limit=1").json()["retry_message_id"] is None


def test_a_message_read_without_a_reply_is_not_offered_for_retry(chat_client, fake_llm, runtime) -> None:  # noqa: F811
    alice = register(chat_client, "alice")
    ai = alice.create_ai_user(name="小梦")
    fake_llm.script("deepseek-chat", Reply.text(""))  # the model chose to read without replying
    alice.post(f"/api/ai-users/{ai['id']}/chat", json={"content": "嗯"})
    runtime.clock.advance(seconds=runtime.settings.chat_turn_seconds + 10)
    body = alice.get(f"/api/ai-users/{ai['id']}/messages").json()
    assert body["messages"][-1]["read_no_reply"] is True
    assert body["retry_message_id"] is None


def test_a_compression_asked_for_is_counted_in_the_quality_figures(chat_client, fake_llm) -> None:
    """POST /api/memory/{id}/compress compresses as an ended topic does: its ratio is in `quality`."""
    alice = register(chat_client, "alice")
    ai = alice.create_ai_user(name="小梦")
    alice.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": "今天面试通过了，晚上去吃火锅庆祝一下"})
    [mid] = alice.post(f"/api/memory/{ai['id']}/compress").json()["mid_term"]
    ratio = alice.get(f"/api/memory/{ai['id']}").json()["quality"]["compression_ratio"]
    assert ratio["runs"] == 1 and ratio["value"] == pytest.approx(mid["compression_ratio"], abs=1e-3)


def test_history_does_not_offer_a_retry_that_would_be_refused(chat_client, fake_llm, runtime) -> None:  # noqa: F811
    """Found by an attack: a retry answered the message, the person deleted the answer, and history
    offered 重试 on a message whose retry is refused (its lease is done)."""
    alice, ai, person = after_a_failed_turn(chat_client, fake_llm)
    history = f"/api/ai-users/{ai['id']}/messages"
    retry = f"/api/ai-users/{ai['id']}/messages/{person['id']}/retry"
    fake_llm.script("deepseek-chat", Reply.text("在的"))
    assert alice.post(retry).status_code == 200
    for reply in [m for m in alice.get(history).json()["messages"] if m["role"] == "assistant"]:
        assert alice.delete(f"/api/ai-users/{ai['id']}/messages/{reply['id']}").status_code == 200
    runtime.clock.advance(seconds=runtime.settings.chat_turn_seconds + 10)

    offered = alice.get(history).json()["retry_message_id"]
    assert alice.post(retry).status_code == 409
    assert offered is None


def test_history_does_not_offer_a_retry_whose_attempts_are_used_up(chat_client, fake_llm, runtime) -> None:  # noqa: F811
    alice, ai, person = after_a_failed_turn(chat_client, fake_llm)
    history = f"/api/ai-users/{ai['id']}/messages"
    services = chat_client.app.state.services
    pk, sk = keys.answering(services.ai_users.pair(alice.id, ai["id"]), person["id"])
    found = services.runtime.store.get(pk, sk)  # as a thousand failed retries leave it
    services.runtime.store.put({**found, "attempts": RETRIES_PER_MESSAGE, "version": found["version"] + 1})
    runtime.clock.advance(seconds=runtime.settings.chat_turn_seconds + 10)

    offered = alice.get(history).json()["retry_message_id"]
    assert alice.post(f"/api/ai-users/{ai['id']}/messages/{person['id']}/retry").status_code == 409
    assert offered is None
