"""Pin, mute and the read mark against each other and against an unfriend (each lost a write before).

The friendship item was read, changed and written back whole, so whatever landed in between was
undone: a pin lost, a read mark moved back, or an unfriended friendship written back to life. Each
test lands the racing write just before the other's write, after whatever it read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from dreamchat import keys
from dreamchat.ports import Put
from dreamchat.services.container import Services
from dreamchat.services.storage.unit_of_work import Storage

pytestmark = pytest.mark.every_store

ACCOUNT = "acc_friend_races"


class WriteBefore:
    """The store, with `action` run just before a write to the friendship (the first one, or every
    one): whatever the writer read and re-checked before, `action` lands between that and its write."""

    def __init__(self, inner: Any, key: tuple[str, str], action: Callable[[], object], every: bool) -> None:
        self._inner, self._key, self._action, self._every = inner, key, action, every

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def _before(self, items: list[dict[str, Any]]) -> None:
        if self._action is not None and any((i["pk"], i["sk"]) == self._key for i in items):
            action = self._action
            self._action = None  # the action's own writes go straight through
            action()
            self._action = action if self._every else None

    def put(self, item: dict[str, Any]) -> None:
        self._before([item])
        self._inner.put(item)

    def put_versioned(self, item: dict[str, Any], expected_version: int | None) -> int:
        self._before([item])
        return self._inner.put_versioned(item, expected_version)

    def transact(self, operations: list[Any]) -> None:
        self._before([op.item for op in operations if isinstance(op, Put)])
        self._inner.transact(operations)


def race(
    services: Services,
    ai_user_id: str,
    first: Callable[[], object],
    between: Callable[[], object],
    *,
    every: bool = False,
) -> None:
    """Run `first` with `between` landing just before first's write of the friendship (every write)."""
    ai_users = services.ai_users
    real = ai_users._storage
    ai_users._storage = Storage(WriteBefore(real.store, keys.friend(ACCOUNT, ai_user_id), between, every))
    try:
        first()
    finally:
        ai_users._storage = real


def befriended(services: Services) -> str:
    ai_user = services.ai_users.create("acc_owner", {"name": "小梦", "visibility": "public"})
    services.ai_users.befriend(ACCOUNT, ai_user.id)
    return ai_user.id


def friendship(services: Services, ai_user_id: str) -> dict[str, Any] | None:
    return next((f for a, f in services.friend_lists.friends(ACCOUNT) if a.id == ai_user_id), None)


def test_a_pin_landing_during_a_read_mark_is_kept(offline_services: Services) -> None:
    ai_user_id = befriended(offline_services)
    ai_users = offline_services.ai_users
    race(
        offline_services,
        ai_user_id,
        lambda: ai_users.mark_read(ACCOUNT, ai_user_id, "msg_0002"),
        lambda: ai_users.set_friendship(ACCOUNT, ai_user_id, {"pinned": True}),
    )
    found = friendship(offline_services, ai_user_id)
    assert found is not None and found["pinned"] is True and found["last_read"] == "msg_0002"


def test_a_read_mark_landing_during_a_mute_is_kept(offline_services: Services) -> None:
    ai_user_id = befriended(offline_services)
    ai_users = offline_services.ai_users
    race(
        offline_services,
        ai_user_id,
        lambda: ai_users.set_friendship(ACCOUNT, ai_user_id, {"muted": True}),
        lambda: ai_users.mark_read(ACCOUNT, ai_user_id, "msg_0005"),
    )
    found = friendship(offline_services, ai_user_id)
    assert found is not None and found["muted"] is True and found["last_read"] == "msg_0005"


def test_the_read_mark_never_moves_back(offline_services: Services) -> None:
    ai_user_id = befriended(offline_services)
    ai_users = offline_services.ai_users
    race(
        offline_services,
        ai_user_id,
        lambda: ai_users.mark_read(ACCOUNT, ai_user_id, "msg_0003"),
        lambda: ai_users.mark_read(ACCOUNT, ai_user_id, "msg_0009"),
    )
    found = friendship(offline_services, ai_user_id)
    assert found is not None and found["last_read"] == "msg_0009"


def test_a_read_mark_racing_an_unfriend_does_not_bring_the_friendship_back(offline_services: Services) -> None:
    ai_user_id = befriended(offline_services)
    ai_users = offline_services.ai_users
    race(
        offline_services,
        ai_user_id,
        lambda: ai_users.mark_read(ACCOUNT, ai_user_id, "msg_0004"),
        lambda: ai_users.unfriend(ACCOUNT, ai_user_id, forget=False),
    )
    assert friendship(offline_services, ai_user_id) is None
    assert offline_services.runtime.store.get(*keys.friend(ACCOUNT, ai_user_id)) is None


