"""Short-term to mid-term: an ended topic becomes one mid-term memory, and what follows a compression
(the quality figures, and every few topics the AI's reflection and the relationship judgment).

`CompressionService.compress` is the one entry point: the TopicEnded event, the person's compress-now and
the sweep of lost events all go through it. It is idempotent: a TopicEnded delivered twice, or a
compress-now racing it, stores one mid-term memory, and only the call whose write stored it goes on.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from datetime import datetime
from zoneinfo import ZoneInfo

from dreamchat.config import Settings
from dreamchat.domain import vectors as vec
from dreamchat.domain.models import Conversation, Message, MidTermMemory, PairId
from dreamchat.domain.owed import OwedKind
from dreamchat.domain.quality import FittedSummary, fit_summary
from dreamchat.domain.relationship import judgment_due
from dreamchat.errors import Contended, NotFound
from dreamchat.events import TopicEnded
from dreamchat.llm.memory_models import FallbackMemoryModels
from dreamchat.ports import Clock, Event
from dreamchat.services.ai_users import AIUserService
from dreamchat.services.memory_repo import MemoryRepository
from dreamchat.services.quality import QualityService
from dreamchat.services.soul import SoulService
from dreamchat.services.storage.guard import Gone
from dreamchat.services.storage.unit_of_work import Storage
from dreamchat.services.topics import TopicService
from dreamchat.services.vectors import VectorService
from dreamchat.services.zones import zone_of

log = logging.getLogger(__name__)


class CompressionService:
    def __init__(
        self,
        repo: MemoryRepository,
        storage: Storage,
        topics: TopicService,
        models: FallbackMemoryModels,
        vectors: VectorService,
        after: AfterCompressionService,
        clock: Clock,
        settings: Settings,
    ) -> None:
        self.repo = repo
        self._storage = storage
        self._topics = topics
        self._models = models
        self._vectors = vectors
        self._after = after
        self._clock = clock
        self._settings = settings

    def on_topic_ended(self, event: Event) -> None:
        ended = TopicEnded.of(event)
        self.compress(ended.pair, ended.topic_id)

    def compress(self, pair: PairId, topic_id: str) -> MidTermMemory | None:
        """Summarise an ended topic into one mid-term memory, then clear exactly its messages; every
        few topics the AI also reflects on itself, and judges the relationship every few topics and
        after a topic with strong emotion. None when the topic has nothing left (or the pair is gone).

        The pair is seen in its generation now: if the person forgets it (and befriends the AI user
        again) while the model summarises, nothing of this compression lands in the new friendship."""
        pair = self._storage.live(pair)
        again = self.repo.mid_term(pair, topic_id) is not None  # a repeated delivery: reflected, judged
        judged = self.repo.short_term(pair, topic_id) if not again and self._after.sample() else None
        try:
            mid, stored = self._compress_once(pair, topic_id)
            if mid is not None and stored:  # not when another delivery or a compress-now stored it
                self._after(pair, mid, judged)
        except Gone:  # the pair was erased meanwhile: nothing to keep
            return None
        return mid

    def compress_now(self, pair: PairId) -> list[MidTermMemory]:
        """End the open topic and compress every topic still in short-term, as a TopicEnded would."""
        produced = [self.compress(pair, topic_id) for topic_id in self._topics.end_topic_now(pair)]
        return [mid for mid in produced if mid is not None]

    def compress_leftovers(self, has_time: Callable[[], bool] = lambda: True) -> int:
        """Compress ended topics whose TopicEnded was lost, as it would have, while `has_time()` says
        another fits; the rest wait for the next sweep."""
        done = 0
        for pair, topic_id in self._topics.leftovers():
            if not has_time():
                break
            self.compress(pair, topic_id)
            done += 1
        return done

    def _compress_once(self, pair: PairId, topic_id: str) -> tuple[MidTermMemory | None, bool]:
        """The mid-term memory, and whether this call stored it: of two compressing one topic at
        once (its TopicEnded and a compress-now), only the one whose write landed goes on."""
        messages = self.repo.short_term(pair, topic_id)
        existing = self.repo.mid_term(pair, topic_id)
        if existing is not None:
            self.repo.clear_short_term(pair, messages)
            self.repo.pending_done(pair, topic_id)
            return existing, False
        if not messages:
            self.repo.pending_done(pair, topic_id)
            return None, False
        self._topics.close_if_open(pair, topic_id)
        messages = self.repo.short_term(pair, topic_id)
        conversations = [Conversation(role=m.role, content=m.content, timestamp=m.timestamp) for m in messages]
        result = self._models.compress(conversations, self._local_now(pair))
        summary = fitted(result.value.summary, messages)
        mid = MidTermMemory(
            id=f"mid_{topic_id.removeprefix('topic_')}",
            topic_id=topic_id,
            summary=summary.summary,
            emotion_tags=result.value.emotion_tags,
            message_count=len(messages),
            created_at=messages[-1].timestamp - messages[-1].timestamp % 3600,
            compression_ratio=summary.compression_ratio,
            summary_cut=summary.cut,
            degraded=result.degraded,
            first_message_id=messages[0].id,
            last_message_id=messages[-1].id,
        )
        with self._storage.pair(pair) as uow:
            uow.mid_terms.add(mid, self._vectors.retriever.vectors(vec.embedded_texts(mid)))
            if mid.degraded:  # owed: redone once the model answers again, due for extraction only then
                uow.owed.owe(self._settings.heal_backoff.first("compress", int(self._clock.now().timestamp()), mid.id))
            try:
                uow.commit()
                stored = True
            except Contended:  # another delivery, or a compress-now, stored it first
                stored = False
        if not stored:
            mid = self.repo.mid_term(pair, topic_id) or mid
        self.repo.clear_short_term(pair, messages)
        self.repo.pending_done(pair, topic_id)
        log.info("compressed topic", extra={"topic_id": topic_id, "degraded": mid.degraded, "cut": mid.summary_cut})
        self._vectors.refresh(pair)
        return mid, stored

    def _local_now(self, pair: PairId) -> datetime:
        """Now in the pair's time zone, so prompts show the person's local time."""
        return self._clock.now().astimezone(ZoneInfo(zone_of(self._storage, pair, self._settings.timezone)))


class AfterCompressionService:
    """What a stored compression brings: its quality figures, and when due the AI's reflection on
    itself and the relationship judgment."""

    def __init__(
        self,
        repo: MemoryRepository,
        storage: Storage,
        quality: QualityService,
        soul: SoulService,
        ai_users: AIUserService,
        clock: Clock,
        settings: Settings,
    ) -> None:
        self._repo = repo
        self._storage = storage
        self._quality = quality
        self._soul = soul
        self._ai_users = ai_users
        self._clock = clock
        self._settings = settings

    def sample(self) -> bool:
        """Whether this compression's completeness is judged (its messages are read before they go)."""
        return self._quality.sample()

    def __call__(self, pair: PairId, mid: MidTermMemory, judged: list[Message] | None) -> None:
        self._quality.after_compression(pair, mid, judged)
        settings, topics = self._settings, len(self._repo.mid_terms(pair))
        reflect = bool(settings.reflect_every_topics) and topics % settings.reflect_every_topics == 0
        judge = judgment_due(topics, settings.judge_relationship_every_topics, mid.emotion_tags)
        if not (reflect or judge):
            return
        try:
            ai_user = self._ai_users.visible(pair.account_id, pair.ai_user_id)
        except NotFound:
            return
        if reflect:
            self._owed(pair, "reflect", self._soul.reflect(pair, ai_user).degraded)
        if judge:
            self._owed(pair, "judge_relationship", self._soul.judge_relationship(pair, ai_user)[2])

    def _owed(self, pair: PairId, kind: OwedKind, degraded: bool) -> None:
        """A degraded reflection or judgment is owed (once per pair); one the model made pays it."""
        with self._storage.pair(pair) as uow:
            read = uow.owed.get(kind)
            if degraded and read is None:
                uow.owed.owe(self._settings.heal_backoff.first(kind, int(self._clock.now().timestamp())))
            elif not degraded and read is not None:
                uow.owed.paid(read)
            with contextlib.suppress(Contended):  # owed already, or being redone: either way recorded
                uow.commit()


def fitted(summary: str, messages: list[Message]) -> FittedSummary:
    """The model's summary of the topic of `messages` within the topic's budget (a longer one cut, and
    marked `summary_cut`), with its compression ratio."""
    return fit_summary(summary, sum(len(m.content) for m in messages))
