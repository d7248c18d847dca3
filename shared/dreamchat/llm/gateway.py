"""The LLM gateway: the `LLMGateway` port over the `openai` SDK, against any OpenAI-compatible endpoint.

`OpenAIGateway.from_settings(settings)` builds it. It only composes the parts, all on one injected
monotonic clock:

- `dreamchat.llm.client.OpenAIClient`: one SDK client per model key, retries, deadlines, usage totals;
- `dreamchat.llm.provider_errors`: what a provider's 400 means, and calling again without what it refused;
- `dreamchat.llm.tool_loop.ToolLoop`: the bounded function-calling loop;
- `dreamchat.llm.structured.StructuredOutput`: one JSON object validated by a pydantic schema.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any

from pydantic import BaseModel

from dreamchat.budget import RETRY_BACKOFF_SECONDS, Deadline
from dreamchat.config import Settings
from dreamchat.llm.client import OpenAIClient, reasoning_of
from dreamchat.llm.port import Coerce, Completion, ModelMessage, ToolRunner
from dreamchat.llm.provider_errors import Refusals, or_shorter
from dreamchat.llm.registry import ModelConfig, build_registry
from dreamchat.llm.structured import StructuredOutput
from dreamchat.llm.tool_loop import ToolLoop
from dreamchat.llm.usage import CallRecord, UsageTotals


class OpenAIGateway:
    """Calls the registry's models through the `openai` SDK, with retries and usage accounting."""

    def __init__(
        self,
        registry: Mapping[str, ModelConfig],
        *,
        max_retries: int = 3,
        sleep: Callable[[float], None] = time.sleep,
        on_call: Callable[[CallRecord], None] | None = None,
        json_mode: bool = True,
        backoff_seconds: float = RETRY_BACKOFF_SECONDS,
        max_backoff_seconds: float = 20.0,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = OpenAIClient(
            registry,
            monotonic=monotonic,
            sleep=sleep,
            on_call=on_call,
            max_retries=max_retries,
            backoff_seconds=backoff_seconds,
            max_backoff_seconds=max_backoff_seconds,
        )
        self._refusals = Refusals(monotonic)
        self._tool_loop = ToolLoop(self._client, monotonic)
        self._structured = StructuredOutput(self._client, self._refusals, json_mode=json_mode)

    @classmethod
    def from_settings(cls, settings: Settings, **options: Any) -> OpenAIGateway:
        """A gateway for the five model keys as the environment configures them."""
        return cls(build_registry(settings), max_retries=settings.llm_max_retries, **options)

    @property
    def usage(self) -> dict[str, UsageTotals]:
        """Totals per model key so far (a snapshot)."""
        return self._client.usage

    def configured(self, key: str) -> bool:
        """True when `key` has an API key to call with."""
        return self._client.configured(key)

    def complete(
        self,
        key: str,
        messages: Sequence[ModelMessage],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        run_tool: ToolRunner | None = None,
        max_tool_rounds: int = 4,
        deadline: Deadline | None = None,
    ) -> Completion:
        """A chat completion; with tools, the model may call them for at most `max_tool_rounds` rounds.
        A context-length 400 is retried once with the older half of the conversation left out; a
        provider that refuses tools is asked again without them."""
        if tools and run_tool is None:
            raise ValueError("tools need a run_tool to execute them")
        return or_shorter(
            key,
            messages,
            lambda conversation: self._complete(key, conversation, tools, run_tool, max_tool_rounds, deadline),
        )

    def _complete(
        self,
        key: str,
        conversation: list[ModelMessage],
        tools: Sequence[Mapping[str, Any]] | None,
        run_tool: ToolRunner | None,
        rounds: int,
        deadline: Deadline | None,
    ) -> Completion:
        answer = partial(self._answer, key, conversation, deadline)
        if not tools or run_tool is None:
            return answer()
        loop = partial(self._tool_loop.run, key, list(conversation), list(tools), run_tool, rounds, deadline)
        return self._refusals.attempt("tools", key, loop, answer)

    def _answer(self, key: str, conversation: list[ModelMessage], deadline: Deadline | None) -> Completion:
        message, usage = self._client.chat(key, conversation, deadline=deadline)
        return Completion(message.content or "", usage, reasoning=reasoning_of(message))

    def structured[T: BaseModel](
        self, key: str, messages: Sequence[ModelMessage], schema: type[T], *, coerce: Coerce[T] | None = None
    ) -> T:
        """See `StructuredOutput.call`."""
        return self._structured.call(key, messages, schema, coerce=coerce)

    def stream(self, key: str, messages: Sequence[ModelMessage]) -> Iterator[str]:
        """Text deltas as the model produces them (not part of the port: no service streams)."""
        return self._client.stream(key, messages)
