"""Owed work is redone by the real extract worker under moto, inside its Lambda clock (issue 28 attack 5):
with the worker's settings as CDK gives them a redo fits (before, the redo's budget, the extraction's
worst case plus one memory-model task, was more than the worker's whole timeout: no worker ever
healed), and a redo whose model hangs ends within the deadline and leaves the work owed."""

from __future__ import annotations

import importlib
import json
import time

import pytest

from functions.compress import handler as compress
from functions.extract import handler as extract
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.handlers.events import LambdaContext, scheduled_event, sqs_batch
from tests.handlers.test_time_budgets import CountdownContext, call, configure_as_cdk_does, signed_up

TAGS = {"basic_emotion": "愉悦", "scene": "闲聊", "atmosphere": "平和"}
NO_CORE = {"create": False, "content": "", "importance": 0, "category": "其他"}
MEMORY = {
    "memories": [{"title": "晚安", "key_points": ["对方早早睡了"], "detail_content": "早睡", "source_mid_ids": []}]
}


def by_model(extraction: Reply):
    """The extraction model answers `extraction`; the core judge creates nothing."""
    return lambda body: extraction if body["model"] == "doubao-pro-32k" else Reply.json(NO_CORE)


def owed_extraction(
    cloud, fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch, worker_settings
) -> tuple[str, str, float]:
    """A topic compressed, then extracted offline (the extraction model answers nonsense): owed.
    The worker's settings are `worker_settings(monkeypatch)`; its timeout is returned."""
    token, ai_id = signed_up()
    fake_llm.script("deepseek-chat", Reply.text("晚安~"))
    call("POST", f"/api/ai-users/{ai_id}/chat", {"content": "我睡了，晚安"}, token)
    [published] = cloud.receive(cloud.topic_ended_queue)
    fake_llm.script("qwen-plus", Reply.json({"summary": "对方说晚安去睡了", "emotion_tags": TAGS}))
    compress.handler(json.loads(published), LambdaContext())
    timeout = worker_settings(monkeypatch)
    monkeypatch.setenv("DREAMCHAT_HEAL_BACKOFF_SECONDS", "1")
    importlib.reload(extract)  # a new container, with the extract worker's settings
    fake_llm.default = by_model(Reply.text("这不是 JSON"))
    assert extract.sweep(scheduled_event(), LambdaContext())["pairs"] == 1
    pairs = sqs_batch(cloud.receive(cloud.extract_queue), queue="dreamchat-extract")
    assert extract.worker(pairs, CountdownContext(timeout)) == {"batchItemFailures": []}
    assert long_term(token, ai_id)[0]["degraded"] is True
    time.sleep(1.2)  # the back-off passes
    return token, ai_id, timeout


def long_term(token: str, ai_id: str) -> list[dict]:
    return json.loads(call("GET", f"/api/memory/{ai_id}/files", token=token)["body"])["long_term"]


def next_round(cloud) -> dict:
    assert extract.sweep(scheduled_event(), LambdaContext())["pairs"] == 1
    return sqs_batch(cloud.receive(cloud.extract_queue), queue="dreamchat-extract")


def test_the_extract_worker_as_cdk_configures_it_redoes_owed_work(cloud, fake_llm, monkeypatch) -> None:
    token, ai_id, timeout = owed_extraction(
        cloud, fake_llm, monkeypatch, lambda patch: configure_as_cdk_does(patch, "extract-worker")
    )
    fake_llm.default = by_model(Reply.json(MEMORY))  # the model is back
    pairs = next_round(cloud)
    assert extract.worker(pairs, CountdownContext(timeout)) == {"batchItemFailures": []}
    [entry] = long_term(token, ai_id)
    assert entry["degraded"] is False and entry["key_points"] == ["对方早早睡了"]


def scaled_worker(monkeypatch: pytest.MonkeyPatch) -> float:
    """The extract worker's settings with 2 s model calls (a hang costs seconds, not minutes), and a
    timeout that holds one pair's worst case and one redo, as CDK's does."""
    configure_as_cdk_does(monkeypatch, "extract-worker")
    monkeypatch.setenv("DREAMCHAT_LLM_TIMEOUT_SECONDS", "2")
    return 40.0  # worst case 2 × (2 × 2 × 2 + 2) + 2 × 2 = 24 s, a redo 10 s, margin 5 s


def test_a_redo_whose_model_hangs_ends_within_the_workers_time_and_stays_owed(cloud, fake_llm, monkeypatch) -> None:
    token, ai_id, timeout = owed_extraction(cloud, fake_llm, monkeypatch, scaled_worker)
    fake_llm.default = by_model(Reply.slow(3600))  # the extraction model never answers
    pairs = next_round(cloud)
    started = time.monotonic()
    assert extract.worker(pairs, CountdownContext(timeout)) == {"batchItemFailures": []}
    took = time.monotonic() - started
    assert took < timeout - 5, f"{took:.1f} s"
    assert long_term(token, ai_id)[0]["degraded"] is True  # still the offline result, still owed
    assert len(fake_llm.requests_for("doubao-pro-32k")) >= 2  # the redo was tried (1 + its attempts)
    time.sleep(1.2)
    fake_llm.default = by_model(Reply.json(MEMORY))  # once the model answers, the next round heals it
    assert extract.worker(next_round(cloud), CountdownContext(timeout)) == {"batchItemFailures": []}
    assert long_term(token, ai_id)[0]["degraded"] is False
