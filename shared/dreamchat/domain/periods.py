"""The time a message names ("last June", "去年夏天", "in May 2023", "on 25 February, 2022"),
resolved against the moment it was sent into a period of local time; retrieval favours the
memories made in it.

Pure: `now` is passed in, in the person's zone. Dates written out win over relative phrases (a
question "what did you finish last Friday, on 23 January 2022?" is about 23 January 2022); several
of the same kind span from the first to the last. A date without its year takes the year written
elsewhere in the message, else the latest one not after `now`. Seasons are the northern
hemisphere's (spring March-May, summer June-August, autumn September-November, winter December-
February, counted to the year it starts in).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12, "春": 3, "夏": 6, "秋": 9, "冬": 12}
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
NUMBERS |= {"eight": 8, "nine": 9, "ten": 10, "couple": 2, "few": 3, "several": 3}
CHINESE_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "几": 3}
WEEKDAYS_EN = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
WEEKDAYS_ZH = "一二三四五六日天"

_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d{2})"
_CN_NUMBER = r"(\d{1,2}|十[一二]?|[一二三四五六七八九])"
# Written-out dates, most precise first; each match's span is blanked before the next pattern looks.
_EXPLICIT: list[tuple[str, re.Pattern[str]]] = [
    ("ymd", re.compile(rf"\b{_YEAR}[-/.](\d{{1,2}})[-/.](\d{{1,2}})\b")),
    ("ymd", re.compile(rf"{_YEAR}\s*年\s*(\d{{1,2}})\s*月\s*(\d{{1,2}})\s*[日号]")),
    ("dmy", re.compile(rf"\b{_DAY}\s+(?:of\s+)?({_MONTH})\b\.?,?\s*{_YEAR}\b", re.IGNORECASE)),
    ("mdy", re.compile(rf"\b({_MONTH})\.?\s+{_DAY}\b,?\s*{_YEAR}\b", re.IGNORECASE)),
    ("ym", re.compile(rf"{_YEAR}\s*年\s*{_CN_NUMBER}\s*月")),
    ("my", re.compile(rf"\b({_MONTH})\.?,?\s+(?:of\s+)?{_YEAR}\b", re.IGNORECASE)),
    ("sy", re.compile(rf"\b(spring|summer|autumn|fall|winter)\s+(?:of\s+)?{_YEAR}\b", re.IGNORECASE)),
    ("ys", re.compile(rf"{_YEAR}\s*年\s*的?\s*([春夏秋冬])[天季]")),
    ("md", re.compile(r"(?<![\d年个])(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")),
    ("dm", re.compile(rf"\b{_DAY}\s+(?:of\s+)?({_MONTH})\b", re.IGNORECASE)),
    ("md_en", re.compile(rf"\b({_MONTH})\.?\s+{_DAY}\b(?!\s*(?:am|pm|:))", re.IGNORECASE)),
    ("y", re.compile(rf"(?<![\d-]){_YEAR}(?:\s*年)?(?![\d-])")),
]
# A month named alone: "in May", "last June", "五月", "去年3月" (with "May", only after a word that makes it a date).
_MONTH_ALONE = re.compile(
    rf"\b(?:(last|this|next|in|during|since|of|early|late|mid|by|until|before|after|the)[\s-]+)?({_MONTH})\b",
    re.IGNORECASE,
)
_MONTH_ALONE_ZH = re.compile(rf"(去年|今年|前年|明年)?(?<!个){_CN_NUMBER}\s*月(?:份)?(?!\s*\d)")
_SEASON = re.compile(r"\b(?:(last|this|next|in|during|the)\s+)?(spring|summer|autumn|fall|winter)\b", re.IGNORECASE)
_SEASON_ZH = re.compile(r"(去年|今年|前年|明年)?\s*的?\s*([春夏秋冬])[天季]")
_AGO = re.compile(
    r"\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|couple of|a few|few|several)\s+"
    r"(day|week|month|year)s?\s+ago\b",
    re.IGNORECASE,
)
_AGO_ZH = re.compile(r"(\d+|[一二两三四五六七八九十几]+)\s*(天|个?星期|个?礼拜|周|个月|年)(?:以?前)")
_LAST_WEEKDAY = re.compile(rf"\b(?:last|on|this past)\s+({'|'.join(WEEKDAYS_EN)})\b", re.IGNORECASE)
_LAST_WEEKDAY_ZH = re.compile(rf"(上|这|本)(?:个)?(?:周|星期|礼拜)([{WEEKDAYS_ZH[:-1]}天])")
_RELATIVE: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bthe day before yesterday\b|大前天", re.IGNORECASE), "day-2"),
    (re.compile(r"前天"), "day-2"),
    (re.compile(r"\byesterday\b|\blast night\b|昨天|昨晚|昨日|昨儿", re.IGNORECASE), "day-1"),
    (
        re.compile(r"\btoday\b|\btonight\b|\bthis (?:morning|afternoon|evening)\b|今天|今晚|今早|今儿", re.IGNORECASE),
        "day",
    ),
    (re.compile(r"\blast weekend\b|上个?周末", re.IGNORECASE), "weekend-1"),
    (re.compile(r"\bthis weekend\b|这个?周末|本周末", re.IGNORECASE), "weekend"),
    (re.compile(r"\blast week\b|上个?(?:周|星期|礼拜)(?![一二三四五六日天末])", re.IGNORECASE), "week-1"),
    (re.compile(r"\bthis week\b|(?:这|本)个?(?:周|星期|礼拜)(?![一二三四五六日天末])", re.IGNORECASE), "week"),
    (re.compile(r"\blast month\b|上个?月", re.IGNORECASE), "month-1"),
    (re.compile(r"\bthis month\b|这个月|本月", re.IGNORECASE), "month"),
    (re.compile(r"\blast year\b|去年", re.IGNORECASE), "year-1"),
    (re.compile(r"前年"), "year-2"),
    (re.compile(r"\bthis year\b|今年", re.IGNORECASE), "year"),
]


@dataclass(frozen=True)
class Period:
    """[start, end) in local time."""

    start: datetime
    end: datetime

    def span(self, other: Period) -> Period:
        return Period(min(self.start, other.start), max(self.end, other.end))


def period_of(text: str, now: datetime) -> Period | None:
    """The period the text names, relative to `now` (tz-aware, the person's local time), or None."""
    found = _explicit(text, now)
    if found:
        return _spanning(found)
    relative = _relative(text, now)
    return _spanning(relative) if relative else None


def _spanning(periods: list[Period]) -> Period:
    result = periods[0]
    for period in periods[1:]:
        result = result.span(period)
    return result


def _explicit(text: str, now: datetime) -> list[Period]:
    found: list[Period] = []
    years = {int(y) for y in re.findall(rf"(?<![\d-]){_YEAR}(?![\d-])", text)}
    written_year = years.pop() if len(years) == 1 else None
    rest = text
    for kind, pattern in _EXPLICIT:
        for match in pattern.finditer(rest):
            period = _from_match(kind, match.groups(), now, written_year)
            if period is not None:
                found.append(period)
        rest = pattern.sub(lambda m: " " * len(m.group(0)), rest)
    if kind_found := [p for p in found if p.end - p.start < timedelta(days=300)]:
        return kind_found  # a year named beside a day or a month only says which year
    return found


def _from_match(kind: str, groups: tuple[str, ...], now: datetime, year: int | None) -> Period | None:
    if kind == "ymd":
        return _day(now, int(groups[0]), int(groups[1]), int(groups[2]))
    if kind == "dmy":
        return _day(now, int(groups[2]), MONTHS[groups[1].lower()], int(groups[0]))
    if kind == "mdy":
        return _day(now, int(groups[2]), MONTHS[groups[0].lower()], int(groups[1]))
    if kind == "ym":
        return _month(now, int(groups[0]), _cn_number(groups[1]))
    if kind == "my":
        return _month(now, int(groups[1]), MONTHS[groups[0].lower()])
    if kind == "sy":
        return _season(now, int(groups[1]), SEASONS[groups[0].lower()])
    if kind == "ys":
        return _season(now, int(groups[0]), SEASONS[groups[1]])
    if kind in ("md", "dm", "md_en"):
        month, day = (
            (int(groups[0]), int(groups[1]))
            if kind == "md"
            else (MONTHS[groups[1].lower()], int(groups[0]))
            if kind == "dm"
            else (MONTHS[groups[0].lower()], int(groups[1]))
        )
        if kind == "md_en" and groups[0] == "may" or not 1 <= day <= 31:
            return None
        chosen = year if year is not None else _latest_year(now, month, day)
        return _day(now, chosen, month, day)
    if kind == "y":
        return _year(now, int(groups[0]))
    return None


def _relative(text: str, now: datetime) -> list[Period]:
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    found: list[Period] = []
    for match in _AGO.finditer(text):
        count = int(match.group(1)) if match.group(1).isdigit() else NUMBERS[match.group(1).lower().split()[-1]]
        found += filter(None, [_ago(today, count, match.group(2).lower())])
    for match in _AGO_ZH.finditer(text):
        unit = {"天": "day", "周": "week", "年": "year", "个月": "month"}.get(match.group(2), "week")
        found += filter(None, [_ago(today, _cn_number(match.group(1)), unit)])
    for match in _LAST_WEEKDAY.finditer(text):
        found.append(_weekday_before(today, WEEKDAYS_EN.index(match.group(1).lower())))
    for match in _LAST_WEEKDAY_ZH.finditer(text):
        weekday = min(WEEKDAYS_ZH.index(match.group(2)), 6)
        monday = today - timedelta(days=today.weekday()) - timedelta(days=7 * (match.group(1) == "上"))
        found.append(_days(monday + timedelta(days=weekday), 1))
    monthish = _months_alone(text, now) + _seasons_alone(text, now)
    for pattern, name in _RELATIVE:
        if pattern.search(text):
            if not (name.startswith("year") and monthish):  # 去年夏天: the summer says which part of the year
                found.append(_named(today, name))
            break
    found += monthish
    return found


def _months_alone(text: str, now: datetime) -> list[Period]:
    found = []
    for match in _MONTH_ALONE.finditer(text):
        word, name = match.group(1), match.group(2)
        if not (name[0].isupper() or word) or (name.lower() == "may" and not word):
            continue  # "may" the verb; a lower-case month name without a preposition
        if name.lower() in ("mar", "jan", "jun", "jul", "aug", "sep", "oct", "nov", "dec", "feb", "apr") and not word:
            continue
        found.append(_month_relative(now, MONTHS[name.lower()], (word or "").lower()))
    for match in _MONTH_ALONE_ZH.finditer(text):
        month = _cn_number(match.group(2))
        if 1 <= month <= 12:
            shift = {"去年": -1, "今年": 0, "前年": -2, "明年": 1}.get(match.group(1) or "")
            if shift is None:
                found.append(_month_relative(now, month, ""))
            else:
                found.append(_month(now, now.year + shift, month))
    return [p for p in found if p is not None]


def _seasons_alone(text: str, now: datetime) -> list[Period]:
    found = []
    for match in _SEASON.finditer(text):
        if match.group(2).lower() in ("fall", "spring") and not match.group(1):
            continue  # "I fall asleep", "a hot spring"
        found.append(_season_relative(now, SEASONS[match.group(2).lower()], (match.group(1) or "").lower()))
    for match in _SEASON_ZH.finditer(text):
        shift = {"去年": -1, "今年": 0, "前年": -2, "明年": 1}.get(match.group(1) or "")
        start = SEASONS[match.group(2)]
        if shift is None:
            found.append(_season_relative(now, start, ""))
        else:
            # 去年冬天 said in January is the winter that began in last year's December
            found.append(_season(now, now.year + shift, start))
    return found


def _cn_number(text: str) -> int:
    if text.isdigit():
        return int(text)
    if text.startswith("十"):
        return 10 + (CHINESE_DIGITS.get(text[1:], 0) if len(text) > 1 else 0)
    if "十" in text:
        tens, _, ones = text.partition("十")
        return CHINESE_DIGITS.get(tens, 1) * 10 + (CHINESE_DIGITS.get(ones, 0) if ones else 0)
    return CHINESE_DIGITS.get(text, 1)


def _at(now: datetime, year: int, month: int, day: int) -> datetime | None:
    try:
        return now.replace(year=year, month=month, day=day, hour=0, minute=0, second=0, microsecond=0)
    except ValueError:
        return None


def _day(now: datetime, year: int, month: int, day: int) -> Period | None:
    start = _at(now, year, month, day)
    return _days(start, 1) if start else None


def _days(start: datetime, count: int) -> Period:
    return Period(start, start + timedelta(days=count))


def _month(now: datetime, year: int, month: int) -> Period | None:
    if not 1 <= month <= 12:
        return None
    start = _at(now, year, month, 1)
    assert start is not None
    end = _at(now, year + (month == 12), month % 12 + 1, 1)
    assert end is not None
    return Period(start, end)


def _months(now: datetime, year: int, month: int, count: int) -> Period:
    first = _month(now, year, month)
    assert first is not None
    index = year * 12 + month - 1 + count
    last = _month(now, index // 12, index % 12 + 1)
    assert last is not None
    return Period(first.start, last.start)


def _year(now: datetime, year: int) -> Period:
    return _months(now, year, 1, 12)


def _season(now: datetime, year: int, month: int) -> Period:
    return _months(now, year, month, 3)


def _latest_year(now: datetime, month: int, day: int = 1) -> int:
    """The year of the latest (month, day) not after now."""
    return now.year if (month, day) <= (now.month, now.day) else now.year - 1


def _month_relative(now: datetime, month: int, word: str) -> Period | None:
    year = _latest_year(now, month)
    if word == "this":
        year = now.year
    elif word == "next":
        year = now.year if month > now.month else now.year + 1
    elif word == "last" and month == now.month:
        year = now.year - 1
    return _month(now, year, month)


def _season_relative(now: datetime, month: int, word: str) -> Period:
    """The latest such season begun by now; "last": the latest one over; "this": the one of this year
    (winter: the one begun in December of last year while it is January or February); "next": the one
    to come."""
    current = _season(now, now.year if now.month >= month else now.year - 1, month)
    if word == "last" and current.end > now:
        return _season(now, current.start.year - 1, month)
    if word == "next":
        return _season(now, current.start.year + 1, month)
    return current


_DAYS_IN = {"day": 1, "week": 7, "month": 31, "year": 366}
FARTHEST_AGO_DAYS = 1000 * 366  # "3000年前", "100000000 days ago": history, not a memory (nor a date)


def _ago(today: datetime, count: int, unit: str) -> Period | None:
    if count * _DAYS_IN[unit] > FARTHEST_AGO_DAYS:
        return None
    if unit == "day":
        return _days(today - timedelta(days=count), 1)
    if unit == "week":
        return _days(today - timedelta(days=7 * count + 3), 7)
    if unit == "month":
        index = today.year * 12 + today.month - 1 - count
        return _months(today, index // 12, index % 12 + 1, 1)
    return _year(today, today.year - count)


def _weekday_before(today: datetime, weekday: int) -> Period:
    back = (today.weekday() - weekday) % 7 or 7
    return _days(today - timedelta(days=back), 1)


def _named(today: datetime, name: str) -> Period:
    monday = today - timedelta(days=today.weekday())
    first = today.replace(day=1)
    named = {
        "day": _days(today, 1),
        "day-1": _days(today - timedelta(days=1), 1),
        "day-2": _days(today - timedelta(days=2), 1),
        "week": _days(monday, 7),
        "week-1": _days(monday - timedelta(days=7), 7),
        "weekend": _days(monday + timedelta(days=5), 2),
        "weekend-1": _days(monday - timedelta(days=2), 2),
        "month": _months(today, today.year, today.month, 1),
        "month-1": _months(today, (first - timedelta(days=1)).year, (first - timedelta(days=1)).month, 1),
        "year": _year(today, today.year),
        "year-1": _year(today, today.year - 1),
        "year-2": _year(today, today.year - 2),
    }
    return named[name]


def as_dates(period: Period) -> tuple[date, date]:
    """The period's first and last day (inclusive), for display and tests."""
    return period.start.date(), (period.end - timedelta(days=1)).date()


def named_period(text: str, now: datetime, zone: str) -> tuple[int, int] | None:
    """`period_of` for a message sent at `now`, read in the pair's time zone: [start, end) in epoch seconds."""
    period = period_of(text, now.astimezone(ZoneInfo(zone)))
    return (int(period.start.timestamp()), int(period.end.timestamp())) if period else None
