"""The memory export: one JSON document with everything an AI friend holds about the person and
the pair, its versioned schema, the checks an import makes, and the ids an import re-issues.

Pure: the current time and the random numbers are passed in. The schema is documented in
docs/memory-export.md and published as docs/memory-export.schema.json (`document_schema`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import ConfigDict, Field

from dreamchat.domain import bounds
from dreamchat.domain.core_memory import RELATIONSHIP_ID
from dreamchat.domain.crisis import CrisisCheck
from dreamchat.domain.heartbeat import Prefs, SentText
from dreamchat.domain.ids import message_id
from dreamchat.domain.models import (
    CoreMemory,
    Entity,
    LongTermDetail,
    LongTermIndex,
    Message,
    MidTermMemory,
    Relationship,
    ScheduledHeartbeat,
    SelfSoul,
    Supersession,
)
from dreamchat.domain.protocol import checked
from dreamchat.domain.supersession import point_ref, split_ref

FORMAT = "dreamchat.memory"
ACCOUNT_FORMAT = "dreamchat.account"  # the account's export: the account, 关于我 and every friend's document
VERSION = 1
# a detail document's file name: the blob under the pair's prefix, never a path
DETAIL_FILE = r"^[^/\\\x00-\x1f]{1,120}\.json$"
# the document's times (epoch seconds), by field name, wherever they are: within the product's range
TIMES = frozenset(
    {"exported_at", "timestamp", "created_at", "updated_at", "at", "last_person_at", "last_sent_at", "checkin_at"}
)
_NEVER = "updated_at"  # 0: a self_soul or relationship nobody has set yet
_EXACT = 2**53  # larger integers are not numbers a browser reads exactly
_MESSAGE_ID = re.compile(r"^m(\d{16})[0-9a-f]{6}$")


class ExportedAIUser(Entity):
    """Which AI friend the document is about (for the reader; an import keeps its own AI user)."""

    id: str
    name: str


class ExportedTopic(Entity):
    """The open (or last) topic of short-term memory."""

    topic_id: str
    created_at: int
    ended: bool = False


class ExportedLongTerm(Entity):
    index: LongTermIndex
    detail: LongTermDetail | None = None  # None: the detail document was missing


class ExportedRelationship(Entity):
    current: Relationship
    history: list[CoreMemory] = Field(default_factory=list)  # every change, as the core memory it left


class ExportedHeartbeat(Entity):
    """The pair's heartbeat schedules and state; `prefs` are the account's (an import leaves them)."""

    prefs: Prefs | None = None
    scheduled: list[ScheduledHeartbeat] = Field(default_factory=list, max_length=bounds.SCHEDULED_HEARTBEATS)
    last_person_at: int | None = None
    last_sent_at: int | None = None
    unanswered: int = Field(default=0, ge=0, le=bounds.UNANSWERED_HEARTBEATS)
    recent: list[SentText] = Field(default_factory=list, max_length=bounds.RECENT_HEARTBEATS)
    checkin_at: int | None = None


class MemoryDocument(Entity):
    """Version 1 of the export. `messages` comes last so that a writer can stream it."""

    model_config = ConfigDict(extra="forbid", title="DreamChat memory export")
    format: Literal["dreamchat.memory"]
    version: Literal[1]
    exported_at: int
    ai_user: ExportedAIUser
    topic: ExportedTopic | None = None
    short_term: list[Message] = Field(default_factory=list)
    mid_term: list[MidTermMemory] = Field(default_factory=list)
    long_term: list[ExportedLongTerm] = Field(default_factory=list)
    # the current relationship entry (RELATIONSHIP_ID) is among them; every change is in `relationship.history`
    core: list[CoreMemory] = Field(default_factory=list)
    self_soul: SelfSoul = Field(default_factory=SelfSoul)
    relationship: ExportedRelationship = Field(default_factory=lambda: ExportedRelationship(current=Relationship()))
    heartbeat: ExportedHeartbeat = Field(default_factory=ExportedHeartbeat)
    messages: list[Message] = Field(default_factory=list)  # the whole chat history, oldest first


def heading(kind: str, exported_at: int) -> dict[str, Any]:
    """A document's first fields: what it is, its schema's version, when it was written."""
    return {"format": kind, "version": VERSION, "exported_at": exported_at}


def document_schema() -> dict[str, Any]:
    """The JSON Schema of version 1 (docs/memory-export.schema.json holds it as written)."""
    schema = MemoryDocument.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://dreamchat.example/schemas/memory-export/v1.json"
    return schema


class DocumentProblem(ValueError):
    """The document does not hold together (the message says where)."""


def head_version(found: object) -> str | None:
    """What is wrong with the document's format and version before its fields are read; None if nothing."""
    if not isinstance(found, dict):
        return "the document must be a JSON object"
    if found.get("format") != FORMAT:
        return f"format: expected {FORMAT!r} (a DreamChat memory export)"
    if found.get("version") != VERSION:
        return f"version: this server reads version {VERSION}, not {found.get('version')!r}"
    return None


