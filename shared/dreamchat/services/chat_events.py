"""What a chat turn hands the client, in order: help lines or a notice, a reasoner's thinking, the AI's
messages, then `Done` or `Failed`. `told` names each event and the fields the client is told (the
router sends each as one server-sent event); a turn replayed for an Idempotency-Key comes back as
`Replayed` events, told as they were the first time."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from dreamchat.domain.asked import AnswerReason
from dreamchat.domain.help_lines import CrisisResource
from dreamchat.domain.models import Message


@dataclass(frozen=True)
class SafetyNotice:
    """Help lines for a person in crisis (sent before the messages, shown as a card)."""

    resources: tuple[CrisisResource, ...]
    kind: str = "crisis"

    def as_dict(self) -> dict[str, object]:
        fields = ("name", "phone", "url", "hours")
        return {"kind": self.kind, "resources": [{f: getattr(r, f) for f in fields} for r in self.resources]}


@dataclass(frozen=True)
class Notice:
    """An in-app notice before the AI's messages (not a message of the AI's)."""

    kind: str
    text: str


@dataclass(frozen=True)
class Thinking:
    """The reasoning model's chain of thought for this turn (sent before the messages)."""

    content: str


@dataclass(frozen=True)
class Reply:
    """What the AI produced: its text, whether someone "typed" it, and its chain of thought."""

    text: str
    typed: bool = True
    reasoning: str = ""
    read_pause: float | None = None  # seconds before 已读 shows, when the AI reads without replying
    asked: AnswerReason | None = None  # why the message was always answered (the reply decision's reason)


# `done`'s reason: "question" | "memory" | "farewell" | "answer" (always answered), "read_no_reply" (已读不回)
DoneReason = AnswerReason | Literal["read_no_reply"]


@dataclass(frozen=True)
class Sent:
    message: Message
    delay_ms: int
    index: int


@dataclass(frozen=True)
class Done:
    replied: bool
    topic_ended: bool
    message_count: int
    read_after_ms: int = 0  # 已读 shows after this pause (a person does not read the instant it arrives)
    reason: DoneReason | None = None  # why: always answered (the message's kind), or read without a reply


@dataclass(frozen=True)
class Failed:
    code: str
    message: str


@dataclass(frozen=True)
class Replayed:
    """An event of an earlier turn with the same Idempotency-Key, as the client was told it then."""

    name: str
    fields: dict[str, Any]


ChatEvent = SafetyNotice | Notice | Thinking | Sent | Done | Failed | Replayed


def told(event: ChatEvent) -> tuple[str, dict[str, Any]]:
    """The event's name and the fields the client is told."""
    if isinstance(event, SafetyNotice):  # help lines for a person in crisis, before anything else
        return "safety", event.as_dict()
    if isinstance(event, Notice):  # an in-app notice (the break reminder), not the AI's words
        return "notice", {"kind": event.kind, "text": event.text}
    if isinstance(event, Thinking):  # a reasoning model's chain of thought, for clients that show it
        return "thinking", {"content": event.content}
    if isinstance(event, Sent):
        message = event.message
        fields = {"message_id": message.id, "content": message.content, "delay_ms": event.delay_ms}
        if message.media_id is not None:  # a voice reply: `content` is its transcript
            fields |= {"media_id": message.media_id, "media_kind": message.media_kind, "duration_s": message.duration_s}
        return "message", {**fields, "index": event.index, "timestamp": message.timestamp}
    if isinstance(event, Done):
        return "done", {
            "replied": event.replied,
            "topic_ended": event.topic_ended,
            "message_count": event.message_count,
            "read_after_ms": event.read_after_ms,
            "reason": event.reason,
        }
    if isinstance(event, Replayed):
        return event.name, event.fields
    return "error", {"code": event.code, "message": event.message}


def kept(event: ChatEvent) -> dict[str, str]:
    """An event as an Idempotency-Key keeps it for the retries: its name and its fields as JSON."""
    name, fields = told(event)
    return {"event": name, "data": json.dumps(fields, ensure_ascii=False)}
