"""A pair's data replaced whole, or not at all (the memory import with `replace`).

`replacing` holds the pair's items in memory (every item of its partitions, exactly as stored: versions,
due-index entries and vectors included) and erases them; the block writes the new data. If the block
raises, what it wrote is erased and the held items are put back, so the pair is as it was. Blobs are
never erased before the new data stands: the block writes its own under new names (a detail document
under a new revision), and the pair's old blobs (detail documents, media) go only once the block is done.

What is held is the pair's whole store, its chat log included: a replace costs memory in proportion to
the pair being replaced (about 1 KB a message), for as long as the import runs.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from dreamchat import keys
from dreamchat.domain.models import PairId
from dreamchat.ports import MAX_TRANSACTION_ITEMS, BlobStore, Item, ItemStore, Put, query_all
from dreamchat.services.storage.records import erase_partition

log = logging.getLogger(__name__)


@contextmanager
def replacing(store: ItemStore, blobs: BlobStore, pair: PairId) -> Iterator[None]:
    """The pair emptied for the block; put back as it was when the block raises."""
    held = [found for pk in keys.pair_partitions(pair) for found in query_all(store, pk)]
    old_blobs = set(blobs.list(keys.pair_blob_prefix(pair)))
    try:
        _erase_items(store, pair)
        yield
    except BaseException:
        _restore(store, blobs, pair, held, old_blobs)
        raise
    for key in sorted(old_blobs):
        blobs.delete(key)


def _restore(store: ItemStore, blobs: BlobStore, pair: PairId, held: list[Item], old_blobs: set[str]) -> None:
    """What the block wrote erased, the held items written back (the first failure is the one raised)."""
    try:
        _erase_items(store, pair)
        for key in blobs.list(keys.pair_blob_prefix(pair)):
            if key not in old_blobs:
                blobs.delete(key)
        for start in range(0, len(held), MAX_TRANSACTION_ITEMS):
            store.transact([Put(found) for found in held[start : start + MAX_TRANSACTION_ITEMS]])
    except Exception as error:  # noqa: BLE001 - logged; the block's own failure is the one raised
        log.error(
            "a pair could not be put back after a failed replace: %s",
            type(error).__name__,
            extra={"ai_user_id": pair.ai_user_id, "items": len(held)},
        )


def _erase_items(store: ItemStore, pair: PairId) -> None:
    for pk in keys.pair_partitions(pair):
        erase_partition(store, pk)