def check(document: MemoryDocument) -> None:
    """The rules across fields (ids unique, one mid-term memory per topic, a detail file named once), then
    the bounds every field keeps (`dreamchat.domain.bounds`: what the API takes, times of the product's
    range, finite numbers, storable text). The first problem is raised, naming its field."""
    _unique("messages", (m.id for m in document.messages))
    _unique("short_term", (m.id for m in document.short_term))
    _unique("mid_term", (m.id for m in document.mid_term))
    _unique("mid_term topic_id", (m.topic_id for m in document.mid_term))
    _unique("long_term", (e.index.id for e in document.long_term))
    _unique("long_term detail_file", (e.index.detail_file for e in document.long_term))
    _unique("core", (c.id for c in [*document.core, *document.relationship.history]))
    for n, entry in enumerate(document.long_term):
        where = f"long_term.{n}.index.detail_file"
        if not re.match(DETAIL_FILE, entry.index.detail_file):
            raise DocumentProblem(f"{where}: must be a plain file name ending in .json")
        if len(entry.index.detail_file.encode()) > bounds.DETAIL_FILE_BYTES:
            raise DocumentProblem(f"{where}: at most {bounds.DETAIL_FILE_BYTES} bytes (UTF-8)")
    for entry in document.long_term:
        if any(s.point >= len(entry.index.key_points) for s in entry.index.superseded):
            raise DocumentProblem(f"long_term {entry.index.id}: superseded names a key point it does not have")
        _unique(f"long_term {entry.index.id} superseded point", (str(s.point) for s in entry.index.superseded))
    for memory in document.core:
        if memory.id == RELATIONSHIP_ID and memory.source != "relationship":
            raise DocumentProblem(
                f"core {RELATIONSHIP_ID}: the current relationship entry's source must be 'relationship'"
            )
    for memory in document.relationship.history:
        if memory.source != "relationship":
            raise DocumentProblem(f"relationship.history {memory.id}: source must be 'relationship'")
        if memory.id == RELATIONSHIP_ID:
            raise DocumentProblem(f"relationship.history: {RELATIONSHIP_ID!r} is the current entry, under core")
    for where, problem in bound_problems(document):
        raise DocumentProblem(f"{where}: {problem}")


def bound_problems(document: MemoryDocument) -> Iterator[tuple[str, str]]:
    """Each field beyond its bound, as (where, what): every number and time, then each tier's texts and counts."""
    yield from _values(document.model_dump(), ())
    for tier in ("short_term", "messages"):
        for n, message in enumerate(getattr(document, tier)):
            yield from _text(f"{tier}.{n}.content", message.content, bounds.MESSAGE_CHARS)
            yield from _text(f"{tier}.{n}.reasoning", message.reasoning, bounds.REASONING_CHARS)
            if message.delay_ms < 0:
                yield f"{tier}.{n}.delay_ms", "must not be negative"
    for n, mid in enumerate(document.mid_term):
        yield from _text(f"mid_term.{n}.summary", mid.summary, bounds.SUMMARY_CHARS)
    for n, entry in enumerate(document.long_term):
        yield from _long_term(f"long_term.{n}", entry)
    yield from _count("core", document.core, bounds.CORE_MEMORIES)
    yield from _count("relationship.history", document.relationship.history, bounds.RELATIONSHIP_CHANGES)
    yield from _text("self_soul.self_soul", document.self_soul.self_soul, bounds.SELF_SOUL_CHARS)
    current = document.relationship.current
    yield from _text("relationship.current.reason", current.reason, bounds.REASON_CHARS)
    if (problem := bounds.heartbeat_hours_problem(current.heartbeat_hours)) is not None:
        yield "relationship.current.heartbeat_hours", problem
    for n, sent in enumerate(document.heartbeat.recent):
        yield from _text(f"heartbeat.recent.{n}.text", sent.text, bounds.MESSAGE_CHARS)


