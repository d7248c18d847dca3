"""The typed events and work items: each goes to its detail and back, and a bad detail is one error."""

from __future__ import annotations

import pytest

from dreamchat.domain.models import PairId
from dreamchat.events import ExtractionDue, HeartbeatDue, MalformedEvent, TopicEnded
from dreamchat.ports import Event

EXAMPLES = [TopicEnded("acc", "ai", "t1"), HeartbeatDue("acc", "ai", 1_700_000_000), ExtractionDue("acc", "ai", 17)]


@pytest.mark.parametrize("typed", EXAMPLES, ids=lambda e: e.detail_type)
def test_an_event_comes_back_from_its_detail_unchanged(typed):
    assert type(typed).from_detail(typed.detail()) == typed


@pytest.mark.parametrize("typed", EXAMPLES, ids=lambda e: e.detail_type)
def test_a_bus_event_carries_the_name_and_the_detail(typed):
    event = typed.event()
    assert event == Event(typed.detail_type, typed.detail())
    assert type(typed).of(event) == typed


def test_the_detail_is_what_the_queues_and_the_bus_carried_before():
    assert TopicEnded("acc", "ai", "t1").detail() == {"account_id": "acc", "ai_user_id": "ai", "topic_id": "t1"}
    assert HeartbeatDue("acc", "ai", 5).detail() == {"account_id": "acc", "ai_user_id": "ai", "due": 5}
    assert ExtractionDue("acc", "ai", 7).detail() == {"account_id": "acc", "ai_user_id": "ai", "lease": 7}


def test_the_names_are_distinct_and_are_the_ones_eventbridge_rules_match():
    assert [type(e).detail_type for e in EXAMPLES] == ["TopicEnded", "HeartbeatDue", "ExtractionDue"]


def test_an_event_names_its_pair():
    assert HeartbeatDue("acc", "ai", 5).pair == PairId(account_id="acc", ai_user_id="ai")


def test_a_number_written_as_text_is_read_as_before():
    assert HeartbeatDue.from_detail({"account_id": "a", "ai_user_id": "b", "due": "12"}).due == 12


@pytest.mark.parametrize(
    "detail",
    [
        None,
        [],
        "text",
        {},
        {"account_id": "a", "ai_user_id": "b"},
        {"account_id": "a", "ai_user_id": "b", "due": "soon"},
        {"account_id": "a", "ai_user_id": "b", "due": None},
        {"account_id": "a", "ai_user_id": "b", "due": True},
        {"account_id": "", "ai_user_id": "b", "due": 1},
        {"account_id": 3, "ai_user_id": "b", "due": 1},
    ],
)
def test_a_malformed_detail_is_one_error(detail):
    with pytest.raises(MalformedEvent):
        HeartbeatDue.from_detail(detail)


def test_the_error_names_the_field_never_the_value():
    with pytest.raises(MalformedEvent) as raised:
        TopicEnded.from_detail({"account_id": "a", "ai_user_id": "b", "topic_id": ["我的秘密"]})
    assert "topic_id" in str(raised.value) and "秘密" not in str(raised.value)


def test_an_event_of_another_type_is_not_read_as_this_one():
    with pytest.raises(MalformedEvent):
        TopicEnded.of(HeartbeatDue("acc", "ai", 5).event())
