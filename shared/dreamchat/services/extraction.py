"""Extraction fans out like heartbeats: the sweep leases every pair whose mid-term memories
are past the threshold and sends one work item per pair; a worker extracts one pair under a
lease, so the work scales with workers, not with one function's 15 minutes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from dreamchat import keys
from dreamchat.config import Settings
from dreamchat.domain.owed import Healed
from dreamchat.events import ExtractionDue
from dreamchat.ports import Clock, Item, WorkQueue
from dreamchat.services.due_index import due_pages, leased
from dreamchat.services.healing import HealingService
from dreamchat.services.leases import LeaseService
from dreamchat.services.long_term import ExtractResult, LongTermService
from dreamchat.services.storage.unit_of_work import Storage
from dreamchat.services.zones import zone_of

log = logging.getLogger(__name__)


@dataclass
class ExtractSweep:
    pairs: int = 0
    reads: int = 0
    owed: int = 0  # degraded results owed (every pair's), after this sweep
    healing: int = 0  # of them, those whose back-off passed: their pairs were sent


@dataclass
class ExtractOutcome:
    status: str  # extracted | duplicate | abandoned, or not finished: leased
    result: ExtractResult | None = None
    healed: list[Healed] = field(default_factory=list)  # the pair's owed work redone first

    @property
    def finished(self) -> bool:
        return self.status != "leased"


class ExtractionService:
    def __init__(
        self,
        storage: Storage,
        extractor: LongTermService,
        healing: HealingService,
        leases: LeaseService,
        queue: WorkQueue,
        clock: Clock,
        settings: Settings,
    ) -> None:
        self._storage = storage
        self._extractor = extractor
        self._healing = healing
        self._leases = leases
        self._queue = queue
        self._clock = clock
        self._settings = settings

    def sweep(self) -> ExtractSweep:
        """One work item per pair with mid-term memories past the threshold; reads only the due index.
        Each due entry is leased (moved on), so the next sweeps skip the pair while it is in flight."""
        result = ExtractSweep()
        until = self._leases.until()
        threshold = timedelta(hours=self._settings.extract_after_hours)
        sent: set[str] = set()
        pages = due_pages(self._storage, keys.EXTRACT_DUE_KIND, keys.due_until(self._clock.now() - threshold))
        for items in leased(pages, lambda found: self._lease(found, until, threshold)):
            result.reads += 1
            self._send(items, until, sent)
        owed = due_pages(self._storage, keys.HEAL_DUE_KIND, keys.due_until(self._clock.now()))
        for items in leased(owed, lambda found: self._lease_owed(found, until)):
            result.reads += 1
            result.healing += len(items)
            self._send(items, until, sent)
        result.pairs = len(sent)
        result.owed = self._healing.owed()
        return result

    def _send(self, items: list[Item], until: int, sent: set[str]) -> None:
        """One work item per pair not sent yet this sweep."""
        fresh = [pk for pk in dict.fromkeys(found["pk"] for found in items) if pk not in sent]
        if fresh:
            self._queue.send([self._work(pk, until).detail() for pk in fresh])
        sent.update(fresh)

    def run(self, work: ExtractionDue, has_time: Callable[[], bool] = lambda: True) -> ExtractOutcome:
        """Extract one pair once per sweep round, after redoing the owed work `has_time()` leaves room
        for; a run that died is retried after its lease."""
        pair = work.pair
        claim = self._leases.claim(*keys.extraction_run(pair, str(work.lease)))
        if claim.status == "done":
            return ExtractOutcome("duplicate")
        if claim.status == "held":
            return ExtractOutcome("leased")
        if claim.status == "exhausted":  # the memories stay due: a later sweep starts a new round
            self._leases.finish(claim)
            log.warning("extraction abandoned", extra={"ai_user_id": pair.ai_user_id, "attempts": claim.attempt})
            return ExtractOutcome("abandoned")
        try:
            healed = self._healing.heal(pair, has_time=has_time)  # first: a redone summary may be due
            result = self._extractor.extract(pair, zone_of(self._storage, pair, self._settings.timezone))
        except Exception:
            self._leases.release(claim)  # not finished: the queue delivers it again
            raise
        self._leases.finish(claim)
        return ExtractOutcome("extracted", result, healed)

    def _lease(self, found: Item, until: int, threshold: timedelta) -> bool:
        """Move a mid-term memory's due entry to when the lease ends; False if it changed meanwhile."""
        again = datetime.fromtimestamp(until, UTC) - threshold
        with self._storage.pair(keys.pair_from_pk(found["pk"])) as uow:
            uow.mid_terms.lease(found, keys.due_time(again))
            return uow.committed()

    def _lease_owed(self, found: Item, until: int) -> bool:
        """Move owed work's due entry to when the lease ends; False if it changed meanwhile."""
        with self._storage.pair(keys.pair_from_pk(found["pk"])) as uow:
            uow.owed.lease(found, until)
            return uow.committed()

    @staticmethod
    def _work(pk: str, until: int) -> ExtractionDue:
        pair = keys.pair_from_pk(pk)
        return ExtractionDue(pair.account_id, pair.ai_user_id, until)