def _long_term(where: str, entry: ExportedLongTerm) -> Iterator[tuple[str, str]]:
    index, detail = entry.index, entry.detail
    yield from _text(f"{where}.index.title", index.title, bounds.TITLE_CHARS)
    yield from _count(f"{where}.index.key_points", index.key_points, bounds.KEY_POINTS)
    for n, point in enumerate(index.key_points):
        yield from _text(f"{where}.index.key_points.{n}", point, bounds.KEY_POINT_CHARS)
    yield from _count(f"{where}.index.sources", index.sources, bounds.KEY_POINTS)
    yield from _count(f"{where}.index.superseded", index.superseded, bounds.KEY_POINTS)
    if detail is not None:
        yield from _text(f"{where}.detail.title", detail.title, bounds.TITLE_CHARS)
        yield from _text(f"{where}.detail.detail_content", detail.detail_content, bounds.DETAIL_CHARS)
        yield from _count(f"{where}.detail.source_mid_ids", detail.source_mid_ids, bounds.SOURCE_IDS)


def _values(value: Any, path: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    """Every number finite (and exact in a browser), every time within the product's range, every text storable."""
    where = ".".join(path)
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _values(child, (*path, key))
    elif isinstance(value, list):
        for n, child in enumerate(value):
            yield from _values(child, (*path, str(n)))
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, float) and not math.isfinite(value):
        yield where, f"must be a finite number, not {value}"
    elif isinstance(value, int) and path and path[-1] in TIMES:
        if not (value == 0 and path[-1] == _NEVER) and (problem := bounds.time_problem(value)) is not None:
            yield where, problem
    elif isinstance(value, int | float) and abs(value) > _EXACT:
        yield where, f"must be at most {_EXACT} in size, not {value}"
    elif isinstance(value, str) and not bounds.encodable(value):
        yield where, "holds invalid Unicode text (an unpaired surrogate)"


def _text(where: str, text: str, limit: int) -> Iterator[tuple[str, str]]:
    if len(text) > limit:
        yield where, f"at most {limit:,} characters, not {len(text):,}"


def _count(where: str, items: list[Any], limit: int) -> Iterator[tuple[str, str]]:
    if len(items) > limit:
        yield where, f"at most {limit:,} entries, not {len(items):,}"


def _unique(where: str, ids: Iterable[str]) -> None:
    seen: set[str] = set()
    for each in ids:
        if each in seen:
            raise DocumentProblem(f"{where}: {each!r} appears twice")
        seen.add(each)


def reissue(document: MemoryDocument, random: Callable[[], float]) -> MemoryDocument:
    """The same memories under new ids (messages, topics, memories), every reference following, and each
    detail document under a new revision (so an import never writes over a blob the pair holds); the order
    of ids (which the log's and the context's order depend on) is kept."""
    messages = _message_ids({m.id: m.timestamp for m in [*document.messages, *document.short_term]}, random)
    topic_times = _topic_times(document)
    topics = _ordered(sorted(topic_times), lambda t: f"topic_{topic_times[t]:010d}_", random)
    mids = {m.id: f"mid_{topics[m.topic_id].removeprefix('topic_')}" for m in document.mid_term}
    by_long = {e.index.id: e.index.created_at for e in document.long_term}
    longs = _ordered(sorted(by_long), lambda i: f"long_{by_long[i]:010d}_", random)
    points = {e.index.id: len(e.index.key_points) for e in document.long_term}
    # the current relationship entry keeps its id: the one id every pair has (its own)
    all_core = {c.id: c for c in [*document.core, *document.relationship.history] if c.id != RELATIONSHIP_ID}
    cores = _ordered(sorted(all_core), lambda i: _core_stem(all_core[i]), random) | {RELATIONSHIP_ID: RELATIONSHIP_ID}

    def message(m: Message) -> Message:
        # a photo or voice note stays with the pair that received it; its words (`content`) travel
        media = {"media_id": None, "media_kind": None, "duration_s": None}
        return m.model_copy(update={"id": messages[m.id], "topic_id": topics[m.topic_id], **media})

    def mid(m: MidTermMemory) -> MidTermMemory:
        return m.model_copy(
            update={
                "id": mids[m.id],
                "topic_id": topics[m.topic_id],
                "first_message_id": messages.get(m.first_message_id or ""),
                "last_message_id": messages.get(m.last_message_id or ""),
            }
        )

    def long(e: ExportedLongTerm) -> ExportedLongTerm:
        index = e.index.model_copy(
            update={
                "id": longs[e.index.id],
                "sources": [messages.get(s, "") for s in e.index.sources],
                "superseded": _superseded(e.index.superseded, longs, points),
                "detail_revision": f"{int(random() * 16**12):012x}",
            }
        )
        detail = e.detail and e.detail.model_copy(
            update={"source_mid_ids": [mids[i] for i in e.detail.source_mid_ids if i in mids]}
        )
        return ExportedLongTerm(index=index, detail=detail)

    def core(c: CoreMemory) -> CoreMemory:
        return c.model_copy(update={"id": cores[c.id]})

    topic = document.topic and document.topic.model_copy(update={"topic_id": topics[document.topic.topic_id]})
    return document.model_copy(
        update={
            "topic": topic,
            "short_term": [message(m) for m in document.short_term],
            "mid_term": [mid(m) for m in document.mid_term],
            "long_term": [long(e) for e in document.long_term],
            "core": [core(c) for c in document.core],
            "relationship": document.relationship.model_copy(
                update={"history": [core(c) for c in document.relationship.history]}
            ),
            "messages": [message(m) for m in document.messages],
        }
    )


