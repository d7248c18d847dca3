"""When the person may ask again for the answer to their message, after a turn that failed.

Only the conversation's last message can be answered again, and only when it is the person's and the
AI did not choose to read it without replying. Its own turn must be over first: a failed turn frees
the message at once; otherwise no turn outlives its budget (the turn's seconds and a margin).
"""

from __future__ import annotations

from dreamchat.domain.models import Message

ANSWER_MARGIN_SECONDS = 5  # beyond a turn's own seconds, before a message without a failure seen is free
NOT_THE_LATEST = "only the person's latest message, still without an answer, can be answered again"
STILL_ANSWERING = "this message is still being answered"


def awaits_answer(message: Message) -> bool:
    """The person's message, not read without a reply: one the AI still owes an answer."""
    return message.role == "user" and not message.read_no_reply


def turn_over(person: Message, now: float, turn_seconds: float) -> bool:
    """The message's own turn has ended, whatever became of it (no turn outlives its budget)."""
    return now - person.timestamp > turn_seconds + ANSWER_MARGIN_SECONDS


def retry_refusal(last: Message | None, message_id: str, *, freed: bool, over: bool) -> str | None:
    """Why `message_id` may not be answered again now (None: it may), given the conversation's last
    message, whether a failed turn freed it (`freed`) and whether its own turn is `over`."""
    if last is None or last.id != message_id or not awaits_answer(last):
        return NOT_THE_LATEST
    if not freed and not over:
        return STILL_ANSWERING
    return None


def retry_offered(last: Message, *, open_now: bool | None, over: bool) -> bool:
    """Whether the history offers to answer the last message again: it awaits an answer, and its retry
    lease is free (`open_now`; None when no retry was ever leased: then once its own turn is over)."""
    if not awaits_answer(last):
        return False
    return over if open_now is None else open_now
