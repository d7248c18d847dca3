"""Extraction the person asks for now: the pair's owed work redone first, within its share of the
request's deadline (the extraction after it keeps its own time), then every un-extracted mid-term memory
distilled into long-term memory and core memory judged."""

from __future__ import annotations

from dataclasses import dataclass

from dreamchat.budget import RedoWindow, models_deadline, models_deadline_set
from dreamchat.domain.models import AIUser, PairId
from dreamchat.domain.owed import Healed
from dreamchat.services.healing import HealingService
from dreamchat.services.long_term import ExtractResult, LongTermService
from dreamchat.services.memory_repo import MemoryRepository


@dataclass(frozen=True)
class ExtractedNow:
    result: ExtractResult
    healed: list[Healed]  # the pair's owed work, redone before extracting
    still_owed: int  # of it, what is owed still: failed again, contended, or not started in time


class ExtractNowService:
    def __init__(self, healing: HealingService, extractor: LongTermService, repo: MemoryRepository) -> None:
        self._healing = healing
        self._extractor = extractor
        self._repo = repo

    def run(self, pair: PairId, ai_user: AIUser) -> ExtractedNow:
        request = models_deadline()  # set by RequestDeadline for every request
        if request is None:
            healed = self._healing.heal(pair, force=True)
        else:
            window = RedoWindow(request)
            with models_deadline_set(window.deadline):
                healed = self._healing.heal(pair, force=True, has_time=window.has_time)
        result = self._extractor.extract(pair, self._repo.zone(pair, ai_user), force=True)
        return ExtractedNow(result, healed, self._healing.owed_by(pair))
