"""Attacks on a chat turn: the client hangs up mid-stream, ended topics pile up unsummarised, the
model answers a million characters. Each turn must still end as it would with a patient client."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from dreamchat.api.app import create_app
from dreamchat.config import Settings
from dreamchat.domain.bounds import MESSAGE_CHARS as MAX_MESSAGE_CHARS
from dreamchat.domain.models import PairId
from dreamchat.services.idempotency import IdempotencyService
from dreamchat.wiring import build_runtime
from tests.api.conftest import Person, register
from tests.api.sse import parse_sse
from tests.fakes.fake_llm import FakeLLMServer, Reply

CHAT_MODEL = "deepseek-chat"


@pytest.fixture
def app(tmp_path, clock, rng, fake_llm) -> FastAPI:
    settings = Settings(
        data_dir=tmp_path / "data",
        run_scheduler=False,
        llm_base_url=fake_llm.base_url,
        llm_api_key="test-key",
        llm_timeout_seconds=2,
        llm_max_retries=0,
        topic_max_messages=6,
    )
    return create_app(settings, build_runtime(settings, clock=clock, random=rng))


@pytest.fixture
def person(app) -> Iterator[Person]:
    with TestClient(app) as client:
        yield register(client, "alice")


@pytest.fixture
def ai(person) -> dict:
    return person.create_ai_user(name="小梦")


def send(person: Person, ai: dict, content: str) -> list[tuple[str, dict]]:
    response = person.post(f"/api/ai-users/{ai['id']}/chat", json={"content": content})
    assert response.status_code == 200, response.text
    return parse_sse(response.text)


async def hang_up_after_the_first_message(app: FastAPI, path: str, token: str, content: str) -> bytes:
    """POST through the ASGI app as a phone would that locks its screen once the first message
    arrived: nothing more is delivered, then the connection is gone."""
    first_message = asyncio.Event()
    body_read = False
    received = b""

    async def receive() -> dict:
        nonlocal body_read
        if not body_read:
            body_read = True
            return {"type": "http.request", "body": json.dumps({"content": content}).encode(), "more_body": False}
        await first_message.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        nonlocal received
        received += message.get("body", b"")
        if b"event: message" in received:
            first_message.set()
            await asyncio.Event().wait()  # the network stalls: this write never completes

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"authorization", f"Bearer {token}".encode()),
            (b"content-type", b"application/json"),
            (b"host", b"testserver"),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }
    await asyncio.wait_for(app(scope, receive, send), timeout=20)
    return received


def test_a_farewell_turn_ends_its_topic_even_when_the_client_hangs_up_mid_stream(
    app, person, ai, fake_llm: FakeLLMServer
) -> None:
    fake_llm.script(CHAT_MODEL, Reply.text("好的\n晚安\n明天见"))
    path = f"/api/ai-users/{ai['id']}/chat"
    received = asyncio.run(hang_up_after_the_first_message(app, path, person.access_token, "我去睡了，晚安"))
    assert b"event: message" in received and b"event: done" not in received  # it did hang up mid-stream
    stored = person.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"]
    assert [m["content"] for m in stored] == ["我去睡了，晚安", "好的", "晚安", "明天见"]
    state = app.state.services.repo.topic_state(PairId(account_id=person.id, ai_user_id=ai["id"]))
    assert state.topic_id == stored[0]["topic_id"] and state.ended


def test_a_new_topic_is_not_cut_short_by_ended_topics_awaiting_compression(person, ai, fake_llm) -> None:
    # the first topic: 3 of the person's messages and 3 replies, ended by the farewell (6 = the limit);
    # without the scheduler nothing compresses it, as when compression lags under load
    assert [send(person, ai, text)[-1][1]["topic_ended"] for text in ("在吗", "今天好累", "拜拜")] == [
        False,
        False,
        True,
    ]
    # the next topic has 2 messages after this turn: far from the limit of 6
    assert send(person, ai, "早上好")[-1][1]["topic_ended"] is False


def test_a_million_character_answer_is_stored_as_at_most_five_short_messages(person, ai, fake_llm) -> None:
    fake_llm.script(CHAT_MODEL, Reply.text("这句话很长很长。" * 125_000))
    events = send(person, ai, "讲个故事")
    messages = [data["content"] for name, data in events if name == "message"]
    assert len(messages) == 1 and 0 < len(messages[0]) <= MAX_MESSAGE_CHARS and messages[0].endswith("。")
    fake_llm.script(CHAT_MODEL, Reply.text("好。\n" * 500_000))
    events = send(person, ai, "再讲一个")
    messages = [data["content"] for name, data in events if name == "message"]
    assert len(messages) == 5 and all(len(m) <= MAX_MESSAGE_CHARS for m in messages)
    stored = person.get(f"/api/ai-users/{ai['id']}/messages", params={"limit": 200}).json()["messages"]
    assert max(len(m["content"]) for m in stored) <= MAX_MESSAGE_CHARS


def test_a_hanging_model_ends_the_turn_with_an_error_at_its_deadline(tmp_path, clock, rng, fake_llm) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        run_scheduler=False,
        llm_base_url=fake_llm.base_url,
        llm_api_key="test-key",
        llm_timeout_seconds=60,
        llm_max_retries=3,
        chat_turn_seconds=3,
        chat_reserve_seconds=1,
    )
    fake_llm.default = lambda body: Reply.slow(3600)
    with TestClient(create_app(settings, build_runtime(settings, clock=clock, random=rng))) as client:
        person = register(client, "alice")
        ai = person.create_ai_user(name="小梦")
        started = time.monotonic()
        events = send(person, ai, "你在吗")
        assert time.monotonic() - started < 3
        assert [name for name, _ in events] == ["error"]
        assert [m["content"] for m in person.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"]] == ["你在吗"]


def test_a_storage_failure_during_the_turn_still_ends_the_stream_with_an_error(
    app, person, ai, fake_llm, monkeypatch
) -> None:
    def store_down(*args, **kwargs):
        raise RuntimeError("the store is down")

    monkeypatch.setattr(app.state.services.repo, "short_term", store_down)
    events = send(person, ai, "你好")
    assert [name for name, _ in events] == ["error"] and events[0][1]["code"] == "internal_error"
    monkeypatch.undo()
    assert [m["content"] for m in person.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"]] == ["你好"]


ERASURES = {
    "the AI user": lambda services, person, ai_id: services.ai_users.delete(person.id, ai_id),
    "the pair's memories": lambda services, person, ai_id: services.ai_users.unfriend(person.id, ai_id, forget=True),
    "the account": lambda services, person, ai_id: services.ai_users.erase_account(person.id),
}


@pytest.mark.parametrize("erased", ERASURES, ids=list(ERASURES))
@pytest.mark.parametrize("idempotent", [False, True], ids=["plain", "with-key"])
def test_a_conversation_deleted_while_the_ai_answers_ends_the_stream_with_an_error(
    app, person, ai, fake_llm, monkeypatch, erased, idempotent
) -> None:
    """The turn's own records after the answer (the answering lease, the Idempotency-Key's events)
    fall on erased data: the stream must still end with an event (it was cut off with none)."""
    services = app.state.services
    respond = services.chat.respond

    def deleted_meanwhile(*args, **kwargs):
        ERASURES[erased](services, person, ai["id"])
        yield from respond(*args, **kwargs)

    monkeypatch.setattr(services.chat, "respond", deleted_meanwhile)
    headers = {**person.headers, "Idempotency-Key": "k-1"} if idempotent else person.headers
    response = person.client.post(f"/api/ai-users/{ai['id']}/chat", json={"content": "在吗"}, headers=headers)
    assert response.status_code == 200
    events = parse_sse(response.text)
    assert [name for name, _ in events] == ["error"] and events[0][1]["code"] == "gone"


def test_a_conversation_deleted_during_a_retry_ends_its_stream_with_an_error(
    app, person, ai, fake_llm, monkeypatch
) -> None:
    fake_llm.script("deepseek-chat", Reply.error(500))
    send(person, ai, "在吗")
    [stored] = person.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"]
    services = app.state.services
    respond = services.chat.respond

    def deleted_meanwhile(*args, **kwargs):
        services.ai_users.unfriend(person.id, ai["id"], forget=True)
        yield from respond(*args, **kwargs)

    monkeypatch.setattr(services.chat, "respond", deleted_meanwhile)
    response = person.post(f"/api/ai-users/{ai['id']}/messages/{stored['id']}/retry")
    assert response.status_code == 200
    assert [name for name, _ in parse_sse(response.text)] == ["error"]


def test_a_failure_after_the_answer_still_ends_the_stream_with_an_event(app, person, ai, fake_llm, monkeypatch) -> None:
    """Whatever fails once the stream has begun (here the Idempotency-Key's record), it ends with `error`."""

    def store_down(*args, **kwargs):
        raise RuntimeError("the store is down")

    monkeypatch.setattr(IdempotencyService, "finish", store_down)
    headers = {**person.headers, "Idempotency-Key": "k-2"}
    response = person.client.post(f"/api/ai-users/{ai['id']}/chat", json={"content": "在吗"}, headers=headers)
    assert response.status_code == 200
    assert [name for name, _ in parse_sse(response.text)][-1:] == ["error"]


class Dice:
    """The random source, set by the test: 0.0 falls under every reply rate (answered), 0.99 above every
    one (declined, 已读不回)."""

    def __init__(self) -> None:
        self.value = 0.0

    def random(self) -> float:
        return self.value


@pytest.fixture(params=["draw", "model"])
def dice_app(request, tmp_path, clock, fake_llm) -> Iterator[tuple[Person, dict, Dice]]:
    """Alice and her AI user past the warm first day, the draw's dice in the test's hand; in both reply modes."""
    dice = Dice()
    settings = Settings(
        data_dir=tmp_path / "dice",
        run_scheduler=False,
        llm_base_url=fake_llm.base_url,
        llm_api_key="test-key",
        llm_timeout_seconds=2,
        llm_max_retries=0,
        reply_decision=request.param,
        warm_start_messages=0,
    )
    with TestClient(create_app(settings, build_runtime(settings, clock=clock, random=dice))) as client:
        person = register(client, "alice")
        yield person, person.create_ai_user(name="小梦"), dice


def retry(person: Person, ai: dict, message_id: str) -> list[tuple[str, dict]]:
    response = person.post(f"/api/ai-users/{ai['id']}/messages/{message_id}/retry")
    assert response.status_code == 200, response.text
    return parse_sse(response.text)


def failed_turn(person: Person, ai: dict, fake_llm: FakeLLMServer) -> dict:
    """An ordinary message the draw answered, whose turn failed: the model answered 500 (回复失败 · 重试)."""
    fake_llm.script(CHAT_MODEL, Reply.error(500))
    assert send(person, ai, "今天去超市买了点水果")[-1][0] == "error"
    [message] = person.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"]
    return message


def test_a_retry_of_a_failed_turn_is_answered_whatever_the_draw(dice_app, fake_llm) -> None:
    """The attack: 重试 drew again like a new message and, declined, ended in 已读 without asking the model."""
    person, ai, dice = dice_app
    message = failed_turn(person, ai, fake_llm)
    dice.value = 0.99  # this draw would decline any new message
    fake_llm.script(CHAT_MODEL, Reply.text("买了什么水果呀"))

    events = retry(person, ai, message["id"])

    assert [data["content"] for name, data in events if name == "message"] == ["买了什么水果呀"]
    assert events[-1] == ("done", {**events[-1][1], "replied": True})
    asked = json.dumps(fake_llm.requests_for(CHAT_MODEL)[-1].messages, ensure_ascii=False)
    assert "你想回复这条消息" in asked and "不太想回复" not in asked  # the model is not told it may decline
    history = person.get(f"/api/ai-users/{ai['id']}/messages").json()
    assert [(m["role"], m["read_no_reply"]) for m in history["messages"]] == [("user", False), ("assistant", False)]
    assert history["retry_message_id"] is None


def test_a_retry_the_model_leaves_unanswered_is_an_error_to_retry_never_read_without_reply(dice_app, fake_llm) -> None:
    person, ai, dice = dice_app
    message = failed_turn(person, ai, fake_llm)
    dice.value = 0.99
    fake_llm.script(CHAT_MODEL, Reply.text(""), Reply.text("草莓和橘子吗"))

    events = retry(person, ai, message["id"])

    assert [name for name, _ in events] == ["error"] and events[0][1]["code"] == "model_unavailable"
    history = person.get(f"/api/ai-users/{ai['id']}/messages").json()
    assert [m["read_no_reply"] for m in history["messages"]] == [False]
    assert history["retry_message_id"] == message["id"]  # still offered: 重试 again
    assert [data["content"] for name, data in retry(person, ai, message["id"]) if name == "message"] == ["草莓和橘子吗"]
