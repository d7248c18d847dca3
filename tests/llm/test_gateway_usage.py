"""Usage: every HTTP call is recorded per model key (tokens from the API, latency, failures) and reported."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from openai.types import CompletionUsage

from dreamchat.llm.client import usage_of
from dreamchat.llm.gateway import OpenAIGateway
from dreamchat.llm.port import TokenUsage
from dreamchat.llm.usage import CallRecord
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.llm.conftest import MakeSettings

HELLO = [{"role": "user", "content": "你好"}]
TOOL = {"type": "function", "function": {"name": "get_status", "description": "状态", "parameters": {"type": "object"}}}


def test_usage_is_totalled_per_model_key(fake_llm: FakeLLMServer, gateway: OpenAIGateway) -> None:
    fake_llm.script("deepseek-chat", Reply.text("a", 10, 2), Reply.text("b", 20, 3))
    fake_llm.script("qwen-plus", Reply.text("c", 100, 30))
    gateway.complete("deepseek_chat", HELLO)
    gateway.complete("deepseek_chat", HELLO)
    gateway.complete("qwen_short_to_mid", HELLO)
    chat, qwen = gateway.usage["deepseek_chat"], gateway.usage["qwen_short_to_mid"]
    assert (chat.calls, chat.prompt_tokens, chat.completion_tokens, chat.failures) == (2, 30, 5, 0)
    assert (qwen.calls, qwen.prompt_tokens, qwen.completion_tokens) == (1, 100, 30)
    assert chat.latency_seconds > 0
    assert "doubao_mid_to_long" not in gateway.usage


def test_each_call_is_handed_to_the_on_call_hook(fake_llm: FakeLLMServer, make_settings: MakeSettings) -> None:
    records: list[CallRecord] = []
    gateway = OpenAIGateway.from_settings(make_settings(), on_call=records.append, sleep=lambda _: None)
    fake_llm.script("doubao-pro-32k", Reply.error(502), Reply.text("ok", 7, 1))
    gateway.complete("doubao_mid_to_long", HELLO)
    failed, done = records
    assert (failed.key, failed.ok, failed.prompt_tokens) == ("doubao_mid_to_long", False, 0)
    assert (done.model, done.ok, done.prompt_tokens, done.completion_tokens) == ("doubao-pro-32k", True, 7, 1)
    assert gateway.usage["doubao_mid_to_long"].failures == 1


def test_usage_is_a_snapshot(gateway: OpenAIGateway) -> None:
    snapshot = gateway.usage
    gateway.complete("deepseek_chat", HELLO)
    totals = gateway.usage["deepseek_chat"]
    assert snapshot == {}
    assert (totals.calls, totals.prompt_tokens, totals.completion_tokens) == (1, 10, 5)


# What the providers' prefix caches served: each provider reports it its own way.


def test_deepseek_cache_hits_are_read_from_the_top_level_fields(
    fake_llm: FakeLLMServer, gateway: OpenAIGateway
) -> None:
    fake_llm.script("deepseek-chat", Reply.cached("嗨", "deepseek", prompt_tokens=1200, cached_tokens=1024))
    completion = gateway.complete("deepseek_chat", HELLO)
    assert completion.usage == TokenUsage(1200, 5, 1024)
    assert gateway.usage["deepseek_chat"].cached_prompt_tokens == 1024


def test_dashscope_and_ark_cached_tokens_are_read_from_the_prompt_details(
    fake_llm: FakeLLMServer, gateway: OpenAIGateway
) -> None:
    fake_llm.script("qwen-plus", Reply.cached("摘要", "openai", prompt_tokens=3019, cached_tokens=2048))
    fake_llm.script("doubao-pro-32k", Reply.cached("记忆", "openai", prompt_tokens=800, cached_tokens=256))
    gateway.complete("qwen_short_to_mid", HELLO)
    gateway.complete("doubao_mid_to_long", HELLO)
    assert gateway.usage["qwen_short_to_mid"].cached_prompt_tokens == 2048
    assert gateway.usage["doubao_mid_to_long"].cached_prompt_tokens == 256


@pytest.mark.parametrize("shape", ["plain", "openai-null"])
def test_a_response_that_says_nothing_about_the_cache_counts_no_cached_tokens(
    fake_llm: FakeLLMServer, gateway: OpenAIGateway, shape: str
) -> None:
    fake_llm.script("deepseek-chat", Reply.cached("嗨", shape, prompt_tokens=300, cached_tokens=200))
    completion = gateway.complete("deepseek_chat", HELLO)
    assert completion.usage == TokenUsage(300, 5, 0)


def test_the_cached_tokens_of_a_tool_loop_are_summed(fake_llm: FakeLLMServer, gateway: OpenAIGateway) -> None:
    fake_llm.script(
        "deepseek-chat",
        Reply(
            content=None,
            tool_calls=(("get_status", "{}"),),
            prompt_tokens=900,
            cached_tokens=640,
            usage_shape="deepseek",
        ),
        Reply.cached("好的", "deepseek", prompt_tokens=950, cached_tokens=896),
    )
    completion = gateway.complete("deepseek_chat", HELLO, tools=[TOOL], run_tool=lambda name, args: "{}")
    assert completion.usage.cached_prompt_tokens == 640 + 896
    assert gateway.usage["deepseek_chat"].cached_prompt_tokens == 640 + 896


def test_each_call_hands_its_cached_tokens_to_the_on_call_hook(
    fake_llm: FakeLLMServer, make_settings: MakeSettings
) -> None:
    records: list[CallRecord] = []
    gateway = OpenAIGateway.from_settings(make_settings(), on_call=records.append, sleep=lambda _: None)
    fake_llm.script("qwen-plus", Reply.cached("摘要", "openai", prompt_tokens=2000, cached_tokens=1536))
    gateway.complete("qwen_short_to_mid", HELLO)
    [record] = records
    assert (record.prompt_tokens, record.cached_prompt_tokens) == (2000, 1536)


def test_the_log_line_carries_counts_only(
    fake_llm: FakeLLMServer, gateway: OpenAIGateway, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="dreamchat.llm.usage")
    fake_llm.script("deepseek-chat", Reply.cached("一个秘密的回答", "deepseek", prompt_tokens=500, cached_tokens=384))
    gateway.complete("deepseek_chat", [{"role": "user", "content": "我的秘密"}])
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "cached_prompt_tokens=384" in logged and "prompt_tokens=500" in logged
    assert "秘密" not in logged


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        ({"prompt_tokens": 10, "completion_tokens": 2, "prompt_cache_hit_tokens": 7, "prompt_cache_miss_tokens": 3}, 7),
        ({"prompt_tokens": 10, "completion_tokens": 2, "prompt_cache_miss_tokens": 4}, 6),
        ({"prompt_tokens": 10, "completion_tokens": 2, "prompt_tokens_details": {"cached_tokens": 8}}, 8),
        ({"prompt_tokens": 10, "completion_tokens": 2, "prompt_tokens_details": {"cached_tokens": None}}, 0),
        ({"prompt_tokens": 10, "completion_tokens": 2, "prompt_tokens_details": {}}, 0),
        ({"prompt_tokens": 10, "completion_tokens": 2}, 0),
        ({"prompt_tokens": 10, "completion_tokens": 2, "prompt_cache_hit_tokens": 50}, 10),  # never above the prompt
    ],
)
def test_every_shape_of_usage_is_parsed(usage: dict[str, Any], expected: int) -> None:
    parsed = usage_of(CompletionUsage.model_validate({"total_tokens": 12, **usage}))
    assert (parsed.prompt_tokens, parsed.completion_tokens, parsed.cached_prompt_tokens) == (10, 2, expected)


def test_no_usage_at_all_is_zero() -> None:
    assert usage_of(None) == TokenUsage()
