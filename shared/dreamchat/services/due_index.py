"""Reading the sparse, sharded due index: what is due of one kind, and nothing else."""

from __future__ import annotations

from collections.abc import Iterator

from dreamchat import keys
from dreamchat.ports import ItemStore, Page

PAGE = 100


def due_pages(store: ItemStore, kind: str, until: str, *, shards: int = keys.DUE_SHARDS) -> Iterator[Page]:
    """Every page of items of `kind` due by `until`, shard after shard (one query per page)."""
    for shard in range(shards):
        cursor = None
        while True:
            page = store.query_due(keys.due_partition(kind, shard), until, limit=PAGE, cursor=cursor)
            yield page
            if (cursor := page.cursor) is None:
                break
