"""Hung model calls cannot starve the other routes, and a full model pool answers 503 at once."""

from __future__ import annotations

import threading
import time

from fastapi.testclient import TestClient

from dreamchat.api.app import create_app
from dreamchat.config import Settings
from dreamchat.wiring import build_runtime
from tests.api.conftest import Person, register
from tests.fakes.fake_llm import FakeLLMServer, Reply


def slow_app(tmp_path, clock, rng, llm: FakeLLMServer, **overrides):
    settings = Settings(
        data_dir=tmp_path / "data",
        run_scheduler=False,
        llm_base_url=llm.base_url,
        llm_api_key="test-key",
        llm_timeout_seconds=60,
        llm_max_retries=0,
        messages_per_minute=1000,
        **overrides,
    )
    return create_app(settings, build_runtime(settings, clock=clock, random=rng))


def start_chats(person: Person, ai_id: str, count: int) -> list[threading.Thread]:
    threads = [
        threading.Thread(
            target=person.post,
            args=(f"/api/ai-users/{ai_id}/chat",),
            kwargs={"json": {"content": f"在吗 {n}"}},
            daemon=True,
        )
        for n in range(count)
    ]
    for thread in threads:
        thread.start()
    return threads


class HungModel:
    """A model that answers only when released (at the end of the test)."""

    def __init__(self) -> None:
        self.released = threading.Event()

    def __call__(self, body: dict) -> Reply:
        self.released.wait(30)
        return Reply.text("终于")


def finish(model: HungModel, threads: list[threading.Thread]) -> None:
    model.released.set()
    for thread in threads:
        thread.join(10)


def wait_for(condition, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_health_and_friends_answer_at_once_while_45_turns_wait_on_a_hung_model(tmp_path, clock, rng) -> None:
    # 45 is more than the request thread pool (40): before, the 41st turn and every other
    # route waited for a model answer.
    model = HungModel()
    with (
        FakeLLMServer(default=model) as llm,
        TestClient(slow_app(tmp_path, clock, rng, llm)) as client,
    ):
        person = register(client, "alice")
        ai = person.create_ai_user()
        threads = start_chats(person, ai["id"], 45)
        wait_for(lambda: len(llm.requests) >= 40)
        for path in ("/api/health", "/api/friends"):
            started = time.monotonic()
            assert person.get(path).status_code == 200
            assert time.monotonic() - started < 2
        finish(model, threads)


def test_a_full_model_pool_answers_503_with_retry_after_and_stores_nothing(tmp_path, clock, rng) -> None:
    model = HungModel()
    with (
        FakeLLMServer(default=model) as llm,
        TestClient(slow_app(tmp_path, clock, rng, llm, model_concurrency=2)) as client,
    ):
        person = register(client, "alice")
        ai = person.create_ai_user()
        threads = start_chats(person, ai["id"], 2)
        wait_for(lambda: len(llm.requests) >= 2)
        refused = person.post(f"/api/ai-users/{ai['id']}/chat", json={"content": "还在吗"})
        assert refused.status_code == 503
        assert int(refused.headers["Retry-After"]) > 0
        assert refused.json()["error"]["code"] == "unavailable"
        assert person.post(f"/api/memory/{ai['id']}/compress").status_code == 503
        stored = person.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"]
        assert sorted(m["content"] for m in stored) == ["在吗 0", "在吗 1"]
        assert person.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": "留言"}).status_code == 201
        finish(model, threads)


def test_a_slot_is_given_back_when_the_turn_ends(tmp_path, clock, rng) -> None:
    with (
        FakeLLMServer(default=lambda body: Reply.text("好呀")) as llm,
        TestClient(slow_app(tmp_path, clock, rng, llm, model_concurrency=1)) as client,
    ):
        person = register(client, "alice")
        ai = person.create_ai_user()
        for n in range(3):
            assert person.post(f"/api/ai-users/{ai['id']}/chat", json={"content": f"第{n}句"}).status_code == 200
        too_long = person.post(f"/api/ai-users/{ai['id']}/chat", json={"content": "x" * 2001})
        assert too_long.status_code == 413
        assert person.post(f"/api/ai-users/{ai['id']}/chat", json={"content": "再来"}).status_code == 200
