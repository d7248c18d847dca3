"""A memory export (`dreamchat.domain.memory_export`) imported into a pair that has none yet.

All or nothing. The document is read and checked whole before anything is written (422 says what is
wrong), and its ids are re-issued. A pair that holds memories is refused (409) unless `replace`, which
erases the pair's data first. Then the detail documents go to the blob store and the items into the
pair through the unit of work, at most `MAX_TRANSACTION_ITEMS` writes a commit; the due index is
rebuilt as the items are written (un-extracted mid-term memories, ended topics still in short-term,
the open topic's idle check), then the heartbeat state with its next due time, then the vectors
(`VectorRefresh`). Anything that fails on the way erases the pair again: the pair was empty (or
erased) when the writes began, so what is erased is what the import wrote.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

from pydantic import ValidationError

from dreamchat import keys
from dreamchat.domain.heartbeat import HeartbeatState
from dreamchat.domain.memory_export import DocumentProblem, MemoryDocument, check, head_version, reissue
from dreamchat.domain.models import (
    AIUser,
    CoreMemory,
    LongTermIndex,
    Message,
    MidTermMemory,
    PairId,
    Relationship,
    SelfSoul,
)
from dreamchat.domain.topics import TopicState
from dreamchat.errors import Conflict, Invalid
from dreamchat.ports import MAX_TRANSACTION_ITEMS, BlobStore, Clock, ItemStore, RandomSource
from dreamchat.services.ai_users import AIUserService
from dreamchat.services.heartbeat_state import HeartbeatStates
from dreamchat.services.memory_repo import MemoryRepository, detail_key
from dreamchat.services.pairs import erase_pair
from dreamchat.services.storage.session import Versioned
from dreamchat.services.storage.unit_of_work import PairUnitOfWork, Storage
from dreamchat.services.vectors import VectorRefresh

log = logging.getLogger(__name__)

MAX_IMPORT_BYTES = 4 * 1024 * 1024  # as a character card: what one Lambda request can carry
_PROBLEMS_SHOWN = 3
_GREETING_WINDOW = 5  # a pair whose log holds only its greeting (at most this many) counts as new

Write = tuple[int, Callable[[PairUnitOfWork], None]]  # how many items it writes, and how


@dataclass(frozen=True)
class Imported:
    messages: int
    short_term: int
    mid_term: int
    long_term: int
    core: int
    vectors: int


class MemoryImport:
    def __init__(
        self,
        store: ItemStore,
        blobs: BlobStore,
        ai_users: AIUserService,
        heartbeats: HeartbeatStates,
        vectors: VectorRefresh,
        clock: Clock,
        random: RandomSource,
    ) -> None:
        self._store = store
        self._blobs = blobs
        self._repo = MemoryRepository(store, blobs)
        self._storage = Storage(store)
        self._ai_users = ai_users
        self._heartbeats = heartbeats
        self._vectors = vectors
        self._clock = clock
        self._random = random

    def import_memory(self, account_id: str, ai_user_id: str, upload: bytes, *, replace: bool = False) -> Imported:
        """Read, check, re-issue, then write; Invalid (nothing written) when the document is wrong,
        Conflict when the pair has memories and `replace` is not set."""
        pair, ai_user = self._ai_users.companion(account_id, ai_user_id)
        document = reissue(read_document(upload), self._random.random)
        if not replace and not self._is_new(pair):
            raise Conflict("this AI friend already has memories of you: import with replace=true to erase them first")
        erase_pair(self._store, self._blobs, pair)  # replace, or a new pair's greeting
        try:
            vectors = self._write(pair, ai_user, document)
        except BaseException:
            log.warning("memory import failed, erasing what it wrote account=%s ai_user=%s", account_id, ai_user_id)
            erase_pair(self._store, self._blobs, pair)
            raise
        return Imported(
            messages=len(document.messages),
            short_term=len(document.short_term),
            mid_term=len(document.mid_term),
            long_term=len(document.long_term),
            core=len(document.core) + len(document.relationship.history),
            vectors=vectors,
        )

    def _is_new(self, pair: PairId) -> bool:
        """No memory in any tier, and no message in the log but the greeting."""
        repo = self._repo
        latest, more = repo.log.messages(pair, before=None, after=None, limit=_GREETING_WINDOW)
        return (
            not more
            and all(m.kind == "greeting" for m in latest)
            and all(m.kind == "greeting" for m in repo.short_term(pair))
            and not repo.mid_terms(pair)
            and not repo.long_index(pair)
            and not repo.core(pair)
            and repo.self_soul(pair) == SelfSoul()
            and repo.relationship(pair) == Relationship()
        )

    def _write(self, pair: PairId, ai_user: AIUser, document: MemoryDocument) -> int:
        for entry in document.long_term:  # the documents first: an index never points at nothing
            if entry.detail is not None:
                self._repo.put_detail(pair, detail_key(pair, entry.index), entry.detail)
        self._commit(pair, _writes(document, self._due_now()))
        if document.messages:
            self._repo.log.claim_greeting(pair)  # the chat goes on: no second opening message
            self._ai_users.mark_read(pair.account_id, pair.ai_user_id, document.messages[-1].id)
        imported = document.heartbeat.model_dump(exclude={"prefs"})
        relationship = document.relationship.current
        self._heartbeats.change(pair, ai_user, relationship, lambda _: HeartbeatState.model_validate(imported))
        return self._refresh(pair, document)

    def _commit(self, pair: PairId, writes: Iterator[Write]) -> None:
        """The writes in commits of at most MAX_TRANSACTION_ITEMS items each."""
        batch: list[Callable[[PairUnitOfWork], None]] = []
        size = 0
        for count, write in writes:
            if size + count > MAX_TRANSACTION_ITEMS:
                self._commit_batch(pair, batch)
                batch, size = [], 0
            batch.append(write)
            size += count
        self._commit_batch(pair, batch)

    def _commit_batch(self, pair: PairId, batch: list[Callable[[PairUnitOfWork], None]]) -> None:
        with self._storage.pair(pair) as uow:
            for write in batch:
                write(uow)
            uow.commit()

    def _refresh(self, pair: PairId, document: MemoryDocument) -> int:
        """Vectors for every memory, a batch a call (none without an embedder)."""
        done = 0
        for _ in range(len(document.mid_term) + len(document.long_term) + 1):
            made = self._vectors.refresh(pair)
            if not made:
                break
            done += made
        return done

    def _due_now(self) -> str:
        return keys.due_time(self._clock.now())


def read_document(upload: bytes) -> MemoryDocument:
    """The upload as a checked document; Invalid says what is wrong (the first few problems)."""
    if not upload.strip():
        raise Invalid("the upload is empty: send a memory export (JSON)")
    try:
        found = json.loads(upload)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise Invalid(f"not a JSON document: {error}") from error
    if (problem := head_version(found)) is not None:
        raise Invalid(problem)
    try:
        document = MemoryDocument.model_validate(found)
        check(document)
    except ValidationError as error:
        problems = [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors()[:_PROBLEMS_SHOWN]]
        more = error.error_count() - len(problems)
        raise Invalid("; ".join(problems) + (f" (and {more} more)" if more > 0 else "")) from error
    except DocumentProblem as problem:
        raise Invalid(str(problem)) from problem
    return document


def _writes(document: MemoryDocument, now: str) -> Iterator[Write]:
    """Every item of the document as a write of the pair's unit of work, with its due-index entry."""
    in_log = {m.id for m in document.messages}
    in_short = {m.id for m in document.short_term}
    for message in document.messages:
        short = message.id in in_short
        yield 1 + short, partial(_message, message, True, short)
    for message in document.short_term:
        if message.id not in in_log:
            yield 1, partial(_message, message, False, True)
    for mid in document.mid_term:
        yield 1, partial(_mid_term, mid)
    for entry in document.long_term:
        yield 1, partial(_long_term, entry.index)
    for core in [*document.core, *document.relationship.history]:
        yield 1, partial(_core, core)
    yield 1, partial(_self_soul, document.self_soul)
    yield 1, partial(_relationship, document.relationship.current)
    topic = document.topic
    if topic is not None:  # its idle check due now: the sweep ends it or moves the check
        yield 1, partial(_topic, TopicState(topic.topic_id, topic.created_at, topic.ended), now)
    open_topic = topic.topic_id if topic and not topic.ended else None
    for topic_id in sorted({m.topic_id for m in document.short_term} - {open_topic}):
        yield 1, partial(_pending, topic_id, now)  # an ended topic still in short-term waits for compression


def _message(message: Message, log: bool, short_term: bool, uow: PairUnitOfWork) -> None:
    uow.messages.add(message, log=log, short_term=short_term)


def _mid_term(mid: MidTermMemory, uow: PairUnitOfWork) -> None:
    uow.mid_terms.restore(mid)


def _long_term(entry: LongTermIndex, uow: PairUnitOfWork) -> None:
    uow.long_terms.restore(entry)


def _core(memory: CoreMemory, uow: PairUnitOfWork) -> None:
    uow.core.add(memory)


def _self_soul(soul: SelfSoul, uow: PairUnitOfWork) -> None:
    uow.self_soul.save(soul, Versioned(SelfSoul()))


def _relationship(relationship: Relationship, uow: PairUnitOfWork) -> None:
    uow.relationship.save(relationship, Versioned(Relationship()))


def _topic(state: TopicState, idle_check: str, uow: PairUnitOfWork) -> None:
    uow.topic.save(state, None, idle_check=idle_check)


def _pending(topic_id: str, check_at: str, uow: PairUnitOfWork) -> None:
    uow.pending.add(topic_id, check_at)
