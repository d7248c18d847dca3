"""The spec's compression quality figures per pair: the ratio and the extraction rate of every
run, and, on a sampled share of runs (DREAMCHAT_QUALITY_SAMPLE_SHARE), completeness and key-point
accuracy judged by the core-memory model. Each figure is also handed to `on_figure` (the Lambdas
emit it as a Powertools metric). A failing judge loses a sample, never a compression."""

from __future__ import annotations

import logging
from collections.abc import Callable

from dreamchat.config import Settings
from dreamchat.domain.models import Conversation, LongTermIndex, Message, MidTermMemory, PairId
from dreamchat.domain.quality import QualityFigures, extraction_rate, sampled
from dreamchat.errors import Contended
from dreamchat.llm.contracts import QualityScore
from dreamchat.llm.errors import LLMError
from dreamchat.llm.port import LLMGateway
from dreamchat.llm.prompts import Prompt, accuracy_prompt, completeness_prompt
from dreamchat.ports import Clock, RandomSource
from dreamchat.services.memory_repo import MemoryRepository
from dreamchat.services.storage.unit_of_work import Storage, retry_on_conflict

log = logging.getLogger(__name__)

JUDGE_KEY = "deepseek_core_memory"
OnFigure = Callable[[str, float], None]


class QualityService:
    def __init__(
        self,
        repo: MemoryRepository,
        storage: Storage,
        gateway: LLMGateway | None,
        clock: Clock,
        random: RandomSource,
        settings: Settings,
        on_figure: OnFigure | None = None,
    ) -> None:
        self._repo = repo
        self._storage = storage
        self._gateway = gateway
        self._clock = clock
        self._random = random
        self._settings = settings
        self._on_figure = on_figure or (lambda name, value: None)

    def sample(self) -> bool:
        """Whether this run is judged (never without a configured judge)."""
        if self._gateway is None or not self._gateway.configured(JUDGE_KEY):
            return False
        return sampled(self._random.random(), self._settings.quality_sample_share)

    def figures(self, pair: PairId) -> QualityFigures:
        with self._storage.pair(pair) as uow:
            return uow.quality.get().entity

    def after_compression(self, pair: PairId, mid: MidTermMemory, judged: list[Message] | None) -> None:
        """Record a compression; `judged` (the topic's messages) when this one was sampled."""
        completeness = self._completeness(mid, judged) if judged else None
        self._emit("CompressionRatio", mid.compression_ratio)
        if completeness is not None:
            self._emit("InformationCompleteness", completeness)
        self._update(pair, lambda f: f.with_compression(mid.compression_ratio, completeness))

    def after_extraction(self, pair: PairId, considered: int, extracted: int, memories: list[LongTermIndex]) -> None:
        """Record an extraction run; a sampled one with memories has its key points judged."""
        if not considered:
            return
        accuracy = self._accuracy(pair, memories) if memories and self.sample() else None
        self._emit("ExtractionRate", extraction_rate(considered, extracted) or 0.0)
        if accuracy is not None:
            self._emit("KeyPointAccuracy", accuracy)
        self._update(pair, lambda f: f.with_extraction(considered, extracted, accuracy))

    def _completeness(self, mid: MidTermMemory, messages: list[Message]) -> float | None:
        conversations = [Conversation(role=m.role, content=m.content, timestamp=m.timestamp) for m in messages]
        return self._score(completeness_prompt(conversations, mid.summary, self._clock.now()))

    def _accuracy(self, pair: PairId, memories: list[LongTermIndex]) -> float | None:
        details = [d for m in memories if (d := self._repo.detail(pair, m))]
        sources = {s for d in details for s in d.source_mid_ids}
        summaries = [m.summary for m in self._repo.mid_terms(pair) if m.id in sources]
        return self._score(accuracy_prompt(summaries, [(m.title, m.key_points) for m in memories]))

    def _score(self, messages: Prompt) -> float | None:
        assert self._gateway is not None
        try:
            return self._gateway.structured(JUDGE_KEY, messages, QualityScore).score / 100
        except LLMError as error:
            log.warning("quality judgment failed", extra={"error": type(error).__name__})
            return None

    def _emit(self, name: str, value: float) -> None:
        self._on_figure(name, value)

    def _update(self, pair: PairId, change: Callable[[QualityFigures], QualityFigures]) -> None:
        def write() -> None:
            with self._storage.pair(pair) as uow:
                read = uow.quality.get()
                uow.quality.save(change(read.entity), read)
                uow.commit()

        try:
            retry_on_conflict(write)
        except Contended:
            log.warning("quality figures kept changing; this run is not counted", extra={"ai_user_id": pair.ai_user_id})
