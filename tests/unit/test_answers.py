"""The rules of the person's controls over the latest exchange (`dreamchat.domain.answers`), on plain messages."""

from __future__ import annotations

from dreamchat.domain.answers import (
    NOT_THE_LAST_ANSWER,
    NOT_THE_LAST_MESSAGE,
    choice_problem,
    edit_problem,
    last_exchange,
    matches,
    rated,
    regenerate_problem,
    with_new_answer,
)
from dreamchat.domain.bounds import ALTERNATIVES
from dreamchat.domain.models import Message


def message(id: str, role: str = "assistant", content: str = "", kind: str = "chat", **fields) -> Message:
    return Message(id=id, role=role, content=content or id, timestamp=0, topic_id="t", kind=kind, **fields)


def test_the_exchange_is_the_persons_last_message_and_the_ais_chat_messages_after_it() -> None:
    tail = [message("a", "user"), message("b"), message("c", "user"), message("d"), message("e")]
    exchange = last_exchange(tail)
    assert exchange is not None
    assert (exchange.person.id, [m.id for m in exchange.answer], exchange.text) == ("c", ["d", "e"], "d\ne")


def test_a_heartbeat_a_greeting_or_staff_after_the_answer_ends_the_exchange() -> None:
    for last in (message("h", kind="heartbeat"), message("g", kind="greeting"), message("s", role="staff")):
        assert last_exchange([message("a", "user"), message("b"), last]) is None
    assert last_exchange([message("b"), message("c")]) is None  # no message of the person


def test_only_the_last_answer_may_be_answered_anew_and_only_the_last_message_edited() -> None:
    exchange = last_exchange([message("a", "user"), message("b"), message("c", "user"), message("d")])
    assert regenerate_problem(exchange, "d") is None
    assert regenerate_problem(exchange, "b") == NOT_THE_LAST_ANSWER
    assert regenerate_problem(exchange, "c") == NOT_THE_LAST_ANSWER
    assert edit_problem(exchange, "c") is None
    assert edit_problem(exchange, "a") == NOT_THE_LAST_MESSAGE
    assert regenerate_problem(None, "d") == NOT_THE_LAST_ANSWER


def test_an_unanswered_message_has_no_answer_to_redo_but_can_be_edited() -> None:
    exchange = last_exchange([message("a", "user", read_no_reply=True)])
    assert exchange is not None and exchange.answer == [] and exchange.alternatives == []
    assert regenerate_problem(exchange, "a") == NOT_THE_LAST_ANSWER
    assert edit_problem(exchange, "a") is None


def test_the_alternatives_hold_the_answer_shown_now_in_its_place() -> None:
    first = message("d", content="二", alternatives=["一", "旧的二", "三"], alternative=1)
    exchange = last_exchange([message("c", "user"), first, message("e", content="续")])
    assert exchange is not None and exchange.alternatives == ["一", "二\n续", "三"]
    assert choice_problem(exchange, "d", 0) is None
    assert choice_problem(exchange, "e", 0) == NOT_THE_LAST_ANSWER


def test_a_new_answer_joins_the_end_and_the_oldest_goes_past_the_limit() -> None:
    assert with_new_answer(["一"], "二") == (["一", "二"], 1)
    kept, index = with_new_answer([str(n) for n in range(ALTERNATIVES)], "new")
    assert len(kept) == ALTERNATIVES and kept[0] == "1" and kept[index] == "new"


def test_search_matches_a_substring_whatever_the_case() -> None:
    assert matches(message("a", content="An APPLE a day"), "apple")
    assert matches(message("a", content="我家狗叫豆豆"), "豆豆")
    assert not matches(message("a", content="banana"), "apple")


def test_a_changed_mind_moves_its_count_never_below_zero() -> None:
    assert rated({}, None, 1) == {"up": 1}
    assert rated({"up": 1}, 1, -1) == {"up": 0, "down": 1}
    assert rated({}, 1, -1) == {"up": 0, "down": 1}