def with_safety(document: MemoryDocument, check: CrisisCheck) -> MemoryDocument:
    """The open topic's messages checked as a live turn checks them (`dreamchat.domain.protocol.checked`):
    a crisis (or distress) in an imported topic is protected like a live one, so a later message in it is
    always answered. The open topic is the one the conversation's latest message belongs to, and the
    document's `topic` unless it ended; in short-term memory and in the log alike."""
    open_topics = {m.topic_id for m in document.messages[-1:]}
    if document.topic is not None and not document.topic.ended:
        open_topics.add(document.topic.topic_id)
    safety: dict[str, Message] = {}
    for topic_id in open_topics:
        topic = [m for m in document.short_term if m.topic_id == topic_id]
        safety |= {m.id: m for m in checked(topic, check)}

    def marked(message: Message) -> Message:
        found = safety.get(message.id)
        return message.model_copy(update={"safety": found.safety}) if found else message

    return document.model_copy(
        update={
            "short_term": [marked(m) for m in document.short_term],
            "messages": [marked(m) for m in document.messages],
        }
    )


def _superseded(marks: list[Supersession], longs: dict[str, str], points: dict[str, int]) -> list[Supersession]:
    """Supersessions under the new ids; one naming a memory (or a key point of it) the document does
    not hold is left out."""
    moved = [(s, split_ref(s.superseded_by)) for s in marks]
    return [
        s.model_copy(update={"superseded_by": point_ref(longs[ref[0]], ref[1])})
        for s, ref in moved
        if ref is not None and ref[0] in longs and ref[1] < points[ref[0]]
    ]


def _message_ids(old: dict[str, int], random: Callable[[], float]) -> dict[str, str]:
    """New message ids in the old ids' order (the log's), each at the moment its old id names (its
    timestamp when the old id is not ours, or names another second), strictly increasing."""
    fresh: dict[str, str] = {}
    previous: str | None = None
    for each in sorted(old):
        found = _MESSAGE_ID.match(each)
        named = int(found.group(1)) if found else None
        micros = named if named is not None and named // 1_000_000 == old[each] else old[each] * 1_000_000
        previous = fresh[each] = message_id(datetime.fromtimestamp(micros / 1_000_000, UTC), random(), previous)
    return fresh


def _topic_times(document: MemoryDocument) -> dict[str, int]:
    """Every topic the document names, with the time its new id carries (its first message's, or its memory's)."""
    times: dict[str, int] = {}
    for m in [*document.messages, *document.short_term]:
        times[m.topic_id] = min(times.get(m.topic_id, m.timestamp), m.timestamp)
    for mid in document.mid_term:
        times.setdefault(mid.topic_id, mid.created_at)
    if document.topic is not None:
        times.setdefault(document.topic.topic_id, document.topic.created_at)
    return times


def _core_stem(memory: CoreMemory) -> str:
    return f"core_{'rel_' if memory.source == 'relationship' else ''}{memory.created_at:010d}_"


def _ordered(old: list[str], stem: Callable[[str], str], random: Callable[[], float]) -> dict[str, str]:
    """`<stem><6 hex>` for each old id (in sorted order): random, but above the one before when
    the stem is the same, so ids of one moment keep their order."""
    fresh: dict[str, str] = {}
    previous = ""
    for each in old:
        prefix = stem(each)
        suffix = int(random() * 16**6)
        if previous.startswith(prefix):
            suffix = max(suffix, int(previous[len(prefix) :], 16) + 1)
        previous = fresh[each] = f"{prefix}{suffix:06x}"
    return fresh
