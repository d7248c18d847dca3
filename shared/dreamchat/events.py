"""The events and work items that cross a bus or a queue, typed: each names itself once and turns
into (`detail`) and back from (`from_detail`) the JSON-ready dict that travels.

`from_detail` raises `MalformedEvent` on a detail that lacks a field or holds the wrong kind of
value; its message names the event and the field, never a value (a detail can carry ids only, but
a malformed one may carry anything).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Self

from dreamchat.domain.models import PairId
from dreamchat.ports import Event


class MalformedEvent(ValueError):
    """An event or work item whose detail is not what its type says."""


def _text(detail: object, name: str, field: str) -> str:
    value = _field(detail, name, field)
    if not isinstance(value, str) or not value:
        raise MalformedEvent(f"{name}: {field} is not a non-empty string")
    return value


def _whole(detail: object, name: str, field: str) -> int:
    value = _field(detail, name, field)
    if isinstance(value, bool):
        raise MalformedEvent(f"{name}: {field} is not a whole number")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise MalformedEvent(f"{name}: {field} is not a whole number") from None


def _field(detail: object, name: str, field: str) -> Any:
    if not isinstance(detail, dict):
        raise MalformedEvent(f"{name}: the detail is not an object")
    if field not in detail:
        raise MalformedEvent(f"{name}: the detail has no {field}")
    return detail[field]


@dataclass(frozen=True)
class PairEvent:
    account_id: str
    ai_user_id: str

    detail_type: ClassVar[str]

    @property
    def pair(self) -> PairId:
        return PairId(account_id=self.account_id, ai_user_id=self.ai_user_id)

    def event(self) -> Event:
        return Event(self.detail_type, self.detail())

    def detail(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def of(cls, event: Event) -> Self:
        """The typed event of a bus event (of this type)."""
        if event.detail_type != cls.detail_type:
            raise MalformedEvent(f"{cls.detail_type}: the event is a {event.detail_type}")
        return cls.from_detail(event.detail)

    @classmethod
    def from_detail(cls, detail: object) -> Self:
        """The event a detail describes: every field present, text as non-empty text, numbers whole."""
        read: dict[str, Callable[[object, str, str], Any]] = {"str": _text, "int": _whole}
        return cls(**{f.name: read[str(f.type)](detail, cls.detail_type, f.name) for f in fields(cls)})


@dataclass(frozen=True)
class TopicEnded(PairEvent):
    """A topic ended: compression moves it from short-term to mid-term memory."""

    topic_id: str

    detail_type: ClassVar[str] = "TopicEnded"


@dataclass(frozen=True)
class HeartbeatDue(PairEvent):
    """A pair's heartbeat is due at `due` (epoch seconds): one work item of the heartbeat queue."""

    due: int

    detail_type: ClassVar[str] = "HeartbeatDue"


@dataclass(frozen=True)
class ExtractionDue(PairEvent):
    """A pair's mid-term memories are past the threshold: one work item of the extraction queue.
    `lease` (epoch seconds, when the sweep's lease ends) names this round of the pair's extraction."""

    lease: int

    detail_type: ClassVar[str] = "ExtractionDue"
