"""Turns end inside Lambda's clocks: the real handlers under moto, with each function's settings as
CDK gives them, a slow or hanging fake model, and a Lambda context whose remaining time counts down."""

from __future__ import annotations

import importlib
import json
import time

import pytest

from functions.chat import handler as chat
from functions.compress import handler as compress
from functions.extract import handler as extract
from functions.heartbeat import handler as heartbeat
from infra.stacks.functions import SPECS
from tests.api.sse import parse_sse
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.handlers.events import LambdaContext, http_api_event, scheduled_event, sqs_batch

BY_KEY = {spec.key: spec for spec in SPECS}


class CountdownContext(LambdaContext):
    """A Lambda context whose remaining time runs down from the function's timeout, as in AWS."""

    def __init__(self, seconds: float) -> None:
        self._ends = time.monotonic() + seconds

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._ends - time.monotonic()) * 1000))


def configure_as_cdk_does(monkeypatch: pytest.MonkeyPatch, key: str) -> float:
    """The function's own settings from its FunctionSpec; returns its timeout in seconds."""
    spec = BY_KEY[key]
    for name, value in spec.environment:
        monkeypatch.setenv(name, value)
    return spec.timeout.to_seconds()


def call(method: str, path: str, body=None, token: str | None = None, context=None) -> dict:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return chat.handler(http_api_event(method, path, body, headers), context or LambdaContext())


def signed_up() -> tuple[str, str]:
    registered = call("POST", "/api/auth/register", {"username": "alice", "password": "correct-horse"})
    token = json.loads(registered["body"])["access_token"]
    created = call("POST", "/api/ai-users", {"name": "小梦", "base_soul": "温柔"}, token)
    return token, json.loads(created["body"])["id"]


def tools_every_round_in_6_s(body: dict) -> Reply:
    """A slow model that asks for a tool whenever it may."""
    if body.get("tools") and body.get("tool_choice") != "none":
        return Reply(content=None, tool_calls=(("get_current_state", "{}"),), delay=6)
    return Reply(content="我查好了，现在是下午。", delay=6)


def test_a_turn_with_a_6_s_model_asking_for_tools_ends_before_the_chat_functions_timeout(
    cloud, fake_llm: FakeLLMServer, monkeypatch
) -> None:
    timeout = configure_as_cdk_does(monkeypatch, "chat")
    token, ai_id = signed_up()
    fake_llm.default = tools_every_round_in_6_s
    started = time.monotonic()
    turn = call("POST", f"/api/ai-users/{ai_id}/chat", {"content": "现在几点了？"}, token, CountdownContext(timeout))
    took = time.monotonic() - started
    events = parse_sse(turn["body"])
    assert turn["statusCode"] == 200 and events[-1][0] in ("done", "error")
    assert took < timeout - 1, f"{took:.1f} s"
    history = json.loads(call("GET", f"/api/ai-users/{ai_id}/messages", token=token)["body"])["messages"]
    assert history[0]["content"] == "现在几点了？"  # the person's message is kept either way
    if events[-1][0] == "done":
        assert [m["content"] for m in history[1:]] == ["我查好了，现在是下午。"]


def test_a_compress_whose_model_hangs_ends_degraded_before_the_compress_functions_timeout(
    cloud, fake_llm: FakeLLMServer, monkeypatch
) -> None:
    timeout = configure_as_cdk_does(monkeypatch, "compress")
    token, ai_id = signed_up()
    fake_llm.script("deepseek-chat", Reply.text("晚安~"))
    call("POST", f"/api/ai-users/{ai_id}/chat", {"content": "我睡了，晚安"}, token)
    [published] = cloud.receive(cloud.topic_ended_queue)
    fake_llm.default = lambda body: Reply.slow(3600)  # the compression model never answers
    started = time.monotonic()
    result = compress.handler(json.loads(published), CountdownContext(timeout))
    took = time.monotonic() - started
    assert result["degraded"] is True and result["mid_term_id"].startswith("mid_")
    assert took < timeout - 5, f"{took:.1f} s"


def test_heartbeat_records_that_no_longer_fit_are_left_for_sqs_not_started(cloud, fake_llm, monkeypatch) -> None:
    configure_as_cdk_does(monkeypatch, "heartbeat-worker")
    bodies = [json.dumps({"account_id": "a", "ai_user_id": f"b{i}", "due": 1}) for i in range(3)]
    response = heartbeat.worker(sqs_batch(bodies), CountdownContext(30))  # under 50 s + margin: none fits
    assert response == {"batchItemFailures": [{"itemIdentifier": f"msg-{i}"} for i in range(3)]}
    assert fake_llm.requests == []
    done = heartbeat.worker(sqs_batch(bodies), CountdownContext(300))  # the pairs are gone: each ends at once
    assert done == {"batchItemFailures": []}


def test_extraction_starts_no_pair_its_worst_case_would_not_fit(cloud, fake_llm: FakeLLMServer, monkeypatch) -> None:
    token, ai_id = signed_up()
    fake_llm.script("deepseek-chat", Reply.text("晚安~"))
    call("POST", f"/api/ai-users/{ai_id}/chat", {"content": "我睡了，晚安"}, token)
    [published] = cloud.receive(cloud.topic_ended_queue)
    tags = {"basic_emotion": "愉悦", "scene": "闲聊", "atmosphere": "平和"}
    fake_llm.script("qwen-plus", Reply.json({"summary": "对方说晚安去睡了", "emotion_tags": tags}))  # not degraded
    compress.handler(json.loads(published), LambdaContext())
    assert extract.sweep(scheduled_event(), LambdaContext())["pairs"] == 1
    pairs = sqs_batch(cloud.receive(cloud.extract_queue), queue="dreamchat-extract")
    timeout = configure_as_cdk_does(monkeypatch, "extract-worker")
    importlib.reload(extract)  # a new container, with the extract worker's settings
    failed = extract.worker(pairs, CountdownContext(300))  # under 364 s + margin: not started, left to SQS
    assert failed == {"batchItemFailures": [{"itemIdentifier": "msg-0"}]}
    assert fake_llm.requests_for("doubao-pro-32k") == []
    fake_llm.default = lambda body: Reply.json(
        {"memories": [{"title": "晚安", "key_points": ["早睡"], "detail_content": "早睡", "source_mid_ids": []}]}
    )
    assert extract.worker(pairs, CountdownContext(timeout)) == {"batchItemFailures": []}
    assert len(fake_llm.requests_for("doubao-pro-32k")) == 1
