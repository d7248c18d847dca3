"""The pure rules of crisis escalations: which flagged ids are kept, who may act when, what an operator
reads, the referral report's months, and how a staff message reaches the model."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from dreamchat.domain import moderation as rules
from dreamchat.domain.models import Conversation, Message
from dreamchat.domain.moderation import Escalation
from dreamchat.llm.chat_context import history_message
from dreamchat.llm.offline import OfflineMemoryModels
from dreamchat.llm.prompts import transcript


def escalation(**fields) -> Escalation:
    return Escalation(**{"id": "e1", "account_id": "a1", "ai_user_id": "ai_1", "opened_at": 0, **fields})


def message(key: str, role: str = "user") -> Message:
    return Message(id=key, role=role, content=f"text {key}", timestamp=0, topic_id="t1")


def test_a_flagged_message_counts_once_and_only_the_latest_ids_are_kept() -> None:
    flagged = escalation()
    for n in range(rules.FLAGGED_KEPT + 5):
        flagged = rules.flagged(flagged, f"m{n:03d}")
    assert rules.flagged(flagged, "m104") == flagged  # the same message again
    assert flagged.messages_flagged == rules.FLAGGED_KEPT + 5
    assert flagged.flagged == [f"m{n:03d}" for n in range(5, rules.FLAGGED_KEPT + 5)]


def test_a_takeover_needs_an_open_escalation_a_staff_message_a_taken_over_one_and_a_release_any_not_closed() -> None:
    opened, taken = escalation(), rules.taken_over(escalation(), "ops_1", 10)
    closed = rules.closed(taken, 20)
    assert (taken.status, taken.taken_over_by, taken.taken_over_at) == ("taken_over", "ops_1", 10)
    assert (closed.status, closed.closed_at) == ("closed", 20)
    assert [rules.takeover_refusal(e) is None for e in (opened, taken, closed)] == [True, False, False]
    assert [rules.staff_refusal(e) is None for e in (opened, taken, closed)] == [False, True, False]
    assert [rules.release_refusal(e) is None for e in (opened, taken, closed)] == [True, True, False]


def test_what_an_operator_reads_is_each_window_once_oldest_first_with_the_flagged_marked() -> None:
    first = [message("m01"), message("m02", "assistant"), message("m03")]
    second = [message("m02", "assistant"), message("m03"), message("m04", "staff"), message("m05")]
    shown = rules.shown_messages([second, first], ["m03", "m05"])
    assert [(m.id, flagged) for m, flagged in shown] == [
        ("m01", False),
        ("m02", False),
        ("m03", True),
        ("m04", False),
        ("m05", True),
    ]


def test_a_count_falls_in_its_utc_month_and_a_year_has_twelve() -> None:
    late = datetime(2026, 1, 31, 23, 30, tzinfo=UTC).astimezone(timezone(timedelta(hours=8)))
    assert rules.month_of(late) == "2026-01"  # February already in Shanghai
    assert rules.months_of(2026) == [f"2026-{n:02d}" for n in range(1, 13)]
    assert rules.counted(rules.counted({}, "taken_over"), "taken_over") == {"taken_over": 2}
    assert rules.report_row({"taken_over": 2}) == {
        "protocol_fired": 0,
        "help_lines_shown": 0,
        "escalations_opened": 0,
        "taken_over": 2,
    }
    with pytest.raises(ValueError):
        rules.counted({}, "messages")


def test_a_staff_message_reaches_the_model_marked_as_staff_never_as_the_ais_words() -> None:
    assert history_message(message("m1", "staff")) == {"role": "user", "content": "【工作人员】text m1"}
    assert history_message(message("m2", "assistant")) == {"role": "assistant", "content": "text m2"}
    lines = transcript([Conversation(role="staff", content="我在", timestamp=0)], UTC)
    assert lines == "[1970-01-01 00:00] 工作人员：我在"


def test_the_offline_summary_reads_a_staff_message_as_staff() -> None:
    conversations = [
        Conversation(role="user", content="我最近睡不好，总是想很多。", timestamp=0),
        Conversation(role="staff", content="我是工作人员，愿意听你说说睡不好的事。", timestamp=1),
    ]
    summary = OfflineMemoryModels().compress(conversations, datetime(2026, 3, 15, tzinfo=UTC)).summary
    assert "AI：我是工作人员" not in summary and "用户：我是工作人员" not in summary
