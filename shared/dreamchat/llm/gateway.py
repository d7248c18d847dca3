"""The LLM gateway: every model call goes through the `openai` SDK against an OpenAI-compatible endpoint.

`OpenAIGateway.from_settings(settings)` builds it; clients are made lazily, one per model key.
It offers `complete` (with a bounded function-calling loop), `stream` and `structured`, retries
429/5xx/timeouts/connection errors with exponential back-off, and records token usage and
latency per model key. Only model keys, latencies and token counts are logged, never content.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import openai
from openai import OpenAI
from pydantic import BaseModel, ValidationError

from dreamchat.config import Settings
from dreamchat.llm.errors import LLMNotConfigured, LLMOutputError, LLMUnavailable
from dreamchat.llm.parsing import extract_json_object
from dreamchat.llm.registry import ModelConfig, build_registry

logger = logging.getLogger(__name__)

Message = dict[str, Any]
ToolRunner = Callable[[str, dict[str, Any]], str]
T = TypeVar("T", bound=BaseModel)

RETRYABLE_STATUS = frozenset({408, 409, 429})


@dataclass(frozen=True)
class TokenUsage:
    """Tokens as the API reported them."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens
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
    """The final text of a completion, its summed usage and the tool calls made on the way."""

    text: str
    usage: TokenUsage
    tool_calls: tuple[ToolCall, ...] = ()


@dataclass(frozen=True)
class CallRecord:
    """One HTTP call to a model, as handed to `on_call` (no content, ever)."""

    key: str
    model: str
    latency_seconds: float
    prompt_tokens: int
    completion_tokens: int
    ok: bool


@dataclass(frozen=True)
class UsageTotals:
    """Running totals for one model key."""

    calls: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_seconds: float = 0.0

    def add(self, record: CallRecord) -> UsageTotals:
        """These totals with one more call counted."""
        return UsageTotals(
            calls=self.calls + 1,
            failures=self.failures + (not record.ok),
            prompt_tokens=self.prompt_tokens + record.prompt_tokens,
            completion_tokens=self.completion_tokens + record.completion_tokens,
            latency_seconds=self.latency_seconds + record.latency_seconds,
        )


