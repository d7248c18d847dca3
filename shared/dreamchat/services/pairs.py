"""Erasing a companion pair's data: messages, every memory tier, souls, state and blobs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dreamchat import keys
from dreamchat.domain.models import PairId
from dreamchat.ports import BlobStore
from dreamchat.services.storage.unit_of_work import Storage


@dataclass(frozen=True)
class Erased:
    items: int
    blobs: int

    def __add__(self, other: Erased) -> Erased:
        return Erased(self.items + other.items, self.blobs + other.blobs)


NOTHING = Erased(0, 0)


def erase_pair(storage: Storage, blobs: BlobStore, pair: PairId) -> Erased:
    """Delete everything the pair owns (its partitions, its blobs, and when its chat was last open);
    safe to repeat after a partial failure."""
    blob_keys = blobs.list(keys.pair_blob_prefix(pair))
    for key in blob_keys:
        blobs.delete(key)
    items = sum(storage.erase(pk) for pk in keys.pair_partitions(pair))
    with storage.begin() as uow:  # when its chat was last open is in the account's partition
        if uow.presences.last_open(pair.account_id, pair.ai_user_id) is not None:
            uow.presences.forget_open(pair.account_id, pair.ai_user_id)
            uow.commit()
            items += 1
    return Erased(items, len(blob_keys))


def erase_ai_user_blobs(blobs: BlobStore, ai_user_id: str) -> Erased:
    """Delete an AI user's own blobs (its uploaded avatar, the card it was imported from)."""
    blob_keys = blobs.list(keys.ai_user_blob_prefix(ai_user_id))
    for key in blob_keys:
        blobs.delete(key)
    return Erased(0, len(blob_keys))


def end_pair(storage: Storage, blobs: BlobStore, mark: Callable[[PairId], object], pair: PairId) -> Erased:
    """A pair whose AI user or account goes: tombstoned (`mark`), erased, then its friendship and the AI
    user's record of it removed in one transaction."""
    mark(pair)
    erased = erase_pair(storage, blobs, pair)
    with storage.pair(pair) as uow:
        uow.friendship.remove(member=True)
        uow.commit()
    return erased
