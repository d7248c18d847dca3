"""The memory export: one JSON document with everything an AI friend holds about the person and
the pair, its versioned schema, the checks an import makes, and the ids an import re-issues.

Pure: the current time and the random numbers are passed in. The schema is documented in
docs/memory-export.md and published as docs/memory-export.schema.json (`document_schema`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import ConfigDict, Field

from dreamchat.domain.core_memory import RELATIONSHIP_ID
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
from dreamchat.domain.supersession import point_ref, split_ref

FORMAT = "dreamchat.memory"
ACCOUNT_FORMAT = "dreamchat.account"  # the account's export: the account, 关于我 and every friend's document
VERSION = 1
# a detail document's file name: the blob under the pair's prefix, never a path
DETAIL_FILE = r"^[^/\\\x00-\x1f]{1,120}\.json$"
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
    scheduled: list[ScheduledHeartbeat] = Field(default_factory=list, max_length=10)
    last_person_at: int | None = None
    last_sent_at: int | None = None
    unanswered: int = Field(default=0, ge=0)
    recent: list[SentText] = Field(default_factory=list, max_length=50)
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
    """The rules across fields: ids unique, one mid-term memory per topic, a detail file named once."""
    _unique("messages", (m.id for m in document.messages))
    _unique("short_term", (m.id for m in document.short_term))
    _unique("mid_term", (m.id for m in document.mid_term))
    _unique("mid_term topic_id", (m.topic_id for m in document.mid_term))
    _unique("long_term", (e.index.id for e in document.long_term))
    _unique("long_term detail_file", (e.index.detail_file for e in document.long_term))
    _unique("core", (c.id for c in [*document.core, *document.relationship.history]))
    for entry in document.long_term:
        if not re.match(DETAIL_FILE, entry.index.detail_file):
            raise DocumentProblem(f"long_term {entry.index.id}: detail_file must be a plain file name ending in .json")
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


def _unique(where: str, ids: Iterable[str]) -> None:
    seen: set[str] = set()
    for each in ids:
        if each in seen:
            raise DocumentProblem(f"{where}: {each!r} appears twice")
        seen.add(each)


def reissue(document: MemoryDocument, random: Callable[[], float]) -> MemoryDocument:
    """The same memories under new ids (messages, topics, memories), every reference following;
    the order of ids (which the log's and the context's order depend on) is kept."""
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
        return m.model_copy(update={"id": messages[m.id], "topic_id": topics[m.topic_id]})

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
    timestamp when the old id is not ours), strictly increasing."""
    fresh: dict[str, str] = {}
    previous: str | None = None
    for each in sorted(old):
        found = _MESSAGE_ID.match(each)
        micros = int(found.group(1)) if found else old[each] * 1_000_000
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
