"""The conversation: a chat turn and its answer asked for again, as server-sent events
(`dreamchat.services.chat_turns`); the greeting, a message saved without a reply, the history, deleting
and reading messages (`dreamchat.services.chat_messages`)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Header, Query, status
from fastapi import Path as PathParam
from pydantic import Field, field_validator, model_validator
from sse_starlette import EventSourceResponse

from dreamchat.api.deps import CompanionDep, DeadlineDep, PairDep, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.responses import (
    GreetingOut,
    MessageDeletedOut,
    MessageOut,
    MessagePageOut,
    ReadUpToOut,
    SavedMessageOut,
)
from dreamchat.api.schemas import Body
from dreamchat.domain import bounds
from dreamchat.domain.answers import RATINGS
from dreamchat.errors import Invalid
from dreamchat.services.chat_events import told
from dreamchat.services.turn import Turn

router = APIRouter(prefix="/api/ai-users", tags=["chat"])
MessageId = Annotated[str, PathParam(min_length=1, max_length=64)]


class ReadUpTo(Body):
    message_id: str = Field(min_length=1, max_length=64)


class AlternativeChoice(Body):
    index: int = Field(ge=0, lt=bounds.ALTERNATIVES, strict=True)


class Feedback(Body):
    rating: int = Field(strict=True)  # 👍 (1) or 👎 (-1); anything else is 422 (not "1", 1.0 or true)
    reason: str = Field(default="", max_length=bounds.RATING_REASON_CHARS)

    @field_validator("rating")
    @classmethod
    def _thumb(cls, value: int) -> int:
        if value not in RATINGS:
            raise ValueError("rating is 1 (👍) or -1 (👎)")
        return value


class ChatMessage(Body):
    # The length rule (2000) is checked by the service so that an over-long message is a 413.
    content: str = Field(max_length=20_000)


class MediaMessage(Body):
    """A message sent: words, a photo or voice note uploaded first (`POST .../media`), or both."""

    content: str | None = Field(default=None, max_length=20_000)
    media_id: str | None = Field(default=None, min_length=1, max_length=64)

    @model_validator(mode="after")
    def _something(self) -> MediaMessage:
        if self.content is None and self.media_id is None:
            raise ValueError("a message needs content, a media_id, or both")
        return self


IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=255,
        description="Retries with the same key store and answer once (24 h)",
    ),
]


async def _sse(turn: Turn) -> AsyncIterator[dict[str, str]]:
    """Each of the turn's events as one server-sent event."""
    async for event in turn.events():
        name, fields = told(event)
        yield {"event": name, "data": json.dumps(fields, ensure_ascii=False)}


@router.post(
    "/{user_id}/chat",
    response_class=EventSourceResponse,
    responses={
        200: {
            "description": "The AI's messages as server-sent events: `safety` (help lines, when the message shows a crisis), "
            "`notice` (a break reminder, the AI disclosure, `daily_limit`, `reality`, `dependence`), a reasoner's `thinking`, `message`s, then `done` or `error`",
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
        },
        **documented(400, 401, 403, 404, 409, 413, 422, 429, 503),
    },
)
def chat(
    user_id: str,
    body: MediaMessage,
    companion: CompanionDep,
    deadline: DeadlineDep,
    services: ServicesDep,
    idempotency_key: IdempotencyKey = None,
) -> EventSourceResponse:
    """Send a message; the AI's messages come back as server-sent events. 403 with the protection's `code`
    (`minor_protection`, `guardian_consent_required`) unless the message shows distress or a crisis.
    With `media_id` (an upload of this pair not yet sent): the voice note's transcript or the photo's description
    is the message's text, before what was typed; 404 for an unknown id, 409 `media_already_sent`."""
    pair, ai_user = companion.pair, companion.ai_user
    content, media_id = body.content or "", body.media_id
    turn = services.chat_turns.send(pair, ai_user, content, idempotency_key, deadline, media_id=media_id)
    return EventSourceResponse(_sse(turn), ping=15)


@router.post(
    "/{user_id}/messages/{message_id}/retry",
    response_class=EventSourceResponse,
    responses={
        200: {
            "description": "The AI's messages for the stored message, as `POST /chat` sends them",
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
        },
        **documented(401, 403, 404, 409, 422, 429, 503),
    },
)
def retry(
    user_id: str, companion: CompanionDep, deadline: DeadlineDep, services: ServicesDep, message_id: MessageId
) -> EventSourceResponse:
    """Ask again for the reply to the person's latest message after a failed turn; the message is not stored again.

    409 unless it is the conversation's last message, the person's, and not already read without a reply."""
    turn = services.chat_turns.retry(companion.pair, companion.ai_user, message_id, deadline)
    return EventSourceResponse(_sse(turn), ping=15)


_STREAMED = {
    "description": "The AI's new answer, as `POST /chat` sends it",
    "content": {"text/event-stream": {"schema": {"type": "string"}}},
}


@router.post(
    "/{user_id}/messages/{message_id}/regenerate",
    response_class=EventSourceResponse,
    responses={200: _STREAMED, **documented(401, 403, 404, 409, 422, 429, 503)},
)
def regenerate(
    user_id: str, companion: CompanionDep, deadline: DeadlineDep, services: ServicesDep, message_id: MessageId
) -> EventSourceResponse:
    """换一个回答: a new answer to the person's latest message in place of the AI's answer `message_id` is part of;
    the old one is kept (`alternatives` on the new answer's first message). 409 unless that answer is the
    conversation's last exchange, or while another new answer to it is being made."""
    turn = services.answers.regenerate(companion.pair, companion.ai_user, message_id, deadline)
    return EventSourceResponse(_sse(turn), ping=15)


