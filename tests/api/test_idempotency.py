"""`Idempotency-Key` on chat and save-message: a retry stores nothing new and calls no model."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from dreamchat.api.app import create_app
from dreamchat.config import Settings
from dreamchat.wiring import build_runtime
from tests.api.conftest import Person, register
from tests.api.sse import parse_sse
from tests.fakes.fake_llm import FakeLLMServer, Reply


@pytest.fixture
def app(tmp_path, clock, rng, fake_llm):
    settings = Settings(
        data_dir=tmp_path / "data",
        run_scheduler=False,
        llm_base_url=fake_llm.base_url,
        llm_api_key="test-key",
        llm_timeout_seconds=10,
        llm_max_retries=0,
        max_delay_seconds=0,
        access_token_minutes=60 * 24 * 365,
    )
    return create_app(settings, build_runtime(settings, clock=clock, random=rng))


@pytest.fixture
def client(app) -> Iterator[TestClient]:
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture
def alice(client) -> Person:
    return register(client, "alice")


def post(person: Person, path: str, content: str, key: str):
    return person.client.post(path, json={"content": content}, headers={**person.headers, "Idempotency-Key": key})


def history(person: Person, ai_id: str) -> list[dict]:
    return person.get(f"/api/ai-users/{ai_id}/messages").json()["messages"]


def test_a_retried_save_message_stores_once_and_answers_the_same(alice) -> None:
    ai = alice.create_ai_user()
    path = f"/api/ai-users/{ai['id']}/save-message"
    first, retry = post(alice, path, "我到家了", "k-1"), post(alice, path, "我到家了", "k-1")
    assert first.status_code == retry.status_code == 201
    assert retry.json() == first.json()
    assert [m["content"] for m in history(alice, ai["id"])] == ["我到家了"]


def test_a_retried_chat_replays_the_reply_without_calling_the_model(alice, fake_llm) -> None:
    ai = alice.create_ai_user()
    fake_llm.script("deepseek-chat", Reply.text("欢迎回来\n今天累吗"))
    path = f"/api/ai-users/{ai['id']}/chat"
    first, retry = post(alice, path, "我到家了", "k-2"), post(alice, path, "我到家了", "k-2")
    assert first.status_code == retry.status_code == 200
    assert parse_sse(retry.text) == parse_sse(first.text)
    assert [e for e, _ in parse_sse(first.text)] == ["notice", "message", "message", "done"]  # the AI disclosure
    assert len(fake_llm.requests_for("deepseek-chat")) == 1
    assert [m["content"] for m in history(alice, ai["id"])] == ["我到家了", "欢迎回来", "今天累吗"]


def test_a_key_reused_for_a_different_message_is_a_409(alice) -> None:
    ai = alice.create_ai_user()
    path = f"/api/ai-users/{ai['id']}/save-message"
    assert post(alice, path, "一", "k-3").status_code == 201
    reused = post(alice, path, "二", "k-3")
    assert reused.status_code == 409
    assert [m["content"] for m in history(alice, ai["id"])] == ["一"]


def test_keys_belong_to_one_account(client, alice) -> None:
    bob = register(client, "bob")
    for person in (alice, bob):
        ai = person.create_ai_user()
        assert post(person, f"/api/ai-users/{ai['id']}/save-message", "同一句", "shared").status_code == 201
        assert len(history(person, ai["id"])) == 1


def test_a_key_is_kept_for_24_hours(alice, clock) -> None:
    ai = alice.create_ai_user()
    path = f"/api/ai-users/{ai['id']}/save-message"
    post(alice, path, "早", "k-4")
    clock.advance(hours=23)
    post(alice, path, "早", "k-4")
    assert len(history(alice, ai["id"])) == 1
    clock.advance(hours=2)
    assert post(alice, path, "早", "k-4").status_code == 201
    assert len(history(alice, ai["id"])) == 2


def test_a_refused_first_try_leaves_the_key_free_for_the_retry(alice) -> None:
    ai = alice.create_ai_user()
    path = f"/api/ai-users/{ai['id']}/save-message"
    assert post(alice, path, "x" * 2001, "k-5").status_code == 413
    assert post(alice, path, "x" * 2001, "k-5").status_code == 413
    chat = f"/api/ai-users/{ai['id']}/chat"
    assert post(alice, chat, "\u200b", "k-6").status_code == 422
    assert post(alice, chat, "\u200b", "k-6").status_code == 422


def test_a_retry_while_the_first_is_still_answered_is_a_409(tmp_path, clock, rng) -> None:
    released = threading.Event()

    def hung(body: dict) -> Reply:
        released.wait(30)
        return Reply.text("好")

    with FakeLLMServer(default=hung) as llm:
        settings = Settings(
            data_dir=tmp_path / "hung",
            run_scheduler=False,
            llm_base_url=llm.base_url,
            llm_api_key="k",
            llm_timeout_seconds=60,
            llm_max_retries=0,
            max_delay_seconds=0,
        )
        with TestClient(create_app(settings, build_runtime(settings, clock=clock, random=rng))) as client:
            person = register(client, "carol")
            ai = person.create_ai_user()
            path = f"/api/ai-users/{ai['id']}/chat"
            first = threading.Thread(target=post, args=(person, path, "在吗", "k-7"))
            first.start()
            while not llm.requests:
                released.wait(0.02)
            assert post(person, path, "在吗", "k-7").status_code == 409
            released.set()
            first.join(10)
            assert len(llm.requests) == 1
            assert [m["content"] for m in history(person, ai["id"])] == ["在吗", "好"]
