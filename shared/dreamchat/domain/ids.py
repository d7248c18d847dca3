"""Ids that sort by time, built from the clock and random source passed in."""

from __future__ import annotations

from datetime import datetime


def message_id(now: datetime, random: float, after: str | None = None) -> str:
    """`m<16-digit epoch microseconds><6 hex>`, strictly after `after` when given (keeps turn order)."""
    micros = int(now.timestamp() * 1_000_000)
    if after is not None and after.startswith("m"):
        micros = max(micros, int(after[1:17]) + 1)
    return f"m{micros:016d}{int(random * 16**6):06x}"


def message_id_floor(at: int) -> str:
    """The least message id of epoch second `at` (every message of that second or later sorts at or
    after it): a bound for reading the log from a moment on."""
    return f"m{at * 1_000_000:016d}"


def memory_id(prefix: str, now: datetime, random: float) -> str:
    return f"{prefix}_{int(now.timestamp()):010d}_{int(random * 16**6):06x}"
