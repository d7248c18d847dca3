"""Owed work as a repository: one record per degraded result of a pair, in the due index
`HEAL#<shard>` at its next attempt (the back-off), so the extraction sweep reads only what is due."""

from __future__ import annotations

from datetime import UTC, datetime

from dreamchat import keys
from dreamchat.domain.models import PairId
from dreamchat.domain.owed import OwedKind, OwedWork
from dreamchat.ports import Item, KeyRange
from dreamchat.services.storage.session import Session, Versioned, due, item, to_model, version_of


class OwedWorks:
    def __init__(self, session: Session, pair: PairId) -> None:
        self._session = session
        self._pair = pair
        self._pk = keys.pair_pk(pair)

    def all(self) -> list[Versioned[OwedWork]]:
        found = self._session.query(self._pk, KeyRange(prefix=keys.OWED_PREFIX))
        return [Versioned(to_model(OwedWork, i), version_of(i)) for i in found]

    def get(self, kind: OwedKind, subject: str = "") -> Versioned[OwedWork] | None:
        found = self._session.get((self._pk, keys.owed(kind, subject)))
        return Versioned(to_model(OwedWork, found), version_of(found)) if found else None

    def owe(self, work: OwedWork) -> None:
        """A new debt, only if absent (the same result owed twice fails the commit)."""
        self._session.put_over(self._item(work, work.due_at), None)

    def save(self, work: OwedWork, over: Versioned[OwedWork]) -> Versioned[OwedWork]:
        """An attempt counted and the next one backed off, over the version read; as it is once committed."""
        return Versioned(work, self._session.put_over(self._item(work, work.due_at), over))

    def paid(self, read: Versioned[OwedWork]) -> None:
        """Redone (or cancelled): gone, only at the version read."""
        self._session.delete((self._pk, keys.owed(read.entity.kind, read.entity.subject)), read.version)

    def lease(self, found: Item, until: int) -> None:
        """A due record (read from the due index) moves in the index to `until`, so later sweeps skip it
        while its pair's worker is in flight; a change since it was read fails the commit."""
        read = self._session.remember(found)
        moved = due(keys.HEAL_DUE_KIND, keys.shard(self._pair), self._sort(until, read["kind"], read["subject"]))
        self._session.put_over({**read, **moved}, Versioned(None, version_of(read)))

    def _item(self, work: OwedWork, at: int) -> Item:
        indexed = due(keys.HEAL_DUE_KIND, keys.shard(self._pair), self._sort(at, work.kind, work.subject))
        return item((self._pk, keys.owed(work.kind, work.subject)), {**work.model_dump(), **indexed})

    def _sort(self, at: int, kind: str, subject: str) -> str:
        return keys.due_sort(keys.due_time(datetime.fromtimestamp(at, UTC)), self._pk, kind, subject)
