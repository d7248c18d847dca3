"""The person's conversation time and the reminders it brings. Pure: the clock's reading and the person's
zone are passed in.

Conversation time is counted from the person's messages as continuous use is (`dreamchat.domain.sessions`):
the time between two messages less than `GAP_MINUTES` apart is conversation, a longer gap is not. It is kept
per account across every AI friend, by the person's own day (their zone), for the last `DAYS_KEPT` days.

What it decides:
- the daily limit of minors' mode: reached, chat waits for the person's next day; `LIMIT_WARNING_MINUTES`
  before it, a notice, once that day;
- the reality reminder of minors' mode, every `REALITY_MINUTES` of continuous talk;
- the AI disclosure before the first reply of each session (after a login, or after `SESSION_GAP_MINUTES`
  without messages) and again after every `DISCLOSURE_HOURS` of continuous conversation (NY GBL art. 47);
- over-dependence: more than the dependence hours a day on `DEPENDENCE_DAYS` of the last `DAYS_KEPT` days,
  a notice once a day;
- the minors' heartbeat curfew: how long until it ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, Field

from dreamchat.domain.protection import (
    CURFEW_END_HOUR,
    DAILY_LIMIT,
    LIMIT_WARNING_MINUTES,
    REALITY_MINUTES,
    in_curfew,
)
from dreamchat.domain.sessions import GAP_MINUTES

DAYS_KEPT = 7  # the days of conversation time kept, today among them
SESSION_GAP_MINUTES = 30  # after this long without a message, the next one begins a new session
DISCLOSURE_HOURS = 3  # the AI disclosure again after this much continuous conversation
DEPENDENCE_DAYS = 3  # days, of the last DAYS_KEPT, over the dependence hours that show over-dependence

# the kinds of the notices a turn shows (SSE `notice` events), in the order they come
AI_DISCLOSURE = "ai_disclosure"
DAILY_LIMIT_SOON = DAILY_LIMIT  # the daily limit's warning shares the 403's code
REALITY = "reality"
DEPENDENCE = "dependence"


class Usage(BaseModel):
    """One account's conversation time by day, and when each reminder was last due or shown."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    days: dict[str, int] = Field(default_factory=dict)  # the person's date (ISO) → seconds of conversation
    last_at: int | None = None  # the person's last message
    talk_at: int | None = None  # the continuous talk (gaps under GAP_MINUTES) began
    disclosed_at: int | None = None  # the AI disclosure shown in this session; None: due
    reality_at: int | None = None  # the last reality reminder
    warned_on: str | None = None  # the day the daily limit's warning was shown
    limited_on: str | None = None  # the day the daily limit was reached: chat waits for the next
    dependence_on: str | None = None  # the day the over-dependence notice was shown


def local_day(at: int, zone: str) -> str:
    """The person's date at `at` in their zone."""
    return datetime.fromtimestamp(at, ZoneInfo(zone)).date().isoformat()


def spoke(usage: Usage, now: int, zone: str) -> Usage:
    """The person sent a message at `now`: the time since their last one is conversation when the gap was
    short (split at the person's midnights); a long gap begins a new talk, and a new session."""
    last = usage.last_at
    gap = None if last is None else now - last
    talk_at = now if gap is None or gap >= GAP_MINUTES * 60 else usage.talk_at
    new_session = gap is None or gap >= SESSION_GAP_MINUTES * 60
    disclosed_at = None if new_session else usage.disclosed_at
    days = _recent(_counted(usage, now, zone), now, zone)
    update = {"days": days, "last_at": max(now, last or now), "talk_at": talk_at}
    return usage.model_copy(update={**update, "disclosed_at": disclosed_at})


def used_today(usage: Usage, now: int, zone: str) -> int:
    """Seconds of conversation on the person's day of `now`, the talk still going on counted up to `now`."""
    return _counted(usage, now, zone).get(local_day(now, zone), 0)


def limit_reached(usage: Usage, now: int, zone: str, minutes: int) -> bool:
    """The daily limit is used up (at exactly the limit too), or was today: chat waits for the person's next
    day (a message after a long pause, which counts no time, does not reopen it)."""
    return usage.limited_on == local_day(now, zone) or used_today(usage, now, zone) >= minutes * 60


def limited(usage: Usage, now: int, zone: str) -> Usage:
    return usage.model_copy(update={"limited_on": local_day(now, zone)})


def limit_warning_due(usage: Usage, now: int, zone: str, minutes: int) -> bool:
    """`LIMIT_WARNING_MINUTES` or less of the daily limit remain, and the person was not told today."""
    left = minutes * 60 - used_today(usage, now, zone)
    return left <= LIMIT_WARNING_MINUTES * 60 and usage.warned_on != local_day(now, zone)


