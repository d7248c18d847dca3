"""Usage: every HTTP call is recorded per model key (tokens from the API, latency, failures) and reported."""

from __future__ import annotations

from dreamchat.llm.gateway import OpenAIGateway
from dreamchat.llm.usage import CallRecord
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.llm.conftest import MakeSettings

HELLO = [{"role": "user", "content": "你好"}]


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
