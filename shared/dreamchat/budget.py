"""Time budgets: the deadline a piece of work must end by, and the worst case of each function's model calls.

A chat turn gets its deadline from the Lambda invocation's remaining time (locally from
DREAMCHAT_CHAT_TURN_SECONDS) and spends it: the gateway shortens each call's timeout and skips
tool rounds as the deadline nears. Every other request (compress now, reflect, ...) gets the same
deadline through `models_deadline()`, which the gateway and the memory models' fallback read.
Background functions have no such deadline inside a call:
their settings (model timeout, retries, attempts) bound the worst case, which `worst_case_seconds`
computes and a test holds under each function's Lambda timeout.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from dreamchat.config import Settings

# back-off of the gateway's retries (seconds): 0.5, 1, 2, ... (see OpenAIClient)
RETRY_BACKOFF_SECONDS = 0.5
# pause between the memory models' attempts: delay × attempt number (see FallbackMemoryModels)
ATTEMPT_DELAY_SECONDS = 2.0
# a model call given less time than this is not started: it could not answer anyway
MIN_CALL_SECONDS = 1.0
# what a Lambda needs after its last model call: writes, metrics, returning
FINISH_MARGIN_SECONDS = 5.0
# a web search's timeout: a tool is not started with less time than this left (see HttpSearch)
TOOL_SECONDS = 8.0


@dataclass(frozen=True)
class Deadline:
    """A moment (on a monotonic clock) by which work must be done."""

    at: float
    now: Callable[[], float] = field(default=time.monotonic, compare=False)

    @classmethod
    def after(cls, seconds: float, now: Callable[[], float] = time.monotonic) -> Deadline:
        return cls(now() + seconds, now)

    def remaining(self) -> float:
        return max(0.0, self.at - self.now())

    def sooner(self, seconds: float) -> Deadline:
        """This deadline moved `seconds` earlier, to keep time for what comes after."""
        return Deadline(self.at - seconds, self.now)


# of a request's time, the share the owed redos before its own work may use: that work keeps the rest
REDO_SHARE = 0.5


class RedoWindow:
    """The owed redos a request runs before its own model work (`POST /api/memory/{id}/extract`):
    they end by `deadline`, `REDO_SHARE` of the request's time, and `has_time` (called before each
    redo) starts another only if the slowest one so far still fits; the rest stays owed."""

    def __init__(self, request: Deadline, share: float = REDO_SHARE) -> None:
        self.deadline = request.sooner(request.remaining() * (1 - share))
        self._slowest = 0.0
        self._started: float | None = None

    def has_time(self) -> bool:
        now = self.deadline.now()
        if self._started is not None:  # the redo started at the last call is done
            self._slowest = max(self._slowest, now - self._started)
        fits = self.deadline.remaining() >= max(self._slowest, MIN_CALL_SECONDS)
        self._started = now if fits else None
        return fits


# the deadline by which the request being served needs its model calls done (see models_deadline)
_MODELS_DEADLINE: ContextVar[Deadline | None] = ContextVar("dreamchat_models_deadline", default=None)


def models_deadline() -> Deadline | None:
    """The deadline for model calls of the request being served, if it has one (background work has none)."""
    return _MODELS_DEADLINE.get()


@contextmanager
def models_deadline_set(deadline: Deadline) -> Iterator[None]:
    """Model calls made within (also from worker threads started within) end by `deadline`."""
    token = _MODELS_DEADLINE.set(deadline)
    try:
        yield
    finally:
        _MODELS_DEADLINE.reset(token)


def call_seconds(settings: Settings) -> float:
    """One model call through the gateway at worst: every attempt times out, with back-off between."""
    retries = settings.llm_max_retries
    backoff = sum(RETRY_BACKOFF_SECONDS * 2**attempt for attempt in range(retries))
    return (retries + 1) * settings.llm_timeout_seconds + backoff


def structured_seconds(settings: Settings) -> float:
    """One memory-model task at worst: each attempt is a call plus its corrective retry, then a pause."""
    attempts = settings.background_attempts
    pauses = sum(ATTEMPT_DELAY_SECONDS * attempt for attempt in range(1, attempts))
    return attempts * 2 * call_seconds(settings) + pauses


def judge_seconds(settings: Settings) -> float:
    """One sampled quality judgment at worst: a call and its corrective retry, no second attempt."""
    return 2 * call_seconds(settings)


# Memory-model tasks one invocation runs at worst before its time checks:
# - compress = the summary, a self-soul reflection and a relationship judgment (both fall on one
#   topic every 15th topic with the defaults, or on a 5th topic with strong emotion);
# - extract (the sweep) = one leftover compression, the same work (then it checks the time);
# - extract-worker = extraction and core judgment of one pair (it checks the time before each record,
#   and before each redo of owed work, one task each, that it runs first).
# Each may also be sampled for a quality judgment (`judge_seconds`).
FUNCTION_TASKS = {"compress": 3, "extract": 3, "extract-worker": 2}


def worst_case_seconds(function: str, settings: Settings) -> float:
    """The longest one invocation of `function` can spend on model calls before it checks the time."""
    if function in FUNCTION_TASKS:
        return FUNCTION_TASKS[function] * structured_seconds(settings) + judge_seconds(settings)
    if function == "heartbeat-worker":
        return settings.heartbeat_turn_seconds  # one record's deadline; records past the time are not started
    if function == "chat":
        return settings.chat_turn_seconds
    return 0.0  # the sweep calls no model
