"""Usage accounting: one `CallRecord` per HTTP call to a model, running totals per model key.

Only model keys, latencies and token counts are logged, never content. Cached prompt tokens are
what the provider said its prefix cache served (`dreamchat.llm.client.usage_of` reads each
provider's field); a provider that says nothing counts 0.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from dreamchat.llm.port import TokenUsage

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class CallRecord:
    """One HTTP call to a model, as handed to `on_call` (no content, ever)."""

    key: str
    model: str
    latency_seconds: float
    prompt_tokens: int
    completion_tokens: int
    ok: bool
    cached_prompt_tokens: int = 0


@dataclass(frozen=True)
class UsageTotals:
    """Running totals for one model key."""

    calls: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    cached_prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_seconds: float = 0.0

    def add(self, record: CallRecord) -> UsageTotals:
        """These totals with one more call counted."""
        return UsageTotals(
            calls=self.calls + 1,
            failures=self.failures + (not record.ok),
            prompt_tokens=self.prompt_tokens + record.prompt_tokens,
            cached_prompt_tokens=self.cached_prompt_tokens + record.cached_prompt_tokens,
            completion_tokens=self.completion_tokens + record.completion_tokens,
            latency_seconds=self.latency_seconds + record.latency_seconds,
        )


class UsageLedger:
    """The totals of every call so far, safe across threads; each call is also logged and handed to `on_call`."""

    def __init__(self, on_call: Callable[[CallRecord], None] | None = None) -> None:
        self._on_call = on_call
        self._totals: dict[str, UsageTotals] = {}
        self._lock = threading.Lock()

    def totals(self) -> dict[str, UsageTotals]:
        """Totals per model key so far (a snapshot)."""
        with self._lock:
            return dict(self._totals)

    def record(self, key: str, model: str, latency: float, usage: TokenUsage, *, ok: bool) -> None:
        record = CallRecord(
            key, model, latency, usage.prompt_tokens, usage.completion_tokens, ok, usage.cached_prompt_tokens
        )
        with self._lock:
            self._totals[key] = self._totals.get(key, UsageTotals()).add(record)
        logger.info(
            "llm call key=%s ok=%s latency_ms=%d prompt_tokens=%d cached_prompt_tokens=%d completion_tokens=%d",
            key,
            ok,
            latency * 1000,
            usage.prompt_tokens,
            usage.cached_prompt_tokens,
            usage.completion_tokens,
        )
        if self._on_call is not None:
            self._on_call(record)
