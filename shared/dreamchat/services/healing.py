"""Healing: work owed for a degraded result (the model kept failing, the offline answer was stored)
is redone once the model answers again, replacing the offline result.

The extraction sweep reads the due index `HEAL#<shard>` beside `EXTRACT#<shard>` and sends the pair to
a worker, which heals before it extracts (`ExtractionService.run`); `POST /api/memory/{id}/extract`
heals the pair at once. Each attempt is counted on the record first (and the next one backed off,
`dreamchat.domain.owed.Backoff`), so of two healers one wins and a run that dies leaves it owed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from dreamchat import keys
from dreamchat.config import Settings
from dreamchat.domain.models import PairId
from dreamchat.domain.owed import OWED_ORDER, Healed, OwedWork, RedoOutcome
from dreamchat.errors import Contended, NotFound
from dreamchat.ports import Clock
from dreamchat.services.ai_users import AIUserService
from dreamchat.services.core_judgment import CoreJudgeService
from dreamchat.services.due_index import due_pages
from dreamchat.services.memory_repo import MemoryRepository
from dreamchat.services.redo import RedoService
from dreamchat.services.soul import SoulService
from dreamchat.services.storage.guard import Gone
from dreamchat.services.storage.session import Versioned
from dreamchat.services.storage.unit_of_work import Storage
from dreamchat.services.zones import zone_of

log = logging.getLogger(__name__)
EVERYTHING = "~"  # above every due time: a due query that reads the whole index of a kind


class HealingService:
    def __init__(
        self,
        repo: MemoryRepository,
        storage: Storage,
        redo: RedoService,
        core: CoreJudgeService,
        soul: SoulService,
        ai_users: AIUserService,
        clock: Clock,
        settings: Settings,
        media: Callable[[PairId, Versioned[OwedWork]], RedoOutcome] = lambda pair, owed: "degraded",
    ) -> None:
        self._media = media  # a voice note's or photo's words (`MediaRedoService.redo`)
        self._repo = repo
        self._storage = storage
        self._redo = redo
        self._core = core
        self._soul = soul
        self._ai_users = ai_users
        self._clock = clock
        self._settings = settings

    def heal(self, pair: PairId, *, force: bool = False, has_time: Callable[[], bool] = lambda: True) -> list[Healed]:
        """Redo the pair's owed work whose back-off has passed (all of it when `force`d), summaries
        before what is extracted from them, and the long-term entries before the core judgment, while
        `has_time()` says another redo fits (the rest stays due for the next sweep)."""
        pair, now = self._storage.live(pair), self._now()
        with self._storage.pair(pair) as uow:
            owed = [read for read in uow.owed.all() if force or read.entity.due_at <= now]
        owed.sort(key=lambda read: OWED_ORDER.index(read.entity.kind))
        zone = zone_of(self._storage, pair, self._settings.timezone)
        done: list[Healed] = []
        try:
            for read in owed:
                if not has_time():
                    break
                taken = self._attempt(pair, read, now)
                outcome = self._run(pair, taken, zone, has_time) if taken is not None else "contended"
                done.append(Healed(read.entity.kind, read.entity.subject, outcome))
        except Gone:  # the pair was erased meanwhile: nothing is owed any more
            return done
        if done:
            log.info("healed", extra={"ai_user_id": pair.ai_user_id, "redone": len(done)})
        return done

    def owed(self) -> int:
        """How many degraded results are owed now, every pair's (the `DegradedOwed` metric)."""
        return sum(len(page.items) for page in due_pages(self._storage, keys.HEAL_DUE_KIND, EVERYTHING))

    def owed_by(self, pair: PairId) -> int:
        """How many of the pair's results are owed now (a redo not started for lack of time stays owed)."""
        with self._storage.pair(self._storage.live(pair)) as uow:
            return len(uow.owed.all())

    def _attempt(self, pair: PairId, read: Versioned[OwedWork], now: int) -> Versioned[OwedWork] | None:
        """The attempt counted and the next one backed off before the work starts (None: another healer has it)."""
        with self._storage.pair(pair) as uow:
            taken = uow.owed.save(self._settings.heal_backoff.attempted(read.entity, now), read)
            try:
                uow.commit()
            except Contended:
                return None
        return taken

    def _run(self, pair: PairId, taken: Versioned[OwedWork], zone: str, has_time: Callable[[], bool]) -> RedoOutcome:
        kind = taken.entity.kind
        if kind == "media":
            return self._media(pair, taken)
        if kind == "embed":
            return self._redo.embed(pair, taken, has_time)
        if kind == "compress":
            return self._redo.compress(pair, taken, zone)
        if kind == "extract":
            return self._redo.extract(pair, taken, zone)
        if kind == "judge_core":
            self._core.judge(pair, zone)  # pays the record unless the model failed again
            return "degraded" if self._still_owed(pair, taken) else "healed"
        return self._soul_work(pair, taken)

    def _soul_work(self, pair: PairId, taken: Versioned[OwedWork]) -> RedoOutcome:
        """A reflection or relationship judgment made now, unless one was made (or the person set the
        level) since the offline one: then it is moot."""
        try:
            ai_user = self._ai_users.visible(pair.account_id, pair.ai_user_id)
        except NotFound:
            return self._pay(pair, taken, "cancelled")
        if taken.entity.kind == "reflect":
            if self._repo.self_soul(pair).updated_at > taken.entity.since:
                return self._pay(pair, taken, "cancelled")
            degraded = self._soul.reflect(pair, ai_user).degraded
        else:
            if self._repo.relationship(pair).updated_at > taken.entity.since:
                return self._pay(pair, taken, "cancelled")
            degraded = self._soul.judge_relationship(pair, ai_user)[2]
        return "degraded" if degraded else self._pay(pair, taken, "healed")

    def _pay(self, pair: PairId, taken: Versioned[OwedWork], outcome: RedoOutcome) -> RedoOutcome:
        with self._storage.pair(pair) as uow:
            uow.owed.paid(taken)
            try:
                uow.commit()
            except Contended:
                return "contended"
        return outcome

    def _still_owed(self, pair: PairId, taken: Versioned[OwedWork]) -> bool:
        with self._storage.pair(pair) as uow:
            return uow.owed.get(taken.entity.kind, taken.entity.subject) is not None

    def _now(self) -> int:
        return int(self._clock.now().timestamp())
