"""When the AI writes first: level intervals, the night slow-down, scheduled heartbeats, and the
anti-spam rules (quiet window, daily cap, back-off, pause). Every clock reading is passed in."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import pairwise
from zoneinfo import ZoneInfo

import pytest

from dreamchat.domain.heartbeat import (
    HeartbeatState,
    Night,
    Prefs,
    cap_reached,
    next_heartbeat,
    next_scheduled,
    night_window,
    paused,
    person_active,
    person_wrote,
    record_run,
    stretched_due,
)
from dreamchat.domain.models import Relationship, RelationshipLevel, ScheduledHeartbeat
from dreamchat.domain.relationship import heartbeat_interval

SHANGHAI = "Asia/Shanghai"
BERLIN = "Europe/Berlin"
NIGHT = Night(23, 7)
OWL_NIGHT = Night(2, 10)
DEFAULTS = Prefs()


def local(day: int, hour: int, minute: int = 0, second: int = 0, zone: str = SHANGHAI, month: int = 3) -> datetime:
    """A wall-clock reading in the pair's zone (March 2026 unless told otherwise)."""
    return datetime(2026, month, day, hour, minute, second, tzinfo=ZoneInfo(zone))


def epoch(moment: datetime) -> int:
    return int(moment.timestamp())


def wrote_at(moment: datetime, **fields: object) -> HeartbeatState:
    return HeartbeatState(last_person_at=epoch(moment), **fields)


def daily(hour: int, minute: int, template: str = "") -> ScheduledHeartbeat:
    return ScheduledHeartbeat(hour=hour, minute=minute, message_template=template)


def hours(value: float) -> timedelta:
    return timedelta(hours=value)


def due_of(
    state: HeartbeatState,
    now: datetime,
    interval: timedelta = hours(1),
    prefs: Prefs = DEFAULTS,
    night_owl: bool = False,
    zone: str = SHANGHAI,
) -> datetime:
    due = next_heartbeat(state, interval, prefs, night_owl, zone, now)
    assert due is not None
    return due.at


def same_instant(a: datetime, b: datetime) -> bool:
    return a.timestamp() == b.timestamp()


# --- the night window ----------------------------------------------------------------------


def test_the_default_night_is_eleven_pm_to_seven_am() -> None:
    assert night_window(night_owl=False, prefs=DEFAULTS) == Night(23, 7)


def test_a_night_owl_sleeps_from_two_to_ten() -> None:
    assert night_window(night_owl=True, prefs=DEFAULTS) == Night(2, 10)


def test_the_account_prefs_override_the_night_window_for_owls_too() -> None:
    prefs = Prefs(night_start=22, night_end=6)
    assert night_window(night_owl=False, prefs=prefs) == Night(22, 6)
    assert night_window(night_owl=True, prefs=prefs) == Night(22, 6)


@pytest.mark.parametrize("prefs", [Prefs(night_start=22), Prefs(night_end=6), Prefs(night_start=5, night_end=5)])
def test_a_half_set_or_empty_override_keeps_the_default_window(prefs: Prefs) -> None:
    assert night_window(night_owl=False, prefs=prefs) == Night(23, 7)


@pytest.mark.parametrize(("hour", "inside"), [(22, False), (23, True), (0, True), (6, True), (7, False), (12, False)])
def test_a_window_across_midnight_contains_the_late_and_the_early_hours(hour: int, inside: bool) -> None:
    assert NIGHT.contains(local(15, hour, 30)) is inside


@pytest.mark.parametrize(("hour", "inside"), [(0, False), (1, True), (4, True), (5, False)])
def test_a_window_within_one_day_contains_only_its_own_hours(hour: int, inside: bool) -> None:
    assert Night(1, 5).contains(local(15, hour)) is inside


# --- the night slow-down: night time counts one third -------------------------------------