def test_a_friendship_stored_before_versions_is_changed_and_gets_one(offline_services: Services) -> None:
    ai_user_id = befriended(offline_services)
    store = offline_services.runtime.store
    stored = store.get(*keys.friend(ACCOUNT, ai_user_id))
    store.put({k: v for k, v in stored.items() if k != "version"})  # as the previous release wrote it
    offline_services.ai_users.set_friendship(ACCOUNT, ai_user_id, {"pinned": True})
    offline_services.ai_users.mark_read(ACCOUNT, ai_user_id, "msg_0001")
    after = store.get(*keys.friend(ACCOUNT, ai_user_id))
    assert after["pinned"] is True and after["last_read"] == "msg_0001" and "version" in after


def without_version(services: Services, ai_user_id: str) -> None:
    store = services.runtime.store
    stored = store.get(*keys.friend(ACCOUNT, ai_user_id))
    store.put({k: v for k, v in stored.items() if k != "version"})  # as the previous release wrote it


def test_an_unfriend_racing_the_first_versioned_write_of_an_old_item_is_not_undone(offline_services: Services) -> None:
    """Found by an attack: the first write to an item without a version was a plain put after a re-read."""
    ai_user_id = befriended(offline_services)
    without_version(offline_services, ai_user_id)
    ai_users = offline_services.ai_users
    race(
        offline_services,
        ai_user_id,
        lambda: ai_users.mark_read(ACCOUNT, ai_user_id, "msg_0004"),
        lambda: ai_users.unfriend(ACCOUNT, ai_user_id, forget=False),
    )
    assert offline_services.runtime.store.get(*keys.friend(ACCOUNT, ai_user_id)) is None


def test_a_pin_racing_the_first_versioned_write_of_an_old_item_is_kept(offline_services: Services) -> None:
    ai_user_id = befriended(offline_services)
    without_version(offline_services, ai_user_id)
    ai_users = offline_services.ai_users
    race(
        offline_services,
        ai_user_id,
        lambda: ai_users.mark_read(ACCOUNT, ai_user_id, "msg_0004"),
        lambda: ai_users.set_friendship(ACCOUNT, ai_user_id, {"pinned": True}),
    )
    found = friendship(offline_services, ai_user_id)
    assert found is not None and found["pinned"] is True and found["last_read"] == "msg_0004"


def test_a_write_from_an_unfriended_friendship_never_lands_on_the_next(offline_services: Services, clock) -> None:
    """Found by an attack: every friendship started at version 1, so a write computed from the old one
    passed the version check on the new one and brought back its pin and its `since`."""
    ai_user_id = befriended(offline_services)
    ai_users = offline_services.ai_users
    ai_users.set_friendship(ACCOUNT, ai_user_id, {"pinned": True})
    old_since = friendship(offline_services, ai_user_id)["since"]

    def unfriend_and_befriend_again() -> None:
        ai_users.unfriend(ACCOUNT, ai_user_id, forget=True)
        clock.advance(hours=1)
        ai_users.befriend(ACCOUNT, ai_user_id)
        ai_users.set_friendship(ACCOUNT, ai_user_id, {"pinned": False})  # the new one's versions go on too

    race(
        offline_services,
        ai_user_id,
        lambda: ai_users.set_friendship(ACCOUNT, ai_user_id, {"muted": True}),  # computed from the old item
        unfriend_and_befriend_again,
    )
    found = friendship(offline_services, ai_user_id)
    assert found is not None and found["since"] != old_since
    assert found["pinned"] is False  # the old friendship's pin stays with it
    assert found["muted"] is True  # the mute, retried on the new friendship, lands there


def test_a_read_mark_that_keeps_losing_its_race_is_skipped_not_an_error(offline_services: Services) -> None:
    """Reading the chat must not fail because pins and marks kept landing: the next read marks it."""
    ai_user_id = befriended(offline_services)
    ai_users = offline_services.ai_users
    store = offline_services.runtime.store
    pins = iter(range(100))

    def a_pin_lands() -> None:
        found = store.get(*keys.friend(ACCOUNT, ai_user_id))
        store.put({**found, "pinned": next(pins) % 2 == 0, "version": found["version"] + 1})

    race(
        offline_services,
        ai_user_id,
        lambda: ai_users.mark_read(ACCOUNT, ai_user_id, "msg_0001"),
        a_pin_lands,
        every=True,
    )
    assert friendship(offline_services, ai_user_id)["last_read"] is None
