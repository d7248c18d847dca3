"""Core memory: the model proposes one from the long-term entries not judged yet, the rules decide
(`dreamchat.domain.core_memory.admission_problem`); each entry is judged once, by a model that
answered: an offline entry waits until its extraction is redone, and an offline judgment (which
creates nothing) leaves the entries unjudged and the judgment owed."""

from __future__ import annotations

import contextlib
from zoneinfo import ZoneInfo

from dreamchat.domain.core_memory import Candidate, admission_problem, judged_against
from dreamchat.domain.models import CoreMemory, PairId
from dreamchat.domain.owed import Backoff
from dreamchat.errors import Contended
from dreamchat.llm.memory_models import FallbackMemoryModels
from dreamchat.ports import MAX_TRANSACTION_ITEMS, Clock
from dreamchat.services.storage.unit_of_work import PairUnitOfWork, Storage

# Entries judged in one call: their marks, the core memory made and the owed record are one transaction.
JUDGED_AT_ONCE = MAX_TRANSACTION_ITEMS - 2


class CoreJudgeService:
    def __init__(
        self, storage: Storage, models: FallbackMemoryModels, clock: Clock, backoff: Backoff | None = None
    ) -> None:
        self._storage = storage
        self._models = models
        self._clock = clock
        self._backoff = backoff or Backoff()

    def judge(self, pair: PairId, zone: str) -> list[CoreMemory]:
        """Let the model propose a core memory from unjudged long-term entries; the rules decide."""
        with self._storage.pair(pair) as uow:
            waiting = [e for e in uow.long_terms.unjudged() if not e.entity.degraded]
            unjudged, later = waiting[:JUDGED_AT_ONCE], waiting[JUDGED_AT_ONCE:]
            owed = uow.owed.get("judge_core")
            if not unjudged:
                if owed is not None:  # nothing left to judge (deleted, or judged meanwhile): nothing owed
                    uow.owed.paid(owed)
                    _commit_quietly(uow)
                return []
            existing = judged_against(uow.core.all())  # the relationship's history neither shown nor compared
            now = self._clock.now()
            items = [(e.entity.title, e.entity.key_points) for e in unjudged]
            result = self._models.judge_core(items, existing, now.astimezone(ZoneInfo(zone)))
            if result.degraded:  # nothing judged: the entries wait for the model
                if owed is None:
                    uow.owed.owe(self._backoff.first("judge_core", int(now.timestamp())))
                    _commit_quietly(uow)
                return []
            judgment = result.value
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
            if owed is not None and not later:
                uow.owed.paid(owed)
            elif owed is None and later:  # the rest judged when the healer comes back to it
                uow.owed.owe(self._backoff.first("judge_core", int(now.timestamp())))
            try:
                uow.commit()
            except Contended:
                created = []  # judged by a racing worker already, or changed: judged again next time
        return created


def _commit_quietly(uow: PairUnitOfWork) -> None:
    """Commit the owed record's change; a race meanwhile (another run recorded or paid it) is the same."""
    with contextlib.suppress(Contended):
        uow.commit()