def test_a_silence_entirely_in_the_day_is_not_stretched() -> None:
    assert stretched_due(local(15, 9), hours(2), NIGHT, SHANGHAI) == local(15, 11)


def test_a_silence_that_ends_exactly_when_the_night_starts_is_not_stretched() -> None:
    assert stretched_due(local(15, 21), hours(2), NIGHT, SHANGHAI) == local(15, 23)


def test_a_silence_entirely_in_the_night_lasts_three_times_as_long() -> None:
    assert stretched_due(local(15, 23), hours(1), NIGHT, SHANGHAI) == local(16, 2)


def test_a_silence_starting_in_the_day_stretches_only_over_its_night_part_across_midnight() -> None:
    # 22:00-23:00 counts one hour; the two hours left take six hours of night: 05:00.
    assert stretched_due(local(15, 22), hours(3), NIGHT, SHANGHAI) == local(16, 5)


def test_a_silence_that_outlasts_the_night_counts_the_whole_night_as_a_third() -> None:
    # 1 h of evening + 8 h of night (2 h 40 counted) + 16 h of day + another night + 1 h 40.
    assert stretched_due(local(15, 22), hours(24), NIGHT, SHANGHAI) == local(17, 8, 40)


def test_a_seventy_two_hour_silence_across_three_nights_lasts_eighty_eight_hours() -> None:
    # Each full day counts 16 h + 8/3 h; three of them count 56 h, the last 16 h end at 23:00.
    start = local(15, 7)
    due = stretched_due(start, hours(72), NIGHT, SHANGHAI)
    assert due == local(18, 23)
    assert due - start == hours(88)


def test_a_silence_starting_inside_the_night_is_stretched_until_morning() -> None:
    assert stretched_due(local(15, 1), timedelta(minutes=20), NIGHT, SHANGHAI) == local(15, 2)


def test_a_silence_starting_just_before_morning_runs_at_full_speed_after_seven() -> None:
    # Ten night minutes count 3 min 20 s; the remaining 16 min 40 s run from 07:00.
    assert stretched_due(local(15, 6, 50), timedelta(minutes=20), NIGHT, SHANGHAI) == local(15, 7, 16, 40)


def test_a_night_owl_is_not_slowed_before_two_am() -> None:
    start = local(15, 1)
    assert stretched_due(start, timedelta(minutes=20), OWL_NIGHT, SHANGHAI) == local(15, 1, 20)
    assert stretched_due(start, timedelta(minutes=20), NIGHT, SHANGHAI) == local(15, 2)


def test_a_night_owl_is_slowed_until_ten_am() -> None:
    start = local(15, 9)
    assert stretched_due(start, timedelta(minutes=20), OWL_NIGHT, SHANGHAI) == local(15, 10)
    assert stretched_due(start, timedelta(minutes=20), NIGHT, SHANGHAI) == local(15, 9, 20)


def test_the_night_is_judged_in_the_pairs_time_zone() -> None:
    start = datetime(2026, 3, 15, 14, 0, tzinfo=UTC)  # 22:00 in Shanghai, afternoon in UTC
    assert stretched_due(start, hours(3), NIGHT, SHANGHAI) == local(16, 5)
    assert stretched_due(start, hours(3), NIGHT, "UTC") == datetime(2026, 3, 15, 17, 0, tzinfo=UTC)


def test_a_half_hour_offset_zone_keeps_the_night_on_its_own_clock() -> None:
    start = local(15, 22, zone="Asia/Kolkata")
    assert stretched_due(start, hours(3), NIGHT, "Asia/Kolkata") == local(16, 5, zone="Asia/Kolkata")


def test_a_silence_across_the_spring_forward_night_counts_the_seven_hours_it_really_lasts() -> None:
    # Berlin, 29 March 2026: 02:00 CET becomes 03:00 CEST. 23:00 CET is 22:00 UTC; the two hours
    # left after the evening hour take six real hours of night.
    due = stretched_due(local(28, 22, zone=BERLIN), hours(3), NIGHT, BERLIN)
    assert same_instant(due, datetime(2026, 3, 29, 4, 0, tzinfo=UTC))
    assert (due.hour, due.minute) == (6, 0)


