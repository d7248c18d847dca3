"""What a pair's memory reads without deciding anything (the snapshot a turn is built from, the
log, short-term, detail documents, the person's 关于我); writes go through a unit of work."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

from dreamchat import keys
from dreamchat.domain.models import (
    AIUser,
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
from dreamchat.ports import BlobStore, ItemStore, KeyRange, query_all
from dreamchat.services.storage.session import to_model
from dreamchat.services.storage.snapshot import PairSnapshot, snapshot, topic_state
from dreamchat.services.storage.unit_of_work import Storage
from dreamchat.services.zones import zone_for

__all__ = ["AboutPerson", "MemoryRepository", "MessageLog", "PairSnapshot"]


class MemoryRepository:
    """Reads per tier; the conversation log (`log`) and the person's 关于我 (`about`) beside them."""

    def __init__(self, store: ItemStore, blobs: BlobStore) -> None:
        self.store = store
        self.blobs = blobs
        self.log = MessageLog(store)
        self.about = AboutPerson(store)

    def zone(self, pair: PairId, ai_user: AIUser) -> str:
        """The pair's time zone, with its AI user at hand."""
        return zone_for(Storage(self.store), pair.account_id, ai_user)

    def snapshot(self, pair: PairId) -> PairSnapshot:
        """What the context is built from, in one eventually consistent query of the pair."""
        return snapshot(self.store, pair)

    # short-term

    def topic_state(self, pair: PairId) -> TopicState | None:
        found = self.store.get(keys.pair_pk(pair), keys.TOPIC_SK)
        return topic_state(found) if found else None

    def pending_done(self, pair: PairId, topic_id: str) -> None:
        self.store.delete(keys.pair_pk(pair), keys.pending_compression(topic_id))

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

    # mid-term

    def mid_terms(self, pair: PairId) -> list[MidTermMemory]:
        items = query_all(self.store, keys.pair_pk(pair), KeyRange(prefix=keys.MID_PREFIX))
        return [to_model(MidTermMemory, i) for i in items]

    def mid_term(self, pair: PairId, topic_id: str) -> MidTermMemory | None:
        found = self.store.get(keys.pair_pk(pair), keys.mid_term(topic_id))
        return to_model(MidTermMemory, found) if found else None

    # long-term

    def long_index(self, pair: PairId) -> list[LongTermIndex]:
        items = query_all(self.store, keys.pair_pk(pair), KeyRange(prefix=keys.LONG_PREFIX))
        return [to_model(LongTermIndex, i) for i in items]

    def detail(self, pair: PairId, entry: LongTermIndex) -> LongTermDetail | None:
        raw = self.blobs.get(detail_key(pair, entry))
        return LongTermDetail.model_validate_json(raw) if raw else None

    def put_detail(self, pair: PairId, key: str, detail: LongTermDetail) -> None:
        self.blobs.put(key, json.dumps(detail.model_dump(), ensure_ascii=False, indent=2).encode())

    # core, souls, relationship

    def core(self, pair: PairId) -> list[CoreMemory]:
        items = query_all(self.store, keys.pair_pk(pair), KeyRange(prefix=keys.CORE_PREFIX))
        return [to_model(CoreMemory, i) for i in items]

    def self_soul(self, pair: PairId) -> SelfSoul:
        found = self.store.get(keys.pair_pk(pair), keys.SELF_SOUL_SK)
        return to_model(SelfSoul, found) if found else SelfSoul()

    def relationship(self, pair: PairId) -> Relationship:
        found = self.store.get(keys.pair_pk(pair), keys.RELATIONSHIP_SK)
        return to_model(Relationship, found) if found else Relationship()


class MessageLog:
    """The pair's conversation as the person sees it: pages of it, one message, counts, a deletion."""

    def __init__(self, store: ItemStore) -> None:
        self.store = store
        self._storage = Storage(store)

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

    def log_pages(self, pair: PairId, page_size: int = 200) -> Iterator[list[Message]]:
        """The whole log, oldest first, one page at a time (an export streams it)."""
        cursor = None
        while True:
            page = self.store.query(keys.messages_pk(pair), limit=page_size, cursor=cursor, consistent=False)
            yield [to_model(Message, i) for i in page.items]
            if (cursor := page.cursor) is None:
                return

    def message(self, pair: PairId, message_id: str) -> Message | None:
        found = self.store.get(keys.messages_pk(pair), message_id)
        return to_model(Message, found) if found else None

    def has_message(self, pair: PairId, message_id: str) -> bool:
        return self.store.get(keys.messages_pk(pair), message_id) is not None

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
        found = self.message(pair, message_id)
        if found is None:
            return False
        short = self.store.get(keys.short_term_pk(pair), keys.short_term_sk(found.topic_id, message_id))
        with self._storage.pair(pair) as uow:
            uow.messages.remove(found, short_term=short is not None)
            uow.commit()
        return True

    def unread(self, pair: PairId, last_read: str | None, limit: int = 99) -> int:
        """AI messages after the last one the person saw (counted up to `limit`)."""
        key = KeyRange(start=last_read + "~") if last_read else KeyRange()
        page = self.store.query(keys.messages_pk(pair), key, limit=limit)
        return sum(1 for i in page.items if i["role"] == "assistant")

    def claim_greeting(self, pair: PairId) -> bool:
        """True once per pair, whoever asks at the same moment (two tabs opening a new chat): the
        opening message is stored by the one request whose conditional write made the claim."""
        return self.store.put_if_absent({"pk": keys.pair_pk(pair), "sk": keys.GREETED_SK})


class AboutPerson:
    """The person's own 关于我, given to every AI friend."""

    def __init__(self, store: ItemStore) -> None:
        self.store = store

    def get(self, account_id: str) -> str:
        """What the person wrote about themselves (关于我), empty when nothing."""
        found = self.store.get(*keys.profile(account_id))
        return str(found.get("about_me") or "") if found else ""

    def set(self, account_id: str, about_me: str) -> None:
        pk, sk = keys.profile(account_id)
        self.store.put({"pk": pk, "sk": sk, "about_me": about_me})


def detail_key(pair: PairId, entry: LongTermIndex) -> str:
    """The blob of the detail document `entry` names (its file name and revision)."""
    return keys.detail_file_blob(pair, entry.detail_file, entry.detail_revision)


def new_detail(repo: MemoryRepository, pair: PairId, entry: LongTermIndex, detail: LongTermDetail) -> LongTermIndex:
    """`detail` stored under a new revision, before the commit of the entry returned (which names
    it): whichever commit wins, its document is the current one; then `settle_detail`."""
    named = entry.model_copy(update={"detail_revision": uuid.uuid4().hex[:12]})
    repo.put_detail(pair, detail_key(pair, named), detail)
    return named


def settle_detail(
    repo: MemoryRepository, pair: PairId, written: LongTermIndex, replaced: LongTermIndex | None, won: bool
) -> None:
    """After the commit of `written` (from `new_detail`): lost, its document goes; won, the one of
    the entry it replaced goes (and its own, when the entry was erased or deleted meanwhile)."""
    key = detail_key(pair, written)
    if won and replaced is not None and detail_key(pair, replaced) != key:
        repo.blobs.delete(detail_key(pair, replaced))
    if not won or all(e.id != written.id for e in repo.long_index(pair)):
        repo.blobs.delete(key)
