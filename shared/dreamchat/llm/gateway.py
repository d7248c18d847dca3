"""The LLM gateway: every model call goes through the `openai` SDK against an OpenAI-compatible endpoint.

`OpenAIGateway.from_settings(settings)` builds it; clients are made lazily, one per model key.
It offers `complete` (with a bounded function-calling loop), `stream` and `structured`, retries
429/5xx/timeouts/connection errors with exponential back-off, and records token usage and
latency per model key. Only model keys, latencies and token counts are logged, never content.

`complete` may be given a `Deadline` (otherwise every call ends by the request's, if it has one):
each call's timeout is cut to the time left, a tool round only starts when the answer after it
still fits, and no retry starts that could not finish.

A provider's 400 is classified (`classify_bad_request`): an unambiguous "this parameter is not
supported" turns the feature off for that model key for a while; a context-length 400 retries
once with the older half of the conversation left out; moderation and anything else fail the call.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import openai
from openai import OpenAI
from pydantic import BaseModel, ValidationError

from dreamchat.budget import MIN_CALL_SECONDS, RETRY_BACKOFF_SECONDS, TOOL_SECONDS, Deadline, models_deadline
from dreamchat.config import Settings
from dreamchat.errors import DreamChatError
from dreamchat.llm.errors import (
    LLMContextTooLong,
    LLMNotConfigured,
    LLMOutOfTime,
    LLMOutputError,
    LLMRefused,
    LLMUnavailable,
)
from dreamchat.llm.parsing import extract_json_object
from dreamchat.llm.registry import ModelConfig, build_registry

logger = logging.getLogger(__name__)

Message = dict[str, Any]
ToolRunner = Callable[[str, dict[str, Any]], str]
T = TypeVar("T", bound=BaseModel)

RETRYABLE_STATUS = frozenset({408, 409, 429})
REFUSAL_MEMORY_SECONDS = 3600.0  # a feature a model refused is tried again after this long
TOOL_ROUND_SHARE = 0.5  # a tool round may use half the time left: the answer after it needs the rest


@dataclass(frozen=True)
class TokenUsage:
    """Tokens as the API reported them."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens)


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
        deadline: Deadline | None = None,
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
        backoff_seconds: float = RETRY_BACKOFF_SECONDS,
        max_backoff_seconds: float = 20.0,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._registry = dict(registry)
        self._max_retries = max_retries
        self._sleep = sleep
        self._on_call = on_call
        self._json_mode = json_mode
        self._backoff = backoff_seconds
        self._max_backoff = max_backoff_seconds
        self._clients: dict[str, OpenAI] = {}
        self._monotonic = monotonic
        # (feature, model key) -> until when the provider is taken at its word that it refuses the feature
        self._refuses: dict[tuple[str, str], float] = {}
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
        deadline: Deadline | None = None,
    ) -> Completion:
        """A chat completion; with tools, the model may call them for at most `max_tool_rounds` rounds.
        A context-length 400 is retried once with the older half of the conversation left out."""
        if tools and run_tool is None:
            raise ValueError("tools need a run_tool to execute them")
        try:
            return self._complete(key, list(messages), tools, run_tool, max_tool_rounds, deadline)
        except LLMContextTooLong:
            logger.warning("llm context too long key=%s; retrying with a shorter one", key)
            return self._complete(key, shorter(messages), tools, run_tool, max_tool_rounds, deadline)

    def _complete(
        self,
        key: str,
        messages: list[Message],
        tools: Sequence[Mapping[str, Any]] | None,
        run_tool: ToolRunner | None,
        rounds: int,
        deadline: Deadline | None,
    ) -> Completion:
        if not tools or run_tool is None or self.refuses("tools", key):
            message, usage = self._chat(key, messages, deadline=deadline)
            return Completion(message.content or "", usage, reasoning=reasoning_of(message))
        try:
            return self._tool_loop(key, list(messages), list(tools), run_tool, rounds, deadline)
        except LLMUnavailable as error:
            kind = _bad_request_kind(error)
            if kind not in ("unsupported", "other"):
                raise
            if kind == "unsupported":  # the provider said so plainly: stop sending tools to this key
                self._remember_refusal("tools", key)
            logger.warning("llm rejected a request with tools key=%s kind=%s; calling without them", key, kind)
            message, usage = self._chat(key, messages, deadline=deadline)
            return Completion(message.content or "", usage, reasoning=reasoning_of(message))

    def refuses(self, feature: str, key: str) -> bool:
        """True while `key`'s provider is remembered to refuse `feature` ("tools" or "json_mode")."""
        with self._lock:
            until = self._refuses.get((feature, key))
            if until is not None and until <= self._monotonic():
                del self._refuses[(feature, key)]
                until = None
        return until is not None

    def _remember_refusal(self, feature: str, key: str) -> None:
        with self._lock:
            self._refuses[(feature, key)] = self._monotonic() + REFUSAL_MEMORY_SECONDS

    def _tool_loop(
        self,
        key: str,
        conversation: list[Message],
        tools: list[Any],
        run_tool: ToolRunner,
        rounds: int,
        deadline: Deadline | None,
    ) -> Completion:
        """Model turns with tools, each answered with tool results, then one turn that must answer in text.
        With a deadline, a round starts only if the answer can still follow it. A reasoning model's
        `reasoning_content` goes back with its tool calls (DeepSeek's thinking mode requires it) and
        is collected for the caller; it never leaves this loop otherwise."""
        usage, calls, slowest, thoughts = TokenUsage(), list[ToolCall](), 0.0, list[str]()
        for _ in range(rounds):
            if deadline is not None and deadline.remaining() < 2 * slowest + MIN_CALL_SECONDS:
                break  # another round would leave no time for the answer
            started = self._monotonic()
            try:
                message, round_usage = self._chat(
                    key, conversation, deadline=deadline, share=TOOL_ROUND_SHARE, tools=tools
                )
            except LLMUnavailable as error:
                if deadline is None or not _timed_out(error):
                    raise
                break  # the round used up its share: answer with what is known
            slowest = max(slowest, self._monotonic() - started)
            usage += round_usage
            thoughts.append(reasoning_of(message))
            if not message.tool_calls:
                return Completion(message.content or "", usage, tuple(calls), _joined(thoughts))
            conversation.append(_assistant_turn(message))
            for call in message.tool_calls:
                calls.append(_run_tool(run_tool, call, deadline))
                conversation.append({"role": "tool", "tool_call_id": call.id, "content": calls[-1].result})
        # tools stay declared but disabled: some providers reject tool messages without `tools`
        message, round_usage = self._chat(key, conversation, deadline=deadline, tools=tools, tool_choice="none")
        thoughts.append(reasoning_of(message))
        return Completion(message.content or "", usage + round_usage, tuple(calls), _joined(thoughts))

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
        if self._json_mode and not self.refuses("json_mode", key):
            try:
                message, _ = self._chat(key, conversation, response_format={"type": "json_object"})
                return message.content or ""
            except LLMUnavailable as error:
                kind = _bad_request_kind(error)
                if kind not in ("unsupported", "other"):
                    raise
                # The provider refuses JSON mode: the prompt asks for JSON in words, parsing is tolerant.
                if kind == "unsupported":
                    self._remember_refusal("json_mode", key)
                logger.warning("llm rejected json mode key=%s kind=%s; asking in words only", key, kind)
        message, _ = self._chat(key, conversation)
        return message.content or ""

    def _chat(
        self,
        key: str,
        conversation: list[Message],
        *,
        deadline: Deadline | None = None,
        share: float = 1.0,
        **options: Any,
    ) -> tuple[Any, TokenUsage]:
        """One non-streaming call: the assistant message and its usage."""
        started = time.monotonic()
        response = self._create(key, deadline=deadline, share=share, messages=conversation, **options)
        usage = _usage_of(response.usage)
        self._record(key, time.monotonic() - started, usage, ok=bool(response.choices))
        if not response.choices:
            raise LLMOutputError(f"{key}: the response had no choices")
        return response.choices[0].message, usage

    def _create(self, key: str, *, deadline: Deadline | None = None, share: float = 1.0, **params: Any) -> Any:
        """`chat.completions.create` with our retry policy; SDK errors become LLMUnavailable.
        With a deadline, each attempt's timeout is `share` of the time left, and no attempt starts late."""
        config = self._config(key)
        client = self._client(config)
        deadline = deadline or models_deadline()
        attempt = 0
        while True:
            timeout = _timeout(key, config.timeout, deadline, share)
            started = time.monotonic()
            try:
                return client.chat.completions.create(
                    model=config.model, temperature=config.temperature, timeout=timeout, **params
                )
            except (openai.APIError, json.JSONDecodeError) as error:
                self._record(key, time.monotonic() - started, TokenUsage(), ok=False)
                delay = self._delay(attempt, error)
                if not _retryable(error) or attempt >= self._max_retries or not _time_for(deadline, delay):
                    raise _unavailable(key, error, attempt) from error
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
            key,
            ok,
            latency * 1000,
            usage.prompt_tokens,
            usage.completion_tokens,
        )
        if self._on_call is not None:
            self._on_call(record)