def test_a_silence_across_the_fall_back_night_counts_the_nine_hours_it_really_lasts() -> None:
    # Berlin, 25 October 2026: 03:00 CEST becomes 02:00 CET; 23:00 CEST is 21:00 UTC.
    due = stretched_due(local(24, 22, zone=BERLIN, month=10), hours(3), NIGHT, BERLIN)
    assert same_instant(due, datetime(2026, 10, 25, 3, 0, tzinfo=UTC))
    assert (due.hour, due.minute) == (4, 0)


@pytest.mark.parametrize("night", [NIGHT, OWL_NIGHT], ids=["default", "owl"])
@pytest.mark.parametrize(
    "evening",
    [datetime(2026, 3, 28, 18, tzinfo=UTC), datetime(2026, 10, 24, 18, tzinfo=UTC)],
    ids=["spring-forward", "fall-back"],
)
@pytest.mark.parametrize(
    "interval", [timedelta(minutes=6), timedelta(minutes=20), hours(1), hours(24)], ids=["6min", "20min", "1h", "24h"]
)
def test_on_a_dst_change_night_a_later_silence_is_never_due_earlier(
    night: Night, evening: datetime, interval: timedelta
) -> None:
    previous = evening
    for minute in range(0, 16 * 60, 5):
        start = evening + timedelta(minutes=minute)
        due = stretched_due(start, interval, night, BERLIN)
        assert due.timestamp() >= start.timestamp() + min(interval.total_seconds(), 1)
        assert due.timestamp() >= previous.timestamp()
        previous = due


# --- timed heartbeats by relationship level -----------------------------------------------


@pytest.mark.parametrize(
    ("level", "expected"),
    [("特别关心", local(15, 9, 20)), ("关系较好", local(16, 14, 20)), ("一般", local(19, 5))],
)
def test_a_timed_heartbeat_is_due_after_the_levels_interval_of_silence(
    level: RelationshipLevel, expected: datetime
) -> None:
    interval = heartbeat_interval(Relationship(level=level))
    due = next_heartbeat(wrote_at(local(15, 9)), interval, DEFAULTS, False, SHANGHAI, local(15, 9, 1))
    assert due is not None
    assert due.kind == "timed"
    assert due.at == expected
    assert due.scheduled is None


def test_hours_chosen_through_update_relationship_replace_the_levels_interval() -> None:
    interval = heartbeat_interval(Relationship(level="一般", heartbeat_hours=5))
    assert due_of(wrote_at(local(15, 9)), local(15, 9, 1), interval) == local(15, 14)


def test_silence_counts_from_the_latest_of_the_persons_message_the_ais_send_and_the_last_run() -> None:
    state = wrote_at(local(15, 9), last_sent_at=epoch(local(15, 9, 30)), last_run_at=epoch(local(15, 10)))
    assert due_of(state, local(15, 10, 1), timedelta(minutes=20)) == local(15, 10, 20)


def test_there_is_no_heartbeat_when_the_person_never_wrote() -> None:
    state = HeartbeatState(scheduled=[daily(9, 30)])
    assert next_heartbeat(state, hours(1), DEFAULTS, False, SHANGHAI, local(15, 9)) is None


def test_there_is_no_heartbeat_when_the_account_turned_them_off() -> None:
    state = wrote_at(local(15, 9), scheduled=[daily(9, 30)])
    assert next_heartbeat(state, hours(1), Prefs(enabled=False), False, SHANGHAI, local(15, 9, 1)) is None


# --- scheduled heartbeats -----------------------------------------------------------------


def test_a_scheduled_time_later_today_is_next_today() -> None:
    found = next_scheduled(local(15, 8), [daily(9, 30)], SHANGHAI)
    assert found is not None
    assert found[0] == local(15, 9, 30)


