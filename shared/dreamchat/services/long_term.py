"""Mid-term to long-term: the mid-term memories past the threshold are distilled into long-term
entries (the index in the table, the detail document in the blob store), each key point anchored to
the message it came from; then core memory is judged. Re-running extracts nothing twice.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from dreamchat.config import Settings
from dreamchat.domain import vectors as vec
from dreamchat.domain.models import CoreMemory, LongTermDetail, LongTermIndex, MidTermMemory, PairId
from dreamchat.domain.owed import OwedWork
from dreamchat.domain.quotes import anchor
from dreamchat.domain.supersession import RelatedPoint
from dreamchat.errors import Contended
from dreamchat.llm.contracts import ExtractedMemory
from dreamchat.llm.memory_models import FallbackMemoryModels
from dreamchat.ports import MAX_TRANSACTION_ITEMS, Clock
from dreamchat.services.core_judgment import CoreJudgeService
from dreamchat.services.memory_repo import MemoryRepository, new_detail, settle_detail
from dreamchat.services.quality import QualityService
from dreamchat.services.storage.session import Versioned
from dreamchat.services.storage.unit_of_work import PairUnitOfWork, Storage
from dreamchat.services.supersession import MAX_ENTRIES, Superseder
from dreamchat.services.vectors import VectorService

log = logging.getLogger(__name__)

EXTRACT_BATCH = 20
# the entry, its sources' flags and the old entries it makes past, in one transaction
_MAX_SOURCES = MAX_TRANSACTION_ITEMS - 1 - MAX_ENTRIES
_UNSAFE = re.compile(r"[^\w\u4e00-\u9fff\-]+")


@dataclass
class ExtractResult:
    long_term: list[LongTermIndex] = field(default_factory=list)
    core: list[CoreMemory] = field(default_factory=list)
    degraded: bool = False
    considered: int = 0  # mid-term memories this run looked at
    extracted: int = 0  # of them, those that went into a long-term memory (the spec's 提炼率)
    superseded: int = 0  # existing key points the new memories made past
    supersessions_dropped: int = 0  # the model's proposals that named no point it was shown (never trusted)


@dataclass
class _Batch:
    """What the commits of one batch's memories share."""

    uow: PairUnitOfWork
    zone: str
    degraded: bool
    shown: list[RelatedPoint]
    result: ExtractResult
    stored: set[str]  # the pair's long-term ids: an entry stored before is not stored twice


def safe_title(title: str) -> str:
    """A title made safe for a file name: letters, digits, CJK, '-' and '_' only, at most 40 chars."""
    return _UNSAFE.sub("_", title).strip("_")[:40] or "memory"


