"""Attacks on issue 23's protocol through the API: a crisis message is never refused, queued or left
silent, whatever else is going on (a busy pool, the rate limits, a slow or broken model, a hang-up,
a deletion, a replay); the AI never claims to be human, not even in a heartbeat."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from dreamchat.domain.bounds import MESSAGE_CHARS as MAX_MESSAGE_CHARS
from dreamchat.domain.crisis import CRISIS_MARKER
from dreamchat.llm.chat_prompts import chat_instructions, heartbeat_prompt
from dreamchat.llm.offline import crisis_reply, offline_heartbeats
from tests.api.sse import parse_sse
from tests.api.test_chat_turn_attacks import hang_up_after_the_first_message
from tests.api.test_person_first import (
    CRISIS,
    chat,
    expected_resources,
    friend_at,
    history,
    run_heartbeats,
    serve,
    settings_for,
)
from tests.fakes.fake_llm import Reply


def tuned(settings, **changes):
    """`settings_for` with its generous limits changed."""
    return settings.model_copy(update=changes)


def crisis_answered(events: list[tuple[str, dict]], settings) -> list[str]:
    """The turn met the crisis: help lines first, words after them, no error; the words."""
    names = [name for name, _ in events]
    assert names[0] == "safety", names
    assert events[0][1] == {"kind": "crisis", "resources": expected_resources(settings)}
    assert "error" not in names and events[-1][1]["replied"] is True, events
    return [data["content"] for name, data in events if name == "message"]


def marked(person, ai_id: str) -> list[tuple[str, str | None]]:
    return [(m["content"], m["safety"]) for m in history(person, ai_id) if m["role"] == "user"]


class HungModel:
    """A model that answers only when released."""

    def __init__(self) -> None:
        self.released = threading.Event()
        self.calls = 0

    def __call__(self, body: dict) -> Reply:
        self.calls += 1
        self.released.wait(30)
        return Reply.text("终于")


def wait_for(condition, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


# 1. a crisis while the AI is still answering


def test_a_crisis_sent_while_the_ai_still_answers_the_last_message_is_answered_too(tmp_path, clock, fake_llm) -> None:
    settings = settings_for(tmp_path, fake_llm, model_concurrency=8)  # one account's share: 2 slots
    hung = HungModel()
    fake_llm.default = hung
    for person, app in serve(settings, clock):
        ai_id = friend_at(app, person, "特别关心")
        busy = [threading.Thread(target=chat, args=(person, ai_id, f"在吗 {n}"), daemon=True) for n in range(2)]
        for thread in busy:
            thread.start()
        try:
            wait_for(lambda: hung.calls >= 2)  # both turns hold a slot while the model hangs
            assert person.post(f"/api/ai-users/{ai_id}/chat", json={"content": "还在吗"}).status_code == 503
            response = person.post(f"/api/ai-users/{ai_id}/chat", json={"content": CRISIS})
            assert response.status_code == 200, response.text
            words = crisis_answered(parse_sse(response.text), settings)
            assert words == [crisis_reply(offline=False)]  # no slot for the model: its own words of care
            assert (CRISIS, "crisis") in marked(person, ai_id)
            # the crisis owns its topic: the next message of it is not a 503 either (issue 35)
            later = person.post(f"/api/ai-users/{ai_id}/chat", json={"content": "嗯"})
            assert later.status_code == 200, later.text
            assert parse_sse(later.text)[-1][1]["replied"]
        finally:
            hung.released.set()
            for thread in busy:
                thread.join(10)


# 2. the rate limits


def test_a_crisis_over_the_message_limit_is_stored_marked_and_answered_with_the_help_lines(
    tmp_path, clock, fake_llm
) -> None:
    settings = tuned(settings_for(tmp_path, fake_llm), messages_per_minute=2)
    fake_llm.default = lambda body: Reply.text("我在，我一直都在。")
    for person, app in serve(settings, clock):
        ai_id = friend_at(app, person, "特别关心")
        chat(person, ai_id, "在吗")
        chat(person, ai_id, "还在吗")
        assert person.post(f"/api/ai-users/{ai_id}/chat", json={"content": "人呢"}).status_code == 429
        calls = len(fake_llm.requests_for("deepseek-chat"))
        response = person.post(f"/api/ai-users/{ai_id}/chat", json={"content": CRISIS})
        assert response.status_code == 200, response.text
        assert crisis_answered(parse_sse(response.text), settings) == [crisis_reply(offline=False)]
        assert len(fake_llm.requests_for("deepseek-chat")) == calls  # past the limit: no model call
        saved = person.post(f"/api/ai-users/{ai_id}/save-message", json={"content": "我真的不想活了"})
        assert saved.status_code == 201, saved.text
        assert saved.json()["safety"]["resources"] == expected_resources(settings)
        assert marked(person, ai_id)[-2:] == [(CRISIS, "crisis"), ("我真的不想活了", "crisis")]
        # the crisis owns its topic: a later message of it is never refused either (issue 35)
        later = person.post(f"/api/ai-users/{ai_id}/save-message", json={"content": "今天累死了"})
        assert later.status_code == 201, later.text
        other = friend_at(app, person, "特别关心")
        ordinary = person.post(f"/api/ai-users/{other}/save-message", json={"content": "今天累死了"})
        assert ordinary.status_code == 429  # the limit still holds for everything else


def test_a_crisis_over_the_model_budget_is_answered_by_the_model(tmp_path, clock, fake_llm) -> None:
    settings = tuned(settings_for(tmp_path, fake_llm), model_calls_per_minute=1)
    fake_llm.default = lambda body: Reply.text("我在，我一直都在。")
    for person, app in serve(settings, clock):
        ai_id = friend_at(app, person, "特别关心")
        chat(person, ai_id, "在吗")
        assert person.post(f"/api/ai-users/{ai_id}/chat", json={"content": "还在吗"}).status_code == 429
        assert crisis_answered(chat(person, ai_id, CRISIS), settings) == ["我在，我一直都在。"]


# 3. a slow or broken model


@pytest.mark.parametrize(
    "reply",
    [Reply.slow(3600), Reply.malformed(), Reply.error(500), Reply.rate_limited(), Reply.text("")],
    ids=["slow", "not-json", "500", "429", "empty"],
)
def test_a_slow_or_broken_model_in_a_crisis_still_leaves_words_of_care(tmp_path, clock, fake_llm, reply) -> None:
    settings = settings_for(tmp_path, fake_llm, chat_turn_seconds=3, chat_reserve_seconds=1)
    fake_llm.default = lambda body: reply
    for person, app in serve(settings, clock):
        ai_id = friend_at(app, person, "决裂")
        started = time.monotonic()
        words = crisis_answered(chat(person, ai_id, CRISIS), settings)
        assert time.monotonic() - started < 4  # within the turn's deadline
        assert words == [crisis_reply(offline=False)]
        assert [m["role"] for m in history(person, ai_id)] == ["user", "assistant"]


@pytest.mark.parametrize(
    "garbage", [CRISIS_MARKER, "[TOPIC_ENDED]", f"{CRISIS_MARKER}\n\n  \n", "HEARTBEAT_OK", "\u200b\u200b"]
)
def test_a_model_that_answers_only_markers_in_a_crisis_still_leaves_words(tmp_path, clock, fake_llm, garbage) -> None:
    settings = settings_for(tmp_path, fake_llm)
    fake_llm.default = lambda body: Reply.text(garbage)
    for person, app in serve(settings, clock):
        words = crisis_answered(chat(person, friend_at(app, person, "决裂"), CRISIS), settings)
        assert words and all(w.strip("\u200b ").strip() for w in words), words
        assert CRISIS_MARKER not in "".join(words)


# 4. the client hangs up


def test_a_crisis_turn_the_client_hangs_up_on_is_stored_marked_answered_and_checked_on(
    tmp_path, clock, fake_llm
) -> None:
    settings = settings_for(tmp_path, fake_llm)
    fake_llm.default = lambda body: Reply.text("我在\n你现在安全吗\n我陪着你")
    for person, app in serve(settings, clock):
        ai_id = friend_at(app, person, "决裂")
        path = f"/api/ai-users/{ai_id}/chat"
        received = asyncio.run(hang_up_after_the_first_message(app, path, person.access_token, CRISIS))
        assert received.index(b"event: safety") < received.index(b"event: message")
        assert b"event: done" not in received  # it did hang up mid-stream
        stored = history(person, ai_id)
        assert [(m["role"], m["content"], m["safety"]) for m in stored] == [
            ("user", CRISIS, "crisis"),
            ("assistant", "我在", None),
            ("assistant", "你现在安全吗", None),
            ("assistant", "我陪着你", None),
        ]
        fake_llm.default = lambda body: Reply.text("你还好吗？")
        clock.advance(minutes=61)
        run_heartbeats(app)
        assert history(person, ai_id)[-1]["kind"] == "heartbeat"


# 5. deletion, retry


def test_a_deleted_crisis_message_still_gets_its_check_in_and_nothing_breaks(tmp_path, clock, fake_llm) -> None:
    """Documented behaviour: deleting the message does not cancel the check-in (the worry stands)."""
    settings = settings_for(tmp_path, fake_llm)
    fake_llm.default = lambda body: Reply.text("我在")
    for person, app in serve(settings, clock):
        ai_id = friend_at(app, person, "决裂")
        chat(person, ai_id, CRISIS)
        mine = history(person, ai_id)[0]
        assert person.delete(f"/api/ai-users/{ai_id}/messages/{mine['id']}").status_code == 200
        fake_llm.default = lambda body: Reply.text("你还好吗？")
        clock.advance(minutes=61)
        run_heartbeats(app)
        assert [m["kind"] for m in history(person, ai_id)] == ["chat", "heartbeat"]


def test_a_retried_crisis_turn_carries_the_help_lines_even_past_the_model_budget(
    tmp_path, clock, fake_llm, monkeypatch
) -> None:
    settings = tuned(settings_for(tmp_path, fake_llm), model_calls_per_minute=1)
    fake_llm.default = lambda body: Reply.text("我在")
    for person, app in serve(settings, clock):
        ai_id = friend_at(app, person, "决裂")
        chat(person, ai_id, "在吗")  # the minute's one model call
        monkeypatch.setattr(app.state.services.chat, "respond", lambda *a, **k: 1 / 0)
        failed = chat(person, ai_id, CRISIS)
        assert [name for name, _ in failed] == ["safety", "error"]  # the help lines even in a failed turn
        assert failed[0][1]["resources"] == expected_resources(settings)
        assert "你并不孤单" in failed[1][1]["message"]  # and words of care, not only an error (issue 35)
        monkeypatch.undo()
        mine = history(person, ai_id)[-1]
        assert (mine["content"], mine["safety"]) == (CRISIS, "crisis")
        retried = person.post(f"/api/ai-users/{ai_id}/messages/{mine['id']}/retry")
        assert retried.status_code == 200, retried.text
        assert crisis_answered(parse_sse(retried.text), settings) == ["我在"]


# 6. edge-case messages


def test_a_crisis_over_the_length_limit_is_stored_cut_and_marked_and_answered_but_an_everyday_one_is_a_413(
    served,
) -> None:
    person, app = served
    ai_id = friend_at(app, person, "决裂")
    longest = CRISIS + "。" * (MAX_MESSAGE_CHARS - len(CRISIS))
    assert len(longest) == MAX_MESSAGE_CHARS
    events = chat(person, ai_id, longest)
    assert events[0][0] == "safety" and events[-1][1]["replied"]
    letter = "今天又是很长的一天。" * 300 + CRISIS  # the statement at the end of a 3,000-character letter
    events = chat(person, ai_id, letter)
    assert events[0][0] == "safety" and events[-1][1]["replied"]
    saved = person.post(f"/api/ai-users/{ai_id}/save-message", json={"content": letter})
    assert saved.status_code == 201 and saved.json()["safety"]["resources"]
    stored = marked(person, ai_id)
    assert stored[0] == (longest, "crisis")
    assert all(len(text) == MAX_MESSAGE_CHARS and mark == "crisis" for text, mark in stored[1:]), stored
    everyday = person.post(f"/api/ai-users/{ai_id}/chat", json={"content": "今天吃了火锅。" * 400})
    assert everyday.status_code == 413
    assert len(marked(person, ai_id)) == 3


@pytest.fixture
def served(tmp_path, clock, fake_llm):
    fake_llm.default = lambda body: Reply.text("我在")
    yield from serve(settings_for(tmp_path, fake_llm), clock)


@pytest.mark.parametrize("content", ["", "   ", "\n\t\u3000", "\u200b\u2060", "\x00\x07"])
@pytest.mark.parametrize("route", ["chat", "save-message"])
def test_empty_and_invisible_messages_are_a_clear_422(served, content, route) -> None:
    person, app = served
    ai_id = friend_at(app, person, "决裂")
    response = person.post(f"/api/ai-users/{ai_id}/{route}", json={"content": content})
    assert response.status_code == 422 and response.json()["error"]["message"], response.text
    assert history(person, ai_id) == []


@pytest.mark.parametrize("content", ["我\x00今晚就准备自杀", "我今晚就\x07准备自杀\x1b", "\t我今晚就准备自杀\r\n"])
def test_a_crisis_with_control_characters_gets_the_protocol(served, content) -> None:
    person, app = served
    ai_id = friend_at(app, person, "决裂")
    response = person.post(f"/api/ai-users/{ai_id}/chat", json={"content": content})
    assert response.status_code == 200, response.text
    events = parse_sse(response.text)
    assert events[0][0] == "safety" and events[-1][1]["replied"], events
    assert [s for _, s in marked(person, ai_id)] == ["crisis"]
    saved = person.post(f"/api/ai-users/{ai_id}/save-message", json={"content": content})
    assert saved.status_code == 201 and saved.json()["safety"] == events[0][1]


# 7. Idempotency-Key replays


def test_a_replayed_crisis_chat_and_save_return_the_same_help_lines_and_store_once(served) -> None:
    person, app = served
    ai_id = friend_at(app, person, "决裂")
    path = f"/api/ai-users/{ai_id}"
    first = person.client.post(
        f"{path}/chat", headers={**person.headers, "Idempotency-Key": "k1"}, json={"content": CRISIS}
    )
    again = person.client.post(
        f"{path}/chat", headers={**person.headers, "Idempotency-Key": "k1"}, json={"content": CRISIS}
    )
    assert parse_sse(again.text) == parse_sse(first.text) and parse_sse(first.text)[0][0] == "safety"
    saved = [
        person.client.post(
            f"{path}/save-message", headers={**person.headers, "Idempotency-Key": "k2"}, json={"content": "我不想活了"}
        ).json()
        for _ in range(2)
    ]
    assert saved[0] == saved[1] and saved[0]["safety"] == parse_sse(first.text)[0][1]
    assert [s for _, s in marked(person, ai_id)] == ["crisis", "crisis"]


# 8. heartbeats never claim to be human


@pytest.mark.parametrize("kind", ["checkin", "timed", "scheduled"])
def test_every_heartbeat_prompt_keeps_the_honesty_rule(kind) -> None:
    from datetime import UTC, datetime

    for level in ["特别关心", "关系较好", "一般", "关系冷淡", "决裂"]:
        instructions = chat_instructions("小梦", level)  # what a heartbeat is sent with
        assert "绝不声称自己是真人" in instructions
    trigger = heartbeat_prompt(datetime(2026, 1, 1, tzinfo=UTC), "Asia/Shanghai", kind, "", 30)
    assert "真人" not in trigger and "不是 AI" not in trigger


def test_no_offline_heartbeat_or_offline_reply_claims_to_be_human() -> None:
    lines = [
        line
        for kind in ["checkin", "timed", "scheduled"]
        for level in ["特别关心", "决裂"]
        for line in offline_heartbeats(kind, level, "")
    ]
    lines += [crisis_reply(offline=True), crisis_reply(offline=False)]
    assert lines and not [line for line in lines if "真人" in line or "我是人" in line or "human" in line.lower()]
    assert all(line.startswith("（离线模式）") for line in lines[:-2])


def test_a_check_in_heartbeat_reaches_the_model_with_the_honesty_rule_and_without_the_cold_level(
    tmp_path, clock, fake_llm
) -> None:
    settings = settings_for(tmp_path, fake_llm)
    fake_llm.default = lambda body: Reply.text("我在")
    for person, app in serve(settings, clock):
        ai_id = friend_at(app, person, "决裂")
        chat(person, ai_id, CRISIS)
        clock.advance(minutes=61)
        run_heartbeats(app)
        prompt = "\n".join(m["content"] for m in fake_llm.requests_for("deepseek-chat")[-1].messages)
        assert "担心" in prompt and "绝不声称自己是真人" in prompt
        assert "拒绝沟通" not in prompt  # the 决裂 attitude is not played while checking on a person in crisis
