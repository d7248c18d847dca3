"""The pure rules behind the person-first protocol: the crisis check-in's place among heartbeats and
the break reminder's sessions. Every clock reading is passed in."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from dreamchat.domain.heartbeat import (
    HeartbeatState,
    Prefs,
    check_in_after,
    checked_in,
    next_heartbeat,
    person_wrote,
    record_sent,
)
from dreamchat.domain.honesty import asks_if_human
from dreamchat.domain.models import Relationship, ScheduledHeartbeat
from dreamchat.domain.relationship import heartbeat_interval
from dreamchat.domain.sessions import ContinuousUse, break_due, continued, reminded

SHANGHAI = "Asia/Shanghai"
NOW = datetime(2026, 3, 15, 3, 0, tzinfo=ZoneInfo(SHANGHAI))  # deep in the night
COLD = heartbeat_interval(Relationship(level="决裂"))


def crisis_at(now: datetime) -> HeartbeatState:
    return check_in_after(person_wrote(HeartbeatState(), now), now, 60)


def test_a_check_in_comes_an_hour_after_a_crisis_even_at_night_at_the_coldest_level() -> None:
    due = next_heartbeat(crisis_at(NOW), COLD, Prefs(), False, SHANGHAI, NOW)
    assert due is not None and due.kind == "checkin" and due.at == NOW + timedelta(hours=1)


def test_no_cap_pause_or_backoff_holds_a_check_in_back() -> None:
    state = crisis_at(NOW)
    for _ in range(6):  # six unanswered heartbeats: the cap of 5 is reached, back-off at its most
        state = record_sent(state, ["在吗"], NOW, SHANGHAI)
    state = state.model_copy(update={"last_person_at": int((NOW - timedelta(days=30)).timestamp())})  # paused
    due = next_heartbeat(state, COLD, Prefs(daily_cap=0), False, SHANGHAI, NOW)
    assert due is not None and due.kind == "checkin"


def test_only_the_persons_own_switch_stops_a_check_in() -> None:
    assert next_heartbeat(crisis_at(NOW), COLD, Prefs(enabled=False), False, SHANGHAI, NOW) is None


def test_the_person_writing_meanwhile_cancels_it_and_a_run_clears_it() -> None:
    later = NOW + timedelta(minutes=20)
    assert person_wrote(crisis_at(NOW), later).checkin_at is None
    assert checked_in(crisis_at(NOW)).checkin_at is None


def test_an_earlier_scheduled_heartbeat_still_comes_first() -> None:
    state = crisis_at(NOW).model_copy(update={"scheduled": [ScheduledHeartbeat(hour=3, minute=30)]})
    due = next_heartbeat(state, COLD, Prefs(), False, SHANGHAI, NOW)
    assert due is not None and due.kind == "scheduled"


def minutes(n: float) -> int:
    return int(n * 60)


def test_a_session_continues_while_messages_come_and_a_gap_of_fifteen_minutes_starts_a_new_one() -> None:
    session = continued(None, 0)
    session = continued(session, minutes(14))
    assert session.started_at == 0 and session.last_at == minutes(14)
    assert continued(session, minutes(29)).started_at == minutes(29)


def test_the_break_is_due_after_the_period_once_then_after_another_period() -> None:
    session = ContinuousUse(started_at=0, last_at=minutes(119))
    assert not break_due(session, minutes(119.9), 120)
    assert break_due(session, minutes(120), 120)
    after = reminded(session.model_copy(update={"last_at": minutes(120)}), minutes(120))
    assert not break_due(after, minutes(130), 120)
    assert break_due(after.model_copy(update={"last_at": minutes(239)}), minutes(240), 120)


def test_no_break_is_due_when_turned_off_or_after_a_gap() -> None:
    session = ContinuousUse(started_at=0, last_at=minutes(125))
    assert not break_due(session, minutes(130), 0)
    assert not break_due(session, minutes(141), 120)  # the person was away 16 minutes: a new session


@pytest.mark.parametrize(
    "text",
    [
        "你是真人吗",
        "你到底是不是真人？",
        "你是不是机器人啊",
        "说实话，你是 AI 吗",
        "妳是真人嗎",
        "are you a real person?",
        "Are you human?",
        "are you a bot",
        "am I talking to a real person",
    ],
)
def test_a_sincere_question_whether_the_ai_is_a_person_is_recognised(text) -> None:
    assert asks_if_human(text)


@pytest.mark.parametrize(
    "text", ["真人版电影好看吗", "你是我最好的朋友", "我是真人秀的粉丝", "are you coming tonight?", "real talk"]
)
def test_ordinary_messages_are_not_taken_for_that_question(text) -> None:
    assert not asks_if_human(text)


def test_no_heartbeat_prompt_asks_the_ai_to_pass_as_human() -> None:
    from datetime import UTC, datetime

    from dreamchat.llm.chat_prompts import heartbeat_prompt

    now = datetime(2026, 1, 1, 12, tzinfo=UTC)
    for kind in ("silence", "scheduled", "checkin"):
        prompt = heartbeat_prompt(now, "Asia/Shanghai", kind, "", 30.0)
        assert "像真人" not in prompt and "不要说自己是 AI" not in prompt, kind
