"""A provider's 400 is classified: only an unambiguous "not supported" turns a feature off, for one
model key and for a while; a context-length 400 retries once with a shorter conversation."""

from __future__ import annotations

import httpx
import openai
import pytest

from dreamchat.llm.errors import LLMContextTooLong, LLMRefused
from dreamchat.llm.gateway import OpenAIGateway
from dreamchat.llm.provider_errors import REFUSAL_MEMORY_SECONDS, classify_bad_request
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.llm.conftest import MakeSettings

TOOL = {"type": "function", "function": {"name": "noop", "parameters": {"type": "object", "properties": {}}}}
LONG_CONTEXT = Reply.bad_request(
    "This model's maximum context length is 65536 tokens. However, you requested 70000 tokens.",
    "context_length_exceeded",
    "messages",
)
NO_TOOLS = Reply.bad_request("deepseek-reasoner does not support Function Calling", "unsupported_parameter", "tools")


def conversation(turns: int) -> list[dict[str, str]]:
    history = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"第{i}句"} for i in range(turns)]
    return [{"role": "system", "content": "你是小梦"}, *history, {"role": "user", "content": "现在呢"}]


def ask(gateway: OpenAIGateway, key: str = "deepseek_chat", turns: int = 8) -> str:
    return gateway.complete(key, conversation(turns), tools=[TOOL], run_tool=lambda name, args: "{}").text


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def gateway(make_settings: MakeSettings, sleeps: list[float], clock: Clock) -> OpenAIGateway:
    return OpenAIGateway.from_settings(make_settings(), sleep=sleeps.append, monotonic=clock)


def test_one_over_long_context_does_not_switch_tools_off_for_anyone(fake_llm: FakeLLMServer, gateway) -> None:
    fake_llm.script("deepseek-chat", LONG_CONTEXT, Reply.text("好的"), Reply.text("再聊"))
    assert ask(gateway) == "好的"
    assert ask(gateway) == "再聊"
    assert ["tools" in r.body for r in fake_llm.requests] == [True, True, True]


def test_a_context_length_400_retries_once_with_the_older_half_left_out(fake_llm: FakeLLMServer, gateway) -> None:
    fake_llm.script("deepseek-chat", LONG_CONTEXT, Reply.text("好的"))
    assert ask(gateway, turns=8) == "好的"
    first, retry = (r.messages for r in fake_llm.requests)
    assert retry[0] == first[0] and retry[-1] == first[-1]  # the system prompt and the person's message stay
    assert len(retry) == 1 + (len(first) - 1) // 2 + (len(first) - 1) % 2


def test_a_context_that_stays_too_long_fails_after_one_retry(fake_llm: FakeLLMServer, gateway) -> None:
    fake_llm.default = lambda body: LONG_CONTEXT
    with pytest.raises(LLMContextTooLong):
        ask(gateway)
    assert len(fake_llm.requests) == 2


def test_an_unambiguous_refusal_is_remembered_for_that_model_key_only(fake_llm: FakeLLMServer, gateway) -> None:
    fake_llm.script("deepseek-reasoner", NO_TOOLS, Reply.text("好的"), Reply.text("嗯"))
    assert ask(gateway, "deepseek_reasoner") == "好的"
    assert ask(gateway, "deepseek_reasoner") == "嗯"
    assert ask(gateway, "deepseek_chat") == "ok"
    tools_sent = [(r.model, "tools" in r.body) for r in fake_llm.requests]
    assert tools_sent == [
        ("deepseek-reasoner", True),
        ("deepseek-reasoner", False),
        ("deepseek-reasoner", False),
        ("deepseek-chat", True),
    ]


def test_a_remembered_refusal_expires(fake_llm: FakeLLMServer, gateway, clock: Clock) -> None:
    fake_llm.script("deepseek-reasoner", NO_TOOLS, Reply.text("好的"))
    ask(gateway, "deepseek_reasoner")
    clock.now += REFUSAL_MEMORY_SECONDS + 1
    ask(gateway, "deepseek_reasoner")
    assert "tools" in fake_llm.requests[-1].body


def test_an_ambiguous_400_drops_tools_for_that_call_only(fake_llm: FakeLLMServer, gateway) -> None:
    fake_llm.script("deepseek-chat", Reply.bad_request("Invalid request"), Reply.text("好的"), Reply.text("嗯"))
    assert ask(gateway) == "好的"
    assert ask(gateway) == "嗯"
    assert ["tools" in r.body for r in fake_llm.requests] == [True, False, True]


def test_a_moderation_400_fails_the_call_without_retrying_or_remembering(fake_llm: FakeLLMServer, gateway) -> None:
    fake_llm.script(
        "deepseek-chat", Reply.bad_request("Output data may contain inappropriate content.", "data_inspection_failed")
    )
    with pytest.raises(LLMRefused):
        ask(gateway)
    assert ask(gateway) == "ok"
    assert ["tools" in r.body for r in fake_llm.requests] == [True, True]


@pytest.mark.parametrize(
    ("message", "code", "param", "kind"),
    [
        ("This model's maximum context length is 8192 tokens", None, None, "context_length"),
        ("Range of input length should be [1, 30720]", "InvalidParameter", None, "context_length"),
        ("anything", "context_length_exceeded", "messages", "context_length"),
        ("Input data may contain inappropriate content.", "data_inspection_failed", None, "moderation"),
        ("blocked by our content management policy", None, None, "moderation"),
        ("deepseek-reasoner does not support Function Calling", None, None, "unsupported"),
        ("Unrecognized request argument supplied: tools", None, None, "unsupported"),
        ("This response_format type is unavailable now", None, "response_format", "other"),
        ("'json_object' is not supported with this model", None, "response_format", "unsupported"),
        ("Invalid request", None, None, "other"),
        ("messages: not supported role 'tool'", None, "messages", "other"),
        ("Unknown parameter", "unsupported_parameter", None, "other"),
    ],
)
def test_provider_400s_are_classified(message: str, code: str | None, param: str | None, kind: str) -> None:
    request = httpx.Request("POST", "https://llm.example.com/v1/chat/completions")
    body = {"message": message, "code": code, "param": param, "type": "invalid_request_error"}
    error = openai.BadRequestError(message, response=httpx.Response(400, request=request), body=body)
    assert classify_bad_request(error) == kind
