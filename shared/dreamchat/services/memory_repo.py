"""Reads and writes every memory tier of a pair; returns domain objects, never raw items."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from dreamchat import keys
from dreamchat.domain import vectors as vec
from dreamchat.domain.models import (
    CoreMemory,
    LongTermDetail,
    LongTermIndex,
    Message,
    MidTermMemory,
    PairId,
    Relationship,
    SelfSoul,
)
from dreamchat.domain.reply import MAX_MESSAGES as MAX_LINES
from dreamchat.domain.topics import TopicState
from dreamchat.ports import (
    DUE_PK,
    DUE_SK,
    BlobStore,
    Delete,
    Item,
    ItemStore,
    KeyRange,
    Put,
    query_all,
)

_INTERNAL = {"pk", "sk", "version", "expires_at", "core_judged", DUE_PK, DUE_SK, vec.FIELD}


def to_model[M: BaseModel](model: type[M], item: Item) -> M:
    return model.model_validate({k: v for k, v in item.items() if k not in _INTERNAL})


def item(pk: str, sk: str, fields: dict[str, Any]) -> Item:
    return {"pk": pk, "sk": sk, **fields}


@dataclass(frozen=True)
class PairSnapshot:
    """The pair's main partition, read in one query: what a turn needs besides short-term."""

    self_soul: SelfSoul
    relationship: Relationship
    mids: list[MidTermMemory]
    long_index: list[LongTermIndex]
    core: list[CoreMemory]
    vectors: dict[str, vec.StoredVectors | None] = field(default_factory=dict)  # by memory id


