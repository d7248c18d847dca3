"""Faults: 429 and 5xx, timeouts and malformed bodies are retried with back-off, then LLMUnavailable."""

from __future__ import annotations

import logging
import socket

import pytest

from dreamchat.llm.errors import LLMUnavailable
from dreamchat.llm.gateway import OpenAIGateway
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.llm.conftest import MakeSettings

SECRET_TEXT = "我的银行卡密码是123456"
ASK = [{"role": "user", "content": SECRET_TEXT}]


def test_a_rate_limit_is_retried_after_the_servers_retry_after(
    fake_llm: FakeLLMServer, gateway: OpenAIGateway, sleeps: list[float]
) -> None:
    fake_llm.script("deepseek-chat", Reply.rate_limited(retry_after=3), Reply.text("好了"))
    assert gateway.complete("deepseek_chat", ASK).text == "好了"
    assert sleeps == [3.0]


def test_server_errors_back_off_exponentially_then_give_up(
    fake_llm: FakeLLMServer, gateway: OpenAIGateway, sleeps: list[float]
) -> None:
    fake_llm.default = lambda body: Reply.error(500)
    with pytest.raises(LLMUnavailable, match="3 attempt"):
        gateway.complete("deepseek_chat", ASK)
    assert len(fake_llm.requests) == 3  # llm_max_retries=2: one try and two retries
    assert sleeps == [0.5, 1.0]


def test_back_off_is_capped(fake_llm: FakeLLMServer, make_settings: MakeSettings, sleeps: list[float]) -> None:
    gateway = OpenAIGateway.from_settings(make_settings(), sleep=sleeps.append, max_backoff_seconds=5)
    fake_llm.script("deepseek-chat", Reply.rate_limited(retry_after=600), Reply.text("好了"))
    gateway.complete("deepseek_chat", ASK)
    assert sleeps == [5]


def test_a_timeout_is_retried_then_unavailable(
    fake_llm: FakeLLMServer, make_settings: MakeSettings, sleeps: list[float]
) -> None:
    settings = make_settings(llm_timeout_seconds=0.2, llm_max_retries=1)
    gateway = OpenAIGateway.from_settings(settings, sleep=sleeps.append)
    fake_llm.default = lambda body: Reply.slow(3)
    with pytest.raises(LLMUnavailable, match="APITimeoutError"):
        gateway.complete("deepseek_chat", ASK)
    assert len(fake_llm.requests) == 2
    assert len(sleeps) == 1


def test_a_slow_reply_then_a_fast_one_succeeds(
    fake_llm: FakeLLMServer, make_settings: MakeSettings, sleeps: list[float]
) -> None:
    gateway = OpenAIGateway.from_settings(make_settings(llm_timeout_seconds=0.2), sleep=sleeps.append)
    fake_llm.script("deepseek-chat", Reply.slow(3), Reply.text("到了"))
    assert gateway.complete("deepseek_chat", ASK).text == "到了"


def test_a_malformed_body_is_retried(fake_llm: FakeLLMServer, gateway: OpenAIGateway, sleeps: list[float]) -> None:
    fake_llm.script("deepseek-chat", Reply.malformed(), Reply.text("正常了"))
    assert gateway.complete("deepseek_chat", ASK).text == "正常了"
    assert len(sleeps) == 1


def test_a_connection_refused_is_unavailable(make_settings: MakeSettings, sleeps: list[float]) -> None:
    settings = make_settings(llm_base_url=f"http://127.0.0.1:{_closed_port()}/v1", llm_max_retries=1)
    gateway = OpenAIGateway.from_settings(settings, sleep=sleeps.append)
    with pytest.raises(LLMUnavailable, match="APIConnectionError"):
        gateway.complete("deepseek_chat", ASK)
    assert len(sleeps) == 1


def test_a_client_error_is_not_retried(fake_llm: FakeLLMServer, gateway: OpenAIGateway, sleeps: list[float]) -> None:
    fake_llm.script("deepseek-chat", Reply.error(401))
    with pytest.raises(LLMUnavailable, match="401"):
        gateway.complete("deepseek_chat", ASK)
    assert (len(fake_llm.requests), sleeps) == (1, [])


def test_neither_logs_nor_errors_carry_content_or_keys(
    fake_llm: FakeLLMServer, gateway: OpenAIGateway, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="dreamchat")
    fake_llm.script("deepseek-chat", Reply.text(SECRET_TEXT))
    gateway.complete("deepseek_chat", ASK)
    fake_llm.default = lambda body: Reply.error(500)
    with pytest.raises(LLMUnavailable) as failure:
        gateway.complete("deepseek_chat", ASK)
    logged = caplog.text + str(failure.value)
    assert "deepseek_chat" in caplog.text
    assert SECRET_TEXT not in logged and "test-key" not in logged


def _closed_port() -> int:
    """A loopback port that nothing listens on (it was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_provider_refusing_json_mode_is_asked_in_words_from_then_on(
    fake_llm: FakeLLMServer, gateway: OpenAIGateway
) -> None:
    from dreamchat.llm.contracts import RelationshipJudgment

    refusal = Reply.bad_request("response_format json_object is not supported by this model", "invalid_request_error")
    fake_llm.script(
        "deepseek-chat",
        refusal,
        Reply.json({"level": "一般", "reason": "r"}),
        Reply.json({"level": "一般", "reason": "r"}),
    )
    for _ in range(2):
        assert (
            gateway.structured(
                "deepseek_core_memory", [{"role": "user", "content": "判断"}], RelationshipJudgment
            ).level
            == "一般"
        )
    sent = [r.body.get("response_format") for r in fake_llm.requests]
    assert sent == [{"type": "json_object"}, None, None]


def test_a_model_refusing_tools_answers_without_them(fake_llm: FakeLLMServer, gateway: OpenAIGateway) -> None:
    fake_llm.script(
        "deepseek-reasoner",
        Reply.bad_request("deepseek-reasoner does not support Function Calling"),
        Reply.text("好的"),
    )
    tools = [{"type": "function", "function": {"name": "noop", "parameters": {"type": "object", "properties": {}}}}]
    result = gateway.complete(
        "deepseek_reasoner", [{"role": "user", "content": "你好"}], tools=tools, run_tool=lambda name, args: "{}"
    )
    assert result.text == "好的"
    assert ["tools" in r.body for r in fake_llm.requests] == [True, False]
