"""The safety protocol's state of a topic: what the crisis check's verdicts on its messages add up to.

A topic is in crisis once any of its messages was one (the protocol holds to the topic's end: always
answered, care, the check-in owed); it is in distress while one of the person's latest `PROTOCOL_MESSAGES`
showed distress (answered, never silence), then ordinary again.
"""

from __future__ import annotations

from dreamchat.domain.crisis import CrisisCheck, Verdict
from dreamchat.domain.models import Message, Safety

CUT_MARK = "…（消息过长，后面的部分没有保存）"  # the end of a distress message stored cut at the length limit
PROTOCOL_MESSAGES = (
    3  # the person's latest messages of a topic: read together by the check, and distress lasts this long
)


def marked(verdict: Verdict) -> Safety | None:
    """How a message is stored: `crisis`, `distress` or unmarked."""
    return "crisis" if verdict.crisis else "distress" if verdict.distress else None


def topic_state(messages: list[Message]) -> Safety | None:
    """The state of a topic, given its messages (oldest first)."""
    if any(m.safety == "crisis" for m in messages):
        return "crisis"
    latest = [m for m in messages if m.role == "user"][-PROTOCOL_MESSAGES:]
    return "distress" if any(m.safety == "distress" for m in latest) else None


def checked(messages: list[Message], check: CrisisCheck) -> list[Message]:
    """A topic's messages (oldest first) marked as the live turns would have marked them: each of the
    person's read with their latest before it (a crisis split over two is one); a mark a message already
    carries is kept, never lowered."""
    marks: list[Message] = []
    for n, message in enumerate(messages):
        if message.role == "user":
            verdict = check.recent([*recent_words(messages[:n]), message.content])
            found = marked(verdict)
            if message.safety != "crisis" and found is not None:
                message = message.model_copy(update={"safety": found})
        marks.append(message)
    return marks


def recent_words(messages: list[Message]) -> list[str]:
    """The person's words the check reads beside a new message: their latest of the topic, oldest first."""
    return [m.content for m in messages if m.role == "user"][-(PROTOCOL_MESSAGES - 1) :]
