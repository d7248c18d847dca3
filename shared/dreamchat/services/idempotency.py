"""`Idempotency-Key`: a retried request stores nothing new and calls no model again.

The first request with a key claims it (a conditional create, so of two racing retries one
wins); once it has finished, its result is kept for 24 hours and every retry gets that result
again. A retry while the first is still running, or a key reused for a different request,
is a conflict. Keys are per account and are erased with it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from dreamchat.errors import Conflict
from dreamchat.ports import Clock
from dreamchat.services.storage.unit_of_work import Storage

REPLAY_KEPT_SECONDS = 24 * 3600


@dataclass(frozen=True)
class IdempotencyClaim:
    """A claimed key: `replay` is the finished result of an earlier request, or None if this
    request is the first and must run (then `finish` or `abandon` it)."""

    account_id: str
    key: str
    fingerprint: str
    replay: Any = None


def fingerprint(*parts: str) -> str:
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()


class IdempotencyService:
    def __init__(self, storage: Storage, clock: Clock) -> None:
        self._storage = storage
        self._clock = clock

    def claim(self, account_id: str, key: str, request: str) -> IdempotencyClaim:
        """Claim `key` for this request, or hand back what the first request with it answered."""
        with self._storage.begin() as uow:
            uow.idempotency.claim(account_id, key, request, self._keep_until())
            if uow.committed():
                return IdempotencyClaim(account_id, key, request)
            found = uow.idempotency.get(account_id, key)
        if found is None:  # expired between the two calls: claim again
            return self.claim(account_id, key, request)
        if found.fingerprint != request:
            raise Conflict("this Idempotency-Key was used for a different request")
        if not found.done:
            raise Conflict("a request with this Idempotency-Key is still being answered")
        return IdempotencyClaim(account_id, key, request, replay=found.answer)

    def finish(self, claim: IdempotencyClaim, result: Any) -> None:
        with self._storage.begin() as uow:
            uow.idempotency.answer(claim.account_id, claim.key, claim.fingerprint, result, self._keep_until())
            uow.commit()

    def abandon(self, claim: IdempotencyClaim) -> None:
        """The request failed before it stored anything: a retry may run it."""
        with self._storage.begin() as uow:
            uow.idempotency.release(claim.account_id, claim.key)
            uow.commit()

    def _keep_until(self) -> int:
        return int(self._clock.now().timestamp()) + REPLAY_KEPT_SECONDS


def claim_key(
    idempotency: IdempotencyService, account_id: str, key: str | None, *request: str
) -> IdempotencyClaim | None:
    """The request's claim on its Idempotency-Key (its `replay` when a request with it finished), if it sent one."""
    return idempotency.claim(account_id, key, fingerprint(*request)) if key is not None else None


def abandon_key(idempotency: IdempotencyService, claim: IdempotencyClaim | None) -> None:
    """The request failed before it stored anything: a retry with its key may run it."""
    if claim is not None and claim.replay is None:
        idempotency.abandon(claim)