def minutes_left(usage: Usage, now: int, zone: str, minutes: int) -> int:
    """Whole minutes of the daily limit left (rounded up: 30 seconds left is 1 minute)."""
    return max(0, -(-(minutes * 60 - used_today(usage, now, zone)) // 60))


def warned(usage: Usage, now: int, zone: str) -> Usage:
    return usage.model_copy(update={"warned_on": local_day(now, zone)})


def logged_in(usage: Usage) -> Usage:
    """A login begins a session: the next reply is preceded by the AI disclosure."""
    return usage.model_copy(update={"disclosed_at": None})


def disclosure_due(usage: Usage, now: int) -> bool:
    """The session has not been told it talks to an AI, or was told `DISCLOSURE_HOURS` ago."""
    return usage.disclosed_at is None or now - usage.disclosed_at >= DISCLOSURE_HOURS * 3600


def disclosed(usage: Usage, now: int) -> Usage:
    return usage.model_copy(update={"disclosed_at": now})


def reality_due(usage: Usage, now: int) -> bool:
    """`REALITY_MINUTES` of continuous talk since it began or since the last reality reminder."""
    if usage.talk_at is None or usage.last_at is None or now - usage.last_at >= GAP_MINUTES * 60:
        return False
    return now - max(usage.talk_at, usage.reality_at or 0) >= REALITY_MINUTES * 60


def reminded_of_reality(usage: Usage, now: int) -> Usage:
    return usage.model_copy(update={"reality_at": now})


def dependence_due(usage: Usage, now: int, zone: str, hours: float) -> bool:
    """More than `hours` of conversation on `DEPENDENCE_DAYS` of the last `DAYS_KEPT` days (today among
    them), and the person was not told today."""
    today = local_day(now, zone)
    long_days = [day for day, seconds in _recent(usage.days, now, zone).items() if seconds > hours * 3600]
    return len(long_days) >= DEPENDENCE_DAYS and usage.dependence_on != today


def told_of_dependence(usage: Usage, now: int, zone: str) -> Usage:
    return usage.model_copy(update={"dependence_on": local_day(now, zone)})


@dataclass(frozen=True)
class Situation:
    """What holds for the person in this turn."""

    minor: bool  # in minors' mode: the reality reminder
    daily_minutes: int | None  # minors' mode's daily limit; None: none
    dependence_hours: float  # more than this a day shows over-dependence
    distress: bool  # the turn answers distress or a crisis: only the AI disclosure, nothing about time


def reminders(usage: Usage, now: int, zone: str, situation: Situation) -> tuple[Usage, list[str]]:
    """The notices due before the AI's reply (their kinds, in order), and the usage with each marked shown."""
    kinds = []
    if disclosure_due(usage, now):
        usage, kinds = disclosed(usage, now), [AI_DISCLOSURE]
    if situation.distress:
        return usage, kinds
    minutes = situation.daily_minutes
    if minutes is not None and limit_warning_due(usage, now, zone, minutes):
        usage, kinds = warned(usage, now, zone), [*kinds, DAILY_LIMIT_SOON]
    if situation.minor and reality_due(usage, now):
        usage, kinds = reminded_of_reality(usage, now), [*kinds, REALITY]
    if dependence_due(usage, now, zone, situation.dependence_hours):
        usage, kinds = told_of_dependence(usage, now, zone), [*kinds, DEPENDENCE]
    return usage, kinds


def curfew_left(now: datetime, zone: str) -> timedelta | None:
    """How long the minors' heartbeat curfew (22:00 to 08:00 in the person's zone) still holds at `now`,
    None outside it."""
    local = now.astimezone(ZoneInfo(zone))
    if not in_curfew(local.hour):
        return None
    day = local.date() if local.hour < CURFEW_END_HOUR else local.date() + timedelta(days=1)
    end = datetime(day.year, day.month, day.day, CURFEW_END_HOUR, tzinfo=ZoneInfo(zone))
    return end.astimezone(UTC) - now.astimezone(UTC)


def _counted(usage: Usage, now: int, zone: str) -> dict[str, int]:
    """The days, with the talk since the person's last message counted up to `now` unless the gap is too long."""
    last = usage.last_at
    if last is None or not 0 < now - last < GAP_MINUTES * 60:
        return usage.days
    return _credited(usage.days, last, now, zone)


def _credited(days: dict[str, int], start: int, end: int, zone: str) -> dict[str, int]:
    """`days` with the time from `start` to `end` added, each part to the person's date it falls on."""
    tz = ZoneInfo(zone)
    credited = dict(days)
    while start < end:
        local = datetime.fromtimestamp(start, tz)
        tomorrow = local.date() + timedelta(days=1)
        midnight = int(datetime(tomorrow.year, tomorrow.month, tomorrow.day, tzinfo=tz).timestamp())
        until = min(end, midnight)
        day = local.date().isoformat()
        credited[day] = credited.get(day, 0) + until - start
        start = until
    return credited


def _recent(days: dict[str, int], now: int, zone: str) -> dict[str, int]:
    """The days of the last `DAYS_KEPT` (today among them) of `days`."""
    today = datetime.fromtimestamp(now, ZoneInfo(zone)).date()
    first = (today - timedelta(days=DAYS_KEPT - 1)).isoformat()
    return {day: seconds for day, seconds in days.items() if day >= first}
