"""The task-level port the memory services call, and its implementations.

- `MemoryModels` (protocol): compress, extract, judge_core, reflect, judge_relationship.
- `LLMMemoryModels(gateway)`: the prompts of `prompts.py` through `gateway.structured`.
- `OfflineMemoryModels` (in `offline.py`): no network, deterministic, honest.
- `FallbackMemoryModels(primary, offline)`: what background services hold. Each method returns a
  `Degradable[T]`: `.value` is the contract object, `.degraded` is True when the primary kept
  failing (`attempts` times, or at once when its key has no API key) and the offline provider
  answered instead. For `judge_core` that means "create nothing".
- `build_memory_models(settings)`: the wiring: real models when any API key is configured,
  otherwise the offline provider as primary (then nothing is marked degraded: it is the choice).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from dreamchat.budget import MIN_CALL_SECONDS, models_deadline
from dreamchat.config import Settings
from dreamchat.domain.emotions import LABELS, closest_label
from dreamchat.domain.models import Conversation, CoreMemory, MidTermMemory, RelationshipLevel
from dreamchat.domain.supersession import RelatedPoint
from dreamchat.llm import prompts
from dreamchat.llm.contracts import (
    CompressOutput,
    CoreJudgment,
    ExtractOutput,
    RelationshipJudgment,
    SelfSoulReflection,
)
from dreamchat.llm.errors import LLMError, LLMNotConfigured, LLMOutputError
from dreamchat.llm.gateway import OpenAIGateway
from dreamchat.llm.offline import OfflineMemoryModels
from dreamchat.llm.port import LLMGateway

logger = logging.getLogger(__name__)


TASK_KEYS: dict[str, str] = {
    "compress": "qwen_short_to_mid",
    "extract": "doubao_mid_to_long",
    "judge_core": "deepseek_core_memory",
    "reflect": "deepseek_chat",  # the self-image is written in the companion's own voice
    "judge_relationship": "deepseek_core_memory",
}


class MemoryModels(Protocol):
    """The model-backed steps of the memory flow, one method per contract."""

    def compress(self, conversations: list[Conversation], now: datetime) -> CompressOutput: ...

    def extract(
        self, mids: list[MidTermMemory], now: datetime, related: Sequence[RelatedPoint] = ()
    ) -> ExtractOutput: ...

    def judge_core(
        self, new_items: list[tuple[str, list[str]]], existing: list[CoreMemory], now: datetime
    ) -> CoreJudgment: ...

    def reflect(
        self, ai_name: str, base_soul: str, recent: list[Conversation], current_self_soul: str, now: datetime
    ) -> SelfSoulReflection: ...

    def judge_relationship(
        self, current_level: RelationshipLevel, recent: list[Conversation], now: datetime
    ) -> RelationshipJudgment: ...


class LLMMemoryModels:
    """`MemoryModels` through a language model: one structured call per step."""

    def __init__(self, gateway: LLMGateway, keys: Mapping[str, str] = TASK_KEYS) -> None:
        self._gateway = gateway
        self._keys = dict(keys)

    def compress(self, conversations: list[Conversation], now: datetime) -> CompressOutput:
        """Summary and emotion tags of an ended topic; stray labels are mapped to the spec's."""
        messages = prompts.compress_prompt(conversations, now)
        return self._gateway.structured(self._keys["compress"], messages, CompressOutput, coerce=coerce_compress)

    def extract(self, mids: list[MidTermMemory], now: datetime, related: Sequence[RelatedPoint] = ()) -> ExtractOutput:
        """Long-term memories from mid-term summaries, citing only the ids it was given (which existing
        key points they replace is checked where they are stored)."""
        messages = prompts.extract_prompt(mids, now, related)
        output = self._gateway.structured(self._keys["extract"], messages, ExtractOutput)
        if mids and not output.memories:
            raise LLMOutputError("extract: no memories for a non-empty batch")
        return _cite_only(output, {mid.id for mid in mids})

    def judge_core(
        self, new_items: list[tuple[str, list[str]]], existing: list[CoreMemory], now: datetime
    ) -> CoreJudgment:
        """The model's proposal; the domain's admission rules decide whether it is stored."""
        messages = prompts.core_judgment_prompt(new_items, existing, now)
        return self._gateway.structured(self._keys["judge_core"], messages, CoreJudgment)

    def reflect(
        self, ai_name: str, base_soul: str, recent: list[Conversation], current_self_soul: str, now: datetime
    ) -> SelfSoulReflection:
        """The reflection; when unchanged, `self_soul` is the current one whatever the model wrote."""
        messages = prompts.self_soul_prompt(ai_name, base_soul, recent, current_self_soul, now)
        result = self._gateway.structured(self._keys["reflect"], messages, SelfSoulReflection)
        return result if result.changed else SelfSoulReflection(changed=False, self_soul=current_self_soul)

    def judge_relationship(
        self, current_level: RelationshipLevel, recent: list[Conversation], now: datetime
    ) -> RelationshipJudgment:
        """The level after the recent conversations."""
        messages = prompts.relationship_prompt(current_level, recent, now)
        return self._gateway.structured(self._keys["judge_relationship"], messages, RelationshipJudgment)


