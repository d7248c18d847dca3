"""The retry rule: which message may be answered again after a failed turn, and when."""

from __future__ import annotations

import pytest

from dreamchat.domain.answering import (
    ANSWER_MARGIN_SECONDS,
    NOT_THE_LATEST,
    STILL_ANSWERING,
    awaits_answer,
    retry_offered,
    retry_refusal,
    turn_over,
)
from dreamchat.domain.models import Message

SENT_AT = 1_000
TURN_SECONDS = 25.0


def message(role="user", *, read_no_reply=False, message_id="m2") -> Message:
    return Message(
        id=message_id, role=role, content="在吗", timestamp=SENT_AT, topic_id="t", read_no_reply=read_no_reply
    )


def test_the_persons_unanswered_message_awaits_an_answer():
    assert awaits_answer(message())


@pytest.mark.parametrize("last", [message("assistant"), message(read_no_reply=True)])
def test_an_ai_message_or_one_read_without_reply_awaits_nothing(last):
    assert not awaits_answer(last)


def test_a_turn_is_over_only_past_its_seconds_and_the_margin():
    budget_end = SENT_AT + TURN_SECONDS + ANSWER_MARGIN_SECONDS
    assert not turn_over(message(), budget_end, TURN_SECONDS)
    assert turn_over(message(), budget_end + 1, TURN_SECONDS)


def test_the_latest_message_freed_by_a_failed_turn_may_be_answered_again_at_once():
    assert retry_refusal(message(), "m2", freed=True, over=False) is None


def test_the_latest_message_whose_turn_is_over_may_be_answered_again_without_a_failure_seen():
    assert retry_refusal(message(), "m2", freed=False, over=True) is None


def test_a_message_whose_own_turn_may_still_run_is_still_being_answered():
    assert retry_refusal(message(), "m2", freed=False, over=False) == STILL_ANSWERING


@pytest.mark.parametrize(
    ("last", "asked"),
    [
        (None, "m2"),
        (message(), "m1"),  # an older message
        (message("assistant"), "m2"),
        (message(read_no_reply=True), "m2"),
    ],
)
def test_only_the_persons_latest_unanswered_message_may_be_answered_again(last, asked):
    assert retry_refusal(last, asked, freed=True, over=True) == NOT_THE_LATEST


def test_the_history_offers_a_retry_once_the_turn_is_over_when_none_was_leased():
    assert not retry_offered(message(), open_now=None, over=False)
    assert retry_offered(message(), open_now=None, over=True)


def test_the_history_follows_the_retry_lease_once_there_is_one():
    assert retry_offered(message(), open_now=True, over=False)
    assert not retry_offered(message(), open_now=False, over=True)


def test_the_history_never_offers_to_answer_what_awaits_no_answer():
    assert not retry_offered(message("assistant"), open_now=True, over=True)
    assert not retry_offered(message(read_no_reply=True), open_now=True, over=True)
