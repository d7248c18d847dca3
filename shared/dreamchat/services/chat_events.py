"""What a chat turn hands the client, in order: help lines or a notice, a reasoner's thinking, the AI's
messages, then `Done` or `Failed` (the router turns each into one server-sent event)."""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True)
class Failed:
    code: str
    message: str


Event = SafetyNotice | Notice | Thinking | Sent | Done | Failed
