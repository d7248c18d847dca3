"""The starter characters' seeding: each starter stored once, whatever happened to it since left alone, two
starts at once storing it once, and a store out of reach at start-up leaving the app to serve."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from dreamchat.adapters.memory_store import MemoryItemStore
from dreamchat.domain.models import AIUser
from dreamchat.ports import StoreError
from dreamchat.services.starters import Starters, StarterService, shipped
from dreamchat.services.storage.unit_of_work import Storage


def stored(storage: Storage, ai_user_id: str) -> AIUser | None:
    with storage.begin() as uow:
        return uow.ai_users.get(ai_user_id)


def test_each_starter_is_stored_public_under_the_system_account_once(clock) -> None:
    storage = Storage(MemoryItemStore(clock))
    service = StarterService(storage, clock)
    assert service.seed() == len(shipped().characters) == 5
    assert service.seed() == 0
    for character in shipped().characters:
        found = stored(storage, character["id"])
        assert found is not None and found.listed and found.owner_id == shipped().owner_id
        assert (found.name, found.category, found.tags, found.romance) == (
            character["name"],
            character["category"],
            character["tags"],
            False,
        )


def test_a_starter_changed_since_is_never_written_over(clock) -> None:
    storage = Storage(MemoryItemStore(clock))
    StarterService(storage, clock).seed()
    first = shipped().characters[0]["id"]
    with storage.begin() as uow:
        read = uow.ai_users.read(first)
        assert read is not None
        uow.ai_users.save(read.entity.model_copy(update={"visibility": "private", "name": "改过的"}), read)
        uow.commit()
    assert StarterService(storage, clock).seed() == 0
    after = stored(storage, first)
    assert after is not None and (after.name, after.visibility) == ("改过的", "private")


def test_two_starts_at_once_store_each_starter_once(clock) -> None:
    storage = Storage(MemoryItemStore(clock))
    counts: list[int] = []
    barrier = threading.Barrier(2)

    def start() -> None:
        barrier.wait()
        counts.append(StarterService(storage, clock).seed())

    threads = [threading.Thread(target=start) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(counts) == 5


def test_a_starter_that_breaks_the_persona_rule_is_refused(clock) -> None:
    human = {"id": "ai_starter_x", "name": "小人", "greeting": "我是真人，不是 AI", "category": "朋友", "tags": []}
    with pytest.raises(ValueError, match="greeting"):
        StarterService(Storage(MemoryItemStore(clock)), clock, Starters("system", (human,))).seed()


class Unreachable(MemoryItemStore):
    def get(self, *args: Any, **kwargs: Any) -> Any:
        raise StoreError("the table cannot be reached")


def test_a_store_out_of_reach_at_start_up_is_logged_and_the_start_goes_on(clock, caplog) -> None:
    service = StarterService(Storage(Unreachable(clock)), clock)
    with pytest.raises(StoreError):
        service.seed()
    service.on_start()
    assert "starters not seeded: StoreError" in caplog.text
