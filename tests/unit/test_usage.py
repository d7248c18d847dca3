"""The rules of conversation time (`dreamchat.domain.usage`), with plain values: what counts, the person's
day, the daily limit and its warning, the AI disclosure, the reality reminder, over-dependence, the curfew."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from dreamchat.domain.usage import (
    AI_DISCLOSURE,
    DAILY_LIMIT_SOON,
    DEPENDENCE,
    REALITY,
    Situation,
    Usage,
    curfew_left,
    dependence_due,
    disclosed,
    disclosure_due,
    limit_reached,
    limited,
    logged_in,
    minutes_left,
    reality_due,
    reminders,
    spoke,
    used_today,
)

SHANGHAI = "Asia/Shanghai"
LA = "America/Los_Angeles"
NOON = int(datetime(2026, 3, 15, 4, 0, tzinfo=UTC).timestamp())  # 12:00 in Shanghai
MINUTE = 60


def talked(minutes: list[int], zone: str = SHANGHAI, start: int = NOON, usage: Usage | None = None) -> Usage:
    """Messages at these minutes after `start`."""
    usage = usage or Usage()
    for at in minutes:
        usage = spoke(usage, start + at * MINUTE, zone)
    return usage


def adult(distress: bool = False) -> Situation:
    return Situation(minor=False, daily_minutes=None, dependence_hours=4, distress=distress)


def test_the_time_between_messages_under_fifteen_minutes_apart_is_conversation() -> None:
    usage = talked([0, 5, 19, 34, 49])  # 5 + 14 count; the 15-minute gaps do not
    assert used_today(usage, NOON + 49 * MINUTE, SHANGHAI) == 19 * MINUTE


def test_the_talk_still_going_on_counts_up_to_now() -> None:
    usage = talked([0, 10])
    assert used_today(usage, NOON + 14 * MINUTE, SHANGHAI) == 14 * MINUTE
    assert used_today(usage, NOON + 25 * MINUTE, SHANGHAI) == 10 * MINUTE  # a gap is no conversation


def test_talk_across_midnight_is_split_between_the_persons_two_days() -> None:
    before = int(datetime(2026, 3, 15, 15, 55, tzinfo=UTC).timestamp())  # 23:55 in Shanghai
    usage = talked([0, 10], start=before)
    assert usage.days == {"2026-03-15": 5 * MINUTE, "2026-03-16": 5 * MINUTE}
    assert used_today(usage, before + 10 * MINUTE, SHANGHAI) == 5 * MINUTE


def test_the_day_is_the_persons_own_zone() -> None:
    usage = talked([0, 10], zone=LA)  # 04:00 UTC is the evening before in Los Angeles
    assert usage.days == {"2026-03-14": 10 * MINUTE}


def test_only_the_last_seven_days_are_kept() -> None:
    usage = talked([0, 10])
    week_later = talked([0, 10], start=NOON + 7 * 86400, usage=usage)
    assert list(week_later.days) == ["2026-03-22"]
    six_days_later = talked([0, 10], start=NOON + 6 * 86400, usage=usage)
    assert list(six_days_later.days) == ["2026-03-15", "2026-03-21"]


def test_the_limit_is_reached_at_exactly_its_minutes() -> None:
    usage = talked([0, 10, 20, 29])
    assert not limit_reached(usage, NOON + 29 * MINUTE + 59, SHANGHAI, 30)
    assert limit_reached(usage, NOON + 30 * MINUTE, SHANGHAI, 30)
    assert minutes_left(usage, NOON + 29 * MINUTE + 30, SHANGHAI, 30) == 1


def test_a_limit_once_reached_holds_for_the_day_though_a_pause_counts_no_time() -> None:
    usage = talked([0, 10, 20, 29])
    after_a_pause = NOON + 60 * MINUTE
    assert not limit_reached(usage, after_a_pause, SHANGHAI, 30)  # 29 minutes of conversation
    reached = limited(usage, NOON + 30 * MINUTE, SHANGHAI)
    assert limit_reached(reached, after_a_pause, SHANGHAI, 30)
    assert not limit_reached(reached, NOON + 86400, SHANGHAI, 30)


def test_the_limit_holds_until_the_persons_next_day() -> None:
    usage = talked([0, 10, 20, 30], zone=LA)  # 21:00 to 21:30 on 14 March in Los Angeles
    shanghai_midnight = int(datetime(2026, 3, 15, 16, 0, tzinfo=UTC).timestamp())
    la_midnight = int(datetime(2026, 3, 15, 7, 0, tzinfo=UTC).timestamp())
    assert limit_reached(usage, la_midnight - 1, LA, 30)
    assert not limit_reached(usage, la_midnight, LA, 30)
    assert limit_reached(talked([0, 10, 20, 30]), shanghai_midnight - 1, SHANGHAI, 30)
    assert not limit_reached(talked([0, 10, 20, 30]), shanghai_midnight, SHANGHAI, 30)


def test_the_limit_warning_comes_at_ten_minutes_left_once_a_day() -> None:
    minor = Situation(minor=True, daily_minutes=30, dependence_hours=4, distress=False)
    usage = disclosed(talked([0, 10]), NOON + 10 * MINUTE)
    usage, kinds = reminders(usage, NOON + 10 * MINUTE, SHANGHAI, minor)
    assert kinds == []  # 20 minutes left
    usage = spoke(usage, NOON + 20 * MINUTE, SHANGHAI)
    usage, kinds = reminders(usage, NOON + 20 * MINUTE, SHANGHAI, minor)
    assert kinds == [DAILY_LIMIT_SOON]  # exactly 10 left
    usage = spoke(usage, NOON + 25 * MINUTE, SHANGHAI)
    assert reminders(usage, NOON + 25 * MINUTE, SHANGHAI, minor)[1] == []
    tomorrow = NOON + 86400
    usage = talked([0, 10, 20], start=tomorrow, usage=usage)
    assert DAILY_LIMIT_SOON in reminders(usage, tomorrow + 20 * MINUTE, SHANGHAI, minor)[1]


def test_the_ai_disclosure_opens_each_session_and_comes_again_after_three_hours() -> None:
    usage = talked([0])
    assert disclosure_due(usage, NOON)
    usage = disclosed(usage, NOON)
    usage = talked([29], usage=usage)
    assert not disclosure_due(usage, NOON + 29 * MINUTE)  # 29 minutes without a message: the same session
    usage = talked([59], usage=usage)
    assert disclosure_due(usage, NOON + 59 * MINUTE)  # 30 minutes: a new one
    usage = disclosed(usage, NOON + 59 * MINUTE)
    steps = list(range(69, 59 + 180, 10))
    usage = talked(steps, usage=usage)
    assert not disclosure_due(usage, NOON + steps[-1] * MINUTE)
    assert disclosure_due(talked([59 + 180], usage=usage), NOON + (59 + 180) * MINUTE)


def test_a_login_begins_a_session() -> None:
    usage = disclosed(talked([0]), NOON)
    assert disclosure_due(logged_in(usage), NOON + MINUTE)


def test_the_reality_reminder_comes_every_thirty_minutes_of_continuous_talk() -> None:
    usage = talked(list(range(0, 30, 10)))
    assert not reality_due(usage, NOON + 20 * MINUTE)
    usage = talked([30], usage=usage)
    assert reality_due(usage, NOON + 30 * MINUTE)
    minor = Situation(minor=True, daily_minutes=None, dependence_hours=4, distress=False)
    usage, kinds = reminders(disclosed(usage, NOON), NOON + 30 * MINUTE, SHANGHAI, minor)
    assert kinds == [REALITY]
    usage = talked([40, 50], usage=usage)
    assert not reality_due(usage, NOON + 50 * MINUTE)
    assert reality_due(talked([60], usage=usage), NOON + 60 * MINUTE)
    resumed = talked([75, 85, 95], usage=usage)  # a 25-minute gap: a new talk
    assert not reality_due(resumed, NOON + 95 * MINUTE)
    assert reminders(disclosed(talked([30]), NOON), NOON + 30 * MINUTE, SHANGHAI, adult())[1] == []


def long_days(count: int, minutes: int) -> Usage:
    usage = Usage()
    for day in range(count):
        usage = talked(list(range(0, minutes + 1, 10)), start=NOON + day * 86400, usage=usage)
    return usage


def test_over_dependence_is_more_than_the_hours_on_three_of_the_last_seven_days() -> None:
    last = NOON + 2 * 86400 + 5 * 3600
    assert dependence_due(long_days(3, 5 * 60), last, SHANGHAI, 4)
    assert not dependence_due(long_days(2, 5 * 60), last, SHANGHAI, 4)
    assert not dependence_due(long_days(3, 4 * 60), last, SHANGHAI, 4)  # exactly 4 hours is not more
    usage, kinds = reminders(disclosed(long_days(3, 5 * 60), last), last, SHANGHAI, adult())
    assert kinds == [DEPENDENCE]
    assert reminders(usage, last + MINUTE, SHANGHAI, adult())[1] == []  # once a day
    assert not dependence_due(usage, last + 7 * 86400, SHANGHAI, 4)  # a week later the long days are gone


def test_in_distress_only_the_ai_disclosure_is_shown() -> None:
    usage = long_days(3, 5 * 60)
    last = NOON + 2 * 86400 + 5 * 3600
    minor = Situation(minor=True, daily_minutes=30, dependence_hours=4, distress=True)
    assert reminders(usage, last, SHANGHAI, minor)[1] == [AI_DISCLOSURE]


def test_the_curfew_holds_from_ten_at_night_to_eight_in_the_morning_in_the_persons_zone() -> None:
    def at(hour: int, minute: int = 0) -> datetime:
        return datetime(2026, 3, 15, hour, minute, tzinfo=UTC) - timedelta(hours=8)  # Shanghai's hour

    assert curfew_left(at(21, 59), SHANGHAI) is None
    assert curfew_left(at(22), SHANGHAI) == timedelta(hours=10)
    assert curfew_left(at(7, 59), SHANGHAI) == timedelta(minutes=1)
    assert curfew_left(at(8), SHANGHAI) is None
    assert curfew_left(at(23), LA) is None  # 08:00 in Los Angeles
