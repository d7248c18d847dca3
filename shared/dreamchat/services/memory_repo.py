"""What a pair's memory reads without deciding anything (the snapshot a turn is built from, the
log, short-term, detail documents); writes go through a unit of work."""

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
from dreamchat.errors import Contended
from dreamchat.ports import BlobStore
from dreamchat.services.storage.reads import ConversationLog, MemoryReads
from dreamchat.services.storage.snapshot import PairSnapshot
from dreamchat.services.storage.unit_of_work import Storage
from dreamchat.services.zones import zone_for

__all__ = ["MemoryRepository", "MessageLog", "PairSnapshot"]


class MemoryRepository:
    """Reads per tier; the conversation log (`log`) beside them."""

    def __init__(self, storage: Storage, blobs: BlobStore) -> None:
        self._storage = storage
        self.blobs = blobs
        self.log = MessageLog(storage)

    def zone(self, pair: PairId, ai_user: AIUser) -> str:
        """The pair's time zone, with its AI user at hand."""
        return zone_for(self._storage, pair.account_id, ai_user)

    def snapshot(self, pair: PairId) -> PairSnapshot:
        """What the context is built from, in one eventually consistent query of the pair."""
        return self._reads().snapshot(pair)

    # short-term

    def topic_state(self, pair: PairId) -> TopicState | None:
        return self._reads().topic_state(pair)

    def pending_done(self, pair: PairId, topic_id: str) -> None:
        with self._storage.begin() as uow:
            uow.memory.pending_done(pair, topic_id)
            uow.commit()

    def short_term(self, pair: PairId, topic_id: str | None = None) -> list[Message]:
        return self._reads().short_term(pair, topic_id)

    def short_term_topics(self, pair: PairId) -> list[str]:
        return sorted({m.topic_id for m in self.short_term(pair)})

    def clear_short_term(self, pair: PairId, messages: list[Message]) -> None:
        """One plain delete each (half a transaction's write units): compression is idempotent, so
        a run that stops halfway clears the rest when it runs again."""
        for m in messages:
            with self._storage.begin() as uow:
                uow.memory.forget_short_term(pair, m)
                uow.commit()

    # mid-term

    def mid_terms(self, pair: PairId) -> list[MidTermMemory]:
        return self._reads().mid_terms(pair)

    def mid_term(self, pair: PairId, topic_id: str) -> MidTermMemory | None:
        return self._reads().mid_term(pair, topic_id)

    # long-term

    def long_index(self, pair: PairId) -> list[LongTermIndex]:
        return self._reads().long_index(pair)

    def detail(self, pair: PairId, entry: LongTermIndex) -> LongTermDetail | None:
        raw = self.blobs.get(detail_key(pair, entry))
        return LongTermDetail.model_validate_json(raw) if raw else None

    def put_detail(self, pair: PairId, key: str, detail: LongTermDetail) -> None:
        self.blobs.put(key, json.dumps(detail.model_dump(), ensure_ascii=False, indent=2).encode())

    # core, souls, relationship

    def core(self, pair: PairId) -> list[CoreMemory]:
        return self._reads().core(pair)

    def self_soul(self, pair: PairId) -> SelfSoul:
        return self._reads().self_soul(pair)

    def relationship(self, pair: PairId) -> Relationship:
        return self._reads().relationship(pair)

    def _reads(self) -> MemoryReads:
        return self._storage.begin().memory