def test_a_scheduled_time_already_past_today_is_next_tomorrow() -> None:
    found = next_scheduled(local(15, 10), [daily(9, 30)], SHANGHAI)
    assert found is not None
    assert found[0] == local(16, 9, 30)


def test_a_scheduled_time_is_strictly_after_the_given_moment() -> None:
    found = next_scheduled(local(15, 9, 30), [daily(9, 30)], SHANGHAI)
    assert found is not None
    assert found[0] == local(16, 9, 30)


def test_of_several_scheduled_times_the_next_one_to_come_is_chosen() -> None:
    entries = [daily(7, 0, "早安"), daily(12, 0, "午饭"), daily(22, 30, "晚安")]
    found = next_scheduled(local(15, 13), entries, SHANGHAI)
    assert found is not None
    assert found == (local(15, 22, 30), entries[2])


def test_no_scheduled_times_means_no_scheduled_heartbeat() -> None:
    assert next_scheduled(local(15, 13), [], SHANGHAI) is None


def test_scheduled_times_are_read_in_the_pairs_time_zone() -> None:
    after = datetime(2026, 3, 15, 0, 0, tzinfo=UTC)  # 08:00 in Shanghai
    found = next_scheduled(after, [daily(9, 30)], SHANGHAI)
    assert found is not None
    assert same_instant(found[0], datetime(2026, 3, 15, 1, 30, tzinfo=UTC))


def test_a_scheduled_time_inside_the_repeated_fall_back_hour_comes_once_that_day() -> None:
    first_pass = datetime(2026, 10, 25, 0, 45, tzinfo=UTC)  # 02:45 CEST
    second_half_hour = datetime(2026, 10, 25, 1, 30, tzinfo=UTC)  # 02:30 CET, the repeated hour
    before = next_scheduled(first_pass - timedelta(minutes=1), [daily(2, 45)], BERLIN)
    after = next_scheduled(second_half_hour, [daily(2, 45)], BERLIN)
    assert before is not None and after is not None
    assert same_instant(before[0], first_pass)
    assert same_instant(after[0], local(26, 2, 45, zone=BERLIN, month=10))


def test_a_scheduled_time_missing_on_the_spring_forward_day_still_comes_that_day() -> None:
    found = next_scheduled(local(29, 1, 0, zone=BERLIN), [daily(2, 30)], BERLIN)
    assert found is not None
    assert same_instant(found[0], datetime(2026, 3, 29, 1, 30, tzinfo=UTC))  # 03:30 CEST


def test_the_earlier_of_a_scheduled_and_a_timed_heartbeat_comes_first() -> None:
    state = wrote_at(local(15, 9), scheduled=[daily(9, 10, "在干嘛")])
    due = next_heartbeat(state, timedelta(minutes=20), DEFAULTS, False, SHANGHAI, local(15, 9, 1))
    assert due is not None
    assert (due.at, due.kind, due.scheduled) == (local(15, 9, 10), "scheduled", daily(9, 10, "在干嘛"))


def test_a_timed_heartbeat_before_the_scheduled_one_comes_first() -> None:
    state = wrote_at(local(15, 9), scheduled=[daily(12, 0)])
    due = next_heartbeat(state, timedelta(minutes=20), DEFAULTS, False, SHANGHAI, local(15, 9, 1))
    assert due is not None
    assert (due.at, due.kind) == (local(15, 9, 20), "timed")


def test_a_scheduled_heartbeat_at_night_is_never_slowed() -> None:
    state = wrote_at(local(15, 22), scheduled=[daily(3, 0)])
    due = next_heartbeat(state, hours(24), DEFAULTS, False, SHANGHAI, local(15, 22, 1))
    assert due is not None
    assert (due.at, due.kind) == (local(16, 3), "scheduled")


