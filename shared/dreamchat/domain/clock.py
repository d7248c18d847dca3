"""Whose clock a pair lives by. Pure.

The person's own time zone when they set one (`timezone` in their profile), else the AI user's:
night windows, scheduled heartbeat times, the late-night reply nudge, the local day of the daily
cap and of "per month" rules, and the time shown to the model are all read on this clock.
"""

from __future__ import annotations


def pair_zone(person_zone: str | None, ai_zone: str) -> str:
    """The pair's IANA zone: the person's when set, else the AI user's (the default for accounts
    that never set one)."""
    return person_zone or ai_zone
