"""Streaming: text deltas in order, usage from the final chunk, retries only before the first delta."""

from __future__ import annotations

import pytest

from dreamchat.llm.errors import LLMUnavailable
from dreamchat.llm.gateway import OpenAIGateway
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.llm.conftest import MakeSettings

HELLO = [{"role": "user", "content": "讲个故事"}]


def test_stream_yields_the_text_in_deltas(fake_llm: FakeLLMServer, gateway: OpenAIGateway) -> None:
    fake_llm.script("deepseek-chat", Reply.text("从前有座山，山里有座庙。"))
    deltas = list(gateway.stream("deepseek_chat", HELLO))
    assert len(deltas) > 1
    assert "".join(deltas) == "从前有座山，山里有座庙。"
    assert fake_llm.requests[0].body["stream"] is True


def test_stream_records_the_usage_of_the_final_chunk(fake_llm: FakeLLMServer, gateway: OpenAIGateway) -> None:
    fake_llm.script("deepseek-chat", Reply.text("好的", prompt_tokens=30, completion_tokens=2))
    list(gateway.stream("deepseek_chat", HELLO))
    totals = gateway.usage["deepseek_chat"]
    assert (totals.calls, totals.prompt_tokens, totals.completion_tokens) == (1, 30, 2)


def test_a_failed_opening_request_is_retried(
    fake_llm: FakeLLMServer, gateway: OpenAIGateway, sleeps: list[float]
) -> None:
    fake_llm.script("deepseek-chat", Reply.error(503), Reply.text("来了"))
    assert "".join(gateway.stream("deepseek_chat", HELLO)) == "来了"
    assert len(sleeps) == 1


def test_a_stream_that_stalls_past_the_timeout_is_unavailable(
    fake_llm: FakeLLMServer, make_settings: MakeSettings, sleeps: list[float]
) -> None:
    gateway = OpenAIGateway.from_settings(make_settings(llm_timeout_seconds=0.2), sleep=sleeps.append)
    fake_llm.script("deepseek-chat", Reply.stalled_stream("很长很长的故事", seconds=2))
    received: list[str] = []
    with pytest.raises(LLMUnavailable, match="stream broke off"):
        for delta in gateway.stream("deepseek_chat", HELLO):
            received.append(delta)
    assert len(fake_llm.requests) == 1  # text already shown cannot be taken back, so no retry
    assert gateway.usage["deepseek_chat"].failures == 1


@pytest.mark.parametrize(("shape", "cached"), [("deepseek", 96), ("openai", 96), ("plain", 0)])
def test_stream_records_the_cached_tokens_of_the_final_chunk(
    fake_llm: FakeLLMServer, gateway: OpenAIGateway, shape: str, cached: int
) -> None:
    fake_llm.script("deepseek-chat", Reply.cached("好的呀", shape, prompt_tokens=128, cached_tokens=96))
    list(gateway.stream("deepseek_chat", HELLO))
    totals = gateway.usage["deepseek_chat"]
    assert (totals.prompt_tokens, totals.cached_prompt_tokens) == (128, cached)
