"""The heartbeat state of a pair and its place in the sparse, sharded due index.

Every change to the state recomputes the next due time and writes it, in the same item, as
`due_pk = HB#<shard>` / `due_sk = <due time>#<pair>`; a pair with nothing due has no index
attributes, so the sweep reads only due pairs.
"""

from __future__ import annotations

from collections.abc import Callable

from dreamchat import keys
from dreamchat.config import Settings
from dreamchat.domain.heartbeat import (
    Due,
    HeartbeatState,
    Mode,
    Prefs,
    greeted,
    indexed_at,
    next_heartbeat,
    with_mode,
)
from dreamchat.domain.models import AIUser, PairId, Relationship
from dreamchat.domain.relationship import heartbeat_interval
from dreamchat.ports import Clock, Item
from dreamchat.services.storage.unit_of_work import Storage, retry_on_conflict
from dreamchat.services.zones import zone_for


class HeartbeatStateService:
    def __init__(self, storage: Storage, clock: Clock, settings: Settings) -> None:
        self._storage = storage
        self._clock = clock
        self._settings = settings

    def zone(self, pair: PairId, ai_user: AIUser) -> str:
        """The clock the pair's heartbeats run on: the person's zone, else the AI user's."""
        return zone_for(self._storage, pair.account_id, ai_user)

    def get(self, pair: PairId) -> HeartbeatState:
        with self._storage.pair(pair) as uow:
            return uow.heartbeat.get().entity

    def prefs(self, account_id: str) -> Prefs:
        with self._storage.begin() as uow:
            return uow.heartbeat_prefs.get(account_id, self.default_prefs())

    def default_prefs(self) -> Prefs:
        s = self._settings
        return Prefs(
            daily_cap=s.heartbeat_daily_cap,
            quiet_minutes=s.heartbeat_quiet_minutes,
            max_backoff=s.heartbeat_max_backoff,
            pause_after_days=s.heartbeat_pause_days,
        )

    def save_prefs(self, account_id: str, prefs: Prefs) -> None:
        with self._storage.begin() as uow:
            uow.heartbeat_prefs.save(account_id, prefs)
            uow.commit()

    def change(
        self,
        pair: PairId,
        ai_user: AIUser,
        relationship: Relationship,
        edit: Callable[[HeartbeatState], HeartbeatState],
    ) -> HeartbeatState:
        """Apply `edit` under optimistic locking, then store the state with its next due time."""
        prefs, zone = self.prefs(pair.account_id), self.zone(pair, ai_user)

        def write() -> HeartbeatState:
            with self._storage.pair(pair) as uow:
                read = uow.heartbeat.get()
                now = self._clock.now()
                updated = edit(read.entity)
                due = next_heartbeat(updated, heartbeat_interval(relationship), prefs, ai_user.night_owl, zone, now)
                updated = updated.model_copy(
                    update={
                        "next_due": int(due.at.timestamp()) if due else None,
                        "next_kind": due.kind if due else None,
                    }
                )
                uow.heartbeat.save(updated, read, indexed_at(due.at, updated, now) if due else None)
                uow.commit()
                return updated

        return retry_on_conflict(write)

    def greeted(self, pair: PairId, ai_user: AIUser, relationship: Relationship) -> HeartbeatState:
        """The greeting of a new friendship was sent: first contact follows if the person never writes."""
        now = self._clock.now()
        return self.change(pair, ai_user, relationship, lambda s: greeted(s, now))

    def set_mode(self, pair: PairId, ai_user: AIUser, relationship: Relationship, mode: Mode) -> HeartbeatState:
        """The person's switch for this friend: every heartbeat, none, or only the scheduled ones."""
        return self.change(pair, ai_user, relationship, lambda s: with_mode(s, mode))

    def lease(self, found: Item, until: int) -> bool:
        """Mark a due heartbeat (an item read from the due index) in flight until `until`: its index
        entry moves there, so later sweeps skip it. False if the state changed since it was read."""
        with self._storage.pair(keys.pair_from_pk(found["pk"])) as uow:
            uow.heartbeat.lease(found, until)
            return uow.committed()

    def next_due(self, pair: PairId, ai_user: AIUser, relationship: Relationship) -> Due | None:
        state = self.get(pair)
        return next_heartbeat(
            state,
            heartbeat_interval(relationship),
            self.prefs(pair.account_id),
            ai_user.night_owl,
            self.zone(pair, ai_user),
            self._clock.now(),
        )
