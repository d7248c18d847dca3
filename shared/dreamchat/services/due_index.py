"""Reading the sparse, sharded due index: what is due of one kind, and nothing else."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

from dreamchat import keys
from dreamchat.ports import Item, ItemPage
from dreamchat.services.storage.unit_of_work import Storage

LEASE_THREADS = 16  # a lease is one conditional write: 16 at a time lease 10k due pairs in seconds


def due_pages(storage: Storage, kind: str, until: str, *, shards: int = keys.DUE_SHARDS) -> Iterator[ItemPage]:
    """Every page of items of `kind` due by `until`, shard after shard (one query per page)."""
    with storage.begin() as uow:
        yield from uow.due.pages(kind, until, shards=shards)


def leased(pages: Iterator[ItemPage], lease: Callable[[Item], bool]) -> Iterator[list[Item]]:
    """Per page, the items this call leased (`lease` is one conditional write per item,
    run LEASE_THREADS at a time; an item someone changed meanwhile is left out)."""
    with ThreadPoolExecutor(LEASE_THREADS, thread_name_prefix="dreamchat-lease") as pool:
        for page in pages:
            won = list(pool.map(lease, page.items))
            yield [found for found, ok in zip(page.items, won, strict=True) if ok]
