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


def media_id(now: datetime, random: float, ai_user_id: str) -> str:
    """`md<16-digit epoch microseconds><6 hex>.<AI user id>`: the id names its pair's AI user, so a
    request with the id alone finds the record in the caller's own pair (and nowhere else)."""
    return f"md{int(now.timestamp() * 1_000_000):016d}{int(random * 16**6):06x}.{ai_user_id}"


def media_ai_user(media_id: str) -> str | None:
    """The AI user a media id names; None for a string that is not a media id."""
    token, dot, ai_user_id = media_id.partition(".")
    if not dot or not ai_user_id or len(token) != 24 or not token.startswith("md"):
        return None
    return ai_user_id
