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

from dreamchat.errors import Contended
from dreamchat.ports import Clock
from dreamchat.services.storage.records import Lease
from dreamchat.services.storage.session import Versioned
from dreamchat.services.storage.unit_of_work import Storage, retry_on_conflict

CLAIM_KEPT_SECONDS = 7 * 86400  # a finished claim answers redeliveries for a week, then expires

ClaimStatus = Literal["won", "held", "done", "exhausted"]


@dataclass(frozen=True)
class LeaseClaim:
    status: ClaimStatus
    pk: str
    sk: str
    attempt: int = 0
    held: Versioned[Lease] | None = None  # the lease as this claim wrote it (or found it used up)

    @property
    def key(self) -> tuple[str, str]:
        return self.pk, self.sk


class LeaseService:
    def __init__(self, storage: Storage, clock: Clock, lease_seconds: int, max_attempts: int) -> None:
        self._storage = storage
        self._clock = clock
        self._seconds = lease_seconds
        self.max_attempts = max_attempts

    def until(self) -> int:
        """When a lease taken now ends (epoch seconds)."""
        return self._now() + self._seconds

    def claim(self, pk: str, sk: str) -> LeaseClaim:
        """Take the lease unless it is held, done, or its attempts are used up (or, after
        CONFLICT_ATTEMPTS lost races, others keep claiming it: held)."""

        def take() -> LeaseClaim:
            with self._storage.begin() as uow:
                read = uow.claims.get((pk, sk))
                if read is not None and (blocked := self._blocked(read.entity)) is not None:
                    return LeaseClaim(blocked, pk, sk, read.entity.attempts, read if blocked == "exhausted" else None)
                attempt = (read.entity.attempts if read else 0) + 1
                written = uow.claims.save((pk, sk), Lease(self.until(), attempt), read, self._keep())
                uow.commit()
            return LeaseClaim("won", pk, sk, attempt, written)

        try:
            return retry_on_conflict(take)
        except Contended:
            return LeaseClaim("held", pk, sk)

    def open_to_claim(self, pk: str, sk: str) -> bool | None:
        """Whether a claim made now would win (not done, held or used up); None when none was made."""
        with self._storage.begin() as uow:
            read = uow.claims.get((pk, sk))
        return None if read is None else self._blocked(read.entity) is None

    def _blocked(self, lease: Lease) -> ClaimStatus | None:
        """Why a stored claim cannot be taken now, if it cannot."""
        if lease.done:
            return "done"
        if lease.lease_until > self._now():
            return "held"
        if lease.attempts >= self.max_attempts:
            return "exhausted"
        return None

    def release(self, claim: LeaseClaim) -> None:
        """Give the lease back early (the run failed): the next delivery may try again now."""
        with self._storage.begin() as uow:
            uow.claims.save(claim.key, Lease(self._now(), claim.attempt), claim.held, self._keep())
            with suppress(Contended):  # the lease lapsed and someone else holds it now
                uow.commit()

    def free(self, pk: str, sk: str) -> None:
        """Leave the work free to take at once (its run failed and was not claimed)."""
        with self._storage.begin() as uow:
            read = uow.claims.get((pk, sk))
            uow.claims.save((pk, sk), Lease(self._now(), read.entity.attempts if read else 0), read, self._keep())
            with suppress(Contended):  # someone claimed it meanwhile: theirs stands
                uow.commit()

    def finish(self, claim: LeaseClaim) -> None:
        """The work is done (or given up): every later delivery is a duplicate. Done is final,
        so it is written whatever happened to the lease meanwhile."""
        with self._storage.begin() as uow:
            uow.claims.finish(claim.key, Lease(self._now(), claim.attempt, done=True), claim.held, self._keep())
            uow.commit()

    def _keep(self) -> int:
        return self._now() + CLAIM_KEPT_SECONDS

    def _now(self) -> int:
        return int(self._clock.now().timestamp())