def test_a_scheduled_heartbeat_a_minute_late_is_still_due() -> None:
    state = wrote_at(local(15, 6), scheduled=[daily(9, 30)])
    due = next_heartbeat(state, hours(24), DEFAULTS, False, SHANGHAI, local(15, 9, 30, 40))
    assert due is not None
    assert (due.at, due.kind) == (local(15, 9, 30), "scheduled")


def test_a_scheduled_heartbeat_that_already_ran_moves_to_tomorrow() -> None:
    state = wrote_at(local(15, 6), scheduled=[daily(9, 30)], last_run_due=epoch(local(15, 9, 30)))
    due = next_heartbeat(state, hours(48), DEFAULTS, False, SHANGHAI, local(15, 9, 30, 40))
    assert due is not None
    assert (due.at, due.kind) == (local(16, 9, 30), "scheduled")


# --- quiet window -------------------------------------------------------------------------


def test_a_timed_heartbeat_waits_until_the_person_has_been_quiet_for_the_quiet_minutes() -> None:
    state = wrote_at(local(15, 9))
    assert due_of(state, local(15, 9, 1), timedelta(minutes=3)) == local(15, 9, 10)


def test_with_no_quiet_window_a_short_interval_is_kept() -> None:
    state = wrote_at(local(15, 9))
    assert due_of(state, local(15, 9, 1), timedelta(minutes=3), Prefs(quiet_minutes=0)) == local(15, 9, 3)


def test_the_quiet_window_counts_from_the_persons_last_message_not_the_last_run() -> None:
    state = wrote_at(local(15, 9, 6), last_run_at=epoch(local(15, 9, 5)))
    assert due_of(state, local(15, 9, 7), timedelta(minutes=3), Prefs(quiet_minutes=30)) == local(15, 9, 36)


def test_the_person_is_active_only_within_the_quiet_minutes() -> None:
    state = wrote_at(local(15, 9))
    assert person_active(state, DEFAULTS, local(15, 9, 9, 59))
    assert not person_active(state, DEFAULTS, local(15, 9, 10))
    assert not person_active(HeartbeatState(), DEFAULTS, local(15, 9))


# --- daily cap ----------------------------------------------------------------------------


def capped_today(sent: int, day: str = "2026-03-15", **fields: object) -> HeartbeatState:
    return wrote_at(local(15, 9), sent_day=day, sent_today=sent, **fields)


def test_with_todays_cap_reached_the_next_heartbeat_waits_for_the_next_mornings_end_of_night() -> None:
    due = due_of(capped_today(5), local(15, 9, 1), timedelta(minutes=20))
    assert due == local(16, 7)
    assert same_instant(due, datetime(2026, 3, 15, 23, 0, tzinfo=UTC))


def test_below_the_cap_the_heartbeat_keeps_its_time() -> None:
    assert due_of(capped_today(4), local(15, 9, 1), timedelta(minutes=20)) == local(15, 9, 20)


def test_yesterdays_sends_do_not_count_against_todays_cap() -> None:
    state = capped_today(5, day="2026-03-14")
    assert due_of(state, local(15, 9, 1), timedelta(minutes=20)) == local(15, 9, 20)
    assert not cap_reached(state, DEFAULTS, local(15, 9, 1), SHANGHAI)


def test_the_cap_also_holds_back_a_scheduled_heartbeat() -> None:
    state = capped_today(2, scheduled=[daily(9, 10)])
    due = next_heartbeat(state, hours(24), Prefs(daily_cap=2), False, SHANGHAI, local(15, 9, 1))
    assert due is not None
    assert (due.at, due.kind) == (local(16, 7), "scheduled")


def test_the_cap_is_reached_at_the_configured_count_of_the_local_day() -> None:
    assert cap_reached(capped_today(3), Prefs(daily_cap=3), local(15, 23, 59), SHANGHAI)
    assert not cap_reached(capped_today(2), Prefs(daily_cap=3), local(15, 23, 59), SHANGHAI)
    assert not cap_reached(capped_today(3), Prefs(daily_cap=3), local(16, 0, 0), SHANGHAI)


