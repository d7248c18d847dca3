"""Owed compressions and extractions redone: the model's answer replaces the offline result in place
(same ids, over the versions read), or the redo is cancelled when a person's edit or deletion made
the memory theirs. Nothing is added beside what it replaces, so nothing is counted twice. An import's
owed vectors are made the same way, a call's worth of memories at a time."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from zoneinfo import ZoneInfo

from dreamchat.domain import supersession as sup
from dreamchat.domain import vectors as vec
from dreamchat.domain.models import Conversation, LongTermDetail, MidTermMemory, PairId
from dreamchat.domain.owed import OwedWork, RedoOutcome
from dreamchat.domain.quotes import anchor
from dreamchat.errors import Contended
from dreamchat.llm.contracts import ExtractedMemory
from dreamchat.llm.memory_models import FallbackMemoryModels
from dreamchat.ports import Clock
from dreamchat.services.compression import fitted
from dreamchat.services.memory_repo import MemoryRepository, new_detail, settle_detail
from dreamchat.services.storage.session import Versioned
from dreamchat.services.storage.unit_of_work import PairUnitOfWork, Storage
from dreamchat.services.supersession import Superseder
from dreamchat.services.vectors import VectorService


class RedoService:
    def __init__(
        self,
        repo: MemoryRepository,
        storage: Storage,
        models: FallbackMemoryModels,
        vectors: VectorService,
        clock: Clock,
    ) -> None:
        self._repo = repo
        self._storage = storage
        self._models = models
        self._vectors = vectors
        self._clock = clock
        self._superseder = Superseder(vectors.retriever)

    def compress(self, pair: PairId, owed: Versioned[OwedWork], zone: str) -> RedoOutcome:
        """The topic summarised again from its messages in the log; then it is due for extraction."""
        with self._storage.pair(pair) as uow:
            read = next((m for m in uow.mid_terms.all() if m.entity.id == owed.entity.subject), None)
            uow.owed.paid(owed)
            if read is None:  # the person deleted it
                return _commit(uow, "cancelled")
            mid = read.entity
            messages = self._repo.log.topic_messages(pair, mid) if mid.degraded else []
            if not messages:  # the person's edit made it theirs (or its messages are gone): it stands
                uow.mid_terms.redone(mid, read, None)
                return _commit(uow, "cancelled")
            conversations = [Conversation(role=m.role, content=m.content, timestamp=m.timestamp) for m in messages]
            result = self._models.compress(conversations, self._local_now(zone))
            if result.degraded:
                return "degraded"
            summary = fitted(result.value.summary, messages)
            update = {
                "summary": summary.summary,
                "emotion_tags": result.value.emotion_tags,
                "compression_ratio": summary.compression_ratio,
                "summary_cut": summary.cut,
            }
            healed = mid.model_copy(update={"degraded": False, **update})
            uow.mid_terms.redone(healed, read, self._vectors.retriever.vectors(vec.embedded_texts(healed)))
            return _commit(uow, "healed")

    def embed(self, pair: PairId, owed: Versioned[OwedWork], has_time: Callable[[], bool]) -> RedoOutcome:
        """Vectors for every memory of the pair that lacks them, made while `has_time()`: paid once none
        does. A run that made some but not all (time ran out) leaves the rest due again at once, without
        the back-off (it progressed); one that made none (the embedder failed) is backed off."""
        made, missing = self._vectors.complete(pair, has_time=has_time)
        if missing and not made:
            return "degraded"
        with self._storage.pair(pair) as uow:
            if missing:
                now = int(self._clock.now().timestamp())
                uow.owed.save(owed.entity.model_copy(update={"attempts": 0, "due_at": now}), owed)
                return _commit(uow, "degraded")
            uow.owed.paid(owed)
            return _commit(uow, "healed")

    def extract(self, pair: PairId, owed: Versioned[OwedWork], zone: str) -> RedoOutcome:
        """The entry's sources extracted again; the answer replaces the entry (and its detail document)
        in place (its document stored first, under a new revision: an edit committed after the redo's
        commit keeps theirs), and only then are the sources flagged extracted. The model is shown the related key
        points as a fresh extraction is, and the ones it names are marked past in the same commit;
        marks naming the entry's earlier key points follow their text (or go, with the point)."""
        work = owed.entity
        with self._storage.pair(pair) as uow:
            entry = next((e for e in uow.long_terms.all() if e.entity.id == work.subject), None)
            sources = [m for m in uow.mid_terms.all() if m.entity.id in work.sources and not m.entity.extracted_to_long]
            for source in sources:
                uow.mid_terms.extracted(source)
            uow.owed.paid(owed)
            if entry is None or not entry.entity.degraded or not sources:
                # the person deleted or edited what came of them (their version stands), or they are gone
                return _commit(uow, "cancelled")
            mids = [m.entity for m in sources]
            undone = set(work.made_past) - sup.marked_by([e.entity for e in uow.long_terms.all()], entry.entity.id)
            shown = self._superseder.related(uow, mids, redone=entry.entity.id, withheld=frozenset(undone))
            output = self._models.extract(mids, self._local_now(zone), shown)
            if output.degraded or not output.value.memories:
                return "degraded"
            memory = merged(output.value.memories, {m.id for m in mids})
            points = memory.key_points
            healed = entry.entity.model_copy(
                update={
                    "title": memory.title,
                    "key_points": points,
                    "degraded": False,
                    "sources": self._anchors(pair, points, mids),
                    "superseded": sup.carried(entry.entity, points),
                }
            )
            vectors = self._vectors.retriever.vectors(vec.embedded_texts(healed))
            detail = LongTermDetail(
                title=memory.title,
                detail_content=memory.detail_content,
                emotion_tags=mids[0].emotion_tags,
                source_mid_ids=[m.id for m in mids],
            )
            healed = new_detail(self._repo, pair, healed, detail)  # before the commit: the winner's is current
            outcome: RedoOutcome = "contended"
            try:
                uow.long_terms.save(healed, entry, vectors)
                self._superseder.mark(uow, shown, memory, healed, sup.renumbered(entry.entity.key_points, points))
                outcome = _commit(uow, "healed")
            finally:  # lost (or erased meanwhile): its document goes; won: the one it replaced
                settle_detail(self._repo, pair, healed, entry.entity, outcome == "healed")
        return outcome

    def _anchors(self, pair: PairId, points: list[str], sources: list[MidTermMemory]) -> list[str]:
        messages = [m for s in sources for m in self._repo.log.topic_messages(pair, s)]
        return anchor(points, [(m.id, m.content) for m in messages]) if messages else []

    def _local_now(self, zone: str) -> datetime:
        return self._clock.now().astimezone(ZoneInfo(zone))


def merged(memories: list[ExtractedMemory], known: set[str]) -> ExtractedMemory:
    """One entry from what the model extracted of its sources: the memories citing them (all, if none
    does), their key points once each, the points they replace renumbered as the merged key points."""
    cited = [m for m in memories if known & set(m.source_mid_ids)] or memories
    points = list(dict.fromkeys(point for m in cited for point in m.key_points))
    supersedes = [
        s.model_copy(update={"key_point": points.index(m.key_points[s.key_point])})
        for m in cited
        for s in m.supersedes
        if 0 <= s.key_point < len(m.key_points)
    ]
    return ExtractedMemory.model_construct(
        title=cited[0].title,
        key_points=points,
        detail_content="\n\n".join(m.detail_content for m in cited if m.detail_content),
        source_mid_ids=sorted(known),
        supersedes=supersedes,
    )


def _commit(uow: PairUnitOfWork, outcome: RedoOutcome) -> RedoOutcome:
    try:
        uow.commit()
    except Contended:  # changed meanwhile (an edit, a racing redo): nothing written, tried again later
        return "contended"
    return outcome
