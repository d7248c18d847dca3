"""The rest of a pair's versioned state as repositories: self_soul, relationship, heartbeat state
(its next due time in the due index), the friendship and the quality figures."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from dreamchat import keys
from dreamchat.domain.heartbeat import HeartbeatState
from dreamchat.domain.models import Friendship, PairId, Relationship, SelfSoul
from dreamchat.domain.quality import QualityFigures
from dreamchat.ports import Item
from dreamchat.services.storage.session import Session, Versioned, due, item, to_model, version_of


def first_friendship_version() -> int:
    """Random (52 bits), so no two friendships of one pair share versions: a write computed from
    an unfriended friendship never lands on the next."""
    return uuid.uuid4().int >> 76


class _Tier:
    def __init__(self, session: Session, pair: PairId) -> None:
        self._session = session
        self._pair = pair
        self._pk = keys.pair_pk(pair)


class SelfSouls(_Tier):
    def get(self) -> Versioned[SelfSoul]:
        found = self._session.get((self._pk, keys.SELF_SOUL_SK))
        return Versioned(to_model(SelfSoul, found), version_of(found)) if found else Versioned(SelfSoul())

    def save(self, soul: SelfSoul, over: Versioned[SelfSoul]) -> None:
        self._session.put_over(item((self._pk, keys.SELF_SOUL_SK), soul.model_dump()), over)


class Relationships(_Tier):
    def get(self) -> Versioned[Relationship]:
        found = self._session.get((self._pk, keys.RELATIONSHIP_SK))
        return Versioned(to_model(Relationship, found), version_of(found)) if found else Versioned(Relationship())

    def save(self, relationship: Relationship, over: Versioned[Relationship]) -> None:
        self._session.put_over(item((self._pk, keys.RELATIONSHIP_SK), relationship.model_dump()), over)


class Heartbeats(_Tier):
    """The pair's heartbeat state; while a heartbeat is planned it sits in the due index
    `HB#<shard>` at the time it is indexed for, so the sweep reads only due pairs."""

    def get(self) -> Versioned[HeartbeatState]:
        found = self._session.get((self._pk, keys.HEARTBEAT_SK))
        return (
            Versioned(HeartbeatState.model_validate(found), version_of(found)) if found else Versioned(HeartbeatState())
        )

    def save(self, state: HeartbeatState, over: Versioned[HeartbeatState], indexed: datetime | None) -> None:
        fields = state.model_dump()
        if indexed is not None:
            fields |= due(keys.HEARTBEAT_DUE_KIND, keys.shard(self._pair), self._due_sort(indexed))
        self._session.put_over(item((self._pk, keys.HEARTBEAT_SK), fields), over)

    def remove(self) -> None:
        """The state gone whatever it was (its pair no longer exists)."""
        self._session.delete((self._pk, keys.HEARTBEAT_SK))

    def lease(self, found: Item, until: int) -> None:
        """A due heartbeat (an item read from the due index) in flight until `until`: its index
        entry moves there, so later sweeps skip it; a change since it was read fails the commit."""
        read = self._session.remember(found)
        moved = due(keys.HEARTBEAT_DUE_KIND, keys.shard(self._pair), self._due_sort(datetime.fromtimestamp(until, UTC)))
        self._session.put_over({**read, "lease_until": until, **moved}, Versioned(None, version_of(read)))

    def _due_sort(self, at: datetime) -> str:
        return keys.due_sort(keys.due_time(at), self._pk)


class Friendships(_Tier):
    """The account's friendship with the AI user, and the AI user's record of the pair.

    Pin, mute and the read mark go over the version they were computed from; a friendship starts
    at a random version, and one stored before versions gets its first (random too)."""

    def get(self) -> Versioned[Friendship] | None:
        found = self._session.get(self._key)
        return Versioned(to_model(Friendship, found), version_of(found)) if found else None

    def add(self, since: int) -> int:
        """A new friendship, and with it a new generation of the pair (the version its record on
        the AI user's side starts at, random): the one it returns."""
        fields = {"ai_user_id": self._pair.ai_user_id, "since": since, "version": first_friendship_version()}
        self._session.put(item(self._key, fields))
        generation = first_friendship_version()
        member = {"account_id": self._pair.account_id, "since": since, "version": generation}
        self._session.put(item(self._member, member))
        return generation

    def save(self, friendship: Friendship, over: Versioned[Friendship]) -> None:
        written = {**self._session.read(self._key), **friendship.model_dump()}
        self._session.put_over(item(self._key, written), over, first=first_friendship_version())

    def remove(self, *, member: bool = False) -> None:
        """The friendship ends; with `member`, the AI user's record of the pair goes too, only if
        it is still of the generation this unit of work saw (a befriending meanwhile keeps its own)."""
        self._session.delete(self._key)
        if member:
            self._session.delete(self._member, self._pair.generation or None)

    @property
    def _key(self) -> tuple[str, str]:
        return keys.friend(self._pair.account_id, self._pair.ai_user_id)

    @property
    def _member(self) -> tuple[str, str]:
        return keys.pair_member(self._pair.ai_user_id, self._pair.account_id)


class Qualities(_Tier):
    def get(self) -> Versioned[QualityFigures]:
        found = self._session.get((self._pk, keys.QUALITY_SK))
        return (
            Versioned(QualityFigures.model_validate(found), version_of(found)) if found else Versioned(QualityFigures())
        )

    def save(self, figures: QualityFigures, over: Versioned[QualityFigures]) -> None:
        self._session.put_over(item((self._pk, keys.QUALITY_SK), figures.model_dump()), over)
