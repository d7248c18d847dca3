"""A fixed-window request limit kept in the item store (so it holds across Lambda containers)."""

from __future__ import annotations

from collections.abc import Callable

from dreamchat import keys
from dreamchat.errors import Contended, TooManyRequests
from dreamchat.ports import Clock
from dreamchat.services.storage.unit_of_work import Storage, retry_on_conflict


class RateLimit:
    def __init__(self, storage: Storage, clock: Clock) -> None:
        self._storage = storage
        self._clock = clock

    def hit(self, key: str, limit: int, window_seconds: int, message: str) -> None:
        """Count one request under `key`; TooManyRequests once `limit` were made in the window.

        The count is written (conditionally on the one read) before the caller does the work,
        so of many parallel requests at most `limit` get through, on either store."""
        now = int(self._clock.now().timestamp())
        window = now - now % window_seconds
        counted = keys.rate_window(key, window)

        def count() -> None:
            with self._storage.begin() as uow:
                read = uow.limits.get(counted)
                if read.entity >= limit:
                    raise TooManyRequests(message, retry_after=max(1, window + window_seconds - now))
                uow.limits.save(counted, read.entity + 1, read, expires_at=window + 2 * window_seconds)
                uow.commit()

        try:
            retry_on_conflict(count)
        except Contended:
            raise TooManyRequests(message, retry_after=1) from None

    def reset(self, key: str, window_seconds: int) -> None:
        """Forget the requests counted under `key` in the current window."""
        now = int(self._clock.now().timestamp())
        with self._storage.begin() as uow:
            uow.limits.forget(keys.rate_window(key, now - now % window_seconds))
            uow.commit()


class AccountBudget:
    """One account's budget of a costly request (an import, a card upload, an account's export): `limit`
    in each window of `window_seconds`, TooManyRequests beyond; counted before the work starts."""

    def __init__(
        self, storage: Storage, clock: Clock, scope: Callable[[str], str], limit: int, window_seconds: int, message: str
    ) -> None:
        self._rate = RateLimit(storage, clock)
        self._scope = scope
        self._limit = limit
        self._window = window_seconds
        self._message = message

    def spend(self, account_id: str) -> None:
        self._rate.hit(self._scope(account_id), self._limit, self._window, self._message)


def unlimited(account_id: str) -> None:
    """No budget: every request goes through."""


class ModelCallBudget:
    """One budget of model calls per account and minute, for every route that calls a model."""

    def __init__(self, storage: Storage, clock: Clock, per_minute: int) -> None:
        self._limit = RateLimit(storage, clock)
        self._per_minute = per_minute

    def spend(self, account_id: str) -> None:
        self._limit.hit(
            keys.model_call_scope(account_id), self._per_minute, 60, "too many requests to the AI; wait a moment"
        )
