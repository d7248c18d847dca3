"""The four-level memory flow of one pair: record messages, end topics, compress, extract,
judge core memories, assemble the context and recall details on demand.

Background steps are idempotent: a `TopicEnded` delivered twice, or two workers racing,
store one mid-term memory; re-running extraction extracts nothing twice.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable, Iterator
from contextlib import suppress
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from functools import partial
from zoneinfo import ZoneInfo

from dreamchat import keys
from dreamchat.config import Settings
from dreamchat.domain import topics
from dreamchat.domain import vectors as vec
from dreamchat.domain.context import Context, MemoryView, assemble
from dreamchat.domain.core_memory import Candidate, admission_problem
from dreamchat.domain.ids import message_id
from dreamchat.domain.models import (
    AIUser,
    Conversation,
    CoreMemory,
    LongTermDetail,
    LongTermIndex,
    Message,
    MessageKind,
    MidTermMemory,
    PairId,
    Role,
)
from dreamchat.domain.quotes import QUOTE_RANKS, RECALL_QUOTES, Quote, anchor, excerpt
from dreamchat.domain.retrieval import Hit, Scored, strong_matches
from dreamchat.domain.topics import Placement, TopicState
from dreamchat.errors import Contended
from dreamchat.llm.contracts import ExtractedMemory
from dreamchat.llm.memory_models import FallbackMemoryModels
from dreamchat.ports import MAX_TRANSACTION_ITEMS, Clock, Event, EventBus, RandomSource
from dreamchat.services.due_index import due_pages
from dreamchat.services.memory_repo import MemoryRepository, PairSnapshot
from dreamchat.services.recall import REFRESH_BATCH, Retriever
from dreamchat.services.storage.memory import Embedded
from dreamchat.services.storage.session import Versioned
from dreamchat.services.storage.unit_of_work import PairUnitOfWork, Storage

log = logging.getLogger(__name__)

TOPIC_ENDED = "TopicEnded"
EXTRACT_DUE = keys.EXTRACT_DUE
EXTRACT_BATCH = 20
COMPRESS_SAFETY_NET = timedelta(hours=1)  # an ended topic not compressed by then is compressed by the sweep
_APPEND_ATTEMPTS = 50
_MAX_SOURCES = MAX_TRANSACTION_ITEMS - 1  # the entry and its sources' flags in one transaction
_UNSAFE = re.compile(r"[^\w\u4e00-\u9fff\-]+")


def topic_ended(pair: PairId, topic_id: str) -> Event:
    return Event(TOPIC_ENDED, {"account_id": pair.account_id, "ai_user_id": pair.ai_user_id, "topic_id": topic_id})


@dataclass
class ExtractResult:
    long_term: list[LongTermIndex] = field(default_factory=list)
    core: list[CoreMemory] = field(default_factory=list)
    degraded: bool = False
    considered: int = 0  # mid-term memories this run looked at
    extracted: int = 0  # of them, those that went into a long-term memory (the spec's 提炼率)


class MemoryService:
    def __init__(
        self,
        repo: MemoryRepository,
        bus: EventBus,
        clock: Clock,
        random: RandomSource,
        models: FallbackMemoryModels,
        settings: Settings,
        retriever: Retriever,
    ) -> None:
        self.repo = repo
        self.retriever = retriever
        self._storage = Storage(repo.store)
        self._bus = bus
        self._clock = clock
        self._random = random
        self._models = models
        self._settings = settings

    # short-term

    def record(
        self,
        pair: PairId,
        role: Role,
        content: str,
        *,
        kind: MessageKind = "chat",
        after: str | None = None,
        delay_ms: int = 0,
        reasoning: str = "",
    ) -> Message:
        """Store one message durably in the log and its topic; opens or closes topics as needed."""
        for _ in range(_APPEND_ATTEMPTS):
            with self._storage.pair(pair) as uow:
                now = self._clock.now()
                read = uow.topic.get()
                last = self.repo.last_message(pair)
                fresh = topics.new_topic_id(now, self._random.random())
                placement = topics.place_message(
                    read.entity if read else None,
                    last.timestamp if last else None,
                    now,
                    self._settings.topic_idle_hours,
                    fresh,
                )
                previous = max(filter(None, [after, last.id if last else None]), default=None)
                message = Message(
                    id=message_id(now, self._random.random(), previous),
                    role=role,
                    content=content,
                    timestamp=int(now.timestamp()),
                    topic_id=placement.topic_id,
                    kind=kind,
                    delay_ms=delay_ms,
                    reasoning=reasoning,
                )
                uow.messages.add(message)
                if placement.opens_topic:
                    uow.topic.save(TopicState(fresh, int(now.timestamp())), read, self._idle_check(now))
                if placement.closes_topic:
                    uow.pending.add(placement.closes_topic, self._retry_check(now))
                try:
                    uow.commit()
                except Contended:
                    continue  # another message opened a topic first; place this one again
            self._announce(pair, placement)
            return message
        raise Contended("could not place the message after many concurrent attempts")

    def update_message(self, pair: PairId, message: Message) -> None:
        """Store a recorded message again, changed (read without a reply, its reasoning)."""
        with self._storage.pair(pair) as uow:
            uow.messages.add(message)
            uow.commit()

    def end_topic(self, pair: PairId, topic_id: str) -> bool:
        """Mark the topic ended and announce it; False if it was not the open topic."""
        with self._storage.pair(pair) as uow:
            read = uow.topic.get()
            if read is None or read.entity.topic_id != topic_id or read.entity.ended:
                return False
            uow.topic.save(replace(read.entity, ended=True), read)
            uow.pending.add(topic_id, self._retry_check(self._clock.now()))
            try:
                uow.commit()
            except Contended:
                return False
        self._bus.publish(topic_ended(pair, topic_id))
        return True

    def switch_topic(self, pair: PairId, message: Message) -> Message:
        """A semantic switch: the old topic ends without `message`, which opens the next topic."""
        with self._storage.pair(pair) as uow:
            read = uow.topic.get()
            if read is None or read.entity.topic_id != message.topic_id:
                return message
            now = self._clock.now()
            fresh = topics.new_topic_id(now, self._random.random())
            moved = message.model_copy(update={"topic_id": fresh})
            uow.messages.move(message, moved)
            uow.topic.save(TopicState(fresh, int(now.timestamp())), read, self._idle_check(now))
            uow.pending.add(read.entity.topic_id, self._retry_check(now))
            try:
                uow.commit()
            except Contended:
                return message
        self._bus.publish(topic_ended(pair, read.entity.topic_id))
        return moved

    def close_idle_topics(self) -> int:
        """End open topics nobody wrote to for TOPIC_IDLE_HOURS, so they are compressed without
        waiting for the next message. Reads only the due index; how many topics it ended."""
        ended = 0
        for page in due_pages(self.repo.store, keys.TOPIC_DUE, keys.due_until(self._clock.now())):
            for found in page.items:
                ended += self._check_idle(keys.pair_from_pk(found["pk"]))
        return ended

    def _check_idle(self, pair: PairId) -> int:
        """End the pair's topic if idle; else move its check to when it would be."""
        with self._storage.pair(pair) as uow:
            read = uow.topic.get()
            last = self.repo.last_message(pair)
            if read is None:
                return 0
            state, now = read.entity, self._clock.now()
            if (
                not state.ended
                and last is not None
                and not topics.is_idle(last.timestamp, now, self._settings.topic_idle_hours)
            ):
                check = datetime.fromtimestamp(last.timestamp, UTC) + timedelta(hours=self._settings.topic_idle_hours)
                uow.topic.save(state, read, keys.due_time(check))
                with suppress(Contended):  # a message or an ending changed the topic meanwhile
                    uow.commit()
                return 0
            if state.ended:  # ended some other way but still indexed: leave the index
                uow.topic.save(state, read)
                with suppress(Contended):
                    uow.commit()
                return 0
        return int(self.end_topic(pair, state.topic_id))

    def leftovers(self) -> Iterator[tuple[PairId, str]]:
        """Ended topics whose TopicEnded was lost (their marker is over an hour old), to compress."""
        for page in due_pages(self.repo.store, keys.COMPRESS_DUE, keys.due_until(self._clock.now())):
            for found in page.items:
                yield keys.pair_from_pk(found["pk"]), found["topic_id"]

    def _retry_check(self, now: datetime) -> str:
        return keys.due_time(now + COMPRESS_SAFETY_NET)

    def _idle_check(self, now: datetime) -> str:
        return keys.due_time(now + timedelta(hours=self._settings.topic_idle_hours))

    def _local_now(self, pair: PairId) -> datetime:
        """Now in the pair's time zone, so prompts show the person's local time."""
        return self._clock.now().astimezone(ZoneInfo(self.repo.zone_of(pair, self._settings.timezone)))

    def _announce(self, pair: PairId, placement: Placement) -> None:
        if placement.closes_topic:
            self._bus.publish(topic_ended(pair, placement.closes_topic))

    # short-term -> mid-term

    def compress(self, pair: PairId, topic_id: str) -> MidTermMemory | None:
        """Summarise an ended topic into one mid-term memory, then clear exactly its messages."""
        return self.compress_once(pair, topic_id)[0]

    def compress_once(self, pair: PairId, topic_id: str) -> tuple[MidTermMemory | None, bool]:
        """`compress`, and whether this call stored the memory: of two compressing one topic at
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
        self._close_if_open(pair, topic_id)
        messages = self.repo.short_term(pair, topic_id)
        conversations = [Conversation(role=m.role, content=m.content, timestamp=m.timestamp) for m in messages]
        result = self._models.compress(conversations, self._local_now(pair))
        mid = MidTermMemory(
            id=f"mid_{topic_id.removeprefix('topic_')}",
            topic_id=topic_id,
            summary=result.value.summary,
            emotion_tags=result.value.emotion_tags,
            message_count=len(messages),
            created_at=messages[-1].timestamp - messages[-1].timestamp % 3600,
            compression_ratio=compression_ratio(result.value.summary, messages),
            degraded=result.degraded,
            first_message_id=messages[0].id,
            last_message_id=messages[-1].id,
        )
        with self._storage.pair(pair) as uow:
            uow.mid_terms.add(mid, self.retriever.vectors(vec.embedded_texts(mid)))
            try:
                uow.commit()
                stored = True
            except Contended:  # another delivery, or a compress-now, stored it first
                stored = False
        if not stored:
            mid = self.repo.mid_term(pair, topic_id) or mid
        self.repo.clear_short_term(pair, messages)
        self.repo.pending_done(pair, topic_id)
        log.info("compressed topic", extra={"topic_id": topic_id, "degraded": mid.degraded})
        self.refresh_vectors(pair)
        return mid, stored

    def compress_now(self, pair: PairId) -> list[MidTermMemory]:
        """End the open topic and compress every topic still in short-term (the memory alone; the
        product's paths go through `Services.compress_now`, which also records and reflects)."""
        produced = [self.compress(pair, topic_id) for topic_id in self.end_topic_now(pair)]
        return [mid for mid in produced if mid is not None]

    def end_topic_now(self, pair: PairId) -> list[str]:
        """End the open topic; every topic still in short-term, to compress now."""
        state = self.repo.topic_state(pair)
        if state is not None and not state.ended and self.repo.short_term(pair, state.topic_id):
            self._close_if_open(pair, state.topic_id)
        return self.repo.short_term_topics(pair)

    def _close_if_open(self, pair: PairId, topic_id: str) -> None:
        with self._storage.pair(pair) as uow:
            read = uow.topic.get()
            if read is not None and read.entity.topic_id == topic_id and not read.entity.ended:
                uow.topic.save(replace(read.entity, ended=True), read)
                with suppress(Contended):  # someone else changed the topic meanwhile: closed either way
                    uow.commit()

    # mid-term -> long-term -> core

    def extract(self, pair: PairId, zone: str, *, force: bool = False) -> ExtractResult:
        """Distil mid-term memories older than the threshold (all of them when forced)."""
        now = self._clock.now()
        cutoff = now.timestamp() if force else (now - timedelta(hours=self._settings.extract_after_hours)).timestamp()
        result = ExtractResult()
        with self._storage.pair(pair) as uow:
            pending = [
                m for m in uow.mid_terms.all() if not m.entity.extracted_to_long and m.entity.created_at <= cutoff
            ][:EXTRACT_BATCH]
            if pending:
                output = self._models.extract([m.entity for m in pending], now.astimezone(ZoneInfo(zone)))
                result.degraded = output.degraded
                by_id = {m.entity.id: m for m in pending}
                for memory in output.value.memories:
                    stored = self._store_long(uow, memory, by_id, zone, output.degraded)
                    if stored is not None:
                        result.long_term.append(stored)
                result.considered, result.extracted = len(pending), len(pending) - len(by_id)
                self._mark_extracted(uow, [m for m in pending if m.entity.id in by_id])
        result.core = self.judge_core(pair, zone)
        self.refresh_vectors(pair)
        return result

    def _store_long(
        self,
        uow: PairUnitOfWork,
        memory: ExtractedMemory,
        by_id: dict[str, Versioned[MidTermMemory]],
        zone: str,
        degraded: bool,
    ) -> LongTermIndex | None:
        sources = [by_id[i] for i in dict.fromkeys(memory.source_mid_ids) if i in by_id][:_MAX_SOURCES]
        if not sources:
            return None
        pair, mids = uow.pair, [s.entity for s in sources]
        first, last = min(m.created_at for m in mids), max(m.created_at for m in mids)
        digest = hashlib.sha256("|".join(sorted(m.id for m in mids)).encode()).hexdigest()[:8]
        long_id = f"long_{first:010d}_{digest}"
        tz = ZoneInfo(zone)
        date = datetime.fromtimestamp(first, tz).strftime("%Y-%m-%d")
        blob_key = self._detail_key(pair, date, memory.title, digest, [m.id for m in mids])
        detail = LongTermDetail(
            title=memory.title,
            detail_content=memory.detail_content,
            emotion_tags=mids[0].emotion_tags,
            source_mid_ids=[m.id for m in mids],
        )
        self.repo.put_detail(pair, blob_key, detail)  # the document first: an index never points at nothing
        index = LongTermIndex(
            id=long_id,
            title=memory.title,
            key_points=memory.key_points,
            detail_file=blob_key.rsplit("/", 1)[-1],
            created_at=first,
            time_precision="month" if last - first > 31 * 86400 else "day",
            degraded=degraded,
            sources=self._anchors(pair, memory.key_points, mids),
        )
        uow.long_terms.add(index, self.retriever.vectors(vec.embedded_texts(index)))
        for source in sources:
            uow.mid_terms.extracted(source)
        try:
            uow.commit()
        except Contended:
            log.info("long-term entry already stored or its sources changed; next sweep retries")
            return None
        finally:
            for m in mids:  # stored, or left for the next sweep: either way not a leftover
                by_id.pop(m.id, None)
        return index

    def _anchors(self, pair: PairId, points: list[str], sources: list[MidTermMemory]) -> list[str]:
        """Per key point, the message of the source topics it was drawn from ("" when none)."""
        messages = [m for s in sources for m in self.repo.topic_messages(pair, s)]
        return anchor(points, [(m.id, m.content) for m in messages]) if messages else []

    def _detail_key(self, pair: PairId, date: str, title: str, digest: str, sources: list[str]) -> str:
        """`<date>_<title>.json`; another memory with the same date and title gets the digest appended."""
        key = keys.detail_blob(pair, date, safe_title(title))
        taken = self.repo.blobs.get(key)
        if taken is not None and LongTermDetail.model_validate_json(taken).source_mid_ids != sources:
            return keys.detail_blob(pair, date, f"{safe_title(title)}_{digest}")
        return key

    def _mark_extracted(self, uow: PairUnitOfWork, leftovers: list[Versioned[MidTermMemory]]) -> None:
        """Mid-term memories the model folded into nothing have still been considered."""
        for mid in leftovers:
            uow.mid_terms.extracted(mid)
        try:
            uow.commit()
        except Contended:
            log.info("mid-term memories changed during extraction; next sweep retries")

    def judge_core(self, pair: PairId, zone: str) -> list[CoreMemory]:
        """Let the model propose a core memory from unjudged long-term entries; the rules decide."""
        with self._storage.pair(pair) as uow:
            unjudged = uow.long_terms.unjudged()
            if not unjudged:
                return []
            existing = uow.core.all()
            now = self._clock.now()
            items = [(e.entity.title, e.entity.key_points) for e in unjudged]
            judgment = self._models.judge_core(items, existing, now.astimezone(ZoneInfo(zone))).value
            candidate = Candidate(judgment.create, judgment.content.strip(), judgment.importance)
            created: list[CoreMemory] = []
            if admission_problem(candidate, existing, now, zone) is None:
                memory = CoreMemory(
                    id=f"core_{unjudged[0].entity.id.removeprefix('long_')}",
                    content=candidate.content[:500],
                    importance=candidate.importance,
                    category=judgment.category[:40] or "其他",
                    created_at=int(now.timestamp()),
                    source="ai",
                )
                uow.core.add(memory)
                created.append(memory)
            for entry in unjudged:  # over the version judged: an edit or a deletion meanwhile fails it
                uow.long_terms.judged(entry)
            try:
                uow.commit()
            except Contended:
                created = []  # judged by a racing worker already, or changed: judged again next time
        return created

    # context and retrieval

    def context(
        self,
        pair: PairId,
        ai_user: AIUser,
        current: str | None,
        instructions: str,
        exclude_message: str | None = None,
        snapshot: PairSnapshot | None = None,
    ) -> Context:
        snapshot = snapshot or self.repo.snapshot(pair)
        short_term = [m for m in self.repo.short_term(pair) if m.id != exclude_message]
        recent = "\n".join(m.content for m in short_term[-2:])
        found = self.retriever.find(pair, snapshot.long_index, snapshot.mids, snapshot.vectors, current or "", recent)
        details = self._details(pair, current or "", found.hits, snapshot.long_index)
        quotes = self._quotes(pair, current or "", found.hits)
        view = MemoryView(
            ai_user.base_soul,
            snapshot.self_soul.self_soul,
            snapshot.core,
            snapshot.mids,
            found.hits,
            found.units,
            details,
            short_term,
            self.repo.about_person(pair.account_id),
            quotes,
        )
        return assemble(
            view,
            instructions,
            current,
            self._clock.now(),
            ai_user.timezone,
            self._settings.memory_tokens,
            self._settings.recent_memory_tokens,
        )

    def _details(self, pair: PairId, query: str, hits: list[Hit], entries: list[LongTermIndex]) -> list[LongTermDetail]:
        """Detail documents of the memories the message names outright (at most two)."""
        by_id = {e.id: e for e in entries}
        best = list(dict.fromkeys(h.unit.parent_id for h in hits[:10] if h.relevant and h.unit.parent_id in by_id))
        ranked = [Scored(by_id[p], 1.0) for p in best]
        return [d for s in strong_matches(query, ranked) if (d := self.repo.detail(pair, s.entry.detail_file))]

    def _quotes(self, pair: PairId, query: str, hits: list[Hit]) -> list[Quote]:
        """What was said behind the best QUOTE_RANKS hits that share a rare word with the message: one
        read of the log per message (a message the person deleted is never shown)."""
        quotes: list[Quote] = []
        for unit in (h.unit for h in hits[:QUOTE_RANKS] if h.relevant):
            if not unit.source or any(q.message_id == unit.source for q in quotes):
                continue
            message = self.repo.message(pair, unit.source)
            if message is not None:
                text = excerpt(message.content, query, unit.text)
                quotes.append(Quote(message.id, message.role, message.timestamp, text))
        return quotes

    def recall(self, pair: PairId, query: str, limit: int = 3) -> list[Recalled]:
        """The detail documents of the memories that best match the query (the recall_memory tool), the
        same hybrid search as the context, each with what was said behind its two best key points."""
        snapshot = self.repo.snapshot(pair)
        by_id = {e.id: e for e in snapshot.long_index}
        found = self.retriever.find(pair, snapshot.long_index, [], snapshot.vectors, query)
        relevant = [h for h in found.hits if h.relevant and h.unit.parent_id in by_id]
        recalled = []
        for parent in list(dict.fromkeys(h.unit.parent_id for h in relevant))[:limit]:
            detail = self.repo.detail(pair, by_id[parent].detail_file)
            if detail is not None:
                own = [h for h in relevant if h.unit.parent_id == parent][:RECALL_QUOTES]
                recalled.append(Recalled(detail, self._quotes(pair, query, own)))
        return recalled

    def refresh_vectors(self, pair: PairId) -> int:
        """Make the vectors that are missing or stale (a new embedding model, an edited memory), a batch
        at a time; how many memories got new vectors. A failing embedder changes nothing."""
        if not self.retriever.embedder.name:
            return 0
        done, budget = 0, REFRESH_BATCH
        with self._storage.pair(pair) as uow:
            for texts, save in [*self._stale(uow.mid_terms), *self._stale(uow.long_terms)]:
                budget -= len(texts)
                if budget < 0:
                    break
                vectors = self.retriever.vectors(texts)
                if vectors is None:
                    break  # the embedder is down: the next write tries again
                save(vectors)
                with suppress(Contended):  # over the version read: an edit meanwhile wins
                    uow.commit()
                    done += 1
        return done

    def _stale[E: (LongTermIndex, MidTermMemory)](
        self, tier: Embedded[E]
    ) -> list[tuple[list[str], Callable[[vec.StoredVectors], None]]]:
        """The texts of each memory of the tier whose vectors are missing or stale, and how to save new ones."""
        found = [(vec.embedded_texts(read.entity), read) for read in tier.all()]
        return [
            (texts, partial(tier.set_vectors, read))
            for texts, read in found
            if self.retriever.outdated(texts, tier.vectors(read))
        ]


@dataclass(frozen=True)
class Recalled:
    """A memory recalled on demand: its detail document and the words said behind it."""

    detail: LongTermDetail
    said: list[Quote]


def compression_ratio(summary: str, messages: list[Message]) -> float:
    """1 - summary characters / topic characters (the spec's 压缩率)."""
    original = sum(len(m.content) for m in messages)
    return round(1 - len(summary) / original, 4) if original else 0.0


def safe_title(title: str) -> str:
    """A title made safe for a file name: letters, digits, CJK, '-' and '_' only, at most 40 chars."""
    return _UNSAFE.sub("_", title).strip("_")[:40] or "memory"


def pair_of(event: Event) -> tuple[PairId, str]:
    """The pair and topic a `TopicEnded` event names."""
    detail = event.detail
    return PairId(account_id=detail["account_id"], ai_user_id=detail["ai_user_id"]), detail["topic_id"]