def test_a_daily_cap_of_zero_allows_no_heartbeat_even_on_a_fresh_day() -> None:
    fresh = wrote_at(local(15, 9))
    assert cap_reached(fresh, Prefs(daily_cap=0), local(15, 9, 30), SHANGHAI)
    assert next_heartbeat(fresh, timedelta(minutes=20), Prefs(daily_cap=0), False, SHANGHAI, local(15, 9, 1)) is None


# --- back-off -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("unanswered", "expected"),
    [
        (0, local(15, 10)),
        (1, local(15, 11)),
        (2, local(15, 13)),
        (3, local(15, 17)),
        (4, local(15, 17)),
        (30, local(15, 17)),
    ],
)
def test_each_unanswered_heartbeat_doubles_the_interval_up_to_the_cap(unanswered: int, expected: datetime) -> None:
    state = wrote_at(local(15, 8), last_sent_at=epoch(local(15, 9)), unanswered=unanswered)
    assert due_of(state, local(15, 9, 1), hours(1), Prefs(max_backoff=8)) == expected


def test_a_back_off_cap_of_one_means_no_back_off() -> None:
    state = wrote_at(local(15, 8), last_sent_at=epoch(local(15, 9)), unanswered=5)
    assert due_of(state, local(15, 9, 1), hours(1), Prefs(max_backoff=1)) == local(15, 10)


# --- pause and resume ---------------------------------------------------------------------


def test_after_the_pause_days_of_unanswered_silence_no_heartbeat_is_planned() -> None:
    state = wrote_at(local(1, 9), scheduled=[daily(9, 30)]).model_copy(update={"unanswered": 1})
    assert paused(state, Prefs(pause_after_days=7), local(8, 9))
    assert next_heartbeat(state, hours(24), Prefs(pause_after_days=7), False, SHANGHAI, local(8, 9)) is None


def test_a_week_of_silence_without_an_unanswered_heartbeat_is_no_pause() -> None:
    # a cold relationship's interval is 7 days: its one heartbeat must still come
    state = wrote_at(local(1, 9))
    assert not paused(state, Prefs(pause_after_days=7), local(9, 9))
    assert next_heartbeat(state, timedelta(days=7), Prefs(pause_after_days=7), False, SHANGHAI, local(9, 9))


def test_just_before_the_pause_heartbeats_still_come() -> None:
    state = wrote_at(local(1, 9))
    assert not paused(state, Prefs(pause_after_days=7), local(8, 8, 59))


def test_a_person_who_never_wrote_counts_as_paused() -> None:
    assert paused(HeartbeatState(), DEFAULTS, local(15, 9))


def test_when_the_person_writes_the_pause_ends_and_silence_counts_from_then() -> None:
    quiet_for_a_week = wrote_at(local(1, 9), unanswered=3, moved_to=epoch(local(20, 9)))
    resumed = person_wrote(quiet_for_a_week, local(8, 9))
    assert (resumed.last_person_at, resumed.unanswered, resumed.moved_to) == (epoch(local(8, 9)), 0, None)
    assert due_of(resumed, local(8, 9, 1), timedelta(minutes=20)) == local(8, 9, 20)


def test_a_cold_pair_gets_its_week_long_heartbeat_when_the_pause_is_longer_than_a_week() -> None:
    interval = heartbeat_interval(Relationship(level="关系冷淡"))
    prefs = Prefs(pause_after_days=30)
    due = due_of(wrote_at(local(1, 9)), local(1, 9, 1), interval, prefs)
    assert next_heartbeat(wrote_at(local(1, 9)), interval, prefs, False, SHANGHAI, due) is not None
    assert local(8, 9) < due < local(11, 9)