def coerce_compress(raw: dict[str, Any]) -> CompressOutput:
    """A compress output whose labels are mapped to the closest spec label (tags may sit at top level)."""
    tags = raw.get("emotion_tags")
    tags = tags if isinstance(tags, dict) else {}
    labels = {kind: closest_label(kind, tags.get(kind, raw.get(kind))) for kind in LABELS}
    return CompressOutput.model_validate({"summary": str(raw.get("summary") or "").strip(), "emotion_tags": labels})


def _cite_only(output: ExtractOutput, known: set[str]) -> ExtractOutput:
    """Drop source ids the model invented: they must name mid-term memories of this batch."""
    memories = [
        memory.model_copy(update={"source_mid_ids": [i for i in memory.source_mid_ids if i in known]})
        for memory in output.memories
    ]
    return ExtractOutput(memories=memories)


@dataclass(frozen=True)
class Degradable[R]:
    """A result, and whether the offline provider produced it because the real model kept failing."""

    value: R
    degraded: bool = False


class FallbackMemoryModels:
    """Tries the primary models `attempts` times, then answers offline and marks the result degraded."""

    def __init__(
        self,
        primary: MemoryModels,
        offline: MemoryModels | None = None,
        *,
        attempts: int = 3,
        sleep: Callable[[float], None] = time.sleep,
        delay_seconds: float = 2.0,
    ) -> None:
        self._primary = primary
        self._offline = offline or OfflineMemoryModels()
        self._attempts = max(1, attempts)
        self._sleep = sleep
        self._delay = delay_seconds

    def compress(self, conversations: list[Conversation], now: datetime) -> Degradable[CompressOutput]:
        """`MemoryModels.compress`, degraded to extractive compression."""
        return self._run("compress", lambda models: models.compress(conversations, now))

    def extract(
        self, mids: list[MidTermMemory], now: datetime, related: Sequence[RelatedPoint] = ()
    ) -> Degradable[ExtractOutput]:
        """`MemoryModels.extract`, degraded to keyword titles, sentence key points and the offline
        rule for clear same-slot updates."""
        return self._run("extract", lambda models: models.extract(mids, now, related))

    def extract_offline(
        self, mids: list[MidTermMemory], now: datetime, related: Sequence[RelatedPoint] = ()
    ) -> Degradable[ExtractOutput]:
        """The offline extraction of `mids` (summaries a model's answer left out), marked degraded: owed
        to the model, never done."""
        return Degradable(self._offline.extract(mids, now, related), degraded=True)

    def judge_core(
        self, new_items: list[tuple[str, list[str]]], existing: list[CoreMemory], now: datetime
    ) -> Degradable[CoreJudgment]:
        """`MemoryModels.judge_core`, degraded to creating nothing."""
        return self._run("judge_core", lambda models: models.judge_core(new_items, existing, now))

    def reflect(
        self, ai_name: str, base_soul: str, recent: list[Conversation], current_self_soul: str, now: datetime
    ) -> Degradable[SelfSoulReflection]:
        """`MemoryModels.reflect`, degraded to no change."""
        return self._run("reflect", lambda m: m.reflect(ai_name, base_soul, recent, current_self_soul, now))

    def judge_relationship(
        self, current_level: RelationshipLevel, recent: list[Conversation], now: datetime
    ) -> Degradable[RelationshipJudgment]:
        """`MemoryModels.judge_relationship`, degraded to keeping the level."""
        return self._run("judge_relationship", lambda models: models.judge_relationship(current_level, recent, now))

    def _run[R](self, task: str, call: Callable[[MemoryModels], R]) -> Degradable[R]:
        for attempt in range(1, self._attempts + 1):
            if not _time_for_an_attempt():
                logger.warning("memory model out of time task=%s; answering offline", task)
                break
            try:
                return Degradable(call(self._primary))
            except LLMNotConfigured:
                logger.warning("memory model not configured task=%s; answering offline", task)
                break
            except LLMError as error:
                logger.warning("memory model failed task=%s attempt=%d error=%s", task, attempt, type(error).__name__)
                if attempt < self._attempts and _time_for_an_attempt(self._delay * attempt):
                    self._sleep(self._delay * attempt)
        return Degradable(call(self._offline), degraded=True)


def _time_for_an_attempt(pause: float = 0.0) -> bool:
    """Whether the request being served (if any) leaves time for a pause and another model call."""
    deadline = models_deadline()
    return deadline is None or deadline.remaining() - pause >= MIN_CALL_SECONDS


def build_memory_models(
    settings: Settings, gateway: LLMGateway | None = None, *, sleep: Callable[[float], None] = time.sleep
) -> FallbackMemoryModels:
    """The memory models the environment asks for: real ones with an API key, else offline."""
    offline = OfflineMemoryModels()
    if not settings.llm_configured:
        return FallbackMemoryModels(offline, offline, attempts=1, sleep=sleep)
    primary = LLMMemoryModels(gateway or OpenAIGateway.from_settings(settings))
    return FallbackMemoryModels(
        primary,
        offline,
        attempts=settings.background_attempts,
        sleep=sleep,
        delay_seconds=settings.background_retry_seconds,
    )
