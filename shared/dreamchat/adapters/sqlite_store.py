"""Item store on one SQLite file (WAL), the local twin of the DynamoDB single table."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dreamchat.adapters import cursor as cursors
from dreamchat.adapters.item_store_base import TransactingStore
from dreamchat.adapters.private import FILE_MODE, private_dir, private_file
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

_SCHEMA = """
CREATE TABLE IF NOT EXISTS items (
    pk TEXT NOT NULL,
    sk TEXT NOT NULL,
    body TEXT NOT NULL,
    version INTEGER,
    expires_at INTEGER,
    due_pk TEXT,
    due_sk TEXT,
    PRIMARY KEY (pk, sk)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS items_due ON items (due_pk, due_sk, pk, sk) WHERE due_pk IS NOT NULL;
"""


class SqliteItemStore(TransactingStore):
    def __init__(self, path: Path, clock: Clock) -> None:
        # SQLite gives the -wal and -shm files the database file's mode, so all three are 0600.
        private_file(private_dir(path.parent) / path.name)
        for companion in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            if companion.exists():
                companion.chmod(FILE_MODE)
        self._clock = clock
        self._lock = threading.RLock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def get(self, pk: str, sk: str) -> Item | None:
        with self._lock:
            row = self._db.execute(
                "SELECT body FROM items WHERE pk = ? AND sk = ? AND " + self._alive(), (pk, sk, self._now())
            ).fetchone()
        return json.loads(row[0]) if row else None

    def transact(self, operations: Sequence[Operation]) -> None:
        check_transaction(operations)
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for operation in operations:
                    self._apply(operation)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def query(
        self,
        pk: str,
        key: KeyRange = KeyRange(),
        *,
        limit: int | None = None,
        descending: bool = False,
        cursor: str | None = None,
        consistent: bool = True,  # one SQLite file is always consistent
    ) -> ItemPage:
        low, high = cursors.bounds(key)
        sql = "SELECT body FROM items WHERE pk = ? AND sk >= ? AND sk <= ? AND " + self._alive()
        params: list[Any] = [pk, low, high, self._now()]
        if cursor is not None:
            after = cursors.decode(cursor, ("sk",))["sk"]
            sql += " AND sk < ?" if descending else " AND sk > ?"
            params.append(after)
        sql += " ORDER BY sk DESC" if descending else " ORDER BY sk"
        return cursors.page(self._fetch(sql, params, limit), limit, lambda item: {"sk": item["sk"]})

    def query_due(self, due_pk: str, until: str, *, limit: int | None = None, cursor: str | None = None) -> ItemPage:
        sql = "SELECT body FROM items WHERE due_pk = ? AND due_sk <= ? AND " + self._alive()
        params: list[Any] = [due_pk, until, self._now()]
        if cursor is not None:
            after = cursors.decode(cursor, ("due_sk", "pk", "sk"))
            sql += " AND (due_sk, pk, sk) > (?, ?, ?)"
            params += [after["due_sk"], after["pk"], after["sk"]]
        sql += " ORDER BY due_sk, pk, sk"
        items = self._fetch(sql, params, limit)
        return cursors.page(items, limit, lambda item: {"due_sk": item[DUE_SK], "pk": item["pk"], "sk": item["sk"]})

    def _fetch(self, sql: str, params: list[Any], limit: int | None) -> list[Item]:
        """The items (one past the limit, to know whether more follow) of a query selecting `body`."""
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit + 1)
        with self._lock:
            rows = self._db.execute(sql, params).fetchall()
        return [json.loads(row[0]) for row in rows]

    def _apply(self, operation: Operation) -> None:
        if isinstance(operation, Delete | Check) and operation.expected_version:
            self._check_version(operation.pk, operation.sk, operation.expected_version)
        if isinstance(operation, Check):
            if operation.absent and self._exists(operation.pk, operation.sk):
                raise ConditionFailed("checked item exists")
            return
        if isinstance(operation, Delete):
            self._db.execute("DELETE FROM items WHERE pk = ? AND sk = ?", (operation.pk, operation.sk))
            return
        item = operation.item
        if operation.if_absent or operation.expected_version is not None or operation.if_unversioned:
            self._check_condition(operation)
        self._db.execute(
            "INSERT OR REPLACE INTO items (pk, sk, body, version, expires_at, due_pk, due_sk) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                item["pk"],
                item["sk"],
                json.dumps(item, ensure_ascii=False),
                item.get("version"),
                item.get(TTL_ATTRIBUTE),
                item.get(DUE_PK),
                item.get(DUE_SK),
            ),
        )

    def _exists(self, pk: str, sk: str) -> bool:
        row = self._db.execute(
            "SELECT 1 FROM items WHERE pk = ? AND sk = ? AND " + self._alive(), (pk, sk, self._now())
        )
        return row.fetchone() is not None

    def _check_version(self, pk: str, sk: str, expected: int) -> None:
        row = self._db.execute(
            "SELECT version FROM items WHERE pk = ? AND sk = ? AND " + self._alive(), (pk, sk, self._now())
        ).fetchone()
        if row is None or row[0] != expected:
            raise ConditionFailed("checked version changed")

    def _check_condition(self, operation: Put) -> None:
        row = self._db.execute(
            "SELECT version FROM items WHERE pk = ? AND sk = ? AND " + self._alive(),
            (operation.item["pk"], operation.item["sk"], self._now()),
        ).fetchone()
        if operation.if_absent and row is not None:
            raise ConditionFailed("item exists")
        if operation.expected_version == 0 and row is not None:
            raise ConditionFailed("item exists")
        if operation.if_unversioned and (row is None or row[0] is not None):
            raise ConditionFailed("item missing or versioned")
        if operation.expected_version and (row is None or row[0] != operation.expected_version):
            raise ConditionFailed("version changed")

    def _alive(self) -> str:
        return "(expires_at IS NULL OR expires_at > ?)"

    def _now(self) -> int:
        return int(self._clock.now().timestamp())
