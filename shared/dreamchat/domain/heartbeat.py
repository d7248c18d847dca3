"""Heartbeat timing: when the AI writes first. Pure: the clock's reading is passed in.

Timed heartbeat: due when the person has been silent longer than the relationship's
interval. Night slow-down: during the night window (`dreamchat.domain.clock.usual_night`, unless
the person chose their own) silence counts one third, so the interval stretches ×3 over the night part of it;
scheduled heartbeats are never slowed. While the person answers, the spec's interval is the
cadence. Beyond the spec, against spam, only for heartbeats that go unanswered: back-off (the
interval doubles per unanswered one, up to a cap), a daily cap on unanswered heartbeats, a
pause after several silent days (each lifted when the person writes); and always: no timed
heartbeat while the person was active in the last few minutes (a scheduled one landing
mid-conversation is skipped), never the same text twice within 24 hours.

"Silent" counts from the last moment the person was present in the chat (open on a device, as
presence reports it) or wrote, whichever is later. A new friend who never writes is reached once,
the level's interval after the greeting, and then left alone until they write. Per friend the
person may turn heartbeats off, or keep only the scheduled ones (`mode`).

After a crisis (`dreamchat.domain.safety`) the pair's next heartbeat is a check-in about an hour
later: it is cancelled when the person writes meanwhile, and only the person's own switch stops
it (no cap, back-off, night or pause rule delays it).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict, Field

from dreamchat.domain.bounds import SCHEDULED_HEARTBEATS
from dreamchat.domain.clock import Night, usual_night
from dreamchat.domain.models import ScheduledHeartbeat

NIGHT_WEIGHT = 1 / 3
MAX_BACKOFF = 64  # beyond it an unanswered heartbeat at 关系冷淡 would wait over a year
# an account's defaults (the server's settings `DREAMCHAT_HEARTBEAT_*` start from them)
DAILY_CAP = 5  # unanswered heartbeats a day
QUIET_MINUTES = 10  # no timed heartbeat this soon after the person wrote
BACKOFF = 8  # the interval doubles per unanswered heartbeat, up to this factor
PAUSE_AFTER_DAYS = 7.0  # silent days after which heartbeats pause until the person writes
LONGEST_WAIT = timedelta(days=3650)  # no timed heartbeat is planned further ahead (决裂: 999 days)
HEARTBEAT_OK = "HEARTBEAT_OK"
NEXT_HEARTBEAT_HOURS = "NEXT_HEARTBEAT_HOURS"  # the marker's name: [NEXT_HEARTBEAT_HOURS:<hours>]
_SEPARATORS = " \t:：,，;；-—"
# the marker as a model may write it: any case, full-width brackets or colon, spaces, a sign or an exponent
_NEXT_MARKER = re.compile(
    r"[\[【［(（]\s*NEXT[_\s]*HEARTBEAT[_\s]*HOURS\s*[:：=]?\s*([-+]?[0-9]*(?:\.[0-9]+)?(?:e[-+]?[0-9]+)?)\s*[\]】］)）]",
    re.IGNORECASE,
)
_OK_ANYHOW = re.compile(r"HEARTBEAT[_\s]*OK", re.IGNORECASE)
MIN_MOVE_HOURS = 0.25
Mode = Literal["on", "off", "scheduled"]  # per friend: every heartbeat, none, only the scheduled ones


class Prefs(BaseModel):
    """An account's heartbeat settings (defaults come from the server's settings)."""

    model_config = ConfigDict(extra="forbid")
    enabled: bool = True
    night_start: int | None = Field(default=None, ge=0, le=23)
    night_end: int | None = Field(default=None, ge=0, le=23)
    daily_cap: int = Field(default=DAILY_CAP, ge=0, le=100)
    quiet_minutes: int = Field(default=QUIET_MINUTES, ge=0, le=24 * 60)
    max_backoff: int = Field(default=BACKOFF, ge=1, le=MAX_BACKOFF)
    pause_after_days: float = Field(default=PAUSE_AFTER_DAYS, gt=0, le=3650)


class SentText(BaseModel):
    text: str
    at: int


class HeartbeatState(BaseModel):
    """Per pair: when the person last wrote, what was sent, what is scheduled, what runs next."""

    model_config = ConfigDict(extra="ignore")
    scheduled: list[ScheduledHeartbeat] = Field(default_factory=list)
    last_person_at: int | None = None
    last_sent_at: int | None = None
    unanswered: int = 0
    sent_day: str = ""
    sent_today: int = 0  # heartbeats sent on sent_day since the person last wrote (the unanswered ones)
    recent: list[SentText] = Field(default_factory=list)
    moved_to: int | None = None
    last_run_at: int | None = None
    last_run_due: int | None = None
    next_due: int | None = None
    next_kind: Literal["timed", "scheduled", "checkin"] | None = None
    checkin_at: int | None = None  # after a crisis: when the AI checks in on the person
    lease_until: int | None = None  # the sweep enqueued the due heartbeat; in flight until then
    mode: Mode = "on"
    greeted_at: int | None = None  # the greeting of a new friendship: first contact counts from it
    last_present_at: int | None = None  # the person last had this chat open (presence)


def night_window(night_owl: bool, prefs: Prefs) -> Night:
    """The person's own night window when they chose one, else the AI user's usual night."""
    default = usual_night(night_owl)
    if prefs.night_start is None or prefs.night_end is None or prefs.night_start == prefs.night_end:
        return default
    return Night(prefs.night_start, prefs.night_end)


def stretched_due(start: datetime, interval: timedelta, night: Night, zone: str) -> datetime:
    """When `interval` of silence has passed since `start`, counting night time one third.

    Whole weeks without a clock change are skipped at once and the weeks around a change walked night
    by night, so the work is bounded by the weeks of the (capped) wait plus the clock changes in it."""
    tz = ZoneInfo(zone)
    moment, remaining = start.astimezone(tz), min(interval, LONGEST_WAIT).total_seconds()
    week = _week_weight(night)
    while True:
        moment, remaining = _whole_weeks_skipped(moment, remaining, week, tz)
        boundary = _next_boundary(moment, night, tz)
        weight = NIGHT_WEIGHT if night.contains(moment) else 1.0
        # Elapsed seconds, not wall-clock differences: a DST change night is 7 or 9 hours long.
        span = boundary.timestamp() - moment.timestamp()
        if span * weight >= remaining:
            return datetime.fromtimestamp(moment.timestamp() + remaining / weight, tz)
        remaining -= span * weight
        moment = datetime.fromtimestamp(boundary.timestamp(), tz)


def _week_weight(night: Night) -> float:
    night_seconds = ((night.end - night.start) % 24) * 3600
    return 7 * (86400 - night_seconds + night_seconds * NIGHT_WEIGHT)


def _whole_weeks_skipped(moment: datetime, remaining: float, week: float, tz: ZoneInfo) -> tuple[datetime, float]:
    """Whole weeks with no clock change, skipped at once: each weighs the same. Stops before a week
    with a change (walked step by step by the caller, which then comes back here)."""
    while remaining > week:
        later = datetime.fromtimestamp(moment.timestamp() + 7 * 86400, tz)
        if later.utcoffset() != moment.utcoffset():
            break
        moment, remaining = later, remaining - week
    return moment, remaining


def _next_boundary(moment: datetime, night: Night, tz: ZoneInfo) -> datetime:
    day = moment.date()
    candidates = [
        _local(day + timedelta(days=offset), hour, tz) for offset in (0, 1, 2) for hour in (night.start, night.end)
    ]
    return min((c for c in candidates if c.timestamp() > moment.timestamp()), key=datetime.timestamp)


def _local(day: date, hour: int, tz: ZoneInfo) -> datetime:
    return datetime.combine(day, time(hour), tzinfo=tz)


def next_scheduled(
    after: datetime, scheduled: list[ScheduledHeartbeat], zone: str
) -> tuple[datetime, ScheduledHeartbeat] | None:
    """The first scheduled heartbeat strictly after `after`, in the pair's time zone."""
    tz = ZoneInfo(zone)
    local = after.astimezone(tz)
    found = []
    for entry in scheduled:
        for offset in (0, 1):
            at = datetime.combine(local.date() + timedelta(days=offset), time(entry.hour, entry.minute), tzinfo=tz)
            if at.timestamp() > local.timestamp():  # instants: wall times repeat when DST ends
                found.append((at, entry))
                break
    return min(found, key=lambda pair: pair[0].timestamp()) if found else None


