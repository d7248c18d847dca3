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
from dreamchat.services.core_judgment import CoreJudge
from dreamchat.services.memory_repo import MemoryRepository, new_detail, settle_detail
from dreamchat.services.quality import QualityService
from dreamchat.services.storage.session import Versioned
from dreamchat.services.storage.unit_of_work import PairUnitOfWork, Storage
from dreamchat.services.supersession import MAX_ENTRIES, Superseder
from dreamchat.services.vectors import VectorRefresh

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


def safe_title(title: str) -> str:
    """A title made safe for a file name: letters, digits, CJK, '-' and '_' only, at most 40 chars."""
    return _UNSAFE.sub("_", title).strip("_")[:40] or "memory"


class Extractor:
    def __init__(
        self,
        repo: MemoryRepository,
        storage: Storage,
        models: FallbackMemoryModels,
        core: CoreJudge,
        vectors: VectorRefresh,
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
                shown = self._superseder.related(uow, [m.entity for m in pending])
                output = self._models.extract([m.entity for m in pending], now.astimezone(ZoneInfo(zone)), shown)
                result.degraded = output.degraded
                by_id = {m.entity.id: m for m in pending}
                for memory in output.value.memories:
                    stored = self._store_long(uow, memory, by_id, zone, output.degraded, shown, result)
                    if stored is not None:
                        result.long_term.append(stored)
                result.considered, result.extracted = len(pending), len(pending) - len(by_id)
                # the ones the model folded into nothing have still been considered (offline: tried again)
                leftovers = [m for m in pending if m.entity.id in by_id and not output.degraded]
                self._commit_extracted(uow, leftovers, "mid-term memories changed during extraction")
        result.core = self._core.judge(pair, zone)
        self._vectors.refresh(pair)
        self._quality.after_extraction(pair, result.considered, result.extracted, result.long_term)
        return result

    def _store_long(
        self,
        uow: PairUnitOfWork,
        memory: ExtractedMemory,
        by_id: dict[str, Versioned[MidTermMemory]],
        zone: str,
        degraded: bool,
        shown: list[RelatedPoint],
        result: ExtractResult,
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
        detail_file = self._detail_file(pair, date, memory.title, digest, long_id)
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
            detail_file=detail_file,
            created_at=first,
            time_precision="month" if last - first > 31 * 86400 else "day",
            degraded=degraded,
            sources=self._anchors(pair, memory.key_points, mids),
        )
        vectors = self._vectors.retriever.vectors(vec.embedded_texts(index))
        index = new_detail(self.repo, pair, index, detail)  # before the commit: an edit after it keeps theirs
        stored = False
        try:
            uow.long_terms.add(index, vectors)
            made_past = self._superseder.mark(uow, shown, memory, index)
            owed = self._owed(long_id, mids, made_past.refs) if degraded else None
            stored = self._commit_extracted(uow, sources, "long-term entry already stored or its sources changed", owed)
        finally:  # lost (or erased meanwhile): the document goes too
            settle_detail(self.repo, pair, index, None, stored)
        result.superseded += made_past.marked if stored else 0
        result.supersessions_dropped += made_past.dropped
        for m in mids:  # stored, or left for the next sweep: either way not a leftover
            by_id.pop(m.id, None)
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


def owed_mids(uow: PairUnitOfWork) -> set[str]:
    """The pair's mid-term memories whose compression or extraction is owed work."""
    owed = uow.owed.all()
    return {o.entity.subject for o in owed if o.entity.kind == "compress"} | {
        mid for o in owed if o.entity.kind == "extract" for mid in o.entity.sources
    }
