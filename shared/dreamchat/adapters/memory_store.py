"""Item store in one process's memory: the third twin of the SQLite file and the DynamoDB table.

For tests and experiments; nothing persists. It keeps the contract the others keep (conditions,
all-or-nothing transactions with the same limits, sort-key order and cursors, the sparse due
index, TTL) under one lock, so races between threads behave as they do on the real stores. Items
are stored as JSON text, as SQLite stores them: a caller can never change a stored item through a
dict it wrote or read, and what SQLite could not store (a set, a datetime) fails here too.
"""

from __future__ import annotations

import bisect
import json
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from dreamchat.adapters import cursor as cursors
from dreamchat.adapters.item_store_base import TransactingStore
from dreamchat.ports import (
    DUE_PK,
    DUE_SK,
    TTL_ATTRIBUTE,
    Check,
    Clock,
    ConditionFailed,
    Delete,
    Item,
    ItemPage,
    KeyRange,
    Operation,
    Put,
    check_transaction,
)

DueKey = tuple[str, str, str]  # (due_sk, pk, sk): the index's order, as SQLite's items_due


@dataclass(frozen=True)
class _Row:
    key: tuple[str, str]
    body: str
    version: Any
    expires_at: Any
    due: tuple[str, DueKey] | None  # (due_pk, position) when the item is in the due index

    @classmethod
    def of(cls, item: Item) -> _Row:
        due_pk, due_sk = item.get(DUE_PK), item.get(DUE_SK)
        due = None
        if isinstance(due_pk, str) and isinstance(due_sk, str):  # sparse: in the index only with both
            due = (due_pk, (due_sk, item["pk"], item["sk"]))
        return cls(
            (item["pk"], item["sk"]),
            json.dumps(item, ensure_ascii=False),
            item.get("version"),
            item.get(TTL_ATTRIBUTE),
            due,
        )

    def alive(self, now: int) -> bool:
        return self.expires_at is None or self.expires_at > now


class MemoryItemStore(TransactingStore):
    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._lock = threading.RLock()
        self._rows: dict[tuple[str, str], _Row] = {}
        self._partitions: dict[str, list[str]] = {}  # pk -> its sort keys, sorted
        self._due: dict[str, list[DueKey]] = {}  # due_pk -> positions, sorted

    def close(self) -> None:
        """Nothing to release; here so the store can stand where SQLite's does."""

    def get(self, pk: str, sk: str) -> Item | None:
        with self._lock:
            row = self._live(pk, sk)
        return json.loads(row.body) if row else None

    def transact(self, operations: Sequence[Operation]) -> None:
        check_transaction(operations)
        writes = [(op, _Row.of(op.item) if isinstance(op, Put) else None) for op in operations]  # may raise
        with self._lock:
            for operation in operations:  # each item is touched once, so checking first is checking in turn
                self._check(operation)
            for operation, row in writes:
                if isinstance(operation, Delete):
                    self._remove(operation.pk, operation.sk)
                elif row is not None:
                    self._write(row)

    def query(
        self,
        pk: str,
        key: KeyRange = KeyRange(),
        *,
        limit: int | None = None,
        descending: bool = False,
        cursor: str | None = None,
        consistent: bool = True,  # one process's memory is always consistent
    ) -> ItemPage:
        low, high = cursors.bounds(key)
        after = cursors.decode(cursor, ("sk",))["sk"] if cursor is not None else None
        with self._lock:
            keys = self._partitions.get(pk, [])
            start, end = bisect.bisect_left(keys, low), bisect.bisect_right(keys, high)
            if after is not None and descending:
                end = min(end, bisect.bisect_left(keys, after))
            elif after is not None:
                start = max(start, bisect.bisect_right(keys, after))
            window = keys[start:end]
            found = self._take(((pk, sk) for sk in (reversed(window) if descending else window)), limit)
        return cursors.page(found, limit, lambda item: {"sk": item["sk"]})

    def query_due(self, due_pk: str, until: str, *, limit: int | None = None, cursor: str | None = None) -> ItemPage:
        after = cursors.decode(cursor, ("due_sk", "pk", "sk")) if cursor is not None else None
        with self._lock:
            index = self._due.get(due_pk, [])
            start = bisect.bisect_right(index, (after["due_sk"], after["pk"], after["sk"])) if after else 0
            end = bisect.bisect_right(index, until, key=lambda position: position[0])
            found = self._take(((pk, sk) for _, pk, sk in index[start:end]), limit)
        return cursors.page(found, limit, lambda item: {"due_sk": item[DUE_SK], "pk": item["pk"], "sk": item["sk"]})

    def _take(self, keys: Iterable[tuple[str, str]], limit: int | None) -> list[Item]:
        """The live items among `keys`, in order, up to limit + 1 (to know whether more follow)."""
        now = self._now()
        found: list[Item] = []
        for key in keys:
            row = self._rows[key]
            if row.alive(now):
                found.append(json.loads(row.body))
                if limit is not None and len(found) > limit:
                    break
        return found

    def _check(self, operation: Operation) -> None:
        if isinstance(operation, Delete | Check) and operation.expected_version:
            found = self._live(operation.pk, operation.sk)
            if found is None or found.version != operation.expected_version:
                raise ConditionFailed("checked version changed")
            return
        if isinstance(operation, Delete):
            return
        if isinstance(operation, Check):
            if self._live(operation.pk, operation.sk) is not None:
                raise ConditionFailed("checked item exists")
            return
        row = self._live(operation.item["pk"], operation.item["sk"])
        if (operation.if_absent or operation.expected_version == 0) and row is not None:
            raise ConditionFailed("item exists")
        if operation.if_unversioned and (row is None or row.version is not None):
            raise ConditionFailed("item missing or versioned")
        if operation.expected_version and (row is None or row.version != operation.expected_version):
            raise ConditionFailed("version changed")

    def _live(self, pk: str, sk: str) -> _Row | None:
        row = self._rows.get((pk, sk))
        return row if row is not None and row.alive(self._now()) else None

    def _write(self, row: _Row) -> None:
        pk, sk = row.key
        old = self._rows.get((pk, sk))
        if old is None:
            bisect.insort(self._partitions.setdefault(pk, []), sk)
        elif old.due is not None:
            self._unindex(old.due)
        self._rows[(pk, sk)] = row
        if row.due is not None:
            due_pk, position = row.due
            bisect.insort(self._due.setdefault(due_pk, []), position)

    def _remove(self, pk: str, sk: str) -> None:
        old = self._rows.pop((pk, sk), None)
        if old is None:
            return
        keys = self._partitions[pk]
        del keys[bisect.bisect_left(keys, sk)]
        if not keys:
            del self._partitions[pk]
        if old.due is not None:
            self._unindex(old.due)

    def _unindex(self, due: tuple[str, DueKey]) -> None:
        due_pk, position = due
        index = self._due[due_pk]
        del index[bisect.bisect_left(index, position)]
        if not index:
            del self._due[due_pk]

    def _now(self) -> int:
        return int(self._clock.now().timestamp())
