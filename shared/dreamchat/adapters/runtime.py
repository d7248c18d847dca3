"""The real clock and random source; tests pass their own."""

from __future__ import annotations

import random
from datetime import UTC, datetime


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class SystemRandom:
    def __init__(self) -> None:
        self._random = random.SystemRandom()

    def random(self) -> float:
        return self._random.random()


class ManualClock:
    """A clock that moves only when told to: for tests, benchmarks and replays."""

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("ManualClock needs a timezone-aware start")
        self._now = start

    def now(self) -> datetime:
        return self._now

    def set(self, moment: datetime) -> None:
        self._now = moment

    def advance(self, **delta: float) -> datetime:
        from datetime import timedelta

        self._now += timedelta(**delta)
        return self._now


class SeededRandom:
    """A reproducible random source."""

    def __init__(self, seed: int = 0) -> None:
        self._random = random.Random(seed)

    def random(self) -> float:
        return self._random.random()
