"""The four-level memory flow of one pair: record messages, end topics, compress, extract,
judge core memories, assemble the context and recall details on demand.

Background steps are idempotent: a `TopicEnded` delivered twice, or two workers racing,
store one mid-term memory; re-running extraction extracts nothing twice.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from dreamchat import keys
from dreamchat.config import Settings
from dreamchat.domain import topics
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
    Safety,
)
from dreamchat.domain.quotes import QUOTE_RANKS, RECALL_QUOTES, Quote, anchor, excerpt
from dreamchat.domain.retrieval import Hit, Scored, strong_matches
from dreamchat.domain.topics import Placement, TopicState
from dreamchat.llm.contracts import ExtractedMemory
from dreamchat.llm.memory_models import FallbackMemoryModels
from dreamchat.ports import (
    DUE_PK,
    DUE_SK,
    Clock,
    ConditionFailed,
    Event,
    EventBus,
    Item,
    Operation,
    Put,
    RandomSource,
)
from dreamchat.services.due_index import due_pages
from dreamchat.services.memory_repo import (
    MemoryRepository,
    PairSnapshot,
    item,
    to_model,
)
from dreamchat.services.recall import REFRESH_BATCH, Retriever, texts_of

log = logging.getLogger(__name__)

TOPIC_ENDED = "TopicEnded"
EXTRACT_DUE = "EXTRACT"
EXTRACT_BATCH = 20
COMPRESS_SAFETY_NET = timedelta(hours=1)  # an ended topic not compressed by then is compressed by the sweep
_APPEND_ATTEMPTS = 50
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
        safety: Safety | None = None,
    ) -> Message:
        """Store one message durably in the log and its topic; opens or closes topics as needed."""
        for _ in range(_APPEND_ATTEMPTS):
            now = self._clock.now()
            state, version = self.repo.topic_state(pair)
            last = self.repo.last_message(pair)
            fresh = topics.new_topic_id(now, self._random.random())
            placement = topics.place_message(
                state, last.timestamp if last else None, now, self._settings.topic_idle_hours, fresh
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
                safety=safety,
            )
            operations: list[Operation] = [*self.repo.message_puts(pair, message)]
            if placement.opens_topic:
                opened = TopicState(fresh, int(now.timestamp()))
                operations.append(self.repo.topic_state_put(pair, opened, version, self._idle_check(now)))
            if placement.closes_topic:
                operations.append(self.repo.pending_put(pair, placement.closes_topic, self._retry_check(now)))
            try:
                self.repo.store.transact(operations)
            except ConditionFailed:
                continue  # another message opened a topic first; place this one again
            self._announce(pair, placement)
            return message
        raise ConditionFailed("could not place the message after many concurrent attempts")

    def end_topic(self, pair: PairId, topic_id: str) -> bool:
        """Mark the topic ended and announce it; False if it was not the open topic."""
        state, version = self.repo.topic_state(pair)
        if state is None or state.topic_id != topic_id or state.ended:
            return False
        ended = TopicState(topic_id, state.created_at, True)
        pending = self.repo.pending_put(pair, topic_id, self._retry_check(self._clock.now()))
        try:
            self.repo.store.transact([self.repo.topic_state_put(pair, ended, version), pending])
        except ConditionFailed:
            return False
        self._bus.publish(topic_ended(pair, topic_id))
        return True

    def switch_topic(self, pair: PairId, message: Message) -> Message:
        """A semantic switch: the old topic ends without `message`, which opens the next topic."""
        state, version = self.repo.topic_state(pair)
        if state is None or state.topic_id != message.topic_id:
            return message
        now = self._clock.now()
        fresh = topics.new_topic_id(now, self._random.random())
        moved = message.model_copy(update={"topic_id": fresh})
        opened = TopicState(fresh, int(now.timestamp()))
        operations = [
            *self.repo.replace_message(pair, message, moved),
            self.repo.topic_state_put(pair, opened, version, self._idle_check(now)),
            self.repo.pending_put(pair, state.topic_id, self._retry_check(now)),
        ]
        try:
            self.repo.store.transact(operations)
        except ConditionFailed:
            return message
        self._bus.publish(topic_ended(pair, state.topic_id))
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
        state, version = self.repo.topic_state(pair)
        last = self.repo.last_message(pair)
        if state is None:
            return 0
        now = self._clock.now()
        if (
            not state.ended
            and last is not None
            and not topics.is_idle(last.timestamp, now, self._settings.topic_idle_hours)
        ):
            check = datetime.fromtimestamp(last.timestamp, UTC) + timedelta(hours=self._settings.topic_idle_hours)
            with suppress(ConditionFailed):  # a message or an ending changed the topic meanwhile
                self.repo.store.transact([self.repo.topic_state_put(pair, state, version, keys.due_time(check))])
            return 0
        if state.ended:  # ended some other way but still indexed: leave the index
            with suppress(ConditionFailed):
                self.repo.store.transact([self.repo.topic_state_put(pair, state, version)])
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
        stored = self.repo.store.put_if_absent(self._mid_item(pair, mid))
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
        state, _ = self.repo.topic_state(pair)
        if state is not None and not state.ended and self.repo.short_term(pair, state.topic_id):
            self._close_if_open(pair, state.topic_id)
        return self.repo.short_term_topics(pair)

    def _close_if_open(self, pair: PairId, topic_id: str) -> None:
        state, version = self.repo.topic_state(pair)
        if state is not None and state.topic_id == topic_id and not state.ended:
            # If someone else changed the topic meanwhile, this topic is closed either way.
            with suppress(ConditionFailed):
                self.repo.store.transact(
                    [self.repo.topic_state_put(pair, TopicState(topic_id, state.created_at, True), version)]
                )

    def _mid_item(self, pair: PairId, mid: MidTermMemory) -> Item:
        due = datetime.fromtimestamp(mid.created_at, UTC)
        return item(
            keys.pair_pk(pair),
            keys.mid_term(mid.topic_id),
            {
                **mid.model_dump(),
                **self.retriever.vectors_for(texts_of(mid.model_dump())),
                "version": 1,
                DUE_PK: keys.due_partition(EXTRACT_DUE, keys.shard(pair)),
                DUE_SK: keys.due_sort(keys.due_time(due), keys.pair_pk(pair), mid.id),
            },
        )

    # mid-term -> long-term -> core

    def extract(self, pair: PairId, zone: str, *, force: bool = False) -> ExtractResult:
        """Distil mid-term memories older than the threshold (all of them when forced)."""
        now = self._clock.now()
        cutoff = now.timestamp() if force else (now - timedelta(hours=self._settings.extract_after_hours)).timestamp()
        pending = [
            i for i in self.repo.mid_term_items(pair) if not i.get("extracted_to_long") and i["created_at"] <= cutoff
        ][:EXTRACT_BATCH]
        result = ExtractResult()
        if pending:
            mids = [to_model(MidTermMemory, i) for i in pending]
            output = self._models.extract(mids, now.astimezone(ZoneInfo(zone)))
            result.degraded = output.degraded
            by_id = {i["id"]: i for i in pending}
            for memory in output.value.memories:
                stored = self._store_long(pair, memory, by_id, zone, output.degraded)
                if stored is not None:
                    result.long_term.append(stored)
            result.considered, result.extracted = len(pending), len(pending) - len(by_id)
            self._mark_extracted(pair, [i for i in pending if i["id"] in by_id])
        result.core = self.judge_core(pair, zone)
        self.refresh_vectors(pair)
        return result

    def _store_long(
        self, pair: PairId, memory: ExtractedMemory, by_id: dict[str, Item], zone: str, degraded: bool
    ) -> LongTermIndex | None:
        sources = [by_id[i] for i in dict.fromkeys(memory.source_mid_ids) if i in by_id][:24]
        if not sources:
            return None
        first, last = min(s["created_at"] for s in sources), max(s["created_at"] for s in sources)
        digest = hashlib.sha256("|".join(sorted(s["id"] for s in sources)).encode()).hexdigest()[:8]
        long_id = f"long_{first:010d}_{digest}"
        tz = ZoneInfo(zone)
        date = datetime.fromtimestamp(first, tz).strftime("%Y-%m-%d")
        blob_key = self._detail_key(pair, date, memory.title, digest, [s["id"] for s in sources])
        tags = next((s.get("emotion_tags") for s in sources if s.get("emotion_tags")), None)
        detail = LongTermDetail(
            title=memory.title,
            detail_content=memory.detail_content,
            emotion_tags=tags,
            source_mid_ids=[s["id"] for s in sources],
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
            sources=self._anchors(pair, memory.key_points, sources),
        )
        fields = {
            **index.model_dump(),
            **self.retriever.vectors_for(texts_of(index.model_dump())),
            "core_judged": False,
            "version": 1,  # a person's edit, a re-embedding and the core judge never overwrite each other
        }
        operations = [Put(item(keys.pair_pk(pair), keys.long_term(long_id), fields), if_absent=True)]
        operations += [Put(_extracted(s), expected_version=s["version"]) for s in sources]
        try:
            self.repo.store.transact(operations)
        except ConditionFailed:
            log.info("long-term entry already stored or its sources changed; next sweep retries")
            return None
        finally:
            for s in sources:  # stored, or left for the next sweep: either way not a leftover
                by_id.pop(s["id"], None)
        return index

    def _anchors(self, pair: PairId, points: list[str], sources: list[Item]) -> list[str]:
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

    def _mark_extracted(self, pair: PairId, leftovers: list[Item]) -> None:
        """Mid-term memories the model folded into nothing have still been considered."""
        for start in range(0, len(leftovers), 25):
            batch = leftovers[start : start + 25]
            try:
                self.repo.store.transact([Put(_extracted(s), expected_version=s["version"]) for s in batch])
            except ConditionFailed:
                log.info("mid-term memories changed during extraction; next sweep retries")

    def judge_core(self, pair: PairId, zone: str) -> list[CoreMemory]:
        """Let the model propose a core memory from unjudged long-term entries; the rules decide."""
        unjudged = [i for i in self.repo.long_index_items(pair) if i.get("core_judged") is False]
        if not unjudged:
            return []
        existing = self.repo.core(pair)
        now = self._clock.now()
        items = [(i["title"], i["key_points"]) for i in unjudged]
        judgment = self._models.judge_core(items, existing, now.astimezone(ZoneInfo(zone))).value
        candidate = Candidate(judgment.create, judgment.content.strip(), judgment.importance)
        created: list[CoreMemory] = []
        operations: list[Operation] = []
        if admission_problem(candidate, existing, now, zone) is None:
            memory = CoreMemory(
                id=f"core_{unjudged[0]['id'].removeprefix('long_')}",
                content=candidate.content[:500],
                importance=candidate.importance,
                category=judgment.category[:40] or "其他",
                created_at=int(now.timestamp()),
                source="ai",
            )
            operations.append(self.repo.core_put(pair, memory))
            created.append(memory)
        operations += [self._judged(i) for i in unjudged]
        for start in range(0, len(operations), 25):
            try:
                self.repo.store.transact(operations[start : start + 25])
            except ConditionFailed:
                created = []  # this batch was judged by a racing worker already
        return created

    def _judged(self, read: Item) -> Put:
        """The entry marked judged, written only over the version judged; an entry stored before
        entries had versions gets its first, unless it was edited or deleted meanwhile (an edit
        gives it one). Either way a change meanwhile fails the batch, judged again next time."""
        if "version" in read:
            return Put({**read, "core_judged": True, "version": read["version"] + 1}, expected_version=read["version"])
        return Put({**read, "core_judged": True, "version": 1}, if_unversioned=True)

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
        stale = [
            i for i in self.repo.mid_term_items(pair) + self.repo.long_index_items(pair) if self.retriever.stale(i)
        ]
        done, budget = 0, REFRESH_BATCH
        for found in stale:
            texts = texts_of(found)
            budget -= len(texts)
            if budget < 0:
                break
            fields = self.retriever.vectors_for(texts)
            if not fields:
                break  # the embedder is down: the next write tries again
            done += self._save_vectors(found, fields)
        return done

    def _save_vectors(self, found: Item, fields: Item) -> int:
        if "version" in found:  # mid-term items are versioned: a concurrent edit wins
            try:
                self.repo.store.put_versioned({**found, **fields}, found["version"])
            except ConditionFailed:
                return 0
            return 1
        try:  # stored before items had versions: its first, unless deleted or edited meanwhile
            self.repo.store.transact([Put({**found, **fields, "version": 1}, if_unversioned=True)])
        except ConditionFailed:
            return 0
        return 1


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


def _extracted(source: Item) -> Item:
    cleaned = {k: v for k, v in source.items() if k not in (DUE_PK, DUE_SK)}
    return {**cleaned, "extracted_to_long": True, "version": source["version"] + 1}


def pair_of(event: Event) -> tuple[PairId, str]:
    """The pair and topic a `TopicEnded` event names."""
    detail = event.detail
    return PairId(account_id=detail["account_id"], ai_user_id=detail["ai_user_id"]), detail["topic_id"]
