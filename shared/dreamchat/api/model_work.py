"""Where model calls run: a bounded pool of their own, never the server's request threads.

A chat turn or any route that calls a model takes one of `size` slots for as long as it runs;
when all are taken the request is answered 503 with Retry-After at once (nothing is stored),
so a slow or hung provider can fill this pool but never the threads `/api/health`,
`/api/friends` and the other routes are served from.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request

from dreamchat.errors import Unavailable

T = TypeVar("T")
RETRY_AFTER_SECONDS = 5


class ModelPool:
    def __init__(self, size: int) -> None:
        self._executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="model")
        self._free = size
        self._lock = threading.Lock()

    def reserve(self) -> None:
        """Take a slot, or answer 503 when every slot is busy."""
        with self._lock:
            if self._free == 0:
                raise Unavailable(
                    "too many conversations right now; try again in a few seconds", retry_after=RETRY_AFTER_SECONDS
                )
            self._free -= 1

    def release(self) -> None:
        with self._lock:
            self._free += 1

    async def call(self, work: Callable[..., T], *args: Any) -> T:
        """Run `work` in the pool under a slot of its own."""
        self.reserve()
        try:
            return await self.run(work, *args)
        finally:
            self.release()

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        """Run `work` in the pool; the caller holds a slot (see `reserve`). The request's context
        (its model deadline) goes along."""
        context = contextvars.copy_context()
        return await asyncio.get_running_loop().run_in_executor(self._executor, context.run, partial(work, *args))


def get_model_pool(request: Request) -> ModelPool:
    return request.app.state.model_pool


ModelPoolDep = Annotated[ModelPool, Depends(get_model_pool)]