class MemoryRepository:
    def __init__(self, store: ItemStore, blobs: BlobStore) -> None:
        self.store = store
        self.blobs = blobs

    def zone_of(self, pair: PairId, default: str) -> str:
        """The pair's time zone: its AI user's."""
        found = self.store.get(*keys.ai_user(pair.ai_user_id))
        return str(found.get("timezone") or default) if found else default

    def snapshot(self, pair: PairId) -> PairSnapshot:
        """What the context is built from. Eventually consistent (half the read units): memories
        are written by background steps, and a change of the last second may wait a turn."""
        items = query_all(self.store, keys.pair_pk(pair), page_size=500, consistent=False)
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

    # short-term and the conversation log

    def topic_state(self, pair: PairId) -> tuple[TopicState | None, int | None]:
        found = self.store.get(keys.pair_pk(pair), keys.TOPIC_SK)
        if found is None:
            return None, None
        state = TopicState(found["topic_id"], found["created_at"], found.get("ended", False))
        return state, found["version"]

    def topic_state_put(
        self, pair: PairId, state: TopicState, version: int | None, idle_check: str | None = None
    ) -> Put:
        """The topic state; an open topic sits in the due index until its idle check (`<iso time>`)."""
        fields: dict[str, Any] = {
            "topic_id": state.topic_id,
            "created_at": state.created_at,
            "ended": state.ended,
            "version": (version or 0) + 1,
        }
        if idle_check is not None and not state.ended:
            fields[DUE_PK] = keys.due_partition(keys.TOPIC_DUE, keys.shard(pair))
            fields[DUE_SK] = keys.due_sort(idle_check, keys.pair_pk(pair))
        return Put(item(keys.pair_pk(pair), keys.TOPIC_SK, fields), expected_version=version or 0)

    def pending_put(self, pair: PairId, topic_id: str, check_at: str) -> Put:
        """The ended topic waits in the due index until compressed; a sweep compresses it if its
        TopicEnded event was lost."""
        return Put(
            item(
                keys.pair_pk(pair),
                keys.pending_compression(topic_id),
                {
                    "topic_id": topic_id,
                    DUE_PK: keys.due_partition(keys.COMPRESS_DUE, keys.shard(pair)),
                    DUE_SK: keys.due_sort(check_at, keys.pair_pk(pair), topic_id),
                },
            )
        )

    def pending_done(self, pair: PairId, topic_id: str) -> None:
        self.store.delete(keys.pair_pk(pair), keys.pending_compression(topic_id))

    def message_puts(self, pair: PairId, message: Message) -> list[Put]:
        """A message is two items: one in the conversation log, one in its topic's short-term."""
        fields = message.model_dump()
        return [
            Put(item(keys.messages_pk(pair), message.id, fields)),
            Put(item(keys.short_term_pk(pair), keys.short_term_sk(message.topic_id, message.id), fields)),
        ]

    def last_message(self, pair: PairId) -> Message | None:
        page = self.store.query(keys.messages_pk(pair), limit=1, descending=True)
        return to_model(Message, page.items[0]) if page.items else None

    def messages(
        self, pair: PairId, *, before: str | None, after: str | None, limit: int
    ) -> tuple[list[Message], bool]:
        """A window of the log, oldest first, and whether more lie beyond it in the paging direction."""
        pk = keys.messages_pk(pair)
        if after is not None:
            page = self.store.query(pk, KeyRange(start=after), limit=limit + 1)
            found = [i for i in page.items if i["sk"] != after]
        else:
            page = self.store.query(pk, KeyRange(end=before), limit=limit + 1, descending=True)
            found = [i for i in page.items if i["sk"] != before]
        more = len(found) > limit or page.cursor is not None
        window = [to_model(Message, i) for i in found[:limit]]
        return (window if after is not None else window[::-1]), more

    def topic_messages(self, pair: PairId, mid: MidTermMemory) -> list[Message]:
        """The messages of a mid-term memory's topic still in the log (none when it predates the ids)."""
        first, last = mid.first_message_id, mid.last_message_id
        if not first or not last:
            return []
        items = query_all(self.store, keys.messages_pk(pair), KeyRange(start=first, end=last), consistent=False)
        return [to_model(Message, i) for i in items if i.get("topic_id") == mid.topic_id]

    def message(self, pair: PairId, message_id: str) -> Message | None:
        found = self.store.get(keys.messages_pk(pair), message_id)
        return to_model(Message, found) if found else None

    def has_message(self, pair: PairId, message_id: str) -> bool:
        return self.store.get(keys.messages_pk(pair), message_id) is not None

    def about_person(self, account_id: str) -> str:
        """What the person wrote about themselves (关于我), empty when nothing."""
        found = self.store.get(*keys.profile(account_id))
        return str(found.get("about_me") or "") if found else ""

    def set_about_person(self, account_id: str, about_me: str) -> None:
        pk, sk = keys.profile(account_id)
        self.store.put({"pk": pk, "sk": sk, "about_me": about_me})

    @staticmethod
    def message_window(within: int) -> int:
        """How many messages from the log's start `person_message_number` reads."""
        return within * (MAX_LINES + 2) + 10

    def person_message_number(self, pair: PairId, message_id: str, within: int) -> int | None:
        """Which of the person's messages this is (1 for the first) when it is among their first
        `within`; None when it is later (a bounded read from the start of the log)."""
        page = self.store.query(keys.messages_pk(pair), limit=self.message_window(within))
        mine = [item["sk"] for item in page.items if item.get("role") == "user"][:within]
        return mine.index(message_id) + 1 if message_id in mine else None

    def delete_message(self, pair: PairId, message_id: str) -> bool:
        """Remove one message from the chat log and, while its topic is not compressed, from short-term memory."""
        found = self.store.get(keys.messages_pk(pair), message_id)
        if found is None:
            return False
        short = (keys.short_term_pk(pair), keys.short_term_sk(found["topic_id"], message_id))
        operations = [Delete(keys.messages_pk(pair), message_id)]
        if self.store.get(*short) is not None:
            operations.append(Delete(*short))
        self.store.transact(operations)
        return True

    def unread(self, pair: PairId, last_read: str | None, limit: int = 99) -> int:
        """AI messages after the last one the person saw (counted up to `limit`)."""
        key = KeyRange(start=last_read + "~") if last_read else KeyRange()
        page = self.store.query(keys.messages_pk(pair), key, limit=limit)
        return sum(1 for i in page.items if i["role"] == "assistant")

    def short_term(self, pair: PairId, topic_id: str | None = None) -> list[Message]:
        prefix = f"{topic_id}#" if topic_id else None
        items = query_all(self.store, keys.short_term_pk(pair), KeyRange(prefix=prefix))
        return sorted((to_model(Message, i) for i in items), key=lambda m: m.id)

    def short_term_topics(self, pair: PairId) -> list[str]:
        return sorted({m.topic_id for m in self.short_term(pair)})

    def clear_short_term(self, pair: PairId, messages: list[Message]) -> None:
        """One plain delete each (half a transaction's write units): compression is idempotent, so
        a run that stops halfway clears the rest when it runs again."""
        for m in messages:
            self.store.delete(keys.short_term_pk(pair), keys.short_term_sk(m.topic_id, m.id))

    def replace_message(self, pair: PairId, old: Message, new: Message) -> list[Put | Delete]:
        """Operations moving a message to another topic (a semantic switch)."""
        return [
            Delete(keys.short_term_pk(pair), keys.short_term_sk(old.topic_id, old.id)),
            *self.message_puts(pair, new),
        ]

    # mid-term

    def mid_terms(self, pair: PairId) -> list[MidTermMemory]:
        items = query_all(self.store, keys.pair_pk(pair), KeyRange(prefix=keys.MID_PREFIX))
        return [to_model(MidTermMemory, i) for i in items]

    def mid_term_items(self, pair: PairId) -> list[Item]:
        return query_all(self.store, keys.pair_pk(pair), KeyRange(prefix=keys.MID_PREFIX))

    def mid_term(self, pair: PairId, topic_id: str) -> MidTermMemory | None:
        found = self.store.get(keys.pair_pk(pair), keys.mid_term(topic_id))
        return to_model(MidTermMemory, found) if found else None

    # long-term

    def long_index_items(self, pair: PairId) -> list[Item]:
        return query_all(self.store, keys.pair_pk(pair), KeyRange(prefix=keys.LONG_PREFIX))

    def long_index(self, pair: PairId) -> list[LongTermIndex]:
        return [to_model(LongTermIndex, i) for i in self.long_index_items(pair)]

    def detail(self, pair: PairId, detail_file: str) -> LongTermDetail | None:
        key = f"{keys.pair_blob_prefix(pair)}long_term_details/{detail_file}"
        raw = self.blobs.get(key)
        return LongTermDetail.model_validate_json(raw) if raw else None

    def put_detail(self, pair: PairId, key: str, detail: LongTermDetail) -> None:
        self.blobs.put(key, json.dumps(detail.model_dump(), ensure_ascii=False, indent=2).encode())

    # core, souls, relationship

    def core(self, pair: PairId) -> list[CoreMemory]:
        items = query_all(self.store, keys.pair_pk(pair), KeyRange(prefix=keys.CORE_PREFIX))
        return [to_model(CoreMemory, i) for i in items]

    def core_put(self, pair: PairId, memory: CoreMemory) -> Put:
        return Put(item(keys.pair_pk(pair), keys.core(memory.id), memory.model_dump()), if_absent=True)

    def self_soul(self, pair: PairId) -> tuple[SelfSoul, int | None]:
        found = self.store.get(keys.pair_pk(pair), keys.SELF_SOUL_SK)
        return (to_model(SelfSoul, found), found["version"]) if found else (SelfSoul(), None)

    def save_self_soul(self, pair: PairId, soul: SelfSoul, version: int | None) -> int:
        return self.store.put_versioned(item(keys.pair_pk(pair), keys.SELF_SOUL_SK, soul.model_dump()), version)

    def relationship(self, pair: PairId) -> tuple[Relationship, int | None]:
        found = self.store.get(keys.pair_pk(pair), keys.RELATIONSHIP_SK)
        return (to_model(Relationship, found), found["version"]) if found else (Relationship(), None)

    def relationship_put(self, pair: PairId, relationship: Relationship, version: int | None) -> Put:
        fields = {**relationship.model_dump(), "version": (version or 0) + 1}
        return Put(item(keys.pair_pk(pair), keys.RELATIONSHIP_SK, fields), expected_version=version or 0)