def _assistant_turn(message: Any) -> Message:
    """The assistant's tool-calling turn, rebuilt so provider-only fields are not sent back, except
    `reasoning_content`: a thinking model must see its own reasoning for the calls it made."""
    calls = [
        {"id": c.id, "type": "function", "function": {"name": c.function.name, "arguments": c.function.arguments}}
        for c in message.tool_calls
    ]
    turn: Message = {"role": "assistant", "content": message.content or "", "tool_calls": calls}
    if reasoning := reasoning_of(message):
        turn["reasoning_content"] = reasoning
    return turn


def reasoning_of(message: Any) -> str:
    """The chain of thought a reasoning model returned beside its answer (`reasoning_content`), or ""."""
    value = getattr(message, "reasoning_content", None)
    return value if isinstance(value, str) else ""


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


def _validate[T: BaseModel](schema: type[T], found: dict[str, Any] | None) -> T:
    if found is None:
        raise LLMOutputError("the reply contained no JSON object")
    return schema.model_validate(found)


def _coerced[T: BaseModel](coerce: Callable[[dict[str, Any]], T], raw: dict[str, Any], key: str) -> T:
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


def shorter(messages: Sequence[Message]) -> list[Message]:
    """The conversation without the older half of what follows the system prompt (the latest message stays)."""
    head = list(messages[:1]) if messages and messages[0].get("role") == "system" else []
    rest = list(messages[len(head) :])
    return [*head, *rest[len(rest) // 2 :]]


_CONTEXT_CODES = frozenset({"context_length_exceeded", "string_above_max_length", "context_too_long"})
_MODERATION_CODES = frozenset(
    {"content_filter", "content_policy_violation", "data_inspection_failed", "moderation_blocked", "sensitive_content"}
)
_UNSUPPORTED_CODES = frozenset({"unsupported_parameter", "unsupported_value", "unsupported_feature"})
_CONTEXT_WORDS = re.compile(
    r"maximum context length|context[ _]length|context window|too many tokens|reduce the length"
    r"|input (is )?too long|range of input length|exceeds? the (model'?s? )?(maximum|max)",
    re.IGNORECASE,
)
_MODERATION_WORDS = re.compile(
    r"content[ _](management )?polic|content[ _]filter|inappropriate content|moderation|data[ _]inspection"
    r"|sensitive|safety system",
    re.IGNORECASE,
)
_UNSUPPORTED_WORDS = re.compile(
    r"not supported|unsupported|does not support|doesn'?t support|not support|unrecognized request argument"
    r"|unknown (parameter|field|argument)|extra (inputs|fields) (are )?not permitted",
    re.IGNORECASE,
)
_FEATURE_WORDS = re.compile(
    r"\btools?\b|tool_choice|function[ _]?call|\bfunctions\b|response_format|json[ _]?(mode|object)", re.IGNORECASE
)
_FEATURE_PARAMS = frozenset({"tools", "tool_choice", "functions", "function_call", "response_format"})


def classify_bad_request(error: openai.BadRequestError) -> str:
    """What a provider's 400 says: "context_length", "moderation", "unsupported" (an optional
    feature: tools, JSON mode; only when the answer names it) or "other"."""
    code = str(error.code or "").lower()
    param = str(error.param or "").lower()
    text = f"{error.message} {code}"
    if code in _CONTEXT_CODES or _CONTEXT_WORDS.search(text):
        return "context_length"
    if code in _MODERATION_CODES or _MODERATION_WORDS.search(text):
        return "moderation"
    # a named parameter must be the feature's; without one, the message must name the feature
    names_feature = param in _FEATURE_PARAMS if param else bool(_FEATURE_WORDS.search(error.message))
    if names_feature and (code in _UNSUPPORTED_CODES or _UNSUPPORTED_WORDS.search(text)):
        return "unsupported"
    return "other"


def _bad_request_kind(error: LLMUnavailable) -> str | None:
    """The class of the provider's 400 behind `error`, or None when it was not a 400."""
    cause = error.__cause__
    return classify_bad_request(cause) if isinstance(cause, openai.BadRequestError) else None


def _unavailable(key: str, error: Exception, attempt: int) -> LLMUnavailable:
    kind = classify_bad_request(error) if isinstance(error, openai.BadRequestError) else None
    problem = {"context_length": LLMContextTooLong, "moderation": LLMRefused}.get(kind or "", LLMUnavailable)
    return problem(f"{key}: {_describe(error)}{f' ({kind})' if kind else ''} after {attempt + 1} attempt(s)")


def _timeout(key: str, configured: float, deadline: Deadline | None, share: float) -> float:
    """The key's timeout, cut to `share` of the time left before the deadline."""
    if deadline is None:
        return configured
    available = deadline.remaining() * share
    if available < MIN_CALL_SECONDS:
        raise LLMOutOfTime(f"{key}: {available:.1f} s left before the deadline, too little for a call")
    return min(configured, available)


def _time_for(deadline: Deadline | None, delay: float) -> bool:
    """Whether a retry after `delay` still has time for a call."""
    return deadline is None or deadline.remaining() - delay >= MIN_CALL_SECONDS


def _timed_out(error: LLMUnavailable) -> bool:
    return isinstance(error, LLMOutOfTime) or isinstance(error.__cause__, openai.APITimeoutError)


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
