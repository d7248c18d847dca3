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
    # route waited for a model answer. Five people, nine turns each: one account alone holds at
    # most its fair share of the pool (16 of 64).
    model = HungModel()
    with (
        FakeLLMServer(default=model) as llm,
        TestClient(slow_app(tmp_path, clock, rng, llm)) as client,
    ):
        people = [register(client, f"person{n}") for n in range(5)]
        threads = [thread for p in people for thread in start_chats(p, p.create_ai_user()["id"], 9)]
        person = people[0]
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


def test_one_account_cannot_take_more_than_its_share_of_the_pool(tmp_path, clock, rng) -> None:
    """With a pool of 4, four slow reflect calls from one account made another's chat answer 503."""
    model = HungModel()
    with (
        FakeLLMServer(default=model) as llm,
        # released, the reflections get "终于" (no JSON): one attempt, not two more after real 2 s and 4 s pauses
        TestClient(slow_app(tmp_path, clock, rng, llm, model_concurrency=4, background_attempts=1)) as client,
    ):
        greedy, other = register(client, "greedy"), register(client, "other")
        ai = greedy.create_ai_user()
        threads = [
            threading.Thread(target=greedy.post, args=(f"/api/soul/{ai['id']}/update",), daemon=True) for _ in range(2)
        ]
        for thread in threads:
            thread.start()
        wait_for(lambda: len(llm.requests) >= 2)
        assert greedy.post(f"/api/soul/{ai['id']}/update").status_code == 503  # its share (2 of 4) is taken
        answered = []
        chat = threading.Thread(
            target=lambda: answered.append(
                other.post(f"/api/ai-users/{other.create_ai_user()['id']}/chat", json={"content": "在吗"})
            ),
            daemon=True,
        )
        chat.start()
        wait_for(lambda: len(llm.requests) >= 3)  # the other account's turn reached the model
        finish(model, [*threads, chat])
        assert answered[0].status_code == 200


def test_every_model_calling_route_spends_one_budget_per_account(tmp_path, clock, rng) -> None:
    # "好呀" is no JSON: every background task answers offline. One attempt each, because the budget is
    # spent when a route reserves its model work, not per model call, and each retry would really sleep
    # 2 s, then 4 s (42 s for this test with three attempts).
    with (
        FakeLLMServer(default=lambda body: Reply.text("好呀")) as llm,
        TestClient(slow_app(tmp_path, clock, rng, llm, model_calls_per_minute=6, background_attempts=1)) as client,
    ):
        person, other = register(client, "alice"), register(client, "bob")
        ai = person.create_ai_user()["id"]
        routes = [
            ("/api/ai-users/{}/chat", {"content": "在吗"}),
            ("/api/soul/{}/update", None),
            ("/api/relationship/{}/judge", None),
            ("/api/heartbeat/trigger/{}", None),
            ("/api/memory/{}/compress", None),
            ("/api/memory/{}/extract", None),
        ]
        for path, body in routes:
            assert person.post(path.format(ai), json=body).status_code == 200, path
        for path, body in routes:
            refused = person.post(path.format(ai), json=body)
            assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0, path
        assert other.post(f"/api/soul/{other.create_ai_user()['id']}/update").status_code == 200  # per account
        asked = len(llm.requests)
        clock.advance(seconds=61)
        assert person.post(f"/api/soul/{ai}/update").status_code == 200  # a new minute
        assert len(llm.requests) > asked


def test_a_crisis_message_is_never_refused_by_the_model_budget(tmp_path, clock, rng) -> None:
    with (
        FakeLLMServer(default=lambda body: Reply.text("我在")) as llm,
        TestClient(slow_app(tmp_path, clock, rng, llm, model_calls_per_minute=1)) as client,
    ):
        person = register(client, "alice")
        ai = person.create_ai_user()["id"]
        assert person.post(f"/api/ai-users/{ai}/chat", json={"content": "在吗"}).status_code == 200
        assert person.post(f"/api/ai-users/{ai}/chat", json={"content": "还在吗"}).status_code == 429
        assert person.post(f"/api/ai-users/{ai}/chat", json={"content": "我真的不想活了"}).status_code == 200
