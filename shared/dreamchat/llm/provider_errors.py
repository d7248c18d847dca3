"""What a provider's error means, and what to do about it: the one place that reads SDK errors.

- `classify_bad_request`: a 400 says the context is too long, moderation refused, an optional
  feature (tools, JSON mode) is not supported, or something else.
- `unavailable`: an SDK error as our own (`LLMContextTooLong`, `LLMRefused`, else `LLMUnavailable`),
  worded without the provider's body (it may echo the prompt).
- `retryable`, `retry_after`: which errors the client retries, and after how long the server asked.
- `Refusals.attempt`: "the provider refused feature X with a 400: call again without it"; an
  unambiguous "not supported" is remembered for that model key for a while.
- `or_shorter`: a context-length 400 is called once more with the older half of the conversation left out.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Callable, Sequence

import openai

from dreamchat.llm.errors import LLMContextTooLong, LLMOutOfTime, LLMRefused, LLMUnavailable
from dreamchat.llm.port import ModelMessage

logger = logging.getLogger(__name__)

RETRYABLE_STATUS = frozenset({408, 409, 429})
REFUSAL_MEMORY_SECONDS = 3600.0  # a feature a model refused is tried again after this long

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


def unavailable(key: str, error: Exception, attempt: int) -> LLMUnavailable:
    """The SDK's `error` on the call's last attempt, as the error services catch."""
    kind = classify_bad_request(error) if isinstance(error, openai.BadRequestError) else None
    problem = {"context_length": LLMContextTooLong, "moderation": LLMRefused}.get(kind or "", LLMUnavailable)
    return problem(f"{key}: {describe(error)}{f' ({kind})' if kind else ''} after {attempt + 1} attempt(s)")


def timed_out(error: LLMUnavailable) -> bool:
    """Whether the call ended for lack of time (the deadline's or the SDK's timeout)."""
    return isinstance(error, LLMOutOfTime) or isinstance(error.__cause__, openai.APITimeoutError)


def retryable(error: Exception) -> bool:
    if isinstance(error, (openai.APIConnectionError, openai.APIResponseValidationError, json.JSONDecodeError)):
        return True
    if isinstance(error, openai.APIStatusError):
        return error.status_code in RETRYABLE_STATUS or error.status_code >= 500
    return False


def retry_after(error: Exception) -> float | None:
    """The server's Retry-After in seconds, when it gave one."""
    if not isinstance(error, openai.APIStatusError):
        return None
    try:
        return max(0.0, float(error.response.headers.get("retry-after", "")))
    except ValueError:
        return None  # absent, or an HTTP date: plain back-off is good enough


def describe(error: Exception) -> str:
    """Error class and status only: provider error bodies may echo the prompt."""
    status = getattr(error, "status_code", None)
    return f"{type(error).__name__}" + (f" {status}" if status else "")


def _bad_request_kind(error: LLMUnavailable) -> str | None:
    """The class of the provider's 400 behind `error`, or None when it was not a 400."""
    cause = error.__cause__
    return classify_bad_request(cause) if isinstance(cause, openai.BadRequestError) else None


class Refusals:
    """Which optional features ("tools", "json_mode") each model key's provider refused, for a while."""

    def __init__(self, monotonic: Callable[[], float], memory_seconds: float = REFUSAL_MEMORY_SECONDS) -> None:
        self._monotonic = monotonic
        self._memory_seconds = memory_seconds
        # (feature, model key) -> until when the provider is taken at its word that it refuses the feature
        self._until: dict[tuple[str, str], float] = {}
        self._lock = threading.Lock()

    def refuses(self, feature: str, key: str) -> bool:
        """True while `key`'s provider is remembered to refuse `feature`."""
        with self._lock:
            until = self._until.get((feature, key))
            if until is not None and until <= self._monotonic():
                del self._until[(feature, key)]
                until = None
        return until is not None

    def attempt[R](self, feature: str, key: str, with_it: Callable[[], R], without_it: Callable[[], R]) -> R:
        """`with_it()`, unless the provider refuses `feature`: then `without_it()`. A 400 that names the
        feature as unsupported is remembered; an ambiguous 400 drops the feature for this call only;
        any other failure (context length, moderation, outage) is raised."""
        if self.refuses(feature, key):
            return without_it()
        try:
            return with_it()
        except LLMUnavailable as error:
            kind = _bad_request_kind(error)
            if kind not in ("unsupported", "other"):
                raise
            if kind == "unsupported":  # the provider said so plainly: stop sending it to this key
                with self._lock:
                    self._until[(feature, key)] = self._monotonic() + self._memory_seconds
            logger.warning("llm rejected %s key=%s kind=%s; calling without it", feature, key, kind)
        return without_it()


def or_shorter[R](key: str, messages: Sequence[ModelMessage], call: Callable[[list[ModelMessage]], R]) -> R:
    """`call(messages)`; after a context-length 400, once more with the older half left out."""
    try:
        return call(list(messages))
    except LLMContextTooLong:
        logger.warning("llm context too long key=%s; retrying with a shorter one", key)
        return call(shorter(messages))


def shorter(messages: Sequence[ModelMessage]) -> list[ModelMessage]:
    """The conversation without the older half of what follows the system prompt (the latest message stays)."""
    head = list(messages[:1]) if messages and messages[0].get("role") == "system" else []
    rest = list(messages[len(head) :])
    return [*head, *rest[len(rest) // 2 :]]
