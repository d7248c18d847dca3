"""The conversation: a chat turn and its answer asked for again, as server-sent events
(`dreamchat.services.chat_turns`); the greeting, a message saved without a reply, the history, deleting
and reading messages (`dreamchat.services.chat_messages`)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Header, Query, status
from fastapi import Path as PathParam
from pydantic import Field
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
from dreamchat.services.chat_events import told
from dreamchat.services.chat_turns import Turn

router = APIRouter(prefix="/api/ai-users", tags=["chat"])
MessageId = Annotated[str, PathParam(min_length=1, max_length=64)]


class ReadUpTo(Body):
    message_id: str = Field(min_length=1, max_length=64)


class ChatMessage(Body):
    # The length rule (2000) is checked by the service so that an over-long message is a 413.
    content: str = Field(max_length=20_000)


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
    body: ChatMessage,
    companion: CompanionDep,
    deadline: DeadlineDep,
    services: ServicesDep,
    idempotency_key: IdempotencyKey = None,
) -> EventSourceResponse:
    """Send a message; the AI's messages come back as server-sent events. 403 with the protection's `code`
    (`minor_protection`, `guardian_consent_required`) unless the message shows distress or a crisis."""
    turn = services.chat_turns.send(companion.pair, companion.ai_user, body.content, idempotency_key, deadline)
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
    body: ChatMessage,
    companion: CompanionDep,
    services: ServicesDep,
    idempotency_key: IdempotencyKey = None,
) -> SavedMessageOut:
    """Store the person's message without asking for a reply; `safety` holds help lines when it shows a crisis."""
    saved = services.chat_messages.save(companion.pair, companion.ai_user, body.content, idempotency_key)
    return SavedMessageOut.model_validate(saved)


@router.get("/{user_id}/messages", response_model=MessagePageOut, responses=documented(400, 401, 404, 422))
def messages(
    user_id: str,
    pair: PairDep,
    services: ServicesDep,
    before: str | None = Query(default=None, min_length=1, max_length=64),
    after: str | None = Query(default=None, min_length=1, max_length=64),
    limit: int = Query(default=50, ge=1, le=200),
) -> MessagePageOut:
    """The conversation oldest to newest; `before` pages back, `after` fetches newer messages.

    `retry_message_id` names the person's latest message when it is in this page and its turn ended
    without an answer (the model failed, the connection dropped): `POST .../retry` answers it."""
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
