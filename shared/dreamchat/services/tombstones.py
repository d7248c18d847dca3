"""Erasure that in-flight work cannot undo.

Deleting an account, an AI user or a pair's memories first leaves a tombstone for it; every later
write to that owner's partitions checks that it is absent (`TombstoneGuard`, the store every
service writes through), so a chat turn or a compression that was running during the erase writes
nothing. Writes the store cannot condition (blobs) are caught by a second erasure, due once
in-flight work has had time to end.
"""

from __future__ import annotations

from datetime import timedelta

from dreamchat import keys
from dreamchat.domain.models import PairId
from dreamchat.ports import BlobStore, Clock
from dreamchat.services.pairs import Erased, erase_ai_user_blobs, erase_pair
from dreamchat.services.storage.guard import Gone, TombstoneGuard
from dreamchat.services.storage.unit_of_work import Storage

__all__ = ["ERASE_AGAIN_AFTER", "KEEP_TOMBSTONE", "ErasureService", "Gone", "TombstoneGuard"]

# Longer than a chat turn (model timeout x retries x tool rounds) or a background step can run.
ERASE_AGAIN_AFTER = timedelta(minutes=15)
KEEP_TOMBSTONE = timedelta(days=30)


class ErasureService:
    def __init__(self, storage: Storage, blobs: BlobStore, clock: Clock) -> None:
        self._storage = storage
        self._blobs = blobs
        self._clock = clock

    def mark(self, owner: str) -> None:
        """Leave the tombstone (before erasing); the erasure runs again after ERASE_AGAIN_AFTER."""
        now = self._clock.now()
        with self._storage.begin() as uow:
            uow.tombstones.mark(owner, int((now + KEEP_TOMBSTONE).timestamp()), keys.due_time(now + ERASE_AGAIN_AFTER))
            uow.commit()

    def mark_pair(self, pair: PairId) -> None:
        self.mark(keys.pair_pk(pair))

    def lift_pair(self, pair: PairId) -> None:
        """A pair started afresh (befriended again after its memories were erased)."""
        with self._storage.begin() as uow:
            uow.tombstones.lift(keys.pair_pk(pair))
            uow.commit()

    def erase_again(self) -> Erased:
        """The second erasure of every owner whose tombstone is due; each runs once."""
        erased = Erased(0, 0)
        with self._storage.begin() as uow:
            for owner in uow.tombstones.due(keys.due_until(self._clock.now())):
                erased += self._erase(owner)
                uow.tombstones.erased_again(owner)
                uow.commit()
        return erased

    def _erase(self, owner: str) -> Erased:
        if keys.is_pair_pk(owner):
            return erase_pair(self._storage, self._blobs, keys.pair_from_pk(owner))
        listing = keys.public_listing_of(owner)
        erased = Erased(self._storage.erase(owner, *([listing] if listing else [])), 0)
        if (ai_user_id := keys.ai_user_of(owner)) is not None:  # its blobs too: an upload may have raced it
            erased += erase_ai_user_blobs(self._blobs, ai_user_id)
        return erased
