"""The person's controls over the conversation's latest exchange: a new answer to their last message
(换一个回答, the old one kept as an alternative to swipe back to), their last message edited (the AI's
answer after it dropped), a rating of an AI message (👍/👎, never shown to a model), and search in the
history. Pure rules over the conversation's tail (the latest messages, oldest first).

An exchange is the person's latest message and the AI's answer after it: only `chat` messages of the AI
(a heartbeat, a greeting or an operator's words after it end the exchange: nothing there to answer anew).
The first message of an answer carries every answer the exchange had (`Message.alternatives`, each the
answer's lines joined by a line break) and which of them is shown (`Message.alternative`).
"""

from __future__ import annotations

from dataclasses import dataclass

from dreamchat.domain.bounds import ALTERNATIVES
from dreamchat.domain.models import Message

TAIL_MESSAGES = 12  # the conversation's latest messages read to find the exchange (an answer has 1-5 lines)
SEARCH_SCAN_MESSAGES = 2000  # messages one search request reads before it hands back a cursor
RATINGS = (1, -1)  # 👍 and 👎

NOT_THE_LAST_ANSWER = "only the AI's answer to your latest message can be answered anew"
NOT_THE_LAST_MESSAGE = "only your latest message, with nothing but the AI's answer after it, can be edited"
NOT_AN_ANSWER = "only the AI's messages can be rated"
NO_ALTERNATIVES = "this answer has no alternative"


@dataclass(frozen=True)
class Exchange:
    """The person's latest message and the AI's answer to it (empty: read without a reply, or failed)."""

    person: Message
    answer: list[Message]

    @property
    def text(self) -> str:
        """The answer as one alternative: its lines joined."""
        return "\n".join(m.content for m in self.answer)

    @property
    def alternatives(self) -> list[str]:
        """Every answer the exchange had so far, the one shown now in its place."""
        if not self.answer:
            return []
        first = self.answer[0]
        if not first.alternatives:
            return [self.text]
        kept = list(first.alternatives)
        kept[min(first.alternative, len(kept) - 1)] = self.text
        return kept


def last_exchange(tail: list[Message]) -> Exchange | None:
    """The exchange the conversation ends with; None when it ends otherwise (a heartbeat, a greeting,
    staff) or holds no message of the person."""
    answer: list[Message] = []
    for message in reversed(tail):
        if message.role == "user":
            return Exchange(message, answer)
        if message.role != "assistant" or message.kind != "chat":
            return None
        answer.insert(0, message)
    return None


def regenerate_problem(exchange: Exchange | None, message_id: str) -> str | None:
    """Why the answer `message_id` belongs to may not be answered anew (None: it may)."""
    if exchange is None or all(m.id != message_id for m in exchange.answer):
        return NOT_THE_LAST_ANSWER
    return None


def edit_problem(exchange: Exchange | None, message_id: str) -> str | None:
    """Why the person's message `message_id` may not be edited (None: it may)."""
    if exchange is None or exchange.person.id != message_id:
        return NOT_THE_LAST_MESSAGE
    return None


def with_new_answer(earlier: list[str], new: str) -> tuple[list[str], int]:
    """The alternatives once `new` joins the `earlier` ones (the oldest dropped past the limit), and its index."""
    kept = [*earlier, new][-ALTERNATIVES:]
    return kept, len(kept) - 1


def choice_problem(exchange: Exchange | None, message_id: str, index: int) -> str | None:
    """Why alternative `index` may not be shown for the answer starting at `message_id` (None: it may)."""
    if exchange is None or not exchange.answer or exchange.answer[0].id != message_id:
        return NOT_THE_LAST_ANSWER
    if not exchange.answer[0].alternatives:
        return NO_ALTERNATIVES
    return None


def matches(message: Message, query: str) -> bool:
    """A history search's hit: the text holds the query, whatever the case."""
    return query.casefold() in message.content.casefold()


def rated(counts: dict[str, int], was: int | None, now: int) -> dict[str, int]:
    """A month's 👍/👎 counts (`up`, `down`) after a message rated `was` is rated `now` (a changed mind moves
    its count, never below zero)."""
    names = {1: "up", -1: "down"}
    changed = dict(counts)
    if was is not None:
        changed[names[was]] = max(changed.get(names[was], 0) - 1, 0)
    changed[names[now]] = changed.get(names[now], 0) + 1
    return changed
