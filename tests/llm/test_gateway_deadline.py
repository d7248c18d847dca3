"""A completion given a deadline spends it: shorter call timeouts, fewer tool rounds, no late retries."""

from __future__ import annotations

import time

import pytest

from dreamchat.budget import Deadline
from dreamchat.llm.errors import LLMOutOfTime, LLMUnavailable
from dreamchat.llm.gateway import OpenAIGateway
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.llm.conftest import MakeSettings

TOOL = {"type": "function", "function": {"name": "noop", "parameters": {"type": "object", "properties": {}}}}
HELLO = [{"role": "user", "content": "你好"}]


@pytest.fixture
def gateway(make_settings: MakeSettings, sleeps: list[float]) -> OpenAIGateway:
    """A gateway whose own timeout (20 s) is far longer than the deadlines below."""
    return OpenAIGateway.from_settings(make_settings(llm_timeout_seconds=20, llm_max_retries=3), sleep=sleeps.append)


def test_a_hanging_model_fails_at_the_deadline_not_at_the_timeout(fake_llm: FakeLLMServer, gateway) -> None:
    fake_llm.default = lambda body: Reply.slow(60)
    started = time.monotonic()
    with pytest.raises(LLMUnavailable):
        gateway.complete("deepseek_chat", HELLO, deadline=Deadline.after(2.0))
    assert time.monotonic() - started < 2.5


def test_a_model_asking_for_tools_every_round_still_answers_before_the_deadline(
    fake_llm: FakeLLMServer, gateway
) -> None:
    def slow_tools(body: dict) -> Reply:
        if body.get("tool_choice") == "none":
            return Reply(content="答好了", delay=0.4)
        return Reply(content=None, tool_calls=(("noop", "{}"),), delay=0.4)

    fake_llm.default = slow_tools
    started = time.monotonic()
    result = gateway.complete(
        "deepseek_chat",
        HELLO,
        tools=[TOOL],
        run_tool=lambda name, args: "{}",
        max_tool_rounds=10,
        deadline=Deadline.after(2.5),
    )
    assert result.text == "答好了"
    assert time.monotonic() - started < 2.5
    rounds = [r for r in fake_llm.requests if r.body.get("tool_choice") != "none"]
    assert 1 <= len(rounds) < 5  # fewer rounds than allowed: the answer had to fit


def test_no_retry_starts_when_the_deadline_leaves_no_time(fake_llm: FakeLLMServer, gateway, sleeps) -> None:
    fake_llm.default = lambda body: Reply.error(500)
    with pytest.raises(LLMUnavailable):
        gateway.complete(
            "deepseek_chat", HELLO, deadline=Deadline.after(1.4)
        )  # time for one call, not for a pause and another
    assert len(fake_llm.requests) == 1 and sleeps == []


def test_no_call_starts_after_the_deadline(fake_llm: FakeLLMServer, gateway) -> None:
    with pytest.raises(LLMOutOfTime):
        gateway.complete("deepseek_chat", HELLO, deadline=Deadline.after(0.2))
    assert fake_llm.requests == []


def test_each_call_is_sent_with_the_time_left_as_its_timeout(fake_llm: FakeLLMServer, gateway) -> None:
    gateway.complete("deepseek_chat", HELLO, deadline=Deadline.after(5.0))
    assert 4.0 < float(fake_llm.requests[0].headers["x-stainless-read-timeout"]) <= 5.0
