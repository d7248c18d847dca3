"""Password hashing: Argon2, on a bounded pool so that a flood of logins cannot take every core."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from dreamchat.errors import Unavailable

_HASH_WAIT_SECONDS = 10
_hasher = PasswordHasher()


@cache
def dummy_hash() -> str:
    """Verified against when the username is unknown, so both failures take the same time."""
    return _hasher.hash("dreamchat-dummy-password")


class HashingPool:
    """Argon2 is slow on purpose; at most `workers` hashes run at once, so a flood of logins
    cannot take every core from the other requests. A caller waits its turn, briefly."""

    def __init__(self, workers: int) -> None:
        self._slots = threading.BoundedSemaphore(workers)

    def hash(self, password: str) -> str:
        with self._slot():
            return _hasher.hash(password)

    def verify(self, password_hash: str, password: str) -> bool:
        with self._slot():
            try:
                return _hasher.verify(password_hash, password)
            except (VerificationError, InvalidHashError):
                return False

    @contextmanager
    def _slot(self) -> Iterator[None]:
        if not self._slots.acquire(timeout=_HASH_WAIT_SECONDS):
            raise Unavailable("the server is busy; try again shortly", retry_after=5)
        try:
            yield
        finally:
            self._slots.release()
