"""The bounded function-calling loop: model turns answered with tool results, then one turn in text.

With a deadline, a tool round may use half the time left (the answer after it needs the rest), a
round only starts when the answer after it still fits, and a tool only runs when there is time for
it. A reasoning model's `reasoning_content` goes back with its tool calls (DeepSeek's thinking mode
requires it) and is collected for the caller; it never leaves this loop otherwise.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from dreamchat.budget import MIN_CALL_SECONDS, TOOL_SECONDS, Deadline
from dreamchat.errors import DreamChatError
from dreamchat.llm.client import OpenAIClient, reasoning_of
from dreamchat.llm.errors import LLMUnavailable
from dreamchat.llm.port import Completion, ModelMessage, TokenUsage, ToolCall, ToolRunner
from dreamchat.llm.provider_errors import timed_out

logger = logging.getLogger(__name__)

TOOL_ROUND_SHARE = 0.5  # a tool round may use half the time left: the answer after it needs the rest
# Tool calls run per model round; the rest of a round's calls are answered with an error, unrun
# (a round of 150 `update_relationship` calls wrote 150 core memories before this cap).
MAX_TOOL_CALLS_PER_ROUND = 8
_TOO_MANY_CALLS = f"错误：一轮最多调用 {MAX_TOOL_CALLS_PER_ROUND} 个工具，这个调用没有执行。"


class ToolLoop:
    """Runs a conversation with tools through `client`, timing rounds on the one injected clock."""

    def __init__(self, client: OpenAIClient, monotonic: Callable[[], float]) -> None:
        self._client = client
        self._monotonic = monotonic

    def run(
        self,
        key: str,
        conversation: list[ModelMessage],
        tools: list[Any],
        run_tool: ToolRunner,
        rounds: int,
        deadline: Deadline | None,
    ) -> Completion:
        """At most `rounds` tool rounds (fewer when the deadline nears), then the answer in text.
        `conversation` grows with the rounds' turns."""
        usage, calls, slowest, thoughts = TokenUsage(), list[ToolCall](), 0.0, list[str]()
        for _ in range(rounds):
            if deadline is not None and deadline.remaining() < 2 * slowest + MIN_CALL_SECONDS:
                break  # another round would leave no time for the answer
            started = self._monotonic()
            try:
                message, round_usage = self._client.chat(
                    key, conversation, deadline=deadline, share=TOOL_ROUND_SHARE, tools=tools
                )
            except LLMUnavailable as error:
                if deadline is None or not timed_out(error):
                    raise
                break  # the round used up its share: answer with what is known
            slowest = max(slowest, self._monotonic() - started)
            usage += round_usage
            thoughts.append(reasoning_of(message))
            if not message.tool_calls:
                return Completion(message.content or "", usage, tuple(calls), _joined(thoughts))
            conversation.append(_assistant_turn(message))
            for n, call in enumerate(message.tool_calls):
                if n < MAX_TOOL_CALLS_PER_ROUND:
                    calls.append(_run_tool(run_tool, call, deadline))
                    result = calls[-1].result
                else:  # every call still gets its answer: providers refuse a call left without one
                    result = _TOO_MANY_CALLS
                conversation.append({"role": "tool", "tool_call_id": call.id, "content": result})
        # tools stay declared but disabled: some providers reject tool messages without `tools`
        message, round_usage = self._client.chat(key, conversation, deadline=deadline, tools=tools, tool_choice="none")
        thoughts.append(reasoning_of(message))
        return Completion(message.content or "", usage + round_usage, tuple(calls), _joined(thoughts))


def _assistant_turn(message: Any) -> ModelMessage:
    """The assistant's tool-calling turn, rebuilt so provider-only fields are not sent back, except
    `reasoning_content`: a thinking model must see its own reasoning for the calls it made."""
    calls = [
        {"id": c.id, "type": "function", "function": {"name": c.function.name, "arguments": c.function.arguments}}
        for c in message.tool_calls
    ]
    turn: ModelMessage = {"role": "assistant", "content": message.content or "", "tool_calls": calls}
    if reasoning := reasoning_of(message):
        turn["reasoning_content"] = reasoning
    return turn


def _joined(thoughts: list[str]) -> str:
    return "\n\n".join(t.strip() for t in thoughts if t.strip())


def _run_tool(run_tool: ToolRunner, call: Any, deadline: Deadline | None = None) -> ToolCall:
    name = call.function.name
    try:
        arguments = json.loads(call.function.arguments or "{}")
    except json.JSONDecodeError:
        arguments = None
    if not isinstance(arguments, dict):
        return ToolCall(name, None, "错误：参数不是合法的 JSON 对象，请按参数定义重新调用。", ok=False)
    if deadline is not None and deadline.remaining() < TOOL_SECONDS + MIN_CALL_SECONDS:
        return ToolCall(name, arguments, "错误：时间不够了，这个工具没有执行。请直接回复对方。", ok=False)
    try:
        return ToolCall(name, arguments, str(run_tool(name, arguments)), ok=True)
    except Exception as error:  # noqa: BLE001 - a failing tool is reported to the model, not fatal to the turn
        logger.warning("llm tool failed tool=%s error=%s", name, type(error).__name__)
        # Only our own errors are worded for people; any other text (a table name, a URL, a stack
        # detail) could be repeated to the person by the model.
        reason = error.message if isinstance(error, DreamChatError) else "内部错误"
        return ToolCall(name, arguments, f"错误：工具 {name} 执行失败（{reason}）。", ok=False)
