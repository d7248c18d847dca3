"""Core memory: the model proposes one from the long-term entries not judged yet, the rules decide
(`dreamchat.domain.core_memory.admission_problem`); each entry is judged once."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from dreamchat.domain.core_memory import Candidate, admission_problem
from dreamchat.domain.models import CoreMemory, PairId
from dreamchat.errors import Contended
from dreamchat.llm.memory_models import FallbackMemoryModels
from dreamchat.ports import Clock
from dreamchat.services.storage.unit_of_work import Storage


class CoreJudge:
    def __init__(self, storage: Storage, models: FallbackMemoryModels, clock: Clock) -> None:
        self._storage = storage
        self._models = models
        self._clock = clock

    def judge(self, pair: PairId, zone: str) -> list[CoreMemory]:
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