class LongTermService:
    def __init__(
        self,
        repo: MemoryRepository,
        storage: Storage,
        models: FallbackMemoryModels,
        core: CoreJudgeService,
        vectors: VectorService,
        quality: QualityService,
        clock: Clock,
        settings: Settings,
    ) -> None:
        self.repo = repo
        self._storage = storage
        self._models = models
        self._core = core
        self._vectors = vectors
        self._superseder = Superseder(vectors.retriever)
        self._quality = quality
        self._clock = clock
        self._settings = settings

    def extract(self, pair: PairId, zone: str, *, force: bool = False) -> ExtractResult:
        """Distil mid-term memories older than the threshold (all of them when forced) into long-term
        ones, then judge core memory; the run's quality figures are recorded."""
        now = self._clock.now()
        cutoff = now.timestamp() if force else (now - timedelta(hours=self._settings.extract_after_hours)).timestamp()
        result = ExtractResult()
        with self._storage.pair(pair) as uow:
            owed = owed_mids(uow)  # their compression, or the extraction they went into, is redone first
            pending = [
                m
                for m in uow.mid_terms.all()
                if not m.entity.extracted_to_long and m.entity.created_at <= cutoff and m.entity.id not in owed
            ][:EXTRACT_BATCH]
            if pending:
                self._distil(uow, pending, now.astimezone(ZoneInfo(zone)), zone, result)
        result.core = self._core.judge(pair, zone)
        self._vectors.refresh(pair)
        self._quality.after_extraction(pair, result.considered, result.extracted, result.long_term)
        return result

    def _distil(
        self,
        uow: PairUnitOfWork,
        pending: list[Versioned[MidTermMemory]],
        local: datetime,
        zone: str,
        result: ExtractResult,
    ) -> None:
        """The model's memories of the batch stored, every one of them. A summary its answer left out is
        not dropped: its offline extraction is stored, degraded and owed (after a degraded answer nothing
        was left out: they wait for the next sweep)."""
        shown = self._superseder.related(uow, [m.entity for m in pending])
        output = self._models.extract([m.entity for m in pending], local, shown)
        result.degraded = output.degraded
        stored = {read.entity.id for read in uow.long_terms.all()}
        cited = self._store_all(
            _Batch(uow, zone, output.degraded, shown, result, stored), output.value.memories, pending
        )
        result.considered, result.extracted = len(pending), len(cited)
        left_out = [m for m in pending if m.entity.id not in cited and not output.degraded]
        if left_out:
            fallback = self._models.extract_offline([m.entity for m in left_out], local)
            self._store_all(_Batch(uow, zone, True, [], result, stored), fallback.value.memories, left_out)

    def _store_all(
        self, batch: _Batch, memories: list[ExtractedMemory], pending: list[Versioned[MidTermMemory]]
    ) -> set[str]:
        """Every memory stored, one commit each; the ids of the mid-term memories they cite. A source
        is flagged in the commit of the last memory citing it, so it leaves the due index only once
        every memory drawn from it is stored (one that lost its race leaves it due for the next sweep)."""
        by_id = {m.entity.id: m for m in pending}
        cited = [[by_id[i] for i in dict.fromkeys(m.source_mid_ids) if i in by_id][:_MAX_SOURCES] for m in memories]
        last = {source.entity.id: n for n, sources in enumerate(cited) for source in sources}
        lost: set[str] = set()
        for n, (memory, sources) in enumerate(zip(memories, cited, strict=True)):
            done = [s for s in sources if last[s.entity.id] == n and s.entity.id not in lost]
            stored = self._store_long(batch, memory, sources, done) if sources else None
            if stored is None:
                lost.update(s.entity.id for s in sources)
            elif stored.id not in batch.stored:
                batch.stored.add(stored.id)
                batch.result.long_term.append(stored)
        return set(last)

    def _store_long(
        self,
        batch: _Batch,
        memory: ExtractedMemory,
        sources: list[Versioned[MidTermMemory]],
        done: list[Versioned[MidTermMemory]],
    ) -> LongTermIndex | None:
        """One memory's entry, its detail document and the old entries it makes past, committed with the
        flags of `done` (the sources no later memory cites); None when it lost its race. An entry stored
        already (by a run that stopped before flagging its sources) is not stored again: only its flags."""
        uow, mids = batch.uow, [s.entity for s in sources]
        first, last = min(m.created_at for m in mids), max(m.created_at for m in mids)
        digest = _digest(memory, mids)
        long_id = f"long_{first:010d}_{digest}"
        if long_id in batch.stored:  # never a degraded one: an offline memory is stored with its flags
            entry = next(read.entity for read in uow.long_terms.all() if read.entity.id == long_id)
            return entry if self._commit_extracted(uow, done, "sources changed during extraction") else None
        date = datetime.fromtimestamp(first, ZoneInfo(batch.zone)).strftime("%Y-%m-%d")
        detail = LongTermDetail(
            title=memory.title,
            detail_content=memory.detail_content,
            emotion_tags=mids[0].emotion_tags,
            source_mid_ids=[m.id for m in mids],
        )
        index = LongTermIndex(
            id=long_id,
            title=memory.title,
            key_points=memory.key_points,
            detail_file=self._detail_file(uow.pair, date, memory.title, digest, long_id),
            created_at=first,
            time_precision="month" if last - first > 31 * 86400 else "day",
            degraded=batch.degraded,
            sources=self._anchors(uow.pair, memory.key_points, mids),
            emotion_tags=mids[0].emotion_tags,
        )
        vectors = self._vectors.retriever.vectors(vec.embedded_texts(index))
        index = new_detail(self.repo, uow.pair, index, detail)  # before the commit: an edit after it keeps theirs
        stored = False
        try:
            uow.long_terms.add(index, vectors)
            made_past = self._superseder.mark(uow, batch.shown, memory, index)
            owed = self._owed(long_id, mids, made_past.refs) if batch.degraded else None
            stored = self._commit_extracted(uow, done, "long-term entry already stored or its sources changed", owed)
        finally:  # lost (or erased meanwhile): the document goes too
            settle_detail(self.repo, uow.pair, index, None, stored)
        batch.result.superseded += made_past.marked if stored else 0
        batch.result.supersessions_dropped += made_past.dropped
        return index if stored else None

    def _owed(self, long_id: str, mids: list[MidTermMemory], made_past: list[str]) -> OwedWork:
        """The redo an offline entry is owed: its sources extracted again, the entry replaced in place."""
        now = int(self._clock.now().timestamp())
        return self._settings.heal_backoff.first("extract", now, long_id, tuple(m.id for m in mids), tuple(made_past))

    def _anchors(self, pair: PairId, points: list[str], sources: list[MidTermMemory]) -> list[str]:
        """Per key point, the message of the source topics it was drawn from ("" when none)."""
        messages = [m for s in sources for m in self.repo.log.topic_messages(pair, s)]
        return anchor(points, [(m.id, m.content) for m in messages]) if messages else []

    def _detail_file(self, pair: PairId, date: str, title: str, digest: str, long_id: str) -> str:
        """`<date>_<title>.json`; another memory with the same date and title gets the digest appended."""
        name = f"{date}_{safe_title(title)}.json"
        if any(e.detail_file == name and e.id != long_id for e in self.repo.long_index(pair)):
            return f"{date}_{safe_title(title)}_{digest}.json"
        return name

    def _commit_extracted(
        self, uow: PairUnitOfWork, sources: list[Versioned[MidTermMemory]], lost: str, owed: OwedWork | None = None
    ) -> bool:
        """The sources flagged extracted (out of the due index), committed with what else was collected;
        False when something changed meanwhile (nothing written: the next sweep tries again). From a
        degraded result they are not flagged: the extraction is `owed` work, redone later."""
        for source in sources:
            uow.mid_terms.extracted(source, degraded=owed is not None)
        if owed is not None:
            uow.owed.owe(owed)
        try:
            uow.commit()
        except Contended:
            log.info("%s; next sweep retries", lost)
            return False
        return True


def _digest(memory: ExtractedMemory, mids: list[MidTermMemory]) -> str:
    """What names an entry: its sources and what it says (several memories may share their sources)."""
    said = "\n".join([memory.title, *memory.key_points])
    return hashlib.sha256("|".join([*sorted(m.id for m in mids), said]).encode()).hexdigest()[:8]


def owed_mids(uow: PairUnitOfWork) -> set[str]:
    """The pair's mid-term memories whose compression or extraction is owed work."""
    owed = uow.owed.all()
    return {o.entity.subject for o in owed if o.entity.kind == "compress"} | {
        mid for o in owed if o.entity.kind == "extract" for mid in o.entity.sources
    }
