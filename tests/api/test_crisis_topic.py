"""Distress and a crisis own their topic (issues 34 and 35): never silence after them, a farewell does not end
the protocol, a crisis split over two messages is one, a false alarm does not flood the chat. Through the API,
with the reply draw on, at 决裂 (5 %: the draw alone would leave nearly everything unanswered)."""

from __future__ import annotations

import pytest

from tests.api.test_person_first import chat, friend_at, history, serve, settings_for
from tests.fakes.fake_llm import Reply

TURNS = 12


@pytest.fixture
def served(tmp_path, clock, fake_llm):
    yield from serve(settings_for(tmp_path, fake_llm), clock)


@pytest.fixture
def offline(tmp_path, clock):
    yield from serve(settings_for(tmp_path), clock)


@pytest.fixture
def cold(served, fake_llm):
    person, app = served
    fake_llm.default = lambda body: Reply.text("我在。")
    return person, app, friend_at(app, person, "决裂")


def replied(events: list[tuple[str, dict]]) -> bool:
    return events[-1][1]["replied"]


def test_a_crisis_with_a_farewell_keeps_its_protocol_for_the_next_messages(cold, clock) -> None:
    person, app, ai_id = cold
    first = chat(person, ai_id, "我不想活了，再见")
    assert first[0][0] == "safety" and replied(first)
    for _ in range(TURNS):
        clock.advance(seconds=30)
        events = chat(person, ai_id, "嗯")
        assert replied(events) and "safety" not in [name for name, _ in events]
    marks = [m["safety"] for m in history(person, ai_id) if m["role"] == "user"]
    assert marks[0] == "crisis" and marks.count("crisis") == 1  # one topic, one card


def test_a_crisis_split_over_two_messages_is_met_with_help(cold, clock) -> None:
    person, _, ai_id = cold
    person.post(f"/api/ai-users/{ai_id}/save-message", json={"content": "我不想"})
    clock.advance(seconds=5)
    events = chat(person, ai_id, "活了")
    assert events[0][0] == "safety" and replied(events)


def test_distress_is_always_answered_and_its_next_messages_too_without_a_card(cold, clock) -> None:
    person, _, ai_id = cold
    events = chat(person, ai_id, "分手三个月了，今天又哭了一晚上，好难过")
    assert replied(events) and "safety" not in [name for name, _ in events]
    clock.advance(seconds=30)
    assert replied(chat(person, ai_id, "嗯"))  # the topic's next message: still answered
    marks = [m["safety"] for m in history(person, ai_id) if m["role"] == "user"]
    assert marks[0] == "distress"


def test_distress_without_a_model_gets_words_of_care_from_code(offline) -> None:
    person, app = offline
    ai_id = friend_at(app, person, "决裂")
    events = chat(person, ai_id, "分手三个月了，今天又哭了一晚上，好难过")
    words = [data["content"] for name, data in events if name == "message"]
    assert replied(events) and "safety" not in [name for name, _ in events]
    assert words and "在意你现在的感受" in words[0]


def test_a_model_that_fails_on_distress_still_leaves_words_of_care(cold, fake_llm) -> None:
    person, _, ai_id = cold
    fake_llm.default = lambda body: Reply.error(500)
    events = chat(person, ai_id, "最近真的好累，什么都提不起劲，每天都想哭")
    names = [name for name, _ in events]
    assert "message" in names and "error" not in names and replied(events)


def test_a_false_alarm_never_floods_the_chat_with_cards(cold, clock) -> None:
    """Whatever the check says of an everyday line, the card is shown only with a crisis statement."""
    person, _, ai_id = cold
    chat(person, ai_id, "我真的不想活了")
    cards = 0
    for text in ["这部剧太好看了，我直接爱死了", "哈哈哈笑死我了", "今天加班到十一点，累死了", "晚饭吃了火锅"]:
        clock.advance(seconds=30)
        cards += [name for name, _ in chat(person, ai_id, text)].count("safety")
    assert cards == 0


def test_an_everyday_topic_after_the_crisis_topic_is_drawn_again(cold, clock) -> None:
    person, app, ai_id = cold
    chat(person, ai_id, "我真的不想活了")
    pair, _ = app.state.services.ai_users.companion(person.id, ai_id)
    last = app.state.services.repo.log.last_message(pair)
    app.state.services.topics.end_topic(pair, last.topic_id)
    answered = 0
    for _ in range(20):
        clock.advance(seconds=30)
        answered += replied(chat(person, ai_id, "今天去超市买了点水果"))
    assert answered < 20  # a new, ordinary topic: the level's draw holds again
