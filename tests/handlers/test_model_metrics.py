"""What an operator watches comes out of the functions as embedded metrics: every chat turn
(counted and timed), and every model call's prompt and cached tokens per model key, counts only."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dreamchat.serverless import is_chat_turn
from functions.compress import handler as compress
from tests.fakes.fake_llm import Reply
from tests.handlers.events import LambdaContext, http_api_event
from tests.handlers.test_serverless_flow import SUMMARY, call, signed_up


def emitted(out: str, name: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return [line for line in lines if name in line]


def test_a_chat_turn_is_counted_and_timed(cloud, fake_llm, capsys) -> None:
    token, ai_id = signed_up()
    capsys.readouterr()
    fake_llm.script("deepseek-chat", Reply.text("在呢"))
    call("POST", f"/api/ai-users/{ai_id}/chat", {"content": "在吗"}, token)
    out = capsys.readouterr().out
    [turns] = emitted(out, "ChatTurns")
    [latency] = emitted(out, "ChatTurnLatency")
    assert turns["ChatTurns"] == [1.0] and turns["service"] == "dreamchat-test"
    assert latency["_aws"]["CloudWatchMetrics"][0]["Metrics"] == [{"Name": "ChatTurnLatency", "Unit": "Milliseconds"}]
    assert latency["ChatTurnLatency"][0] > 0
    assert "在吗" not in out and "在呢" not in out


def test_other_requests_and_refused_turns_are_not_counted_as_chat_turns(cloud, capsys) -> None:
    token, _ = signed_up()
    call("GET", "/api/health")
    call("POST", "/api/ai-users/ai_nosuch/chat", {"content": "在吗"}, token)  # 404: no turn ran
    assert emitted(capsys.readouterr().out, "ChatTurns") == []


def test_the_chat_function_reports_prompt_and_cached_tokens_per_model_key(cloud, fake_llm, capsys) -> None:
    token, ai_id = signed_up()
    capsys.readouterr()
    fake_llm.script("deepseek-chat", Reply.cached("在呢", "deepseek", prompt_tokens=2400, cached_tokens=1920))
    call("POST", f"/api/ai-users/{ai_id}/chat", {"content": "在吗"}, token)
    out = capsys.readouterr().out
    [prompt] = emitted(out, "PromptTokens")
    [cached] = emitted(out, "CachedPromptTokens")
    assert (prompt["PromptTokens"], cached["CachedPromptTokens"]) == ([2400.0], [1920.0])
    for metric in (prompt, cached):
        assert metric["_aws"]["CloudWatchMetrics"][0]["Dimensions"] == [["ModelKey", "service"]]
        assert (metric["ModelKey"], metric["service"]) == ("deepseek_chat", "dreamchat-test")


def test_background_functions_report_their_cached_tokens_too(cloud, fake_llm, capsys) -> None:
    token, ai_id = signed_up()
    fake_llm.script("deepseek-chat", Reply.text("拜拜~"))
    call("POST", f"/api/ai-users/{ai_id}/chat", {"content": "拜拜"}, token)
    [published] = cloud.receive(cloud.topic_ended_queue)
    fake_llm.script("qwen-plus", Reply.cached(json.dumps(SUMMARY), "openai", prompt_tokens=1500, cached_tokens=1024))
    capsys.readouterr()
    compress.handler(json.loads(published), LambdaContext())
    [cached] = [
        m for m in emitted(capsys.readouterr().out, "CachedPromptTokens") if m["ModelKey"] == "qwen_short_to_mid"
    ]
    assert cached["CachedPromptTokens"] == [1024.0]


@pytest.mark.parametrize(
    ("method", "path", "turn"),
    [
        ("POST", "/api/ai-users/ai_1/chat", True),
        ("POST", "/api/ai-users/ai_1/messages/m1/retry", True),
        ("GET", "/api/ai-users/ai_1/chat", False),
        ("POST", "/api/ai-users/ai_1/save-message", False),
        ("POST", "/api/ai-users/ai_1/chat/extra", False),
    ],
)
def test_which_requests_are_chat_turns(method: str, path: str, turn: bool) -> None:
    assert is_chat_turn(http_api_event(method, path)) is turn