# --- the AI moves its next heartbeat ------------------------------------------------------


def test_a_run_records_its_time_and_due_time_and_the_ais_chosen_delay() -> None:
    state = wrote_at(local(15, 9))
    ran = record_run(state, local(15, 9, 20), local(15, 9, 21), moved_hours=3)
    assert ran.last_run_at == epoch(local(15, 9, 21))
    assert ran.last_run_due == epoch(local(15, 9, 20))
    assert ran.moved_to == epoch(local(15, 12, 21))


def test_the_moved_heartbeat_is_due_exactly_when_the_ai_asked_even_at_night() -> None:
    ran = record_run(wrote_at(local(15, 20)), local(15, 21), local(15, 21), moved_hours=4)
    due = next_heartbeat(ran, hours(24), DEFAULTS, False, SHANGHAI, local(15, 21, 1))
    assert due is not None
    assert (due.at, due.kind) == (local(16, 1), "timed")


def test_a_run_without_a_move_forgets_an_earlier_move() -> None:
    moved = wrote_at(local(15, 9), moved_to=epoch(local(15, 18)))
    assert record_run(moved, local(15, 9, 20), local(15, 9, 20), moved_hours=None).moved_to is None


def test_an_earlier_scheduled_heartbeat_still_wins_over_a_moved_one() -> None:
    ran = record_run(wrote_at(local(15, 9), scheduled=[daily(11, 0)]), local(15, 9, 20), local(15, 9, 20), 5)
    due = next_heartbeat(ran, hours(1), DEFAULTS, False, SHANGHAI, local(15, 9, 21))
    assert due is not None
    assert (due.at, due.kind) == (local(15, 11), "scheduled")


def test_when_the_person_writes_the_ais_move_is_dropped() -> None:
    moved = wrote_at(local(15, 9), moved_to=epoch(local(15, 18)))
    resumed = person_wrote(moved, local(15, 10))
    assert due_of(resumed, local(15, 10, 1), timedelta(minutes=20)) == local(15, 10, 20)


# --- the spec's cadence while the person answers ------------------------------------------


def test_a_person_who_answers_every_heartbeat_gets_the_spec_interval_all_day() -> None:
    from dreamchat.domain.heartbeat import record_sent

    state, answered_at, sent = wrote_at(local(15, 9)), local(15, 9), []
    for _ in range(12):  # more than the daily cap of 5, all answered a minute later
        due = due_of(state, answered_at, timedelta(minutes=20))
        sent.append(due)
        state = record_sent(record_run(state, due, due, None), ["在吗"], due, SHANGHAI)
        answered_at = due + timedelta(minutes=1)
        state = person_wrote(state, answered_at)
    assert [b - a for a, b in pairwise(sent)] == [timedelta(minutes=21)] * 11
    assert sent[0] == local(15, 9, 20) and sent[-1] == local(15, 13, 11)


def test_answering_forgives_the_days_cap() -> None:
    state = person_wrote(capped_today(5), local(15, 9, 30))
    assert not cap_reached(state, DEFAULTS, local(15, 9, 31), SHANGHAI)
    assert due_of(state, local(15, 9, 31), timedelta(minutes=20)) == local(15, 9, 50)


# The night rule's worked examples, as docs/memory.md's table shows them: (interval, last word, due).
NIGHT_EXAMPLES = [
    (timedelta(minutes=20), local(16, 9), local(16, 9, 20)),
    (timedelta(minutes=20), local(16, 22, 50), local(16, 23, 30)),
    (timedelta(minutes=20), local(16, 23), local(17, 0)),
    (timedelta(minutes=20), local(16, 3), local(16, 4)),
    (timedelta(minutes=20), local(16, 6, 50), local(16, 7, 16, 40)),
    (hours(24), local(16, 9), local(17, 14, 20)),
    (hours(24), local(16, 22, 50), local(18, 9, 30)),
    (hours(24), local(16, 23), local(18, 9, 40)),
    (hours(24), local(16, 3), local(17, 11)),
    (hours(24), local(16, 6, 50), local(17, 12, 16, 40)),
    (hours(72), local(16, 9), local(20, 5)),
    (hours(72), local(16, 22, 50), local(20, 20, 10)),
    (hours(72), local(16, 23), local(20, 20, 20)),
    (hours(72), local(16, 3), local(19, 21, 40)),
    (hours(72), local(16, 6, 50), local(19, 22, 56, 40)),
]


