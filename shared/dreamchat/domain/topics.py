"""When a topic ends and which topic a new message belongs to.

A topic ends on a farewell keyword from the person, on the chat model's `[TOPIC_ENDED]`
marker, on a semantic switch (the model's `[TOPIC_SWITCH]`: the person's new message opens
the next topic), or on an idle gap (the first message after the gap opens the next topic).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

import jieba

TOPIC_ENDED_MARKER = "[TOPIC_ENDED]"
TOPIC_SWITCH_MARKER = "[TOPIC_SWITCH]"
_MARKERS = re.compile(r"\[\s*TOPIC_(ENDED|SWITCH)\s*\]", re.IGNORECASE)


@dataclass(frozen=True)
class TopicState:
    topic_id: str
    created_at: int
    ended: bool = False


@dataclass(frozen=True)
class Placement:
    """Where a new message goes: its topic, whether that topic is new, which topic it closed."""

    topic_id: str
    opens_topic: bool
    closes_topic: str | None


def new_topic_id(now: datetime, random: float) -> str:
    """Topic ids sort by time: `topic_<epoch seconds>_<6 hex>`."""
    return f"topic_{int(now.timestamp()):010d}_{int(random * 16**6):06x}"


def place_message(
    state: TopicState | None,
    last_message_at: int | None,
    now: datetime,
    idle_hours: float,
    fresh_topic_id: str,
) -> Placement:
    if state is None:
        return Placement(fresh_topic_id, True, None)
    if state.ended:
        return Placement(fresh_topic_id, True, None)
    if last_message_at is not None and is_idle(last_message_at, now, idle_hours):
        return Placement(fresh_topic_id, True, state.topic_id)
    return Placement(state.topic_id, False, None)


def is_idle(last_message_at: int, now: datetime, idle_hours: float) -> bool:
    return now.timestamp() - last_message_at >= timedelta(hours=idle_hours).total_seconds()


def says_farewell(text: str, keywords: list[str]) -> bool:
    """True when the text contains a farewell. Latin keywords must stand between non-letters;
    Chinese ones must begin where a jieba word begins (so 今晚安排 does not say 晚安)."""
    lowered = text.casefold()
    starts: set[int] | None = None
    for keyword in keywords:
        word = keyword.casefold().strip()
        if not word:
            continue
        if word.isascii():
            if re.search(rf"(?<![a-z]){re.escape(word)}(?![a-z])", lowered):
                return True
        elif word in lowered:
            starts = starts if starts is not None else {start for _, start, _ in jieba.tokenize(lowered)}
            if any(match.start() in starts for match in re.finditer(re.escape(word), lowered)):
                return True
    return False


@dataclass(frozen=True)
class Markers:
    text: str
    ended: bool
    switched: bool


def read_markers(reply: str) -> Markers:
    """Strip topic markers from a model reply; they never reach the person."""
    found = {match.upper() for match in _MARKERS.findall(reply)}
    return Markers(_MARKERS.sub("", reply), "ENDED" in found, "SWITCH" in found)
