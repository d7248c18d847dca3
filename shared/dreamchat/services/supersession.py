"""Facts that changed, at extraction: the pair's existing key points related to what is extracted
(found by the chat context's own hybrid search), shown to the model under short ids, and the
supersessions it proposes, checked and written onto the old entries in the new entry's transaction.

A proposal is trusted only when it names a point this run showed (the pair's own, still current, its
text unchanged since) and a key point of the new memory; anything else is dropped and counted.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from dreamchat.domain import supersession as sup
from dreamchat.domain.fact_slots import query_words
from dreamchat.domain.models import LongTermIndex, MidTermMemory
from dreamchat.domain.retrieval import Query, Unit, search
from dreamchat.llm.contracts import ExtractedMemory
from dreamchat.services.recall import RecallService
from dreamchat.services.storage.session import Versioned
from dreamchat.services.storage.unit_of_work import PairUnitOfWork

log = logging.getLogger(__name__)

RELATED_POINTS = 24  # existing key points shown to the extraction model per run
PER_MID = 8  # of them, the best matches of each mid-term memory first
MAX_ENTRIES = 4  # old entries one new memory may change: they share its transaction


@dataclass
class Supersessions:
    """What one extraction run made past: key points marked superseded, proposals dropped."""

    marked: int = 0
    dropped: int = 0
    refs: list[str] = field(default_factory=list)  # the old key points marked


class Superseder:
    def __init__(self, retriever: RecallService) -> None:
        self._retriever = retriever

    def related(
        self,
        uow: PairUnitOfWork,
        mids: list[MidTermMemory],
        redone: str | None = None,
        withheld: frozenset[str] = frozenset(),
    ) -> list[sup.RelatedPoint]:
        """The pair's current key points the mid-term memories are about, as the context would recall
        them for each summary (with the words of the slot it fills), best first; then the newest. For
        the redo of the entry `redone`: never its own points, and the points it alone made past are
        current again (the redo says anew what it replaces), except those `withheld` (the person
        undid the offline result's mark: their word stands)."""
        reads = uow.long_terms.all()
        entries = [read.entity for read in reads]
        if not entries or not mids:
            return []
        stored = {read.entity.id: uow.long_terms.vectors(read) for read in reads}
        prepared = self._retriever.prepare(uow.pair, entries, [], stored)
        past = {*sup.replacements([e for e in entries if e.id != redone]), *withheld}
        queries = [Query(" ".join(filter(None, [m.summary, query_words(m.summary)]))) for m in mids]
        vectors = self._retriever.embed([t for q in queries for t in q.texts], query=True)
        chosen: dict[str, Unit] = {}
        row = 0
        for query in queries:
            rows = None if vectors is None else vectors[row : row + len(query.texts)]
            row += len(query.texts)
            hits = search(prepared.index, Query(query.message, vectors=rows)) if prepared.index.units else []
            for unit in [h.unit for h in hits if h.unit.id not in past and h.unit.parent_id != redone][:PER_MID]:
                chosen.setdefault(unit.id, unit)
        for unit in (u for u in prepared.newest if u.id not in past and u.parent_id != redone):
            chosen.setdefault(unit.id, unit)
        units = list(chosen.values())[:RELATED_POINTS]
        return sup.shown([(u.id, u.text, u.created_at) for u in units])

    def mark(
        self,
        uow: PairUnitOfWork,
        shown: list[sup.RelatedPoint],
        memory: ExtractedMemory,
        entry: LongTermIndex,
        moved: dict[int, int] | None = None,
    ) -> Supersessions:
        """The old entries the new `entry` makes past, collected in the unit of work (committed with the
        entry, over the versions read now: a person's edit meanwhile fails the commit and wins). For a
        redone entry, `moved` (`renumbered`) says where its earlier key points went: the marks naming
        them follow them first (or go, with the point)."""
        found = sup.accepted([(s.id, s.key_point) for s in memory.supersedes], shown, len(entry.key_points))
        tally = Supersessions(dropped=found.dropped)
        if not found.kept and moved is None:
            return tally
        reads = {read.entity.id: read for read in uow.long_terms.all()}  # fresh: this run may have changed one
        changed = _followed(reads, entry.id, moved) if moved is not None else {}
        touched: set[str] = set()
        for point, number in found.kept:
            entry_id, old = sup.split_ref(point.ref) or ("", -1)
            current = changed.get(entry_id) or (reads[entry_id].entity if entry_id in reads else None)
            if not _still(current, old, point.text) or (entry_id not in touched and len(touched) == MAX_ENTRIES):
                tally.dropped += 1
                continue
            assert current is not None
            by = sup.point_ref(entry.id, number)
            changed[entry_id] = sup.superseding(current, old, by, sup.since(entry, number))
            touched.add(entry_id)
            tally.marked += 1
            tally.refs.append(point.ref)
        for entry_id, marked in changed.items():
            uow.long_terms.save(marked, reads[entry_id])
        if tally.dropped:
            log.info("supersessions dropped", extra={"entry": entry.id, "dropped": tally.dropped})
        return tally


def follow(uow: PairUnitOfWork, entry_id: str, moved: dict[int, int]) -> int:
    """After the key points of `entry_id` changed (`moved`: `renumbered`), the marks other entries hold
    naming them follow them (or go, with the point), collected in the unit of work over the versions
    read now; how many entries changed."""
    reads = {read.entity.id: read for read in uow.long_terms.all()}
    changed = _followed(reads, entry_id, moved)
    for other, entry in changed.items():
        uow.long_terms.save(entry, reads[other])
    return len(changed)


def _followed(
    reads: dict[str, Versioned[LongTermIndex]], entry_id: str, moved: dict[int, int]
) -> dict[str, LongTermIndex]:
    """The entries (other than `entry_id`) whose marks into `entry_id` change when its points move."""
    found = {}
    for other, read in reads.items():
        if other != entry_id and sup.points_into(read.entity, entry_id):
            followed = sup.repointed(read.entity, entry_id, moved)
            if followed.superseded != read.entity.superseded:
                found[other] = followed
    return found


def _still(entry: LongTermIndex | None, point: int, text: str) -> bool:
    """Whether the entry still holds the point as it was shown."""
    return entry is not None and point < len(entry.key_points) and entry.key_points[point] == text