@dataclass(frozen=True)
class Due:
    at: datetime
    kind: Literal["timed", "scheduled", "checkin"]
    scheduled: ScheduledHeartbeat | None = None


def next_heartbeat(
    state: HeartbeatState, interval: timedelta, prefs: Prefs, night_owl: bool, zone: str, now: datetime
) -> Due | None:
    """The next heartbeat to run, or None (off, paused, or the person never wrote nor was greeted)."""
    if not prefs.enabled or state.mode == "off":
        return None
    checkin = Due(datetime.fromtimestamp(state.checkin_at, ZoneInfo(zone)), "checkin") if state.checkin_at else None
    candidates = [d for d in (checkin, _regular(state, interval, prefs, night_owl, zone, now)) if d]
    return min(candidates, key=lambda d: d.at.timestamp()) if candidates else None


def _regular(
    state: HeartbeatState, interval: timedelta, prefs: Prefs, night_owl: bool, zone: str, now: datetime
) -> Due | None:
    if prefs.daily_cap == 0 or paused(state, prefs, now):
        return None
    timed = _timed(state, interval, prefs, night_owl, zone) if state.mode == "on" else None
    candidates = [d for d in (timed, _scheduled(state, zone, now)) if d]
    if not candidates:
        return None
    due = min(candidates, key=lambda d: d.at.timestamp())
    return Due(_after_cap(due.at, state, prefs, night_window(night_owl, prefs), zone), due.kind, due.scheduled)


