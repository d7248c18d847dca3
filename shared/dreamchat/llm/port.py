"""The port services call a language model through, and the values it answers with.

`LLMGateway` is all a service may assume about a model: whether a model key can be called
(`configured`), a chat completion with an optional tool loop (`complete`) and one JSON object
validated by a pydantic schema (`structured`). `dreamchat.llm.gateway.OpenAIGateway` implements it
over the `openai` SDK; tests and benchmarks pass fakes.

It lives in `llm`, not in `dreamchat.ports`: its signature takes a `dreamchat.budget.Deadline`,
and the ports import nothing but the domain.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypedDict, Unpack

from pydantic import BaseModel

from dreamchat.budget import Deadline

ModelMessage = dict[str, Any]
ToolRunner = Callable[[str, dict[str, Any]], str]
type Coerce[T: BaseModel] = Callable[[dict[str, Any]], T]  # repairs an object the schema refused


@dataclass(frozen=True)
class TokenUsage:
    """Tokens as the API reported them; `cached_prompt_tokens` is the part of the prompt the provider's
    prefix cache served (billed at its cache-hit price), 0 when the response did not say."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cached_prompt_tokens + other.cached_prompt_tokens,
        )


@dataclass(frozen=True)
class ToolCall:
    """One tool call the model made and what was answered to it."""

    name: str
    arguments: dict[str, Any] | None  # None when the model's arguments were not a JSON object
    result: str
    ok: bool


@dataclass(frozen=True)
class Completion:
    """The final text of a completion, its summed usage, the tool calls made on the way and the
    model's chain of thought (`reasoning_content` of every round, for a reasoning model)."""

    text: str
    usage: TokenUsage
    tool_calls: tuple[ToolCall, ...] = ()
    reasoning: str = ""


class CompleteOptions(TypedDict, total=False):
    """The optional arguments of `LLMGateway.complete`."""

    tools: Sequence[Mapping[str, Any]] | None  # function schemas the model may call; none: a plain answer
    run_tool: ToolRunner | None  # runs one call and answers it; required with `tools`
    max_tool_rounds: int  # at most this many rounds of tool calls (4 when not given)
    deadline: Deadline | None  # when the answer is due (the request's, if it has one, when not given)


class LLMGateway(Protocol):
    """What services need from a language model; `OpenAIGateway` is the implementation."""

    def configured(self, key: str) -> bool:
        """True when `key` has an API key to call with."""
        ...

    def complete(self, key: str, messages: Sequence[ModelMessage], **options: Unpack[CompleteOptions]) -> Completion:
        """A chat completion; with tools, the model may call them for a few rounds before it answers."""
        ...

    def structured[T: BaseModel](
        self, key: str, messages: Sequence[ModelMessage], schema: type[T], *, coerce: Coerce[T] | None = None
    ) -> T:
        """The answer as one `schema` object (an invalid one is asked again once, then given to `coerce`)."""
        ...
