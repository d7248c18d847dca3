"""The retrieval query of a turn: the conversation, not the last message.

People recall by cue: what was just said, the feeling in it, the situation it describes. So a turn's
query is the person's message with the TURN_QUERY_MESSAGES messages before it (either side's: "怎么啦？"
gives the answer its topic), and the feeling the person shows in them: the spec's emotion labels
(情感标签) their words cue (`emotions.cued_labels`), matched against the labels stored with each
memory (`retrieval.Unit.tags`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dreamchat.domain.emotions import cued_labels

TURN_QUERY_MESSAGES = 2


@dataclass(frozen=True)
class TurnQuery:
    message: str  # the person's message: its parts and the time it names are searched on their own
    recent: str  # the messages before it, oldest first, one a line
    feeling: tuple[str, ...]  # emotion labels the person's words cue, strongest first


def turn_query(message: str, before: Sequence[tuple[str, str]]) -> TurnQuery:
    """The query for `message` given the (role, content) messages before it, oldest first."""
    recent = [content for _, content in before[-TURN_QUERY_MESSAGES:]]
    theirs = [content for role, content in before[-TURN_QUERY_MESSAGES:] if role == "user"]
    return TurnQuery(message, "\n".join(recent), cued_labels("\n".join([*theirs, message])))
