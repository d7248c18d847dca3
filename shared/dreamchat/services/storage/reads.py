"""What a pair's memory holds now, read without a version to write over (what a turn, a sweep or a
view reads), and the conversation log as the person pages through it. Any pair's: each call names
the pair, so a plain unit of work (`Storage.begin()`) reads them without first seeing the pair's
generation."""

from __future__ import annotations

from collections.abc import Iterator

from dreamchat import keys
from dreamchat.domain.models import CoreMemory, LongTermIndex, Message, MidTermMemory, PairId, Relationship, SelfSoul
from dreamchat.domain.topics import TopicState
from dreamchat.ports import Item, KeyRange, query_all
from dreamchat.services.storage.session import Session, to_model
from dreamchat.services.storage.snapshot import PairSnapshot, snapshot, topic_state


class MemoryReads:
    """What a pair's memory tiers hold now, read without a version to write over (what a turn, a
    sweep or a view reads); and the writes that need none (a pending compression done, short-term
    cleared). Any pair's: the pair is named per call."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def snapshot(self, pair: PairId) -> PairSnapshot:
        return snapshot(self._session.store, pair)

    def topic_state(self, pair: PairId) -> TopicState | None:
        found = self._session.store.get(keys.pair_pk(pair), keys.TOPIC_SK)
        return topic_state(found) if found else None

    def pending_done(self, pair: PairId, topic_id: str) -> None:
        self._session.delete((keys.pair_pk(pair), keys.pending_compression(topic_id)))

    def short_term(self, pair: PairId, topic_id: str | None) -> list[Message]:
        prefix = f"{topic_id}#" if topic_id else None
        items = query_all(self._session.store, keys.short_term_pk(pair), KeyRange(prefix=prefix))
        return sorted((to_model(Message, i) for i in items), key=lambda m: m.id)

    def short_term_present(self, pair: PairId, message: Message) -> bool:
        return (
            self._session.store.get(keys.short_term_pk(pair), keys.short_term_sk(message.topic_id, message.id))
            is not None
        )

    def forget_short_term(self, pair: PairId, message: Message) -> None:
        self._session.delete((keys.short_term_pk(pair), keys.short_term_sk(message.topic_id, message.id)))

    def mid_terms(self, pair: PairId) -> list[MidTermMemory]:
        return [to_model(MidTermMemory, i) for i in self._tier(pair, keys.MID_PREFIX)]

    def mid_term(self, pair: PairId, topic_id: str) -> MidTermMemory | None:
        found = self._session.store.get(keys.pair_pk(pair), keys.mid_term(topic_id))
        return to_model(MidTermMemory, found) if found else None

    def long_index(self, pair: PairId) -> list[LongTermIndex]:
        return [to_model(LongTermIndex, i) for i in self._tier(pair, keys.LONG_PREFIX)]

    def core(self, pair: PairId) -> list[CoreMemory]:
        return [to_model(CoreMemory, i) for i in self._tier(pair, keys.CORE_PREFIX)]

    def self_soul(self, pair: PairId) -> SelfSoul:
        found = self._session.store.get(keys.pair_pk(pair), keys.SELF_SOUL_SK)
        return to_model(SelfSoul, found) if found else SelfSoul()

    def relationship(self, pair: PairId) -> Relationship:
        found = self._session.store.get(keys.pair_pk(pair), keys.RELATIONSHIP_SK)
        return to_model(Relationship, found) if found else Relationship()

    def claim_greeting(self, pair: PairId) -> None:
        """The pair's one greeting claimed (the commit fails when another request claimed it)."""
        self._session.put({"pk": keys.pair_pk(pair), "sk": keys.GREETED_SK}, if_absent=True)

    def _tier(self, pair: PairId, prefix: str) -> list[Item]:
        return query_all(self._session.store, keys.pair_pk(pair), KeyRange(prefix=prefix))


class ConversationLog:
    """The pair's conversation as the person sees it, read by pages, one message, counts."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def last(self, pair: PairId) -> Message | None:
        page = self._session.store.query(keys.messages_pk(pair), limit=1, descending=True)
        return to_model(Message, page.items[0]) if page.items else None

    def window(self, pair: PairId, *, before: str | None, after: str | None, limit: int) -> tuple[list[Message], bool]:
        """A window of the log, oldest first, and whether more lie beyond it in the paging direction."""
        pk, store = keys.messages_pk(pair), self._session.store
        if after is not None:
            page = store.query(pk, KeyRange(start=after), limit=limit + 1)
            found = [i for i in page.items if i["sk"] != after]
        else:
            page = store.query(pk, KeyRange(end=before), limit=limit + 1, descending=True)
            found = [i for i in page.items if i["sk"] != before]
        more = len(found) > limit or page.cursor is not None
        window = [to_model(Message, i) for i in found[:limit]]
        return (window if after is not None else window[::-1]), more

    def between(self, pair: PairId, first: str, last: str) -> list[Message]:
        items = query_all(
            self._session.store, keys.messages_pk(pair), KeyRange(start=first, end=last), consistent=False
        )
        return [to_model(Message, i) for i in items]

    def pages(self, pair: PairId, page_size: int) -> Iterator[list[Message]]:
        """The whole log, oldest first, one page at a time."""
        cursor = None
        while True:
            page = self._session.store.query(keys.messages_pk(pair), limit=page_size, cursor=cursor, consistent=False)
            yield [to_model(Message, i) for i in page.items]
            if (cursor := page.cursor) is None:
                return

    def get(self, pair: PairId, message_id: str) -> Message | None:
        found = self._session.store.get(keys.messages_pk(pair), message_id)
        return to_model(Message, found) if found else None

    def first(self, pair: PairId, count: int) -> list[Message]:
        page = self._session.store.query(keys.messages_pk(pair), limit=count)
        return [to_model(Message, i) for i in page.items]

    def roles_after(self, pair: PairId, last_read: str | None, limit: int) -> list[str]:
        key = KeyRange(start=last_read + "~") if last_read else KeyRange()
        page = self._session.store.query(keys.messages_pk(pair), key, limit=limit)
        return [str(i["role"]) for i in page.items]
