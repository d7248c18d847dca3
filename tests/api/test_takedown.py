"""A takedown through the API: the AI user is private at once, its friendships end as `taken_down`, every
memory is kept (and exportable), its owner sees why and cannot make it public until an operator restores
it; a takedown racing a chat turn or the owner's own change."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dreamchat import keys
from dreamchat.domain.models import PairId
from dreamchat.services.storage.unit_of_work import Storage
from tests.api.conftest import Person, register
from tests.api.sse import parse_sse
from tests.api.test_chat import CHAT_MODEL
from tests.api.test_reports import NOTE, WriteBefore, befriended, reported, say
from tests.fakes.fake_llm import Reply


def take_down(ops: Person, report_id: str, note: str = NOTE) -> dict:
    response = ops.post(f"/api/admin/reports/{report_id}/resolve", json={"action": "takedown", "note": note})
    assert response.status_code == 200, response.text
    return response.json()


@pytest.fixture
def public(alice) -> dict:
    return alice.create_ai_user(name="公开的", visibility="public")


@pytest.fixture
def friend(bob, public) -> dict:
    befriended(bob, public)
    return public


def test_a_takedown_ends_every_friendship_as_taken_down_and_hides_the_ai_user(clock, ops, alice, bob, friend) -> None:
    say(bob, friend["id"], "今天好开心")
    assert bob.get(f"/api/ai-users/{friend['id']}").json()["moderation"] is None
    resolved = take_down(ops, reported(bob, friend["id"])["id"])
    assert (resolved["status"], resolved["action"]) == ("resolved", "takedown")

    assert bob.get("/api/friends").json() == {
        "friends": [],
        "ended": [{"ai_user_id": friend["id"], "name": "公开的", "reason": "taken_down"}],  # which friend, and why
    }
    assert bob.get(f"/api/ai-users/{friend['id']}").status_code == 404
    assert bob.post(f"/api/ai-users/{friend['id']}/chat", json={"content": "在吗"}).status_code == 404
    assert bob.post(f"/api/friends/{friend['id']}").status_code == 404  # nobody befriends it again
    assert friend["id"] not in [
        a["id"] for a in bob.get("/api/ai-users", params={"scope": "public"}).json()["ai_users"]
    ]
    assert report_again(bob, friend["id"]).status_code == 404
    assert [r["status"] for r in bob.get("/api/reports").json()["reports"]] == ["resolved"]


def report_again(person: Person, ai_id: str) -> Any:
    return person.post("/api/reports", json={"kind": "ai_user", "ai_user_id": ai_id, "reason": "再举报"})


def test_the_owner_sees_why_and_cannot_make_it_public_until_an_operator_restores_it(
    clock, ops, alice, bob, public
) -> None:
    made = reported(bob, public["id"])
    clock.advance(minutes=5)
    take_down(ops, made["id"])
    mine = alice.get(f"/api/ai-users/{public['id']}").json()
    at = made["created_at"] + 300
    assert mine["visibility"] == "private"
    assert mine["moderation"] == {"status": "taken_down", "note": NOTE, "at": at}
    assert [a["moderation"] for a in alice.get("/api/ai-users").json()["ai_users"]] == [mine["moderation"]]

    refused = alice.put(f"/api/ai-users/{public['id']}", json={"visibility": "public"})
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "forbidden"
    assert NOTE in refused.json()["error"]["message"]
    renamed = alice.put(f"/api/ai-users/{public['id']}", json={"name": "改过的", "visibility": "private"})
    assert renamed.status_code == 200 and renamed.json()["moderation"]["note"] == NOTE
    assert bob.get(f"/api/ai-users/{public['id']}").status_code == 404

    restored = ops.post(f"/api/admin/ai-users/{public['id']}/restore")
    assert restored.json() == {"ai_user_id": public["id"], "visibility": "public", "moderation": None}
    assert alice.get(f"/api/ai-users/{public['id']}").json()["moderation"] is None
    assert bob.get(f"/api/ai-users/{public['id']}").json()["name"] == "改过的"


def test_a_restore_brings_the_friendship_back_with_its_memory(ops, bob, friend) -> None:
    say(bob, friend["id"], "记得我喜欢猫")
    take_down(ops, reported(bob, friend["id"])["id"])
    assert ops.post(f"/api/admin/ai-users/{friend['id']}/restore").status_code == 200
    listed = bob.get("/api/friends").json()
    assert [f["id"] for f in listed["friends"]] == [friend["id"]] and listed["ended"] == []
    messages = bob.get(f"/api/ai-users/{friend['id']}/messages").json()["messages"]
    assert [m["content"] for m in messages] == ["记得我喜欢猫"]


def test_restoring_what_is_not_taken_down_is_a_409_and_an_unknown_ai_user_a_404(ops, bob, friend) -> None:
    refused = ops.post(f"/api/admin/ai-users/{friend['id']}/restore")
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "conflict"
    take_down(ops, reported(bob, friend["id"])["id"])
    assert ops.post(f"/api/admin/ai-users/{friend['id']}/restore").status_code == 200
    assert ops.post(f"/api/admin/ai-users/{friend['id']}/restore").status_code == 409
    assert ops.post("/api/admin/ai-users/ai_0000000000000000/restore").status_code == 404


def test_a_friend_keeps_their_memory_exports_it_and_may_forget_it(ops, bob, friend) -> None:
    say(bob, friend["id"], "我的秘密是怕黑")
    take_down(ops, reported(bob, friend["id"])["id"])
    assert bob.get(f"/api/memory/{friend['id']}/files").status_code == 404  # the friendship ended
    exported = bob.get(f"/api/memory/{friend['id']}/export")
    assert exported.status_code == 200, exported.text
    document = exported.json()
    assert document["ai_user"]["id"] == friend["id"]
    assert [m["content"] for m in document["messages"]] == ["我的秘密是怕黑"]
    assert bob.get(f"/api/memory/{friend['id']}/export").status_code == 200  # as often as they like

    forgot = bob.delete(f"/api/friends/{friend['id']}", params={"forget": "true"})
    assert forgot.status_code == 200 and forgot.json()["erased"]["items"] > 0
    assert bob.get("/api/friends").json() == {"friends": [], "ended": []}
    assert bob.get(f"/api/memory/{friend['id']}/export").status_code == 404


def test_only_a_friend_exports_a_taken_down_ai_users_memory(client, ops, alice, bob, friend) -> None:
    carol = register(client, "carol")
    take_down(ops, reported(bob, friend["id"])["id"])
    assert carol.get(f"/api/memory/{friend['id']}/export").status_code == 404
    assert alice.get(f"/api/memory/{friend['id']}/export").status_code == 200  # the owner's own pair


def test_one_private_before_the_takedown_stays_private_when_restored(ops, alice, bob, friend) -> None:
    message_id = say(bob, friend["id"], "它说了奇怪的话")
    assert alice.put(f"/api/ai-users/{friend['id']}", json={"visibility": "private"}).status_code == 200
    made = reported(bob, friend["id"], message_id)  # a message of a friendship that ended is still reportable
    take_down(ops, made["id"])
    assert bob.get("/api/friends").json()["ended"] == [
        {"ai_user_id": friend["id"], "name": "公开的", "reason": "taken_down"}
    ]
    restored = ops.post(f"/api/admin/ai-users/{friend['id']}/restore").json()
    assert restored["visibility"] == "private"
    assert bob.get("/api/friends").json()["ended"] == [
        {"ai_user_id": friend["id"], "name": "公开的", "reason": "no_longer_visible"}
    ]


def test_a_second_takedown_keeps_that_it_was_public(ops, bob, friend) -> None:
    first, second = reported(bob, friend["id"]), reported(bob, friend["id"])
    take_down(ops, first["id"])
    take_down(ops, second["id"], note="第二次")
    restored = ops.post(f"/api/admin/ai-users/{friend['id']}/restore").json()
    assert restored["visibility"] == "public"


def racing(services: Any, ai_user_id: str, between: Any) -> Storage:
    """Make `between` land just before the next write of the AI user; returns the real storage."""
    real = services.ai_users._storage
    services.ai_users._storage = Storage(WriteBefore(real.store, keys.ai_user(ai_user_id), between))
    return real


def test_an_owners_change_landing_inside_a_takedown_does_not_undo_it(client, ops, alice, bob, public) -> None:
    services = client.app.state.services
    made = reported(bob, public["id"])
    answers = []
    real = racing(
        services,
        public["id"],
        lambda: answers.append(
            alice.put(f"/api/ai-users/{public['id']}", json={"visibility": "public", "name": "抢先改名"})
        ),
    )
    try:
        take_down(ops, made["id"])
    finally:
        services.ai_users._storage = real
    assert [a.status_code for a in answers] == [200]  # it landed first, the takedown went over it
    mine = alice.get(f"/api/ai-users/{public['id']}").json()
    assert (mine["visibility"], mine["name"], mine["moderation"]["note"]) == ("private", "抢先改名", NOTE)


def test_a_takedown_landing_inside_an_owners_change_makes_it_a_403(client, ops, alice, bob, public) -> None:
    services = client.app.state.services
    made = reported(bob, public["id"])
    real = racing(services, public["id"], lambda: take_down(ops, made["id"]))
    try:
        refused = alice.put(f"/api/ai-users/{public['id']}", json={"visibility": "public", "name": "改名"})
    finally:
        services.ai_users._storage = real
    assert refused.status_code == 403
    mine = alice.get(f"/api/ai-users/{public['id']}").json()
    assert (mine["visibility"], mine["name"], mine["moderation"]["note"]) == ("private", "公开的", NOTE)


def test_a_takedown_and_the_owners_change_at_once_end_private_and_taken_down(client, ops, alice, bob) -> None:
    for n in range(5):
        public = alice.create_ai_user(name=f"公开{n}", visibility="public")
        made = reported(bob, public["id"])
        barrier = threading.Barrier(2)
        answers: dict[str, int] = {}

        def owner(ai_id: str = public["id"], answers: dict[str, int] = answers, barrier: Any = barrier) -> None:
            barrier.wait()
            answers["owner"] = alice.put(
                f"/api/ai-users/{ai_id}", json={"visibility": "public", "name": "新名"}
            ).status_code

        def operator(report_id: str = made["id"], answers: dict[str, int] = answers, barrier: Any = barrier) -> None:
            barrier.wait()
            path = f"/api/admin/reports/{report_id}/resolve"
            answers["operator"] = ops.post(path, json={"action": "takedown", "note": NOTE}).status_code

        threads = [threading.Thread(target=owner), threading.Thread(target=operator)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert answers["operator"] == 200 and answers["owner"] in (200, 403)
        mine = alice.get(f"/api/ai-users/{public['id']}").json()
        assert mine["visibility"] == "private" and mine["moderation"]["note"] == NOTE
        assert mine["name"] == ("新名" if answers["owner"] == 200 else f"公开{n}")


def wait_for(condition: Any, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_a_takedown_racing_a_chat_turn_leaves_nothing_half_written(app, fake_llm) -> None:
    with TestClient(app) as client:
        alice, bob, ops = (register(client, name) for name in ("alice", "bob", "ops"))
        public = alice.create_ai_user(name="公开的", visibility="public")
        befriended(bob, public)
        made = reported(bob, public["id"])
        fake_llm.script(CHAT_MODEL, Reply.slow(1.0, "我在呢\n怎么了"))
        answered: dict[str, Any] = {}

        def turn() -> None:
            answered["response"] = bob.post(f"/api/ai-users/{public['id']}/chat", json={"content": "在吗"})

        thread = threading.Thread(target=turn)
        thread.start()
        wait_for(lambda: fake_llm.requests_for(CHAT_MODEL))  # the model is answering
        take_down(ops, made["id"])
        assert thread.is_alive()  # the takedown landed while the turn was still running
        thread.join(timeout=30)

        response = answered["response"]
        assert response.status_code == 200
        assert parse_sse(response.text)[-1][0] in ("done", "error")
        services = app.state.services
        pair = PairId(account_id=bob.id, ai_user_id=public["id"])
        log = [m for page in services.repo.log.log_pages(pair) for m in page]
        assert [m.content for m in log] in (["在吗"], ["在吗", "我在呢", "怎么了"])
        assert [m.id for m in services.repo.short_term(pair)] == [m.id for m in log]

        assert bob.post(f"/api/ai-users/{public['id']}/chat", json={"content": "还在吗"}).status_code == 404
        ended = [{"ai_user_id": public["id"], "name": "公开的", "reason": "taken_down"}]
        assert bob.get("/api/friends").json()["ended"] == ended
        assert alice.get(f"/api/ai-users/{public['id']}").json()["visibility"] == "private"
