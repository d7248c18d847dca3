"""Whose clock a pair lives by. Pure.

The person's own time zone when they set one (`timezone` in their profile), else the AI user's:
night windows, scheduled heartbeat times, the late-night reply nudge, the local day of the daily
cap and of "per month" rules, and the time shown to the model are all read on this clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


def pair_zone(chosen: str | None, ai_zone: str) -> str:
    """The pair's IANA zone: the person's when set, else the AI user's (the default for accounts
    that never set one)."""
    return chosen or ai_zone


@dataclass(frozen=True)
class Night:
    """A night window on the pair's clock, from `start` to `end` o'clock (it may wrap past midnight)."""

    start: int
    end: int

    def contains(self, local: datetime) -> bool:
        return self.contains_hour(local.hour)

    def contains_hour(self, hour: int) -> bool:
        if self.start < self.end:
            return self.start <= hour < self.end
        return hour >= self.start or hour < self.end


NIGHT = Night(23, 7)  # the night, unless the person chose their own window
NIGHT_OWL_NIGHT = Night(2, 10)  # a night owl's night


def usual_night(night_owl: bool) -> Night:
    """The AI user's own night: what heartbeats slow down in and the late-night reply nudge reads."""
    return NIGHT_OWL_NIGHT if night_owl else NIGHT