class LLMGateway(Protocol):
    """What services need from a language model; `OpenAIGateway` is the implementation."""

    def complete(
        self,
        key: str,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        run_tool: ToolRunner | None = None,
        max_tool_rounds: int = 4,
    ) -> Completion: ...

    def stream(self, key: str, messages: Sequence[Message]) -> Iterator[str]: ...

    def structured(
        self,
        key: str,
        messages: Sequence[Message],
        schema: type[T],
        *,
        coerce: Callable[[dict[str, Any]], T] | None = None,
    ) -> T: ...


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
        backoff_seconds: float = 0.5,
        max_backoff_seconds: float = 20.0,
    ) -> None:
        self._registry = dict(registry)
        self._max_retries = max_retries
        self._sleep = sleep
        self._on_call = on_call
        self._json_mode = json_mode
        self._backoff = backoff_seconds
        self._max_backoff = max_backoff_seconds
        self._clients: dict[str, OpenAI] = {}
        # model keys whose provider answered 400 to an optional feature: it is not sent again
        self._refuses: dict[str, set[str]] = {"json_mode": set(), "tools": set()}
        self._usage: dict[str, UsageTotals] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings, **options: Any) -> OpenAIGateway:
        """A gateway for the five model keys as the environment configures them."""
        return cls(build_registry(settings), max_retries=settings.llm_max_retries, **options)

    @property
    def usage(self) -> dict[str, UsageTotals]:
        """Totals per model key so far (a snapshot)."""
        with self._lock:
            return dict(self._usage)

    def configured(self, key: str) -> bool:
        """True when `key` has an API key to call with."""
        return self._config(key).configured

    def complete(
        self,
        key: str,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        run_tool: ToolRunner | None = None,
        max_tool_rounds: int = 4,
    ) -> Completion:
        """A chat completion; with tools, the model may call them for at most `max_tool_rounds` rounds."""
        if not tools:
            message, usage = self._chat(key, list(messages))
            return Completion(message.content or "", usage)
        if run_tool is None:
            raise ValueError("tools need a run_tool to execute them")
        if key in self._refuses["tools"]:
            message, usage = self._chat(key, list(messages))
            return Completion(message.content or "", usage)
        try:
            return self._tool_loop(key, list(messages), list(tools), run_tool, max_tool_rounds)
        except LLMUnavailable as error:
            if not _refused(error):
                raise
            # Some models (e.g. a reasoner) refuse function calling: answer without tools from now on.
            self._refuses["tools"].add(key)
            logger.warning("llm refuses tools key=%s; calling without them", key)
            message, usage = self._chat(key, list(messages))
            return Completion(message.content or "", usage)

    def _tool_loop(
        self, key: str, conversation: list[Message], tools: list[Any], run_tool: ToolRunner, rounds: int
    ) -> Completion:
        """Model turns with tools, each answered with tool results, then one turn that must answer in text."""
        usage, calls = TokenUsage(), list[ToolCall]()
        for _ in range(rounds):
            message, round_usage = self._chat(key, conversation, tools=tools)
            usage += round_usage
            if not message.tool_calls:
                return Completion(message.content or "", usage, tuple(calls))
            conversation.append(_assistant_turn(message))
            for call in message.tool_calls:
                calls.append(_run_tool(run_tool, call))
                conversation.append({"role": "tool", "tool_call_id": call.id, "content": calls[-1].result})
        # tools stay declared but disabled: some providers reject tool messages without `tools`
        message, round_usage = self._chat(key, conversation, tools=tools, tool_choice="none")
        return Completion(message.content or "", usage + round_usage, tuple(calls))

    def stream(self, key: str, messages: Sequence[Message]) -> Iterator[str]:
        """Text deltas as the model produces them; only the opening request is retried."""
        started = time.monotonic()
        chunks = self._create(key, messages=list(messages), stream=True, stream_options={"include_usage": True})
        usage, ok = TokenUsage(), False
        try:
            for chunk in chunks:
                if chunk.usage is not None:
                    usage = _usage_of(chunk.usage)
                for choice in chunk.choices:
                    if choice.delta.content:
                        yield choice.delta.content
            ok = True
        except (openai.APIError, json.JSONDecodeError) as error:
            raise LLMUnavailable(f"{key}: stream broke off ({type(error).__name__})") from error
        finally:
            chunks.close()
            self._record(key, time.monotonic() - started, usage, ok=ok)

    def structured(
        self,
        key: str,
        messages: Sequence[Message],
        schema: type[T],
        *,
        coerce: Callable[[dict[str, Any]], T] | None = None,
    ) -> T:
        """One JSON object validated as `schema`; one corrective retry, then `coerce`, else LLMOutputError."""
        conversation = list(messages)
        last_object: dict[str, Any] | None = None
        problem = ""
        for attempt in range(2):
            text = self._text(key, conversation)
            found = extract_json_object(text)
            last_object = found if found is not None else last_object
            try:
                return _validate(schema, found)
            except (ValidationError, LLMOutputError) as error:
                problem = _describe_invalid(error)
                logger.warning("llm invalid output key=%s attempt=%d", key, attempt + 1)
                conversation += [{"role": "assistant", "content": text}, _correction(problem)]
        if coerce is not None and last_object is not None:
            return _coerced(coerce, last_object, key)
        raise LLMOutputError(f"{key}: no valid {schema.__name__} after a retry: {problem}")

    def _text(self, key: str, conversation: list[Message]) -> str:
        if self._json_mode and key not in self._refuses["json_mode"]:
            try:
                message, _ = self._chat(key, conversation, response_format={"type": "json_object"})
                return message.content or ""
            except LLMUnavailable as error:
                if not _refused(error):
                    raise
                # The provider refuses JSON mode: the prompt asks for JSON in words, parsing is tolerant.
                self._refuses["json_mode"].add(key)
                logger.warning("llm refuses json mode key=%s; asking in words only", key)
        message, _ = self._chat(key, conversation)
        return message.content or ""

    def _chat(self, key: str, conversation: list[Message], **options: Any) -> tuple[Any, TokenUsage]:
        """One non-streaming call: the assistant message and its usage."""
        started = time.monotonic()
        response = self._create(key, messages=conversation, **options)
        usage = _usage_of(response.usage)
        self._record(key, time.monotonic() - started, usage, ok=bool(response.choices))
        if not response.choices:
            raise LLMOutputError(f"{key}: the response had no choices")
        return response.choices[0].message, usage

    def _create(self, key: str, **params: Any) -> Any:
        """`chat.completions.create` with our retry policy; SDK errors become LLMUnavailable."""
        config = self._config(key)
        client = self._client(config)
        attempt = 0
        while True:
            started = time.monotonic()
            try:
                return client.chat.completions.create(
                    model=config.model, temperature=config.temperature, **params
                )
            except (openai.APIError, json.JSONDecodeError) as error:
                self._record(key, time.monotonic() - started, TokenUsage(), ok=False)
                if not _retryable(error) or attempt >= self._max_retries:
                    raise LLMUnavailable(f"{key}: {_describe(error)} after {attempt + 1} attempt(s)") from error
                delay = self._delay(attempt, error)
                logger.warning("llm retry key=%s attempt=%d error=%s", key, attempt + 1, _describe(error))
                self._sleep(delay)
                attempt += 1

    def _delay(self, attempt: int, error: Exception) -> float:
        """Exponential back-off, or the server's Retry-After when it gives one (both capped)."""
        retry_after = _retry_after(error)
        wanted = retry_after if retry_after is not None else self._backoff * 2**attempt
        return min(wanted, self._max_backoff)

    def _config(self, key: str) -> ModelConfig:
        try:
            return self._registry[key]
        except KeyError:
            raise ValueError(f"unknown model key {key!r}") from None

    def _client(self, config: ModelConfig) -> OpenAI:
        if not config.configured:
            raise LLMNotConfigured(f"{config.key}: no API key configured")
        with self._lock:
            if config.key not in self._clients:
                # max_retries=0: our own loop retries, so the sleep can be injected and counted
                self._clients[config.key] = OpenAI(
                    api_key=config.api_key, base_url=config.base_url, timeout=config.timeout, max_retries=0
                )
            return self._clients[config.key]

    def _record(self, key: str, latency: float, usage: TokenUsage, *, ok: bool) -> None:
        model = self._registry[key].model
        record = CallRecord(key, model, latency, usage.prompt_tokens, usage.completion_tokens, ok)
        with self._lock:
            self._usage[key] = self._usage.get(key, UsageTotals()).add(record)
        logger.info(
            "llm call key=%s ok=%s latency_ms=%d prompt_tokens=%d completion_tokens=%d",
            key, ok, latency * 1000, usage.prompt_tokens, usage.completion_tokens,
        )
        if self._on_call is not None:
            self._on_call(record)


