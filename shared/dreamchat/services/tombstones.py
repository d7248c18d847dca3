"""Erasure that in-flight work cannot undo.

Deleting an account, an AI user or a pair's memories first leaves a tombstone for it. Every
later write to that owner's partitions carries a condition that the tombstone is absent, in
the same transaction (the store wrapper below adds it to every write, so no call site can
forget it), so a chat turn or a compression that was running during the erase writes nothing.
Writes the store cannot condition (blobs) are caught by a second erasure, due once in-flight
work has had time to end.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from dreamchat import keys
from dreamchat.domain.models import PairId
from dreamchat.errors import NotFound
from dreamchat.ports import (
    DUE_PK,
    DUE_SK,
    BlobStore,
    Check,
    Clock,
    ConditionFailed,
    Delete,
    Item,
    ItemStore,
    Operation,
    Put,
    StoreError,
    query_all,
)
from dreamchat.services.due_index import due_pages
from dreamchat.services.pairs import Erased, erase_ai_user_blobs, erase_pair

# Longer than a chat turn (model timeout x retries x tool rounds) or a background step can run.
ERASE_AGAIN_AFTER = timedelta(minutes=15)
KEEP_TOMBSTONE = timedelta(days=30)


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


class Erasures:
    def __init__(self, store: ItemStore, blobs: BlobStore, clock: Clock) -> None:
        self._store = store
        self._blobs = blobs
        self._clock = clock

    def mark(self, owner: str) -> None:
        """Leave the tombstone (before erasing); the erasure runs again after ERASE_AGAIN_AFTER."""
        pk, sk = keys.tombstone(owner)
        now = self._clock.now()
        again = keys.due_time(now + ERASE_AGAIN_AFTER)
        self._store.put(
            {
                "pk": pk,
                "sk": sk,
                "owner": owner,
                "expires_at": int((now + KEEP_TOMBSTONE).timestamp()),
                DUE_PK: keys.due_partition(keys.ERASE_DUE, 0),
                DUE_SK: keys.due_sort(again, pk),
            }
        )

    def mark_pair(self, pair: PairId) -> None:
        self.mark(keys.pair_pk(pair))

    def lift_pair(self, pair: PairId) -> None:
        """A pair started afresh (befriended again after its memories were erased)."""
        self._store.delete(*keys.tombstone(keys.pair_pk(pair)))

    def erase_again(self) -> Erased:
        """The second erasure of every owner whose tombstone is due; each runs once."""
        erased = Erased(0, 0)
        for page in due_pages(self._store, keys.ERASE_DUE, keys.due_until(self._clock.now()), shards=1):
            for tombstone in page.items:
                erased += self._erase(tombstone["owner"])
                self._store.put({k: v for k, v in tombstone.items() if k not in (DUE_PK, DUE_SK)})
        return erased

    def _erase(self, owner: str) -> Erased:
        if keys.is_pair_pk(owner):
            return erase_pair(self._store, self._blobs, keys.pair_from_pk(owner))
        items = query_all(self._store, owner)
        if (listing := keys.public_listing_of(owner)) is not None:
            items.append({"pk": listing[0], "sk": listing[1]})
        for item in items:
            self._store.transact([Delete(item["pk"], item["sk"])])
        erased = Erased(len(items), 0)
        if (ai_user_id := keys.ai_user_of(owner)) is not None:  # its blobs too: an upload may have raced it
            erased += erase_ai_user_blobs(self._blobs, ai_user_id)
        return erased
