"""The unit of work: repositories collect writes, `commit()` sends them as one transaction.

    with storage.pair(pair) as uow:
        read = uow.heartbeat.get()
        uow.heartbeat.save(decide(read.entity), read, indexed=...)
        uow.commit()

A write over a version that changed meanwhile (or a new item that exists by then) fails the
commit with `Contended` and writes nothing; the caller reads again or gives up. Leaving the
`with` block without a commit drops what was collected.

A pair's unit of work also checks, in every transaction, that the pair is still in the generation
it was seen in (`PairId.generation`, the version of the AI user's record of the pair): a write
computed before the person forgot the pair and befriended the AI user again fails with `Gone`.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from types import TracebackType
from typing import Self

from dreamchat import keys
from dreamchat.domain.models import PairId
from dreamchat.errors import Contended
from dreamchat.ports import MAX_TRANSACTION_ITEMS, BlobStore, Check, ConditionFailed, ItemStore, Put
from dreamchat.services.storage import (
    account,
    media,
    memory,
    moderation,
    owed,
    pair,
    reads,
    records,
    replacement,
    schedule,
)
from dreamchat.services.storage.guard import Gone
from dreamchat.services.storage.session import Session

# How many times a unit of work whose commit lost a race (`Contended`) is read, decided and
# committed again before the loss is the caller's: the one retry limit of the library. Enough for
# every writer of one item racing at once (the most: a topic's messages, appended by parallel turns).
CONFLICT_ATTEMPTS = 50


def retry_on_conflict[T](work: Callable[[], T], attempts: int = CONFLICT_ATTEMPTS) -> T:
    """Run `work` (read, decide, commit one unit of work) until its commit does not lose a race;
    after `attempts` losses the last `Contended` is raised. `work` must start from a fresh read."""
    for _ in range(attempts - 1):
        try:
            return work()
        except Contended:
            continue
    return work()


class UnitOfWork:
    """What is not one pair's: AI users, accounts, token families, leases, limits, tombstones, and
    what an account keeps beside its pairs (`account`)."""

    def __init__(self, store: ItemStore) -> None:
        self._session = session = Session(store)
        self.ai_users = records.AIUsers(session)
        self.accounts = records.Accounts(session)
        self.tokens = records.TokenFamilies(session)
        self.claims = records.Claims(session)
        self.limits = records.RateWindows(session)
        self.usage = records.UsageSessions(session)
        self.tombstones = records.Tombstones(session)
        self.about = account.AboutMe(session)
        self.protections = account.Protections(session)
        self.conversation_time = account.ConversationTimes(session)
        self.locales = account.Choice(session, keys.person_locale, "locale")
        self.zones = account.Choice(session, keys.person_zone, "timezone")
        self.nicknames = account.Choice(session, keys.person_nickname, "nickname")
        self.push_devices = account.PushDevices(session)
        self.push_switches = account.PushSwitches(session)
        self.presences = account.Presences(session)
        self.idempotency = account.IdempotencyKeys(session)
        self.due = schedule.DueIndex(session)
        self.heartbeat_prefs = schedule.HeartbeatPrefs(session)
        self.memory = reads.MemoryReads(session)
        self.log = reads.ConversationLog(session)
        self.reports = moderation.Reports(session)
        self.escalations = moderation.Escalations(session)
        self.audit = moderation.AuditLog(session)
        self.crisis_counts = moderation.CrisisCounts(session)
        self.rating_counts = moderation.RatingCounts(session)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.rollback()

    def commit(self) -> None:
        """Send the collected writes as one transaction (all or nothing): Contended when it lost its
        race. More writes than one transaction holds (MAX_TRANSACTION_ITEMS) are refused (ValueError),
        nothing sent; work that truly needs that many says so with `commit_in_parts`."""
        self._deliver(whole=True)

    def commit_in_parts(self) -> None:
        """Send the collected writes in transactions of at most MAX_TRANSACTION_ITEMS writes: each part
        is all or nothing, the whole is not (a part may land while another loses its race). Every part
        is tried; Contended when any lost. For work that is safe to repeat: imports, erasure, replacement."""
        self._deliver(whole=False)

    def committed(self) -> bool:
        """`commit`, answering whether every write landed: False when one lost its race (Contended)."""
        try:
            self.commit()
        except Contended:
            return False
        return True

    def _deliver(self, *, whole: bool) -> None:
        if whole:
            self._refuse_more_than_one_transaction()
        self._send([])

    def _refuse_more_than_one_transaction(self) -> None:
        count = len(self._session.writes)
        if count > MAX_TRANSACTION_ITEMS:
            self.rollback()
            raise ValueError(
                f"{count} writes cannot be one transaction (at most {MAX_TRANSACTION_ITEMS}); use commit_in_parts"
            )

    def _send(self, checks: list[Check]) -> None:
        writes, self._session.writes = self._session.writes, []
        lost = 0
        for start in range(0, len(writes), MAX_TRANSACTION_ITEMS):
            try:
                self._session.store.transact([*writes[start : start + MAX_TRANSACTION_ITEMS], *checks])
            except ConditionFailed:
                lost += 1
        if lost:
            raise Contended("what was read changed before it was written; try again")

    def rollback(self) -> None:
        self._session.writes = []


class PairUnitOfWork(UnitOfWork):
    """Every tier of one companion pair (and all a unit of work holds besides)."""

    def __init__(self, store: ItemStore, pair_id: PairId) -> None:
        super().__init__(store)
        session = self._session
        self.pair = pair_id if pair_id.generation is not None else live(store, pair_id)
        pair_id = self.pair
        self.topic = memory.TopicStates(session, pair_id)
        self.pending = memory.PendingCompressions(session, pair_id)
        self.messages = memory.Messages(session, pair_id)
        self.mid_terms = memory.MidTerms(session, pair_id)
        self.long_terms = memory.LongTerms(session, pair_id)
        self.core = memory.CoreMemories(session, pair_id)
        self.self_soul = pair.SelfSouls(session, pair_id)
        self.relationship = pair.Relationships(session, pair_id)
        self.heartbeat = pair.Heartbeats(session, pair_id)
        self.friendship = pair.Friendships(session, pair_id)
        self.quality = pair.Qualities(session, pair_id)
        self.owed = owed.OwedWorks(session, pair_id)
        self.media = media.MediaItems(session, pair_id)

    def _deliver(self, *, whole: bool) -> None:
        """As `UnitOfWork`'s, each transaction also checking the pair's generation: Gone when the pair
        was forgotten (and perhaps befriended again) since it was seen."""
        if whole:
            self._refuse_more_than_one_transaction()
        checks = self._generation_check()
        try:
            self._send(checks)
        except Contended:
            if checks and live(self._session.store, self.pair).generation != self.pair.generation:
                raise Gone("this friendship was forgotten since this work began") from None
            raise

    def _generation_check(self) -> list[Check]:
        generation, member = self.pair.generation, keys.pair_member(self.pair.ai_user_id, self.pair.account_id)
        touched = {(w.item["pk"], w.item["sk"]) if isinstance(w, Put) else (w.pk, w.sk) for w in self._session.writes}
        if generation is None or member in touched or not self._session.writes:
            return []  # a record stored before generations; or this is the write that starts one
        return [Check(*member, expected_version=generation)]


class Storage:
    """Where services get their units of work (one store, built once with the services)."""

    def __init__(self, store: ItemStore) -> None:
        self.store = store

    def pair(self, pair_id: PairId) -> PairUnitOfWork:
        return PairUnitOfWork(self.store, pair_id)

    def begin(self) -> UnitOfWork:
        return UnitOfWork(self.store)

    def erase(self, pk: str, *also: tuple[str, str]) -> int:
        """Delete a whole partition and the single items `also` names, at once and not as one unit of
        work (an erasure may be larger than a transaction; it is safe to repeat). How many."""
        return account.erase(self.store, pk, also)

    def replacing(self, blobs: BlobStore, pair_id: PairId) -> AbstractContextManager[None]:
        """The pair emptied for a `with` block that writes it anew; put back as it was when the block
        raises (not one unit of work: a pair may hold more than a transaction)."""
        return replacement.replacing(self.store, blobs, pair_id)

    def live(self, pair_id: PairId) -> PairId:
        """The pair as it is now, in its current generation (work that runs long starts with this)."""
        return live(self.store, pair_id)


def live(store: ItemStore, pair_id: PairId) -> PairId:
    """The pair seen in its current generation: the version of the AI user's record of the pair
    (0 when there is none; None when it was stored before generations)."""
    found = store.get(*keys.pair_member(pair_id.ai_user_id, pair_id.account_id))
    if found is None:
        return pair_id.seen_in(0)
    return pair_id.seen_in(int(found["version"]) if found.get("version") is not None else None)
