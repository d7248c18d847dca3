"""The snapshot a turn reads: the pair's main partition in one query, as domain objects."""

from __future__ import annotations

from dataclasses import dataclass, field

from dreamchat import keys
from dreamchat.domain import vectors as vec
from dreamchat.domain.models import CoreMemory, LongTermIndex, MidTermMemory, PairId, Relationship, SelfSoul
from dreamchat.domain.topics import TopicState
from dreamchat.ports import Item, ItemStore, query_all
from dreamchat.services.storage.session import to_model


@dataclass(frozen=True)
class PairSnapshot:
    """The pair's main partition, read in one query: what a turn needs besides short-term."""

    self_soul: SelfSoul
    relationship: Relationship
    mids: list[MidTermMemory]
    long_index: list[LongTermIndex]
    core: list[CoreMemory]
    vectors: dict[str, vec.StoredVectors | None] = field(default_factory=dict)  # by memory id


def snapshot(store: ItemStore, pair: PairId) -> PairSnapshot:
    """What the context is built from. Eventually consistent (half the read units): memories are
    written by background steps, and a change of the last second may wait a turn."""
    items = query_all(store, keys.pair_pk(pair), page_size=500, consistent=False)
    by_sk = {i["sk"]: i for i in items}
    soul, relationship = by_sk.get(keys.SELF_SOUL_SK), by_sk.get(keys.RELATIONSHIP_SK)
    return PairSnapshot(
        self_soul=to_model(SelfSoul, soul) if soul else SelfSoul(),
        relationship=to_model(Relationship, relationship) if relationship else Relationship(),
        mids=[to_model(MidTermMemory, i) for i in items if i["sk"].startswith(keys.MID_PREFIX)],
        long_index=[to_model(LongTermIndex, i) for i in items if i["sk"].startswith(keys.LONG_PREFIX)],
        core=[to_model(CoreMemory, i) for i in items if i["sk"].startswith(keys.CORE_PREFIX)],
        vectors={
            i["id"]: vec.StoredVectors.from_item(i.get(vec.FIELD))
            for i in items
            if i["sk"].startswith((keys.MID_PREFIX, keys.LONG_PREFIX))
        },
    )


def topic_state(found: Item) -> TopicState:
    return TopicState(found["topic_id"], found["created_at"], found.get("ended", False))
