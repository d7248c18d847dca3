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

from dreamchat import keys
from dreamchat.errors import Conflict
from dreamchat.ports import Clock, ItemStore

KEEP_SECONDS = 24 * 3600


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


class Idempotency:
    def __init__(self, store: ItemStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    def claim(self, account_id: str, key: str, request: str) -> IdempotencyClaim:
        """Claim `key` for this request, or hand back what the first request with it answered."""
        pk, sk = keys.idempotency(account_id, key)
        record = {"pk": pk, "sk": sk, "fingerprint": request, "done": False, "expires_at": self._epoch() + KEEP_SECONDS}
        if self._store.put_if_absent(record):
            return IdempotencyClaim(account_id, key, request)
        found = self._store.get(pk, sk)
        if found is None:  # expired between the two calls: claim again
            return self.claim(account_id, key, request)
        if found["fingerprint"] != request:
            raise Conflict("this Idempotency-Key was used for a different request")
        if not found["done"]:
            raise Conflict("a request with this Idempotency-Key is still being answered")
        return IdempotencyClaim(account_id, key, request, replay=json.loads(found["result"]))

    def finish(self, claim: IdempotencyClaim, result: Any) -> None:
        pk, sk = keys.idempotency(claim.account_id, claim.key)
        self._store.put(
            {
                "pk": pk,
                "sk": sk,
                "fingerprint": claim.fingerprint,
                "done": True,
                "result": json.dumps(result, ensure_ascii=False),
                "expires_at": self._epoch() + KEEP_SECONDS,
            }
        )

    def abandon(self, claim: IdempotencyClaim) -> None:
        """The request failed before it stored anything: a retry may run it."""
        self._store.delete(*keys.idempotency(claim.account_id, claim.key))

    def _epoch(self) -> int:
        return int(self._clock.now().timestamp())
