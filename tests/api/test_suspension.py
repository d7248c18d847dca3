"""Suspending an account: no login, no refresh, its live tokens stop at once, its public AI users hide
from everyone (friends see them as ended) and come back when it is lifted, with nothing deleted."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor

import pytest
from fastapi.testclient import TestClient

from dreamchat.adapters.memory_store import MemoryItemStore
from dreamchat.api.app import create_app
from dreamchat.domain.bounds import SUSPENSION_REASON_CHARS
from dreamchat.ports import Operation, Put
from tests.api.conftest import Person, register
from tests.conftest import memory_runtime

REASON = "多次发布违规角色"
PASSWORD = "correct-horse-battery"


def suspend(ops: Person, person: Person, reason: str = REASON):
    return ops.post(f"/api/admin/accounts/{person.id}/suspend", json={"reason": reason})


def lift(ops: Person, person: Person):
    return ops.delete(f"/api/admin/accounts/{person.id}/suspend")


def public_ids(viewer: Person) -> set[str]:
    return {a["id"] for a in viewer.get("/api/ai-users", params={"scope": "public"}).json()["ai_users"]}


def login(person: Person, password: str = PASSWORD):
    return person.client.post("/api/auth/login", json={"username": person.username, "password": password})


def assert_suspended(response) -> None:
    assert response.status_code == 403, response.text
    assert response.json()["error"]["code"] == "account_suspended"
    assert REASON in response.json()["error"]["message"]


def test_a_suspended_accounts_live_token_stops_at_once_with_the_reason(ops, alice) -> None:
    assert alice.get("/api/auth/user").status_code == 200
    answer = suspend(ops, alice)
    assert answer.status_code == 200, answer.text
    suspension = answer.json()["suspension"]
    assert answer.json()["account_id"] == alice.id
    assert suspension["reason"] == REASON and suspension["by"] == ops.id and suspension["at"] > 0
    for response in (alice.get("/api/auth/user"), alice.get("/api/ai-users"), alice.post("/api/ai-users", json={})):
        assert_suspended(response)


def test_a_suspended_account_cannot_log_in_or_refresh(ops, alice) -> None:
    suspend(ops, alice)
    assert_suspended(login(alice))
    refused = alice.client.post("/api/auth/refresh", json={"refresh_token": alice.refresh_token})
    assert_suspended(refused)
    wrong = login(alice, "wrong-password-123")
    assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "unauthorized"
    assert REASON not in wrong.text


def test_a_used_refresh_token_of_a_suspended_account_is_401_without_the_reason(ops, alice) -> None:
    assert alice.client.post("/api/auth/refresh", json={"refresh_token": alice.refresh_token}).status_code == 200
    suspend(ops, alice)
    reused = alice.client.post("/api/auth/refresh", json={"refresh_token": alice.refresh_token})
    assert reused.status_code == 401 and REASON not in reused.text


def test_lifting_lets_the_account_in_again_with_its_old_tokens_too(ops, alice) -> None:
    suspend(ops, alice)
    answer = lift(ops, alice)
    assert answer.status_code == 200 and answer.json() == {"account_id": alice.id, "suspension": None}
    assert alice.get("/api/auth/user").status_code == 200
    assert login(alice).status_code == 200
    assert alice.client.post("/api/auth/refresh", json={"refresh_token": alice.refresh_token}).status_code == 200


def test_its_public_ai_users_hide_from_everyone_and_come_back_with_every_memory(ops, alice, bob) -> None:
    ai = alice.create_ai_user(name="小梦", visibility="public")
    assert bob.post(f"/api/friends/{ai['id']}").status_code == 201
    bob.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": "我们聊聊天吧"})
    assert bob.put(f"/api/memory/{ai['id']}/core", json={"content": "怕黑", "importance": 9}).status_code == 200
    before = bob.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"]
    memory = bob.get(f"/api/memory/{ai['id']}/files").json()

    suspend(ops, alice)
    assert ai["id"] not in public_ids(bob)
    friends = bob.get("/api/friends").json()
    assert friends["friends"] == [] and friends["ended"] == [
        {"ai_user_id": ai["id"], "name": "小梦", "reason": "no_longer_visible"}
    ]
    assert bob.get(f"/api/ai-users/{ai['id']}").status_code == 404
    assert bob.get(f"/api/ai-users/{ai['id']}/messages").status_code == 404
    assert bob.post(f"/api/ai-users/{ai['id']}/chat", json={"content": "在吗"}).status_code == 404

    lift(ops, alice)
    assert ai["id"] in public_ids(bob)
    friends = bob.get("/api/friends").json()
    assert [f["id"] for f in friends["friends"]] == [ai["id"]] and friends["ended"] == []
    assert bob.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"] == before
    assert bob.get(f"/api/memory/{ai['id']}/files").json() == memory
    assert alice.get(f"/api/ai-users/{ai['id']}").json()["visibility"] == "public"


def test_a_private_ai_user_stays_private_after_the_lift(ops, alice, bob) -> None:
    ai = alice.create_ai_user(visibility="private")
    suspend(ops, alice)
    lift(ops, alice)
    assert alice.get(f"/api/ai-users/{ai['id']}").json()["visibility"] == "private"
    assert bob.get(f"/api/ai-users/{ai['id']}").status_code == 404


def test_an_account_without_ai_users_is_suspended_and_lifted(ops, bob) -> None:
    assert suspend(ops, bob).status_code == 200
    assert ops.get(f"/api/admin/accounts/{bob.id}").json()["suspension"]["reason"] == REASON
    assert lift(ops, bob).status_code == 200


def test_an_operator_reads_an_account(ops, alice) -> None:
    answer = ops.get(f"/api/admin/accounts/{alice.id}").json()
    assert set(answer) == {"id", "username", "created_at", "operator", "suspension"}
    assert answer["username"] == "alice" and answer["operator"] is False and answer["suspension"] is None
    assert ops.get(f"/api/admin/accounts/{ops.id}").json()["operator"] is True


def test_an_operator_cannot_suspend_themselves_or_another_operator(client, ops) -> None:
    other = register(client, "ops2")
    for target in (ops, other):
        refused = suspend(ops, target)
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "forbidden"
        assert ops.get(f"/api/admin/accounts/{target.id}").json()["suspension"] is None
    assert other.get("/api/admin/me").status_code == 200


def test_suspending_twice_or_lifting_what_is_not_suspended_is_a_409(ops, alice) -> None:
    assert lift(ops, alice).status_code == 409
    assert suspend(ops, alice).status_code == 200
    again = suspend(ops, alice, "另一个理由")
    assert again.status_code == 409
    assert ops.get(f"/api/admin/accounts/{alice.id}").json()["suspension"]["reason"] == REASON
    assert lift(ops, alice).status_code == 200
    assert lift(ops, alice).status_code == 409


def test_an_unknown_account_is_a_404(ops) -> None:
    assert ops.get("/api/admin/accounts/nobody").status_code == 404
    assert ops.post("/api/admin/accounts/nobody/suspend", json={"reason": REASON}).status_code == 404
    assert ops.delete("/api/admin/accounts/nobody/suspend").status_code == 404


@pytest.mark.parametrize("reason", ["", "   ", "x" * (SUSPENSION_REASON_CHARS + 1)])
def test_a_reason_is_one_to_the_bound_characters(ops, alice, reason) -> None:
    assert suspend(ops, alice, reason).status_code == 422
    assert ops.get(f"/api/admin/accounts/{alice.id}").json()["suspension"] is None


def test_everyone_else_gets_403_and_nothing_changes(client, ops, alice, bob) -> None:
    assert bob.get(f"/api/admin/accounts/{alice.id}").status_code == 403
    assert suspend(bob, alice).status_code == 403
    assert lift(bob, alice).status_code == 403
    assert client.post(f"/api/admin/accounts/{alice.id}/suspend", json={"reason": REASON}).status_code == 401
    assert alice.get("/api/auth/user").status_code == 200


def test_each_suspension_and_lift_is_audited_with_ids_only(ops, alice, clock) -> None:
    alice.create_ai_user(visibility="public")
    suspend(ops, alice)
    clock.advance(seconds=1)
    lift(ops, alice)
    entries = ops.get("/api/admin/audit").json()["entries"]
    assert [(e["action"], e["target"], e["account_id"], e["operator_id"]) for e in entries] == [
        ("account.lift", alice.id, alice.id, ops.id),
        ("account.suspend", alice.id, alice.id, ops.id),
    ]
    assert REASON not in str(entries)


OWNERS_SOUL = "新的性格"


class OwnerWritesLate(MemoryItemStore):
    """The owner's edit of an AI user has read it and is about to write it back: there it waits
    (`about_to_write`) until the suspension has run (`go_on`), as one request can overtake another."""

    def __init__(self, clock) -> None:
        super().__init__(clock)
        self.about_to_write, self.go_on = threading.Event(), threading.Event()

    def transact(self, operations: Sequence[Operation]) -> None:
        owners = [op for op in operations if isinstance(op, Put) and op.item.get("base_soul") == OWNERS_SOUL]
        if owners and not self.about_to_write.is_set():
            self.about_to_write.set()
            assert self.go_on.wait(10)
        super().transact(operations)


@pytest.fixture
def late_store(clock) -> OwnerWritesLate:
    return OwnerWritesLate(clock)


@pytest.fixture
def racy_client(settings, clock, rng, late_store) -> Iterator[TestClient]:
    runtime = dataclasses.replace(memory_runtime(settings, clock, rng), store=late_store)
    with TestClient(create_app(settings, runtime)) as test_client:
        yield test_client


def test_a_suspension_racing_the_owners_edit_ends_with_the_ai_user_hidden(racy_client, late_store) -> None:
    """The owner makes an AI user public; the suspension lands between the edit's read and its write."""
    ops, alice, bob = (register(racy_client, name) for name in ("ops", "alice", "bob"))
    ai = alice.create_ai_user(name="小梦", visibility="private")
    quiet = alice.create_ai_user(name="小雨", visibility="public")

    def edit() -> int:
        return alice.put(
            f"/api/ai-users/{ai['id']}", json={"visibility": "public", "base_soul": OWNERS_SOUL}
        ).status_code

    def suspended() -> int:
        assert late_store.about_to_write.wait(10)
        try:
            return suspend(ops, alice).status_code
        finally:
            late_store.go_on.set()

    with ThreadPoolExecutor(2) as pool:
        edited, suspension = pool.submit(edit), pool.submit(suspended)
        assert (edited.result(), suspension.result()) == (200, 200)
    assert not public_ids(bob) & {ai["id"], quiet["id"]}
    assert bob.get(f"/api/ai-users/{ai['id']}").status_code == 404
    lift(ops, alice)
    assert alice.get(f"/api/ai-users/{ai['id']}").json()["base_soul"] == OWNERS_SOUL
    assert {ai["id"], quiet["id"]} <= public_ids(bob)
