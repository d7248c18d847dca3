"""The `openai` SDK wrapped: one client per model key, our retry policy, the deadline, usage totals.

Clients are made lazily, one per model key, with the SDK's own retries off: 429/5xx/timeouts/
connection errors are retried here with exponential back-off (or the server's Retry-After), so the
sleep can be injected and counted. Every HTTP call is recorded in a `UsageLedger`, timed on the one
injected monotonic clock.

A call may be given a `Deadline` (otherwise it ends by the request's, if it has one): each
attempt's timeout is cut to the time left, and no retry starts that could not finish.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import openai
from openai import OpenAI

from dreamchat.budget import MIN_CALL_SECONDS, RETRY_BACKOFF_SECONDS, Deadline, models_deadline
from dreamchat.llm import provider_errors
from dreamchat.llm.errors import LLMNotConfigured, LLMOutOfTime, LLMOutputError, LLMUnavailable
from dreamchat.llm.port import ModelMessage, TokenUsage
from dreamchat.llm.registry import ModelConfig
from dreamchat.llm.usage import CallRecord, UsageLedger, UsageTotals

logger = logging.getLogger(__name__)


class OpenAIClient:
    """Chat-completion calls to the registry's models, retried, timed and counted."""

    def __init__(
        self,
        registry: Mapping[str, ModelConfig],
        *,
        monotonic: Callable[[], float],
        sleep: Callable[[float], None],
        on_call: Callable[[CallRecord], None] | None = None,
        max_retries: int = 3,
        backoff_seconds: float = RETRY_BACKOFF_SECONDS,
        max_backoff_seconds: float = 20.0,
    ) -> None:
        self._registry = dict(registry)
        self._monotonic = monotonic
        self._sleep = sleep
        self._ledger = UsageLedger(on_call)
        self._max_retries = max_retries
        self._backoff = backoff_seconds
        self._max_backoff = max_backoff_seconds
        self._clients: dict[str, OpenAI] = {}
        self._lock = threading.Lock()

    @property
    def usage(self) -> dict[str, UsageTotals]:
        """Totals per model key so far (a snapshot)."""
        return self._ledger.totals()

    def configured(self, key: str) -> bool:
        """True when `key` has an API key to call with."""
        return self._config(key).configured

    def chat(
        self,
        key: str,
        conversation: list[ModelMessage],
        *,
        deadline: Deadline | None = None,
        share: float = 1.0,
        **options: Any,
    ) -> tuple[Any, TokenUsage]:
        """One non-streaming call: the assistant message and its usage."""
        started = self._monotonic()
        response = self._create(key, deadline=deadline, share=share, messages=conversation, **options)
        usage = usage_of(response.usage)
        self._record(key, started, usage, ok=bool(response.choices))
        if not response.choices:
            raise LLMOutputError(f"{key}: the response had no choices")
        return response.choices[0].message, usage

    def stream(self, key: str, messages: Sequence[ModelMessage]) -> Iterator[str]:
        """Text deltas as the model produces them; only the opening request is retried."""
        started = self._monotonic()
        chunks = self._create(key, messages=list(messages), stream=True, stream_options={"include_usage": True})
        usage, ok = TokenUsage(), False
        try:
            for chunk in chunks:
                if chunk.usage is not None:
                    usage = usage_of(chunk.usage)
                for choice in chunk.choices:
                    if choice.delta.content:
                        yield choice.delta.content
            ok = True
        except (openai.APIError, json.JSONDecodeError) as error:
            raise LLMUnavailable(f"{key}: stream broke off ({type(error).__name__})") from error
        finally:
            chunks.close()
            self._record(key, started, usage, ok=ok)

    def _create(self, key: str, *, deadline: Deadline | None = None, share: float = 1.0, **params: Any) -> Any:
        """`chat.completions.create` with our retry policy; SDK errors become LLMUnavailable.
        With a deadline, each attempt's timeout is `share` of the time left, and no attempt starts late."""

        def create(client: OpenAI, config: ModelConfig, timeout: float) -> Any:
            return client.chat.completions.create(
                model=config.model, temperature=config.temperature, timeout=timeout, **params
            )

        return self.call(key, create, deadline=deadline, share=share)

    def call[T](
        self,
        key: str,
        request: Callable[[OpenAI, ModelConfig, float], T],
        *,
        deadline: Deadline | None = None,
        share: float = 1.0,
    ) -> T:
        """`request(client, config, timeout)` with our retry policy: any endpoint of the protocol (the media
        roles' audio and vision calls too). SDK errors become LLMUnavailable."""
        config = self._config(key)
        client = self._client(config)
        deadline = deadline or models_deadline()
        attempt = 0
        while True:
            timeout = _timeout(key, config.timeout, deadline, share)
            started = self._monotonic()
            try:
                return request(client, config, timeout)
            except (openai.APIError, json.JSONDecodeError) as error:
                self._record(key, started, TokenUsage(), ok=False)
                delay = self._delay(attempt, error)
                if (
                    not provider_errors.retryable(error)
                    or attempt >= self._max_retries
                    or not _time_for(deadline, delay)
                ):
                    raise provider_errors.unavailable(key, error, attempt) from error
                logger.warning(
                    "llm retry key=%s attempt=%d error=%s", key, attempt + 1, provider_errors.describe(error)
                )
                self._sleep(delay)
                attempt += 1

    def _delay(self, attempt: int, error: Exception) -> float:
        """Exponential back-off, or the server's Retry-After when it gives one (both capped)."""
        retry_after = provider_errors.retry_after(error)
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
            if config.key not in self._clients:  # max_retries=0: our own loop retries
                self._clients[config.key] = OpenAI(
                    api_key=config.api_key, base_url=config.base_url, timeout=config.timeout, max_retries=0
                )
            return self._clients[config.key]

    def _record(self, key: str, started: float, usage: TokenUsage, *, ok: bool) -> None:
        latency = self._monotonic() - started
        self._ledger.record(key, self._registry[key].model, latency, usage, ok=ok)


def usage_of(usage: Any) -> TokenUsage:
    """The tokens of a response's `usage`, whichever way its provider reports the cached part:
    DeepSeek's top-level `prompt_cache_hit_tokens` (beside `prompt_cache_miss_tokens`), or the
    OpenAI-style `prompt_tokens_details.cached_tokens` (DashScope, Ark); neither is 0."""
    if usage is None:
        return TokenUsage()
    prompt = _count(getattr(usage, "prompt_tokens", None))
    return TokenUsage(prompt, _count(getattr(usage, "completion_tokens", None)), min(prompt, _cached(usage, prompt)))


def _cached(usage: Any, prompt: int) -> int:
    hit = getattr(usage, "prompt_cache_hit_tokens", None)
    if hit is not None:
        return _count(hit)
    miss = getattr(usage, "prompt_cache_miss_tokens", None)
    if miss is not None:  # a miss without its hit: the rest of the prompt was served from the cache
        return max(0, prompt - _count(miss))
    details = getattr(usage, "prompt_tokens_details", None)
    return _count(getattr(details, "cached_tokens", None))


def _count(value: Any) -> int:
    """A reported count; anything but a non-negative integer (absent, null, malformed) counts 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


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


def reasoning_of(message: Any) -> str:
    """The chain of thought a reasoning model returned beside its answer (`reasoning_content`), or ""."""
    value = getattr(message, "reasoning_content", None)
    return value if isinstance(value, str) else ""
