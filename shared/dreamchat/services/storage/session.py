"""What one unit of work's repositories share: the items they read and the writes they collect.

Versions live here and nowhere else. An item is written over the version it was read at: a
version that changed meanwhile fails the write. An item stored before its kind had versions
(read with none) gets its first, on the condition that it still has none; nothing stored yet
must still be absent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from dreamchat import keys
from dreamchat.domain import vectors as vec
from dreamchat.ports import DUE_PK, DUE_SK, Delete, Item, ItemStore, KeyRange, Put, query_all

NOT_STORED = 0

# Attributes of a stored item that no entity carries: keys, versions, TTL, the due index, vectors.
INTERNAL = frozenset({"pk", "sk", "version", "expires_at", "core_judged", DUE_PK, DUE_SK, vec.FIELD})


@dataclass(frozen=True)
class Versioned[T]:
    """An entity and the version it was read at: `NOT_STORED` (0) when nothing was stored (the
    entity is then the default one), None when it was stored before its kind had versions."""

    entity: T
    version: int | None = NOT_STORED

    @property
    def stored(self) -> bool:
        return self.version != NOT_STORED


def to_model[M: BaseModel](model: type[M], found: Item) -> M:
    return model.model_validate({k: v for k, v in found.items() if k not in INTERNAL})


def item(key: tuple[str, str], fields: dict[str, Any]) -> Item:
    return {"pk": key[0], "sk": key[1], **fields}


def version_of(found: Item) -> int | None:
    """The version an item was read at (None: stored before its kind had versions)."""
    version = found.get("version")
    return int(version) if version is not None else None


def due(kind: str, shard: int, sort_key: str) -> dict[str, str]:
    """The attributes that put an item in the sparse due index (`due_pk`, `due_sk`)."""
    return {DUE_PK: keys.due_partition(kind, shard), DUE_SK: sort_key}


def without_due(found: Item) -> Item:
    return {k: v for k, v in found.items() if k not in (DUE_PK, DUE_SK)}


class Session:
    def __init__(self, store: ItemStore) -> None:
        self.store = store
        self.writes: list[Put | Delete] = []
        self._read: dict[tuple[str, str], Item] = {}

    def get(self, key: tuple[str, str]) -> Item | None:
        found = self.store.get(*key)
        if found is not None:
            self.remember(found)
        return found

    def query(self, pk: str, key: KeyRange = KeyRange(), *, consistent: bool = True) -> list[Item]:
        found = query_all(self.store, pk, key, consistent=consistent)
        for each in found:
            self.remember(each)
        return found

    def remember(self, found: Item) -> Item:
        self._read[(found["pk"], found["sk"])] = found
        return found

    def read(self, key: tuple[str, str]) -> Item:
        """The item as this unit of work read it (its key alone if it did not), to write it back whole."""
        return self._read.get(key) or {"pk": key[0], "sk": key[1]}

    def put(self, written: Item, *, if_absent: bool = False) -> None:
        self.writes.append(Put(written, if_absent=if_absent))

    def put_over(self, written: Item, over: Versioned[Any] | None, *, first: int = 1) -> int:
        """Write over the version `over` was read at (None: nothing was read, nothing stored).
        The version the item carries once committed."""
        version = over.version if over is not None else NOT_STORED
        if version == NOT_STORED:
            self.writes.append(Put({**written, "version": first}, expected_version=0))
            return first
        if version is None:
            self.writes.append(Put({**written, "version": first}, if_unversioned=True))
            return first
        self.writes.append(Put({**written, "version": version + 1}, expected_version=version))
        return version + 1

    def put_done(self, written: Item, over: int | None) -> None:
        """Write unconditionally, one version on from `over` (work that is final whatever happened)."""
        self.writes.append(Put({**written, "version": (over or 0) + 1}))

    def delete(self, key: tuple[str, str], version: int | None = None) -> None:
        """Remove the item (with `version`: only while it is stored at that version)."""
        self.writes.append(Delete(*key, expected_version=version))