@router.put(
    "/{user_id}/messages/{message_id}/alternative",
    response_model=MessageOut,
    responses=documented(400, 401, 404, 409, 422),
)
def choose_alternative(
    user_id: str, body: AlternativeChoice, pair: PairDep, services: ServicesDep, message_id: MessageId
) -> MessageOut:
    """Show the exchange's answer number `index` (0-based, of `alternatives`) again; the answer becomes this
    one message. 409 unless `message_id` starts the answer of the conversation's last exchange."""
    return MessageOut.model_validate(services.answers.choose(pair, message_id, body.index))


@router.put(
    "/{user_id}/messages/{message_id}",
    response_class=EventSourceResponse,
    responses={200: _STREAMED, **documented(400, 401, 403, 404, 409, 413, 422, 429, 503)},
)
def edit_message(
    user_id: str,
    body: ChatMessage,
    companion: CompanionDep,
    deadline: DeadlineDep,
    services: ServicesDep,
    message_id: MessageId,
    idempotency_key: IdempotencyKey = None,
) -> EventSourceResponse:
    """Edit the person's latest message: it is replaced by `content` (a new message, checked as any is, the
    crisis check too), the AI's answer after it dropped, and a new answer streamed. 409 unless it is their
    latest message with nothing but the AI's answer after it."""
    turn = services.answers.edit(companion.pair, companion.ai_user, message_id, body.content, idempotency_key, deadline)
    return EventSourceResponse(_sse(turn), ping=15)


@router.post(
    "/{user_id}/messages/{message_id}/feedback",
    response_model=MessageOut,
    responses=documented(400, 401, 404, 409, 422),
)
def feedback(user_id: str, body: Feedback, pair: PairDep, services: ServicesDep, message_id: MessageId) -> MessageOut:
    """👍 (`rating: 1`) or 👎 (`-1`) on an AI message, with an optional `reason`: kept on the message, counted
    for the operators (this month's totals in `GET /api/admin/summary`), never shown to a model. 422 on the
    person's own message."""
    return MessageOut.model_validate(services.ratings.rate(pair, message_id, body.rating, body.reason))


@router.delete(
    "/{user_id}/messages/{message_id}", response_model=MessageDeletedOut, responses=documented(401, 404, 422)
)
def delete_message(user_id: str, pair: PairDep, services: ServicesDep, message_id: MessageId) -> MessageDeletedOut:
    """Delete one message of the conversation (the person's or the AI's), also from short-term memory."""
    services.chat_messages.delete(pair, message_id)
    return MessageDeletedOut(deleted=message_id)


@router.post("/{user_id}/greet", response_model=GreetingOut, responses=documented(401, 403, 404, 422))
def greet(user_id: str, companion: CompanionDep, services: ServicesDep) -> GreetingOut:
    """Store and return the AI user's opening message when the chat is opened for the first time and is empty;
    `{"message": null}` otherwise (no greeting set, already greeted, the two have talked, or a greeting
    saved before the honesty rule that claims to be human)."""
    message = services.chat_messages.greet(companion.pair, companion.ai_user)
    return GreetingOut(message=MessageOut.model_validate(message) if message is not None else None)


@router.post(
    "/{user_id}/save-message",
    status_code=status.HTTP_201_CREATED,
    response_model=SavedMessageOut,
    responses=documented(400, 401, 403, 404, 409, 413, 422, 429),
)
def save_message(
    user_id: str,
    body: MediaMessage,
    companion: CompanionDep,
    deadline: DeadlineDep,
    services: ServicesDep,
    idempotency_key: IdempotencyKey = None,
) -> SavedMessageOut:
    """Store the person's message without asking for a reply; `safety` holds help lines when it shows a crisis.
    `media_id` as for `POST .../chat` (404 unknown, 409 `media_already_sent`)."""
    pair, ai_user = companion.pair, companion.ai_user
    content, media_id = body.content or "", body.media_id
    saved = services.chat_messages.save(pair, ai_user, content, idempotency_key, media_id, deadline)
    return SavedMessageOut.model_validate(saved)


@router.get("/{user_id}/messages", response_model=MessagePageOut, responses=documented(400, 401, 404, 422))
def messages(
    user_id: str,
    pair: PairDep,
    services: ServicesDep,
    before: str | None = Query(default=None, min_length=1, max_length=64),
    after: str | None = Query(default=None, min_length=1, max_length=64),
    limit: int = Query(default=50, ge=1, le=200),
    q: str | None = Query(default=None, min_length=1, max_length=bounds.SEARCH_QUERY_CHARS),
) -> MessagePageOut:
    """The conversation oldest to newest; `before` pages back, `after` fetches newer messages.

    `retry_message_id` names the person's latest message when it is in this page and its turn ended
    without an answer (the model failed, the connection dropped): `POST .../retry` answers it.
    With `q`: only the messages holding it (any case), up to `limit` from the newest back; `next_cursor`
    (as `before`) searches further back (a request reads at most 2,000 messages, so it may hold fewer)."""
    if q is not None:
        if after is not None:
            raise Invalid("a search pages back with before, not after")
        history = services.chat_messages.search(pair, q, before, limit)
    else:
        history = services.chat_messages.history(pair, before, after, limit)
    return MessagePageOut(
        messages=[MessageOut.model_validate(m) for m in history.page.messages],
        next_cursor=history.page.next_cursor,
        retry_message_id=history.retry_message_id,
    )


@router.post("/{user_id}/read", response_model=ReadUpToOut, responses=documented(400, 401, 404, 422))
def mark_read(user_id: str, body: ReadUpTo, pair: PairDep, services: ServicesDep) -> ReadUpToOut:
    """The person has seen the conversation up to this message (replies shown from the stream, heartbeats)."""
    services.chat_messages.mark_read(pair, body.message_id)
    return ReadUpToOut(read_up_to=body.message_id)
