"""Repositories of what runs on a schedule: the sparse, sharded due index (what is due of one kind)
and the person's heartbeat preferences."""

from __future__ import annotations

from collections.abc import Iterator

from dreamchat import keys
from dreamchat.domain.heartbeat import Prefs
from dreamchat.ports import ItemPage
from dreamchat.services.storage.session import Session, item

PAGE = 100


class DueIndex:
    """Items due by a time, per kind, read page by page: only due items have index attributes."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def pages(self, kind: str, until: str, *, shards: int = keys.DUE_SHARDS) -> Iterator[ItemPage]:
        """Every page of items of `kind` due by `until`, shard after shard (one query per page)."""
        store = self._session.store
        for shard in range(shards):
            cursor = None
            while True:
                page = store.query_due(keys.due_partition(kind, shard), until, limit=PAGE, cursor=cursor)
                yield page
                if (cursor := page.cursor) is None:
                    break


class HeartbeatPrefs:
    """The person's heartbeat preferences, over the defaults for what they did not set."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def get(self, account_id: str, defaults: Prefs) -> Prefs:
        found = self._session.get(keys.heartbeat_prefs(account_id))
        if found is None:
            return defaults
        stored = {k: v for k, v in found.items() if k in Prefs.model_fields}
        return Prefs.model_validate({**defaults.model_dump(), **stored})

    def save(self, account_id: str, prefs: Prefs) -> None:
        self._session.put(item(keys.heartbeat_prefs(account_id), prefs.model_dump()))
