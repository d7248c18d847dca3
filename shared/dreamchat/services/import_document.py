"""A memory export read for an import: the upload parsed strictly and checked whole
(`read_document`), then each of its items as a write of the pair's unit of work (`writes`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial

from pydantic import ValidationError

from dreamchat.domain import strict_json
from dreamchat.domain.memory_export import DocumentProblem, MemoryDocument, check, head_version
from dreamchat.domain.models import CoreMemory, LongTermIndex, Message, MidTermMemory, Relationship, SelfSoul
from dreamchat.domain.owed import OwedWork
from dreamchat.domain.topics import TopicState
from dreamchat.errors import Invalid
from dreamchat.services.storage.session import Versioned
from dreamchat.services.storage.unit_of_work import PairUnitOfWork

_PROBLEMS_SHOWN = 3

Write = tuple[int, Callable[[PairUnitOfWork], None]]  # how many items it writes, and how


def read_document(upload: bytes) -> MemoryDocument:
    """The upload as a checked document; Invalid says what is wrong (the first few problems)."""
    if not upload.strip():
        raise Invalid("the upload is empty: send a memory export (JSON)")
    try:
        found = strict_json.loads(upload)
    except strict_json.JsonProblem as problem:
        raise Invalid(f"the document {problem}") from problem
    if (wrong := head_version(found)) is not None:
        raise Invalid(wrong)
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


def writes(document: MemoryDocument, now: str, owed: OwedWork | None) -> Iterator[Write]:
    """Every item of the document as a write of the pair's unit of work, with its due-index entry, and
    the vectors owed for its memories."""
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
    if owed is not None:
        yield 1, partial(_owe, owed)


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


def _owe(work: OwedWork, uow: PairUnitOfWork) -> None:
    uow.owed.owe(work)
