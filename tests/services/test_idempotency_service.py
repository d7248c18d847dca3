"""Idempotency keys: one winner among racing retries, replay, expiry (these two on every storage adapter)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from dreamchat.errors import Conflict
from dreamchat.services.idempotency import IdempotencyService, fingerprint
from dreamchat.services.storage.unit_of_work import Storage


@pytest.mark.every_store
def test_of_racing_retries_exactly_one_runs(runtime) -> None:
    keys = IdempotencyService(Storage(runtime.store), runtime.clock)

    def claim(_: int) -> str:
        try:
            return "run" if keys.claim("acc", "k", fingerprint("a")).replay is None else "replay"
        except Conflict:
            return "conflict"

    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = list(pool.map(claim, range(16)))
    assert outcomes.count("run") == 1
    assert outcomes.count("conflict") == 15


@pytest.mark.every_store
def test_a_finished_request_is_replayed_until_it_expires(runtime) -> None:
    keys = IdempotencyService(Storage(runtime.store), runtime.clock)
    claim = keys.claim("acc", "k", fingerprint("a"))
    keys.finish(claim, {"message": {"id": "m1"}})
    assert keys.claim("acc", "k", fingerprint("a")).replay == {"message": {"id": "m1"}}
    with pytest.raises(Conflict):
        keys.claim("acc", "k", fingerprint("b"))
    assert keys.claim("other", "k", fingerprint("b")).replay is None
    runtime.clock.advance(hours=24, seconds=1)
    assert keys.claim("acc", "k", fingerprint("a")).replay is None


def test_an_abandoned_claim_can_be_claimed_again(runtime) -> None:
    keys = IdempotencyService(Storage(runtime.store), runtime.clock)
    keys.abandon(keys.claim("acc", "k", fingerprint("a")))
    assert keys.claim("acc", "k", fingerprint("a")).replay is None