def check_in_after(state: HeartbeatState, now: datetime, minutes: int) -> HeartbeatState:
    """A crisis: the next heartbeat checks in on the person `minutes` from now."""
    return state.model_copy(update={"checkin_at": int(now.timestamp()) + minutes * 60})


def checked_in(state: HeartbeatState) -> HeartbeatState:
    return state.model_copy(update={"checkin_at": None})


def indexed_at(due: datetime, state: HeartbeatState, now: datetime) -> datetime:
    """Where the due index holds a heartbeat: at its due time, or after the lease of a run in flight,
    so no sweep enqueues it twice."""
    if state.lease_until is not None and state.lease_until > now.timestamp():
        return max(due, datetime.fromtimestamp(state.lease_until, due.tzinfo))
    return due


def unleased(state: HeartbeatState) -> HeartbeatState:
    """The run is over: the heartbeat is no longer in flight."""
    return state.model_copy(update={"lease_until": None})


def paused(state: HeartbeatState, prefs: Prefs, now: datetime) -> bool:
    """Heartbeats wait for the person after several silent days in which at least one went
    unanswered (so a cold relationship, whose interval is a week, still writes once). A person who
    never wrote is reached once after the greeting (first contact), then waits."""
    if state.last_person_at is None:
        return state.greeted_at is None or state.unanswered >= 1
    silent = now.timestamp() - state.last_person_at >= prefs.pause_after_days * 86400
    return silent and state.unanswered >= 1


def _timed(state: HeartbeatState, interval: timedelta, prefs: Prefs, night_owl: bool, zone: str) -> Due | None:
    if state.moved_to is not None:
        return Due(datetime.fromtimestamp(state.moved_to, ZoneInfo(zone)), "timed")
    base = max(
        state.last_person_at or 0,
        state.greeted_at or 0,
        state.last_present_at or 0,
        state.last_sent_at or 0,
        state.last_run_at or 0,
    )
    backoff = min(2**state.unanswered, prefs.max_backoff)
    start = datetime.fromtimestamp(base, ZoneInfo(zone))
    at = stretched_due(start, interval * backoff, night_window(night_owl, prefs), zone)
    quiet_until = datetime.fromtimestamp((state.last_person_at or 0) + prefs.quiet_minutes * 60, ZoneInfo(zone))
    return Due(max(at, quiet_until, key=datetime.timestamp), "timed")


def _scheduled(state: HeartbeatState, zone: str, now: datetime) -> Due | None:
    # A scheduled time at most a minute old still counts (the sweep runs every minute); one
    # that already ran does not.
    last = max(state.last_run_due or 0, int(now.timestamp()) - 60)
    found = next_scheduled(datetime.fromtimestamp(last, ZoneInfo(zone)), state.scheduled, zone)
    return Due(found[0], "scheduled", found[1]) if found else None


def _after_cap(at: datetime, state: HeartbeatState, prefs: Prefs, night: Night, zone: str) -> datetime:
    """With today's cap of unanswered heartbeats reached, nothing more until the next local day's
    morning (the night's end)."""
    local = at.astimezone(ZoneInfo(zone))
    if _sent_on(state, local.date().isoformat()) >= prefs.daily_cap:
        return _local(local.date() + timedelta(days=1), night.end, ZoneInfo(zone))
    return at


def _sent_on(state: HeartbeatState, day: str) -> int:
    # Counting a day with no sends as 0 (not skipping the check) keeps a cap of 0 at zero.
    return state.sent_today if state.sent_day == day else 0


def greeted(state: HeartbeatState, now: datetime) -> HeartbeatState:
    """The AI's greeting opened a new friendship: if the person never writes, first contact counts from now."""
    return state.model_copy(update={"greeted_at": int(now.timestamp())})


def seen_present(state: HeartbeatState, at: float | None) -> HeartbeatState:
    """The person had the chat open at `at` (presence): their silence counts from then, if later."""
    if at is None or (state.last_present_at or 0) >= int(at):
        return state
    return state.model_copy(update={"last_present_at": int(at)})


def with_mode(state: HeartbeatState, mode: Mode) -> HeartbeatState:
    return state.model_copy(update={"mode": mode})


def person_active(state: HeartbeatState, prefs: Prefs, now: datetime) -> bool:
    return state.last_person_at is not None and now.timestamp() - state.last_person_at < prefs.quiet_minutes * 60


