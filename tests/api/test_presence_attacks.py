"""Attacks on presence (issue 35): a call naming an AI user who is not the caller's friend stored a
moment for good (300 calls, 301 items). Now it is 404 and stores nothing (the route's check, before
any write: on the memory store), and every item presence writes expires, on the memory store, SQLite
and DynamoDB alike (the table deletes it by its TTL: tests/contract/test_item_store.py); erasing a
pair erases when its chat was last open, on every store."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from dreamchat import keys
from dreamchat.api.app import create_app
from dreamchat.ports import TTL_ATTRIBUTE
from dreamchat.services.presence import LAST_SEEN_KEPT
from tests.api.conftest import Person, register
from tests.services.conftest import runtime  # noqa: F401 (the fixture: memory, or every store)

CALLS = 300


@pytest.fixture
def client_on(runtime) -> Iterator[TestClient]:  # noqa: F811 (the fixture imported above)
    """The offline app on the runtime's store; logins outlast the clock's jumps."""
    settings = runtime.settings.model_copy(update={"access_token_minutes": 60 * 24 * 365 * 20})
    with TestClient(create_app(settings, dataclasses.replace(runtime, settings=settings))) as client:
        yield client


def account_items(person: Person) -> list[dict]:
    """What the person's account partition holds now (the store's own answer: expired items are absent)."""
    store = person.client.app.state.services.runtime.store  # type: ignore[attr-defined]
    return store.query(keys.account_pk(person.id)).items


def presence_items(person: Person) -> list[dict]:
    return [item for item in account_items(person) if item["sk"].startswith((keys.PRESENCE_PREFIX, "LAST_PRESENT#"))]


def present(person: Person, ai_user_id: str | None, device: str = "phone"):
    return person.post("/api/presence", json={"ai_user_id": ai_user_id, "device": device})


def test_presence_for_an_ai_user_who_is_not_a_friend_is_404_and_stores_nothing(client_on) -> None:
    alice, bob = register(client_on, "alice"), register(client_on, "bob")
    private = bob.create_ai_user(name="小雨")
    public = bob.create_ai_user(name="阿澈", visibility="public")  # visible to alice, not her friend
    before = account_items(alice)
    strangers = [private["id"], public["id"], *(f"ai_{n:016x}" for n in range(CALLS - 2))]
    for n, ai_user_id in enumerate(strangers):
        response = present(alice, ai_user_id, device=f"tab-{n}")
        assert response.status_code == 404, (ai_user_id, response.text)
        assert response.json()["error"]["code"] == "not_found"
    assert account_items(alice) == before


def test_presence_for_a_friend_no_longer_a_friend_is_404(client_on) -> None:
    alice = register(client_on, "alice")
    ai = alice.create_ai_user(name="小梦")
    assert present(alice, ai["id"]).status_code == 200
    assert alice.delete(f"/api/friends/{ai['id']}").status_code == 200
    assert present(alice, ai["id"]).status_code == 404
    assert present(alice, None).status_code == 200  # the chat list is always the caller's own


@pytest.mark.every_store
def test_every_item_presence_writes_expires(client_on, clock) -> None:
    alice = register(client_on, "alice")
    ai = alice.create_ai_user(name="小梦")
    assert present(alice, ai["id"]).status_code == 200
    written = presence_items(alice)
    assert [item["sk"] for item in written] == [f"LAST_PRESENT#{ai['id']}", f"{keys.PRESENCE_PREFIX}phone"]
    now = int(clock.now().timestamp())
    assert all(isinstance(item[TTL_ATTRIBUTE], int) and item[TTL_ATTRIBUTE] > now for item in written)

    seconds = client_on.app.state.services.runtime.settings.presence_seconds  # type: ignore[attr-defined]
    clock.advance(seconds=seconds + 1)
    assert [item["sk"] for item in presence_items(alice)] == [f"LAST_PRESENT#{ai['id']}"]
    clock.advance(seconds=LAST_SEEN_KEPT)  # as long as a timed heartbeat can wait (`LONGEST_WAIT`)
    assert presence_items(alice) == []


@pytest.mark.every_store
def test_forgetting_a_friend_or_deleting_the_ai_user_erases_when_its_chat_was_last_open(client_on) -> None:
    alice = register(client_on, "alice")
    forgotten, deleted = alice.create_ai_user(name="小梦"), alice.create_ai_user(name="小雨")
    for ai in (forgotten, deleted):
        assert present(alice, ai["id"]).status_code == 200
    assert alice.delete(f"/api/friends/{forgotten['id']}", params={"forget": "true"}).status_code == 200
    assert alice.delete(f"/api/ai-users/{deleted['id']}").status_code == 200
    assert [item["sk"] for item in presence_items(alice)] == [f"{keys.PRESENCE_PREFIX}phone"]