@pytest.mark.parametrize("interval, start, expected", NIGHT_EXAMPLES)
def test_the_night_rule_matches_the_readme_examples(interval, start, expected) -> None:
    assert same_instant(stretched_due(start, interval, NIGHT, SHANGHAI), expected)


@pytest.mark.parametrize("zone", [SHANGHAI, BERLIN])
def test_a_long_interval_is_the_same_as_its_parts_added_up(zone) -> None:
    """Skipping whole weeks (决裂's 999 days) changes nothing: stretching is additive, also across
    the clock changes of a zone with summer time."""
    start = local(15, 21, 30, zone=zone, month=1)
    whole = stretched_due(start, timedelta(days=999), NIGHT, zone)
    halves = stretched_due(stretched_due(start, timedelta(days=500), NIGHT, zone), timedelta(days=499), NIGHT, zone)
    step = start
    for _ in range(90):  # day by day, never long enough to skip a week; across the March clock change
        step = stretched_due(step, timedelta(days=1), NIGHT, zone)
    assert same_instant(whole, halves)
    assert same_instant(stretched_due(start, timedelta(days=90), NIGHT, zone), step)


def test_a_very_long_wait_across_clock_changes_is_walked_in_bounded_steps(monkeypatch) -> None:
    """决裂 (999 days) at the largest back-off in a zone with summer time: the walk took 42 s per friend
    once a clock change stopped the whole-week skip (issue 25 §4)."""
    from dreamchat.domain import heartbeat

    steps = []
    real = heartbeat._next_boundary
    monkeypatch.setattr(heartbeat, "_next_boundary", lambda *a: steps.append(1) or real(*a))
    start = local(15, 9, zone=BERLIN)
    due = stretched_due(start, timedelta(days=999) * heartbeat.MAX_BACKOFF, night_window(False, DEFAULTS), BERLIN)
    assert due.timestamp() - start.timestamp() <= heartbeat.LONGEST_WAIT.total_seconds() / heartbeat.NIGHT_WEIGHT
    assert len(steps) < 26 * 2 * 8 + 10  # about a week walked around each of the 26 clock changes in 13 years


def test_whole_weeks_skipped_give_the_same_time_as_walking_night_by_night() -> None:
    from dreamchat.domain import heartbeat

    start, interval = local(20, 9, zone=BERLIN), timedelta(days=120)  # across the end of summer time
    night = night_window(False, DEFAULTS)
    tz = ZoneInfo(BERLIN)
    moment, remaining = start, interval.total_seconds()
    while True:  # the plain walk, one boundary at a time
        boundary = heartbeat._next_boundary(moment, night, tz)
        weight = heartbeat.NIGHT_WEIGHT if night.contains(moment) else 1.0
        span = boundary.timestamp() - moment.timestamp()
        if span * weight >= remaining:
            walked = moment.timestamp() + remaining / weight
            break
        remaining -= span * weight
        moment = datetime.fromtimestamp(boundary.timestamp(), tz)
    assert stretched_due(start, interval, night, BERLIN).timestamp() == pytest.approx(walked)


def test_the_back_off_cap_a_person_can_set_is_bounded() -> None:
    from pydantic import ValidationError

    from dreamchat.domain import heartbeat

    with pytest.raises(ValidationError):
        Prefs(max_backoff=heartbeat.MAX_BACKOFF + 1)
