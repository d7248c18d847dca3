"""What every item store gives on top of `transact`: the single-item writes, each a transaction of one.

An adapter implements `get`, `transact`, `query` and `query_due`; this base gives `put`,
`put_if_absent`, `put_versioned` and `delete` (as httpx's transports implement one method and the
client gives the rest), so their conditions mean the same on every store.
"""

from __future__ import annotations

from collections.abc import Sequence

from dreamchat.ports import ConditionFailed, Delete, Item, Operation, Put


class TransactingStore:
    def transact(self, operations: Sequence[Operation]) -> None:
        raise NotImplementedError

    def put(self, item: Item) -> None:
        self.transact([Put(item)])

    def put_if_absent(self, item: Item) -> bool:
        """Write the item only if (pk, sk) is free (an expired item counts as free); True when this call created it."""
        try:
            self.transact([Put(item, if_absent=True)])
        except ConditionFailed:
            return False
        return True

    def put_versioned(self, item: Item, expected_version: int | None) -> int:
        """Write over `expected_version` (None: the item must not exist yet); the new version, or ConditionFailed."""
        new_version = (expected_version or 0) + 1
        self.transact([Put({**item, "version": new_version}, expected_version=expected_version or 0)])
        return new_version

    def delete(self, pk: str, sk: str) -> None:
        self.transact([Delete(pk, sk)])
