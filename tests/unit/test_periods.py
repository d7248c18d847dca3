"""The time a message names, resolved against the moment it was sent (`domain/periods.py`)."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dreamchat.domain.periods import as_dates, named_period, period_of

SHANGHAI = ZoneInfo("Asia/Shanghai")
NOW = datetime(2024, 1, 10, 15, 0, tzinfo=SHANGHAI)  # a Wednesday


def span(text: str, now: datetime = NOW) -> tuple[date, date] | None:
    period = period_of(text, now)
    return as_dates(period) if period else None


@pytest.mark.parametrize(
    ("text", "first", "last"),
    [
        ("What did you do in May 2023?", date(2023, 5, 1), date(2023, 5, 31)),
        ("What movie did Joanna watch on 1 May, 2022?", date(2022, 5, 1), date(2022, 5, 1)),
        ("What book did Tim finish on 8th December, 2023?", date(2023, 12, 8), date(2023, 12, 8)),
        ("the picture shared on December 1,2023", date(2023, 12, 1), date(2023, 12, 1)),
        ("What state did Joanna visit in summer 2021?", date(2021, 6, 1), date(2021, 8, 31)),
        ("When did John get an ankle injury in 2023?", date(2023, 1, 1), date(2023, 12, 31)),
        ("Where was John between August 11 and August 15 2023?", date(2023, 8, 11), date(2023, 8, 15)),
        ("我们2023年5月8日见过", date(2023, 5, 8), date(2023, 5, 8)),
        ("2023年3月的那次旅行", date(2023, 3, 1), date(2023, 3, 31)),
        ("2023-05-08 那天", date(2023, 5, 8), date(2023, 5, 8)),
        ("5月8号你在干嘛", date(2023, 5, 8), date(2023, 5, 8)),  # the latest 8 May not after now
    ],
)
def test_a_written_date_is_its_day_month_season_or_year(text: str, first: date, last: date) -> None:
    assert span(text) == (first, last)


@pytest.mark.parametrize(
    ("text", "first", "last"),
    [
        ("last June", date(2023, 6, 1), date(2023, 6, 30)),
        ("Which outdoor spot did you visit in May?", date(2023, 5, 1), date(2023, 5, 31)),
        ("in December", date(2023, 12, 1), date(2023, 12, 31)),
        ("What did you photograph last summer?", date(2023, 6, 1), date(2023, 8, 31)),
        ("去年夏天你去哪儿了", date(2023, 6, 1), date(2023, 8, 31)),
        ("今年三月份", date(2024, 3, 1), date(2024, 3, 31)),
        ("十二月的时候", date(2023, 12, 1), date(2023, 12, 31)),
        ("yesterday", date(2024, 1, 9), date(2024, 1, 9)),
        ("昨晚吃了什么", date(2024, 1, 9), date(2024, 1, 9)),
        ("前天", date(2024, 1, 8), date(2024, 1, 8)),
        ("三天前", date(2024, 1, 7), date(2024, 1, 7)),
        ("two days ago", date(2024, 1, 8), date(2024, 1, 8)),
        ("last week", date(2024, 1, 1), date(2024, 1, 7)),
        ("上周五吃了什么", date(2024, 1, 5), date(2024, 1, 5)),
        ("last Friday", date(2024, 1, 5), date(2024, 1, 5)),
        ("上个月", date(2023, 12, 1), date(2023, 12, 31)),
        ("last year", date(2023, 1, 1), date(2023, 12, 31)),
        ("去年", date(2023, 1, 1), date(2023, 12, 31)),
        ("a few months ago", date(2023, 10, 1), date(2023, 10, 31)),
    ],
)
def test_a_relative_phrase_is_read_from_the_moment_the_message_was_sent(text: str, first: date, last: date) -> None:
    assert span(text) == (first, last)


def test_a_written_date_wins_over_a_relative_phrase_beside_it() -> None:
    assert span("What did Joanna finish last Friday on 23 January, 2022?") == (date(2022, 1, 23), date(2022, 1, 23))


def test_a_date_without_its_year_takes_the_one_written_elsewhere() -> None:
    assert span("between 30 July and August 2 2022") == (date(2022, 7, 30), date(2022, 8, 2))


@pytest.mark.parametrize(
    "text",
    [
        "Hey! It's been a few days. What's new with you?",
        "You may go now",
        "I fall asleep early",
        "a hot spring",
        "最近怎么样",
        "好久不见",
        "我有一个月没去健身房了吗",  # a duration, not a time
        "",
    ],
)
def test_a_message_naming_no_time_has_no_period(text: str) -> None:
    assert span(text) is None


def test_last_summer_said_in_summer_is_the_summer_before() -> None:
    assert span("last summer", datetime(2023, 7, 20, tzinfo=SHANGHAI)) == (date(2022, 6, 1), date(2022, 8, 31))
    assert span("this summer", datetime(2023, 7, 20, tzinfo=SHANGHAI)) == (date(2023, 6, 1), date(2023, 8, 31))


def test_the_period_is_read_in_the_pairs_time_zone() -> None:
    sent = datetime(2024, 1, 9, 17, 0, tzinfo=ZoneInfo("UTC"))  # already the 10th in Shanghai
    start, end = named_period("yesterday", sent, "Asia/Shanghai") or (0, 0)
    assert datetime.fromtimestamp(start, SHANGHAI) == datetime(2024, 1, 9, tzinfo=SHANGHAI)
    assert end - start == 86400
    assert named_period("hello", sent, "Asia/Shanghai") is None


@pytest.mark.parametrize(
    "text",
    [
        "3000年前的人怎么生活",
        "2100年以前",
        "99999 years ago",
        "30000 months ago",
        "100000000 days ago",
        "9" * 30 + " weeks ago",
    ],
)
def test_a_past_too_far_to_be_a_memory_names_no_period(text: str) -> None:
    """Found by an attack: "3000年前" made a year before 1 and the chat turn's context raised."""
    assert span(text) is None


def test_a_far_past_beside_a_time_that_is_a_memory_keeps_the_memory() -> None:
    assert span("3000年前的事不提了，昨天呢？") == (date(2024, 1, 9), date(2024, 1, 9))
    assert span("1000 years ago") == (date(1024, 1, 1), date(1024, 12, 31))


TOKENS = ["3000", "99999", "0", "12", "13", "32", "2100", "2024", "年", "月", "日", "前", "以前", "天", "个月"]
TOKENS += ["周", "上", "这", "去年", "前年", "冬", "季", "十二", "几", " ", "days ago", "weeks ago", "months ago"]
TOKENS += ["years ago", "last", "next", "June", "May", "winter", "of", " 2023", "-", "/"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=8), st.datetimes(datetime(1971, 1, 1), datetime(2200, 1, 1)))
def test_any_message_at_any_moment_names_a_period_or_none(parts: list[str], moment: datetime) -> None:
    now = moment.replace(tzinfo=SHANGHAI)
    for text in ("".join(parts), " ".join(parts)):
        period = period_of(text, now)
        assert period is None or period.start < period.end
