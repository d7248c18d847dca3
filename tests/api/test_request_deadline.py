"""Requests other than the chat turn that call a model (reflect, judge, compress now) end within the
request's deadline too: a hanging model gives the offline result, marked degraded."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient

from dreamchat.api.app import create_app
from dreamchat.config import Settings
from dreamchat.domain.models import Conversation
from dreamchat.llm.offline import OfflineMemoryModels
from dreamchat.wiring import build_runtime
from tests.api.conftest import Person, register
from tests.fakes.fake_llm import FakeLLMServer, Reply

DEADLINE = 3.0


@pytest.fixture(scope="module", autouse=True)
def _jieba_loaded() -> None:
    """The offline summary uses jieba, whose dictionary and IDF table load once per process (5 s on
    a busy machine): a cold start's cost (see bench/cold_start.py), not what this file tests."""
    OfflineMemoryModels().compress([Conversation(role="user", content="预热", timestamp=0)], datetime.now(UTC))


@pytest.fixture
def person(tmp_path, clock, rng, fake_llm: FakeLLMServer) -> Iterator[Person]:
    settings = Settings(
        data_dir=tmp_path / "data",
        run_scheduler=False,
        llm_base_url=fake_llm.base_url,
        llm_api_key="test-key",
        llm_timeout_seconds=60,
        llm_max_retries=3,
        background_attempts=3,
        chat_turn_seconds=DEADLINE,
        chat_reserve_seconds=1,
        # a compression then also reflects, judges the relationship and is judged for quality
        reflect_every_topics=1,
        judge_relationship_every_topics=1,
        quality_sample_share=1.0,
    )
    with TestClient(create_app(settings, build_runtime(settings, clock=clock, random=rng))) as client:
        yield register(client, "alice")


@pytest.mark.parametrize("path", ["/api/soul/{id}/update", "/api/relationship/{id}/judge"])
def test_a_hanging_model_gives_a_degraded_answer_within_the_deadline(person, fake_llm, path: str) -> None:
    ai = person.create_ai_user(name="小梦")
    person.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": "今天升职了"})
    fake_llm.default = lambda body: Reply.slow(3600)
    started = time.monotonic()
    response = person.post(path.format(id=ai["id"]))
    assert time.monotonic() - started < DEADLINE
    assert response.status_code == 200 and response.json()["degraded"] is True


def test_compress_now_with_a_hanging_model_ends_within_the_deadline(person, fake_llm) -> None:
    ai = person.create_ai_user(name="小梦")
    person.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": "今天升职了"})
    fake_llm.default = lambda body: Reply.slow(3600)
    started = time.monotonic()
    [mid] = person.post(f"/api/memory/{ai['id']}/compress").json()["mid_term"]
    assert time.monotonic() - started < DEADLINE and mid["degraded"] is True
