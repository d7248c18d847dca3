"""Where model calls run: a bounded pool of their own, never the server's request threads (built by the
container, used by the routes that call a model and by the chat turn, `dreamchat.services.chat_turns`).

A chat turn or any route that calls a model takes one of `size` slots for as long as it runs;
when all are taken the request is answered 503 with Retry-After at once (nothing is stored),
so a slow or hung provider can fill this pool but never the threads `/api/health`,
`/api/friends` and the other routes are served from.

Fair use: one account holds at most its share of the slots (a quarter of the pool, at least two),
so one person's slow calls never make another's chat answer 503; and each slot taken spends one
of the account's model calls per minute (`DREAMCHAT_MODEL_CALLS_PER_MINUTE`, one budget for chat,
retry, reflect, judge, trigger, compress-now and extract-now: 429 with Retry-After beyond it).
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar

from dreamchat.errors import Unavailable

T = TypeVar("T")
RETRY_AFTER_SECONDS = 5


def fair_share(size: int) -> int:
    """The slots one account may hold at once."""
    return min(size, max(2, size // 4))


class Slot:
    """One slot of the pool, held until released (once: a second release does nothing)."""

    def __init__(self, pool: ModelPool, account_id: str) -> None:
        self._pool = pool
        self._account_id = account_id
        self._held = True

    def release(self) -> None:
        if self._held:
            self._held = False
            self._pool._give_back(self._account_id)

    def __enter__(self) -> Slot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class ModelPool:
    def __init__(self, size: int, spend: Callable[[str], None] | None = None) -> None:
        self._executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="model")
        self._free = size
        self._share = fair_share(size)
        self._held: dict[str, int] = {}
        self._spend = spend or (lambda account_id: None)
        self._lock = threading.Lock()

    def reserve(self, account_id: str, *, budgeted: bool = True) -> Slot:
        """Take a slot for one model call of `account_id`: 503 when every slot (or the account's share)
        is busy, 429 when the account spent its model calls of this minute (unless not `budgeted`: a
        person in crisis is never told to wait)."""
        with self._lock:
            if self._free == 0 or self._held.get(account_id, 0) >= self._share:
                raise Unavailable(
                    "too many conversations right now; try again in a few seconds", retry_after=RETRY_AFTER_SECONDS
                )
            self._free -= 1
            self._held[account_id] = self._held.get(account_id, 0) + 1
        slot = Slot(self, account_id)
        try:
            if budgeted:
                self._spend(account_id)
        except BaseException:
            slot.release()
            raise
        return slot

    def _give_back(self, account_id: str) -> None:
        with self._lock:
            self._free += 1
            left = self._held.get(account_id, 1) - 1
            if left:
                self._held[account_id] = left
            else:
                self._held.pop(account_id, None)

    async def call(self, account_id: str, work: Callable[..., T], *args: Any) -> T:
        """Run `work` in the pool under a slot of its own."""
        with self.reserve(account_id):
            return await self.run(work, *args)

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        """Run `work` in the pool; the caller holds a slot (see `reserve`). The request's context
        (its model deadline) goes along."""
        context = contextvars.copy_context()
        return await asyncio.get_running_loop().run_in_executor(self._executor, context.run, partial(work, *args))
