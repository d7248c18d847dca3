"""Leases on background work: who holds one runs the work, and a run that dies lets it lapse.

A claim is an item with `lease_until` and `attempts`. A run that crashes or times out
never releases its lease; once `lease_until` has passed, the next delivery claims it again
(attempts + 1). After `max_attempts` the work is given up by its owner (who moves on and
counts the failure). A finished claim stays `done`, so a late redelivery does nothing.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass
from typing import Literal

from dreamchat.ports import Clock, ConditionFailed, Item, ItemStore

KEEP_SECONDS = 7 * 86400  # a finished claim answers redeliveries for a week, then expires
_RACE_ATTEMPTS = 3

ClaimStatus = Literal["won", "held", "done", "exhausted"]


@dataclass(frozen=True)
class Claim:
    status: ClaimStatus
    pk: str
    sk: str
    attempt: int = 0
    version: int | None = None


class Leases:
    def __init__(self, store: ItemStore, clock: Clock, lease_seconds: int, max_attempts: int) -> None:
        self._store = store
        self._clock = clock
        self._seconds = lease_seconds
        self.max_attempts = max_attempts

    def until(self) -> int:
        """When a lease taken now ends (epoch seconds)."""
        return self._now() + self._seconds

    def claim(self, pk: str, sk: str) -> Claim:
        """Take the lease unless it is held, done, or its attempts are used up."""
        for _ in range(_RACE_ATTEMPTS):
            found = self._store.get(pk, sk)
            attempt = (found["attempts"] if found else 0) + 1
            version = found["version"] if found else None
            if found is not None and (blocked := self._blocked(found)) is not None:
                return Claim(blocked, pk, sk, found["attempts"], version if blocked == "exhausted" else None)
            try:
                new_version = self._store.put_versioned(self._item(pk, sk, attempt, self.until()), version)
            except ConditionFailed:
                continue  # another worker claimed it between our read and write
            return Claim("won", pk, sk, attempt, new_version)
        return Claim("held", pk, sk)

    def open_to_claim(self, pk: str, sk: str) -> bool | None:
        """Whether a claim made now would win (not done, held or used up); None when none was made."""
        found = self._store.get(pk, sk)
        return None if found is None else self._blocked(found) is None

    def _blocked(self, found: Item) -> ClaimStatus | None:
        """Why a stored claim cannot be taken now, if it cannot."""
        if found.get("done"):
            return "done"
        if found["lease_until"] > self._now():
            return "held"
        if found["attempts"] >= self.max_attempts:
            return "exhausted"
        return None

    def release(self, claim: Claim) -> None:
        """Give the lease back early (the run failed): the next delivery may try again now."""
        with suppress(ConditionFailed):  # the lease lapsed and someone else holds it now
            self._store.put_versioned(self._item(claim.pk, claim.sk, claim.attempt, self._now()), claim.version)

    def free(self, pk: str, sk: str) -> None:
        """Leave the work free to take at once (its run failed and was not claimed)."""
        found = self._store.get(pk, sk)
        with suppress(ConditionFailed):  # someone claimed it meanwhile: theirs stands
            self._store.put_versioned(
                self._item(pk, sk, found["attempts"] if found else 0, self._now()), found["version"] if found else None
            )

    def finish(self, claim: Claim) -> None:
        """The work is done (or given up): every later delivery is a duplicate. Done is final,
        so it is written whatever happened to the lease meanwhile."""
        item = self._item(claim.pk, claim.sk, claim.attempt, self._now())
        self._store.put({**item, "done": True, "version": (claim.version or 0) + 1})

    def _item(self, pk: str, sk: str, attempt: int, lease_until: int) -> Item:
        return {
            "pk": pk,
            "sk": sk,
            "lease_until": lease_until,
            "attempts": attempt,
            "done": False,
            "expires_at": self._now() + KEEP_SECONDS,
        }

    def _now(self) -> int:
        return int(self._clock.now().timestamp())
