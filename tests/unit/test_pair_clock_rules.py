"""The pair's own clock and the per-friend heartbeat rules: whose zone, the late-night nudge of a
night owl, first contact after a greeting, per-friend modes, presence as the start of silence,
and the offline demo's lines. Pure: every clock reading is passed in."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from dreamchat.domain.clock import pair_zone
from dreamchat.domain.heartbeat import (
    HeartbeatState,
    Prefs,
    greeted,
    next_heartbeat,
    record_sent,
    seen_present,
    with_mode,
)
from dreamchat.domain.models import ScheduledHeartbeat
from dreamchat.domain.reply import decide_reply, is_late_night, reply_probability
from dreamchat.llm.chat_prompts import reply_guidance
from dreamchat.llm.offline import OFFLINE_MARK, SCHEDULED_LINE, offline_heartbeats

SHANGHAI = "Asia/Shanghai"
LA = "America/Los_Angeles"
PREFS = Prefs()
HOUR = timedelta(hours=1)


def at(hour: int, minute: int = 0, zone: str = SHANGHAI) -> datetime:
    return datetime(2026, 3, 10, hour, minute, tzinfo=ZoneInfo(zone))


def due(state: HeartbeatState, now: datetime, zone: str = SHANGHAI, interval: timedelta = HOUR):
    return next_heartbeat(state, interval, PREFS, False, zone, now)


def test_the_persons_zone_wins_and_the_ai_users_is_the_default() -> None:
    assert pair_zone(LA, SHANGHAI) == LA
    assert pair_zone(None, SHANGHAI) == SHANGHAI


def test_a_night_owls_late_night_is_two_to_ten() -> None:
    assert [h for h in range(24) if is_late_night(h, night_owl=True)] == list(range(2, 10))
    assert [h for h in range(24) if is_late_night(h)] == [0, 1, 2, 3, 4, 5, 6, 23]


def test_the_late_night_nudge_follows_a_night_owls_window() -> None:
    # 23:30 is deep night for most, the evening for a night owl; 08:00 the other way round
    assert reply_probability("一般", "今天去超市了", None, 23, night_owl=True) == reply_probability(
        "一般", "今天去超市了"
    )
    assert reply_probability("一般", "今天去超市了", None, 8, night_owl=True) < reply_probability(
        "一般", "今天去超市了"
    )
    owl_at_8 = decide_reply("一般", None, 8, "今天去超市了", 0.5, night_owl=True)
    owl_at_23 = decide_reply("一般", None, 23, "今天去超市了", 0.5, night_owl=True)
    assert "深夜" in reply_guidance(owl_at_8) and "深夜" not in reply_guidance(owl_at_23)


def test_a_new_friend_who_never_writes_is_reached_once_the_interval_after_the_greeting() -> None:
    greeting = at(12)
    state = greeted(HeartbeatState(), greeting)
    first = due(state, greeting)
    assert first is not None and first.kind == "timed" and first.at.timestamp() == (greeting + HOUR).timestamp()
    after = record_sent(state, ["在吗？"], greeting + HOUR, SHANGHAI)
    assert due(after, greeting + 2 * HOUR) is None  # once; then it waits for the person


def test_without_a_greeting_a_person_who_never_wrote_gets_no_heartbeat() -> None:
    assert due(HeartbeatState(), at(12)) is None


def test_a_friend_switched_off_sends_nothing_not_even_scheduled_ones() -> None:
    state = HeartbeatState(last_person_at=int(at(8).timestamp()), scheduled=[ScheduledHeartbeat(hour=9, minute=30)])
    assert due(state, at(8, 5)) is not None
    assert due(with_mode(state, "off"), at(8, 5)) is None


def test_only_scheduled_keeps_the_scheduled_times_and_drops_the_timed_ones() -> None:
    wrote = HeartbeatState(last_person_at=int(at(8).timestamp()))
    assert due(with_mode(wrote, "scheduled"), at(8, 5)) is None
    scheduled = with_mode(wrote.model_copy(update={"scheduled": [ScheduledHeartbeat(hour=21, minute=0)]}), "scheduled")
    found = due(scheduled, at(8, 5))
    assert found is not None and found.kind == "scheduled" and found.at.timestamp() == at(21).timestamp()


def test_silence_counts_from_the_last_moment_the_person_was_present() -> None:
    wrote = HeartbeatState(last_person_at=int(at(8).timestamp()))
    present = seen_present(wrote, at(10).timestamp())
    assert due(wrote, at(8, 5)).at.timestamp() == at(9).timestamp()
    assert due(present, at(10)).at.timestamp() == at(11).timestamp()
    assert seen_present(present, at(9).timestamp()) == present  # an older sighting changes nothing
    assert seen_present(present, None) == present


def test_offline_heartbeats_are_marked_offline_and_a_scheduled_one_says_its_template() -> None:
    assert offline_heartbeats("scheduled", "一般", "早安，记得吃早饭")[0] == OFFLINE_MARK + "早安，记得吃早饭"
    assert offline_heartbeats("scheduled", "一般", "")[0] == OFFLINE_MARK + SCHEDULED_LINE
    for level in ("特别关心", "关系较好", "一般", "关系冷淡", "决裂"):
        lines = offline_heartbeats("timed", level, "")
        assert lines and all(line.startswith(OFFLINE_MARK) and len(line) <= 40 for line in lines)
    assert offline_heartbeats("timed", "特别关心", "") != offline_heartbeats("timed", "关系冷淡", "")