class MessageLog:
    """The pair's conversation as the person sees it: pages of it, one message, counts, a deletion."""

    def __init__(self, storage: Storage) -> None:
        self._storage = storage

    def last_message(self, pair: PairId) -> Message | None:
        return self._log().last(pair)

    def messages(
        self, pair: PairId, *, before: str | None, after: str | None, limit: int
    ) -> tuple[list[Message], bool]:
        """A window of the log, oldest first, and whether more lie beyond it in the paging direction."""
        return self._log().window(pair, before=before, after=after, limit=limit)

    def topic_messages(self, pair: PairId, mid: MidTermMemory) -> list[Message]:
        """The messages of a mid-term memory's topic still in the log (none when it predates the ids)."""
        first, last = mid.first_message_id, mid.last_message_id
        if not first or not last:
            return []
        return [m for m in self._log().between(pair, first, last) if m.topic_id == mid.topic_id]

    def log_pages(self, pair: PairId, page_size: int = 200) -> Iterator[list[Message]]:
        """The whole log, oldest first, one page at a time (an export streams it)."""
        return self._log().pages(pair, page_size)

    def message(self, pair: PairId, message_id: str) -> Message | None:
        return self._log().get(pair, message_id)

    def has_message(self, pair: PairId, message_id: str) -> bool:
        return self.message(pair, message_id) is not None

    @staticmethod
    def message_window(within: int) -> int:
        """How many messages from the log's start `person_message_number` reads."""
        return within * (MAX_LINES + 2) + 10

    def person_message_number(self, pair: PairId, message_id: str, within: int) -> int | None:
        """Which of the person's messages this is (1 for the first) when it is among their first
        `within`; None when it is later (a bounded read from the start of the log)."""
        read = self._log().first(pair, self.message_window(within))
        mine = [m.id for m in read if m.role == "user"][:within]
        return mine.index(message_id) + 1 if message_id in mine else None

    def delete_message(self, pair: PairId, message_id: str) -> bool:
        """Remove one message from the chat log and, while its topic is not compressed, from short-term memory."""
        found = self.message(pair, message_id)
        if found is None:
            return False
        with self._storage.pair(pair) as uow:
            uow.messages.remove(found, short_term=uow.memory.short_term_present(pair, found))
            uow.commit()
        return True

    def tail(self, pair: PairId, count: int) -> list[Message]:
        """The conversation's latest `count` messages, oldest first."""
        return self._log().window(pair, before=None, after=None, limit=count)[0]

    def take_back(self, pair: PairId, messages: list[Message]) -> list[tuple[Message, bool]]:
        """Remove these messages from the log (and short-term) over the versions read, at once: each with
        whether it was in short-term, to `put_back`. Contended (409) when one changed or went meanwhile."""
        if not messages:
            return []
        taken = []
        with self._storage.pair(pair) as uow:
            for message in messages:
                read = uow.messages.get(message)
                if read is None or read.entity != message:
                    raise Contended("the conversation changed meanwhile; try again")
                short = uow.memory.short_term_present(pair, message)
                uow.messages.remove(message, short_term=short, over=read)
                taken.append((message, short))
            uow.commit()
        return taken

    def rewrite(self, pair: PairId, seen: Message, updated: Message, dropped: list[Message]) -> None:
        """`seen` stored as `updated` and `dropped` removed, in one commit over the versions read;
        Contended (409) when one of them changed or went meanwhile."""
        with self._storage.pair(pair) as uow:
            read = uow.messages.get(seen)
            if read is None or read.entity != seen:
                raise Contended("the conversation changed meanwhile; try again")
            uow.messages.save(updated, read)
            for message in dropped:
                found = uow.messages.get(message)
                if found is None:
                    raise Contended("the conversation changed meanwhile; try again")
                uow.messages.remove(message, short_term=uow.memory.short_term_present(pair, message), over=found)
            uow.commit()

    def put_back(self, pair: PairId, taken: list[tuple[Message, bool]]) -> None:
        """Messages `take_back` removed, stored again as they were (the work that removed them failed)."""
        with self._storage.pair(pair) as uow:
            for message, short in taken:
                uow.messages.add(message, short_term=short)
            uow.commit_in_parts()

    def unread(self, pair: PairId, last_read: str | None, limit: int = 99) -> int:
        """The AI's and the staff's messages after the last one the person saw (counted up to `limit`)."""
        return sum(1 for role in self._log().roles_after(pair, last_read, limit) if role in ("assistant", "staff"))

    def claim_greeting(self, pair: PairId) -> bool:
        """True once per pair, whoever asks at the same moment (two tabs opening a new chat): the
        opening message is stored by the one request whose conditional write made the claim."""
        with self._storage.begin() as uow:
            uow.memory.claim_greeting(pair)
            return uow.committed()

    def _log(self) -> ConversationLog:
        return self._storage.begin().log


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
