"""The store every service writes through: each write to an erasable owner checks its tombstone.

Deleting an account, an AI user or a pair's memories first leaves a tombstone for it. Every
later write to that owner's partitions carries a condition that the tombstone is absent, in the
same transaction (this wrapper adds it to every write, so no call site can forget it), so a chat
turn or a compression that was running during the erase writes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dreamchat import keys
from dreamchat.errors import NotFound
from dreamchat.ports import Check, ConditionFailed, Item, ItemStore, Operation, Put, StoreError


class Gone(StoreError, NotFound):
    """The data this write belongs to was erased; nothing was written."""


class TombstoneGuard:
    """An ItemStore whose every write to an erasable owner checks the owner's tombstone."""

    def __init__(self, inner: ItemStore) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:  # get, query, query_due, delete, close: unchanged
        return getattr(self.inner, name)

    def put(self, item: Item) -> None:
        self.transact([Put(item)])

    def put_if_absent(self, item: Item) -> bool:
        try:
            self.transact([Put(item, if_absent=True)])
        except Gone:
            raise
        except ConditionFailed:
            return False
        return True

    def put_versioned(self, item: Item, expected_version: int | None) -> int:
        new_version = (expected_version or 0) + 1
        self.transact([Put({**item, "version": new_version}, expected_version=expected_version or 0)])
        return new_version

    def transact(self, operations: Sequence[Operation]) -> None:
        checks = _checks(operations)
        if not checks:
            self.inner.transact(operations)
            return
        try:
            self.inner.transact([*operations, *checks])
        except ConditionFailed as error:
            if any(self.inner.get(check.pk, check.sk) for check in checks):
                raise Gone("this data was deleted") from error
            raise


def _checks(operations: Sequence[Operation]) -> list[Check]:
    owners = {keys.owner_pk(op.item["pk"]) for op in operations if isinstance(op, Put)}
    return [Check(*keys.tombstone(owner)) for owner in sorted(o for o in owners if o)]