def person_wrote(state: HeartbeatState, now: datetime) -> HeartbeatState:
    """The person wrote: heartbeats count from now, and every heartbeat sent so far is answered:
    the back-off, the pause and the day's cap start again from nothing, and a check-in owed after a
    crisis is no longer needed (a crisis in this message owes a new one)."""
    return state.model_copy(
        update={
            "last_person_at": int(now.timestamp()),
            "unanswered": 0,
            "sent_today": 0,
            "moved_to": None,
            "checkin_at": None,
        }
    )


def read_heartbeat_reply(text: str) -> tuple[str, float | None]:
    """What to send (empty: do not disturb) and the hours the AI moved its next heartbeat by
    (unbounded: `bounded_move` keeps it within what the level allows)."""
    moved = _NEXT_MARKER.search(text)
    hours = _hours(moved.group(1)) if moved else None
    # The token never reaches the person, wherever the model put it, nor the punctuation around it.
    text = _OK_ANYHOW.sub("\n", _NEXT_MARKER.sub("", text))
    lines = [line.strip().strip(_SEPARATORS).strip() for line in text.splitlines()]
    text = "\n".join(line for line in lines if line)
    return (text if _meaningful(text) else ""), hours


def _hours(written: str) -> float | None:
    try:
        hours = float(written)
    except ValueError:  # "[NEXT_HEARTBEAT_HOURS:]" or "." says nothing
        return None
    return hours if hours > 0 else None


def bounded_move(hours: float | None, interval: timedelta, max_backoff: int) -> float | None:
    """The AI's move of its next heartbeat, kept between a quarter of an hour and the longest wait its
    level allows (the interval at the largest back-off): `[NEXT_HEARTBEAT_HOURS:99999999999]` is that."""
    if hours is None:
        return None
    longest = interval.total_seconds() / 3600 * max_backoff
    return min(max(hours, MIN_MOVE_HOURS), longest)


def strip_control_markers(text: str) -> str:
    """A chat reply without the heartbeat's control words, which are never shown to the person."""
    return _OK_ANYHOW.sub("", _NEXT_MARKER.sub("", text))


def _meaningful(text: str) -> bool:
    """Words, digits or emoji (a lone "❤️" is a message); punctuation alone says nothing."""
    return any(ch.isalnum() or unicodedata.category(ch) == "So" for ch in text)


def sent_recently(state: HeartbeatState, text: str, now: datetime) -> bool:
    """The same text (ignoring spaces and case) was sent within the last 24 hours."""
    key = _normal(text)
    return any(_normal(s.text) == key and now.timestamp() - s.at < 86400 for s in state.recent)


def record_run(state: HeartbeatState, due: datetime, now: datetime, moved_hours: float | None) -> HeartbeatState:
    """A heartbeat ran (whether or not it sent anything); the AI may have moved the next one."""
    moved = int(now.timestamp() + moved_hours * 3600) if moved_hours else None
    return state.model_copy(
        update={"last_run_at": int(now.timestamp()), "last_run_due": int(due.timestamp()), "moved_to": moved}
    )


def record_sent(state: HeartbeatState, texts: list[str], now: datetime, zone: str) -> HeartbeatState:
    at = int(now.timestamp())
    day = now.astimezone(ZoneInfo(zone)).date().isoformat()
    today = state.sent_today + 1 if state.sent_day == day else 1
    recent = [s for s in state.recent if at - s.at < 86400] + [SentText(text=t, at=at) for t in texts]
    return state.model_copy(
        update={
            "last_sent_at": at,
            "unanswered": state.unanswered + 1,
            "sent_day": day,
            "sent_today": today,
            "recent": recent[-50:],
        }
    )


def cap_reached(state: HeartbeatState, prefs: Prefs, now: datetime, zone: str) -> bool:
    return _sent_on(state, now.astimezone(ZoneInfo(zone)).date().isoformat()) >= prefs.daily_cap


def _normal(text: str) -> str:
    return "".join(text.split()).casefold()


def add_scheduled(state: HeartbeatState, entry: ScheduledHeartbeat) -> HeartbeatState:
    others = [s for s in state.scheduled if (s.hour, s.minute) != (entry.hour, entry.minute)]
    if len(others) >= SCHEDULED_HEARTBEATS:
        raise ValueError(f"at most {SCHEDULED_HEARTBEATS} scheduled heartbeats")
    return state.model_copy(update={"scheduled": sorted([*others, entry], key=lambda s: (s.hour, s.minute))})


def remove_scheduled(state: HeartbeatState, hour: int, minute: int) -> tuple[HeartbeatState, bool]:
    kept = [s for s in state.scheduled if (s.hour, s.minute) != (hour, minute)]
    return state.model_copy(update={"scheduled": kept}), len(kept) != len(state.scheduled)