def _assistant_turn(message: Any) -> Message:
    """The assistant's tool-calling turn, rebuilt so provider-only fields are not sent back."""
    calls = [
        {"id": c.id, "type": "function", "function": {"name": c.function.name, "arguments": c.function.arguments}}
        for c in message.tool_calls
    ]
    return {"role": "assistant", "content": message.content or "", "tool_calls": calls}


def _run_tool(run_tool: ToolRunner, call: Any) -> ToolCall:
    name = call.function.name
    try:
        arguments = json.loads(call.function.arguments or "{}")
    except json.JSONDecodeError:
        arguments = None
    if not isinstance(arguments, dict):
        return ToolCall(name, None, "错误：参数不是合法的 JSON 对象，请按参数定义重新调用。", ok=False)
    try:
        return ToolCall(name, arguments, str(run_tool(name, arguments)), ok=True)
    except Exception as error:  # noqa: BLE001 - a failing tool is reported to the model, not fatal to the turn
        logger.warning("llm tool failed tool=%s error=%s", name, type(error).__name__)
        return ToolCall(name, arguments, f"错误：工具 {name} 执行失败（{error}）。", ok=False)


def _validate(schema: type[T], found: dict[str, Any] | None) -> T:
    if found is None:
        raise LLMOutputError("the reply contained no JSON object")
    return schema.model_validate(found)


def _coerced(coerce: Callable[[dict[str, Any]], T], raw: dict[str, Any], key: str) -> T:
    try:
        return coerce(raw)
    except (ValidationError, ValueError, TypeError, KeyError) as error:
        raise LLMOutputError(f"{key}: output could not be coerced ({type(error).__name__})") from error


def _describe_invalid(error: ValidationError | LLMOutputError) -> str:
    if isinstance(error, LLMOutputError):
        return str(error)
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in error.errors())


def _correction(problem: str) -> Message:
    return {
        "role": "user",
        "content": f"上面的输出不符合要求：{problem}。请修正，只输出一个符合格式要求的 JSON 对象，不要输出其他文字。",
    }


def _usage_of(usage: Any) -> TokenUsage:
    if usage is None:
        return TokenUsage()
    return TokenUsage(usage.prompt_tokens or 0, usage.completion_tokens or 0)


def _refused(error: LLMUnavailable) -> bool:
    """The provider rejected the request as such (HTTP 400): an option it does not support."""
    return isinstance(error.__cause__, openai.BadRequestError)


def _retryable(error: Exception) -> bool:
    if isinstance(error, (openai.APIConnectionError, openai.APIResponseValidationError, json.JSONDecodeError)):
        return True
    if isinstance(error, openai.APIStatusError):
        return error.status_code in RETRYABLE_STATUS or error.status_code >= 500
    return False


def _retry_after(error: Exception) -> float | None:
    if not isinstance(error, openai.APIStatusError):
        return None
    try:
        return max(0.0, float(error.response.headers.get("retry-after", "")))
    except ValueError:
        return None  # absent, or an HTTP date: plain back-off is good enough


def _describe(error: Exception) -> str:
    """Error class and status only: provider error bodies may echo the prompt."""
    status = getattr(error, "status_code", None)
    return f"{type(error).__name__}" + (f" {status}" if status else "")

