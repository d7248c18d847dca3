"""The AI's own view of the clock through its tools, when the person lives in another zone."""

from __future__ import annotations

from datetime import datetime
from typing import get_args
from zoneinfo import ZoneInfo

from dreamchat.domain.models import BasicEmotion
from tests.api.test_chat import CHAT_MODEL, send
from tests.api.test_chat_tools import call

LA = "America/Los_Angeles"


def test_scheduled_times_and_the_current_state_are_on_the_persons_clock(person, ai, fake_llm) -> None:
    person.put("/api/profile", json={"timezone": LA})  # the AI user keeps Asia/Shanghai
    [set_result] = call(
        fake_llm, person, ai, "set_scheduled_heartbeat", {"hour": 9, "minute": 30, "message_template": "说早安"}
    )
    assert set_result.get("ok") is True, set_result
    [state] = call(fake_llm, person, ai, "get_current_state", {})
    assert state["timezone"] == LA
    assert state["time"].startswith("2026-03-15 05:")  # 12:00 UTC
    assert state["next_heartbeat"].startswith("2026-03-15 09:30")  # 对方所在时区: the person's 9:30
    [friend] = person.get("/api/friends").json()["friends"]
    assert friend["next_heartbeat"] == int(datetime(2026, 3, 15, 9, 30, tzinfo=ZoneInfo(LA)).timestamp())


def test_the_mood_before_any_summary_is_one_of_the_six_basic_emotions(person, ai, fake_llm) -> None:
    [state] = call(fake_llm, person, ai, "get_current_state", {})
    assert state["mood"] in get_args(BasicEmotion)  # not the atmosphere label 平和


def test_the_late_night_nudge_and_the_time_the_model_sees_follow_the_persons_zone(person, ai, fake_llm) -> None:
    # 12:00 UTC: 20:00 for the AI user (Asia/Shanghai), 05:00 (deep night) for a person in Los Angeles
    prompts = []
    for zone in (None, LA):
        person.put("/api/profile", json={"timezone": zone})
        assert send(person, ai, "在吗")[-1][0] == "done"
        prompts.append("\n".join(str(m["content"]) for m in fake_llm.requests_for(CHAT_MODEL)[-1].messages))
    shanghai, la = prompts
    assert "2026-03-15 20:00" in shanghai and "现在是深夜" not in shanghai
    assert "2026-03-15 05:00" in la and "现在是深夜" in la
