"""Chat completions and the bounded function-calling loop, through the real SDK against the fake server."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dreamchat.errors import Conflict
from dreamchat.llm.errors import LLMNotConfigured
from dreamchat.llm.gateway import OpenAIGateway
from dreamchat.llm.port import TokenUsage
from dreamchat.llm.registry import ModelConfig
from tests.fakes.fake_llm import FakeLLMServer, Reply

HELLO = [{"role": "user", "content": "你好"}]
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "查询天气",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


class ToolLog:
    """A run_tool that records its calls and answers from a table (or raises, when told to)."""

    def __init__(self, answers: dict[str, str], failing: frozenset[str] = frozenset()) -> None:
        self.answers = answers
        self.failing = failing
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, name: str, arguments: dict[str, Any]) -> str:
        self.calls.append((name, arguments))
        if name in self.failing:
            raise RuntimeError("boom: arn:aws:dynamodb:us-east-1:123456789012:table/dreamchat")
        return self.answers[name]


def test_complete_returns_the_text_and_the_reported_usage(fake_llm: FakeLLMServer, gateway: OpenAIGateway) -> None:
    fake_llm.script("deepseek-chat", Reply.text("嗨~在呢", prompt_tokens=12, completion_tokens=4))
    completion = gateway.complete("deepseek_chat", HELLO)
    assert (completion.text, completion.usage, completion.tool_calls) == ("嗨~在呢", TokenUsage(12, 4), ())


def test_complete_sends_the_keys_model_temperature_and_messages(
    fake_llm: FakeLLMServer, gateway: OpenAIGateway
) -> None:
    gateway.complete("deepseek_chat", HELLO)
    (request,) = fake_llm.requests
    assert request.path == "/v1/chat/completions"
    assert (request.model, request.body["temperature"], request.messages) == ("deepseek-chat", 1.0, HELLO)
    assert "tools" not in request.body


def test_an_unknown_model_key_is_a_programming_error(gateway: OpenAIGateway) -> None:
    with pytest.raises(ValueError, match="unknown model key"):
        gateway.complete("gpt_whatever", HELLO)


def test_a_key_without_an_api_key_raises_not_configured_without_calling(fake_llm: FakeLLMServer) -> None:
    config = ModelConfig("deepseek_chat", fake_llm.base_url, "deepseek-chat", None, 1.0, 1.0)
    gateway = OpenAIGateway({"deepseek_chat": config})
    with pytest.raises(LLMNotConfigured):
        gateway.complete("deepseek_chat", HELLO)
    assert fake_llm.requests == []


def test_a_server_without_the_v1_prefix_is_served_too(fake_llm: FakeLLMServer) -> None:
    base_url = fake_llm.base_url.removesuffix("/v1")
    gateway = OpenAIGateway({"deepseek_chat": ModelConfig("deepseek_chat", base_url, "m", "k", 1.0, 1.0)})
    assert gateway.complete("deepseek_chat", HELLO).text == "ok"
    assert fake_llm.requests[0].path == "/chat/completions"


def test_tool_results_go_back_to_the_model_until_it_answers(fake_llm: FakeLLMServer, gateway: OpenAIGateway) -> None:
    fake_llm.script("deepseek-chat", Reply.tools(("get_weather", {"city": "杭州"})), Reply.text("杭州今天晴"))
    tools = ToolLog({"get_weather": "晴，25度"})
    completion = gateway.complete("deepseek_chat", HELLO, tools=[WEATHER_TOOL], run_tool=tools)
    assert completion.text == "杭州今天晴"
    assert tools.calls == [("get_weather", {"city": "杭州"})]
    assert [(c.name, c.result, c.ok) for c in completion.tool_calls] == [("get_weather", "晴，25度", True)]
    first, second = fake_llm.requests
    assert first.body["tools"] == [WEATHER_TOOL]
    assistant, tool = second.messages[-2:]
    assert assistant["tool_calls"][0]["function"] == {"name": "get_weather", "arguments": '{"city": "杭州"}'}
    assert tool == {"role": "tool", "tool_call_id": "call_0", "content": "晴，25度"}
    assert completion.usage == TokenUsage(20, 10)


def test_the_tool_loop_stops_after_max_rounds_with_one_call_that_cannot_use_tools(
    fake_llm: FakeLLMServer, gateway: OpenAIGateway
) -> None:
    fake_llm.script("deepseek-chat", *[Reply.tools(("get_weather", {"city": "杭州"}))] * 3, Reply.text("好吧"))
    tools = ToolLog({"get_weather": "晴"})
    completion = gateway.complete("deepseek_chat", HELLO, tools=[WEATHER_TOOL], run_tool=tools, max_tool_rounds=3)
    assert completion.text == "好吧"
    assert len(fake_llm.requests) == 4
    assert len(tools.calls) == 3
    assert fake_llm.requests[-1].body["tool_choice"] == "none"


def test_arguments_that_are_not_json_become_an_error_for_the_model(
    fake_llm: FakeLLMServer, gateway: OpenAIGateway
) -> None:
    fake_llm.script("deepseek-chat", Reply.tools(("get_weather", "{city: 杭州")), Reply.text("抱歉"))
    tools = ToolLog({"get_weather": "晴"})
    completion = gateway.complete("deepseek_chat", HELLO, tools=[WEATHER_TOOL], run_tool=tools)
    assert tools.calls == []
    (call,) = completion.tool_calls
    assert (call.arguments, call.ok) == (None, False)
    assert "JSON" in fake_llm.requests[1].messages[-1]["content"]


def test_a_failing_tool_becomes_an_error_for_the_model_and_the_turn_goes_on(
    fake_llm: FakeLLMServer, gateway: OpenAIGateway
) -> None:
    fake_llm.script(
        "deepseek-chat",
        Reply.tools(("search_web", {"query": "x"}), ("get_weather", {"city": "杭州"})),
        Reply.text("查到了天气"),
    )
    tools = ToolLog({"get_weather": "晴"}, failing=frozenset({"search_web"}))
    completion = gateway.complete("deepseek_chat", HELLO, tools=[WEATHER_TOOL], run_tool=tools)
    assert completion.text == "查到了天气"
    assert [c.ok for c in completion.tool_calls] == [False, True]
    results = [m["content"] for m in fake_llm.requests[1].messages if m["role"] == "tool"]
    assert "search_web" in results[0] and "失败" in results[0]
    assert "arn:aws" not in results[0] and "boom" not in results[0]  # nothing internal for the model to repeat
    assert results[1] == "晴"


def test_a_tool_refusing_with_our_own_error_tells_the_model_why(
    fake_llm: FakeLLMServer, gateway: OpenAIGateway
) -> None:
    def refuse(name: str, arguments: dict[str, Any]) -> str:
        raise Conflict("the memory kept changing; try again")

    fake_llm.script("deepseek-chat", Reply.tools(("get_weather", {"city": "杭州"})), Reply.text("好"))
    gateway.complete("deepseek_chat", HELLO, tools=[WEATHER_TOOL], run_tool=refuse)
    [result] = [m["content"] for m in fake_llm.requests[1].messages if m["role"] == "tool"]
    assert "the memory kept changing" in result


def test_tools_without_a_runner_are_refused(gateway: OpenAIGateway) -> None:
    with pytest.raises(ValueError, match="run_tool"):
        gateway.complete("deepseek_chat", HELLO, tools=[WEATHER_TOOL])


def test_reasoning_fields_are_not_sent_back_in_the_tool_loop(fake_llm: FakeLLMServer, gateway: OpenAIGateway) -> None:
    fake_llm.script("deepseek-chat", Reply.tools(("get_weather", {"city": "杭州"})), Reply.text("晴"))
    gateway.complete("deepseek_chat", HELLO, tools=[WEATHER_TOOL], run_tool=ToolLog({"get_weather": "晴"}))
    assistant = fake_llm.requests[1].messages[-2]
    assert set(assistant) == {"role", "content", "tool_calls"}
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"city": "杭州"}
