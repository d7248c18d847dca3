from __future__ import annotations

import contextlib
import json
import logging
import math
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request, status
from fastapi import Path as PathParam
from pydantic import Field
from sse_starlette import EventSourceResponse

from dreamchat import keys
from dreamchat.api.deadline import SCOPE_KEY
from dreamchat.api.deps import CurrentCaller, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.model_work import ModelPool, ModelPoolDep, Slot
from dreamchat.api.responses import Greeting, MessageDeleted, MessageOut, MessagePage, ReadUpToOut, SavedMessage
from dreamchat.api.schemas import Body
from dreamchat.budget import Deadline
from dreamchat.domain.answering import (
    ANSWER_MARGIN_SECONDS,
    NOT_THE_LATEST,
    awaits_answer,
    retry_offered,
    retry_refusal,
    turn_over,
)
from dreamchat.domain.models import AIUser, Message, PairId
from dreamchat.domain.personas import opening
from dreamchat.errors import Conflict, NotFound, TooManyRequests, Unavailable
from dreamchat.llm.offline import caring_reply
from dreamchat.services.chat import Done, Event, Failed, Notice, SafetyNotice, Sent, Thinking
from dreamchat.services.container import Services
from dreamchat.services.idempotency import Idempotency, IdempotencyClaim, fingerprint
from dreamchat.services.leases import LeaseClaim, Leases
from dreamchat.services.storage.unit_of_work import Storage
from dreamchat.services.tombstones import Gone

log = logging.getLogger(__name__)
router = APIRouter(prefix="/api/ai-users", tags=["chat"])
RETRIES_PER_MESSAGE = 1000  # a person may keep asking; each retry is a real turn on the model pool


class ReadUpTo(Body):
    message_id: str = Field(min_length=1, max_length=64)


class ChatMessage(Body):
    # The length rule (2000) is checked by the service so that an over-long message is a 413.
    content: str = Field(max_length=20_000)


def _events(turn: Iterable[Event]) -> Iterator[dict[str, str]]:
    for event in turn:
        if isinstance(event, SafetyNotice):  # help lines for a person in crisis, before anything else
            yield {"event": "safety", "data": json.dumps(event.as_dict(), ensure_ascii=False)}
        elif isinstance(event, Notice):  # an in-app notice (the break reminder), not the AI's words
            yield {"event": "notice", "data": json.dumps({"kind": event.kind, "text": event.text}, ensure_ascii=False)}
        elif isinstance(event, Thinking):  # a reasoning model's chain of thought, for clients that show it
            yield {"event": "thinking", "data": json.dumps({"content": event.content}, ensure_ascii=False)}
        elif isinstance(event, Sent):
            data = {
                "message_id": event.message.id,
                "content": event.message.content,
                "delay_ms": event.delay_ms,
                "index": event.index,
                "timestamp": event.message.timestamp,
            }
            yield {"event": "message", "data": json.dumps(data, ensure_ascii=False)}
        elif isinstance(event, Done):
            data = {
                "replied": event.replied,
                "topic_ended": event.topic_ended,
                "message_count": event.message_count,
                "read_after_ms": event.read_after_ms,
            }
            yield {"event": "done", "data": json.dumps(data)}
        else:
            yield {
                "event": "error",
                "data": json.dumps({"code": event.code, "message": event.message}, ensure_ascii=False),
            }


IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=255,
        description="Retries with the same key store and answer once (24 h)",
    ),
]


def _keys(services: Services) -> Idempotency:
    return Idempotency(Storage(services.runtime.store), services.runtime.clock)


def _claim(services: Services, account_id: str, key: str | None, *request: str) -> IdempotencyClaim | None:
    return _keys(services).claim(account_id, key, fingerprint(*request)) if key is not None else None


def _abandon(services: Services, claim: IdempotencyClaim | None) -> None:
    if claim is not None and claim.replay is None:
        _keys(services).abandon(claim)


def _streamed(
    pool: ModelPool, slot: Slot, turn: Callable[..., list[dict[str, str]]], *args: Any
) -> EventSourceResponse:
    """The whole turn runs, on the reserved model pool slot, before the first event: a client that hangs
    up cannot cut it short (a worker thread is not cancelled; the events then reach no one)."""

    async def stream() -> AsyncIterator[dict[str, str]]:
        try:
            events = await pool.run(turn, *args)
        except Exception as error:  # noqa: BLE001 - the stream has begun: it must still end with an event
            log.error("chat stream failed", extra={"error": type(error).__name__})
            events = list(_events([Failed("internal_error", "这次没能回复，你的消息已经保存。")]))
        finally:
            slot.release()
        for event in events:
            yield event

    return EventSourceResponse(stream(), ping=15)


def _turn(
    services: Services,
    pair: PairId,
    ai_user: AIUser,
    person: Message,
    deadline: Deadline,
    claim: IdempotencyClaim | None,
    model: bool = True,
) -> list[dict[str, str]]:
    """The whole AI side of a turn as SSE events, kept for the Idempotency-Key's retries."""
    turn = _respond(services, pair, ai_user, person, deadline, model)
    if isinstance(turn[-1], Failed):  # the person may ask for the answer again at once
        _unless_erased(_answering(services).free, *keys.answering(pair, person.id))
    events = list(_events(turn))
    if claim is not None:
        _unless_erased(_keys(services).finish, claim, events)
    return events


def _unless_erased(record: Callable[..., object], *args: Any) -> None:
    """A turn's own record after it ran; none is kept once its conversation or account was deleted."""
    with contextlib.suppress(Gone):
        record(*args)


def _turn_over(services: Services, person: Message) -> bool:
    return turn_over(person, services.runtime.clock.now().timestamp(), services.runtime.settings.chat_turn_seconds)


def _answering(services: Services) -> Leases:
    """Leases on answering a person's message again, each as long as a turn can run."""
    seconds = math.ceil(services.runtime.settings.chat_turn_seconds) + ANSWER_MARGIN_SECONDS
    return Leases(Storage(services.runtime.store), services.runtime.clock, seconds, max_attempts=RETRIES_PER_MESSAGE)


def _retried(
    services: Services,
    pair: PairId,
    ai_user: AIUser,
    person: Message,
    deadline: Deadline,
    lease: LeaseClaim,
    model: bool = True,
) -> list[dict[str, str]]:
    """A retry's turn under its lease: a failure leaves the message free to retry, an answer ends it.
    The person asked for an answer: the draw never declines it (已读不回 is no answer to 重试)."""
    turn = _respond(services, pair, ai_user, person, deadline, model, must_answer=True)
    answering = _answering(services)
    _unless_erased(answering.release if isinstance(turn[-1], Failed) else answering.finish, lease)
    return list(_events(turn))


def _respond(
    services: Services,
    pair: PairId,
    ai_user: AIUser,
    person: Message,
    deadline: Deadline,
    model: bool = True,
    *,
    must_answer: bool = False,
) -> list[Event]:
    try:
        return list(services.chat.respond(pair, ai_user, person, deadline, model=model, must_answer=must_answer))
    except Gone:  # the account or the pair was deleted while the AI was answering
        return [Failed("gone", "this conversation was deleted")]
    except Exception as error:  # noqa: BLE001 - logged; the stream must still end with an event
        log.error("chat turn failed", extra={"ai_user_id": ai_user.id, "error": type(error).__name__})
        # a crisis or distress turn that fails all the same still leaves words of care (and the help lines)
        words = (
            caring_reply(person.safety == "crisis", offline=False)
            if person.safety
            else "这次没能回复，你的消息已经保存。"
        )
        failed = Failed("internal_error", words)
        return [*_help_lines(services, pair, person), failed]


def _help_lines(services: Services, pair: PairId, person: Message) -> list[Event]:
    """The help lines a turn on a crisis message shows even when it fails."""
    with contextlib.suppress(Exception):  # the turn's own failure may be the store's
        return [services.chat.crisis_help(pair.account_id)] if person.safety == "crisis" else []
    return []


def _slot(pool: ModelPool, account_id: str, crisis: bool) -> Slot | None:
    """A model pool slot for the turn; for a crisis, when none is free, None: it is answered
    without the model (words of care and the help lines), never with a 503 (a crisis spends no budget)."""
    try:
        return pool.reserve(account_id, budgeted=not crisis)
    except (Unavailable, TooManyRequests):
        if not crisis:
            raise
        return None


def _now_or_streamed(
    pool: ModelPool, slot: Slot | None, turn: Callable[..., list[dict[str, str]]], *args: Any
) -> EventSourceResponse:
    """The turn on its slot, or, a crisis without one, at once without the model."""
    if slot is None:
        return EventSourceResponse(iter(turn(*args, False)))
    return _streamed(pool, slot, turn, *args)


@router.post(
    "/{user_id}/chat",
    response_class=EventSourceResponse,
    responses={
        200: {
            "description": "The AI's messages as server-sent events: `safety` (help lines, when the message shows a crisis), "
            "`notice` (a break reminder), a reasoner's `thinking`, `message`s, then `done` or `error`",
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
        },
        **documented(400, 401, 404, 409, 413, 422, 429, 503),
    },
)
def chat(
    user_id: str,
    body: ChatMessage,
    request: Request,
    caller: CurrentCaller,
    services: ServicesDep,
    pool: ModelPoolDep,
    idempotency_key: IdempotencyKey = None,
) -> EventSourceResponse:
    """Send a message; the AI's messages come back as server-sent events."""
    deadline: Deadline = request.scope[SCOPE_KEY]  # set by RequestDeadline
    pair, ai_user = services.ai_users.companion(caller.id, user_id)
    # before the message is stored: a 503 means "send it again", nothing half-done (never for a crisis)
    crisis = services.chat.protected(pair, body.content)  # distress or a crisis, or its topic's: never refused
    slot = _slot(pool, caller.id, crisis)
    claim = None
    try:
        claim = _claim(services, caller.id, idempotency_key, "chat", user_id, body.content)
        if claim is not None and claim.replay is not None:
            _release(slot)
            return EventSourceResponse(iter(claim.replay))
        try:
            person = services.chat.accept(pair, ai_user, body.content)
        except TooManyRequests:
            if not crisis:
                raise
            # past the message limit a crisis is still stored and answered, without the model
            person = services.chat.accept(pair, ai_user, body.content, limited=False)
            _release(slot)
            slot = None
    except BaseException:
        _release(slot)
        _abandon(services, claim)
        raise

    return _now_or_streamed(pool, slot, _turn, services, pair, ai_user, person, deadline, claim)


def _release(slot: Slot | None) -> None:
    if slot is not None:
        slot.release()


@router.post(
    "/{user_id}/messages/{message_id}/retry",
    response_class=EventSourceResponse,
    responses={
        200: {
            "description": "The AI's messages for the stored message, as `POST /chat` sends them",
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
        },
        **documented(401, 404, 409, 422, 429, 503),
    },
)
def retry(
    user_id: str,
    request: Request,
    caller: CurrentCaller,
    services: ServicesDep,
    pool: ModelPoolDep,
    message_id: str = PathParam(min_length=1, max_length=64),
) -> EventSourceResponse:
    """Ask again for the reply to the person's latest message after a failed turn; the message is not stored again.

    409 unless it is the conversation's last message, the person's, and not already read without a reply."""
    deadline: Deadline = request.scope[SCOPE_KEY]
    pair, ai_user = services.ai_users.companion(caller.id, user_id)
    if not services.memory.repo.log.has_message(pair, message_id):
        raise NotFound("no such message in this conversation")
    last = services.memory.repo.log.last_message(pair)
    answering = _answering(services)
    pk, sk = keys.answering(pair, message_id)
    freed = services.runtime.store.get(pk, sk) is not None  # a failed turn (or a retry) left its lease
    refusal = retry_refusal(last, message_id, freed=freed, over=last is not None and _turn_over(services, last))
    if refusal is not None or last is None:
        raise Conflict(refusal or NOT_THE_LATEST)
    slot = _slot(pool, caller.id, last.safety is not None)
    try:
        lease = answering.claim(pk, sk)
        if lease.status != "won":
            raise Conflict("this message is already being answered")
    except BaseException:
        _release(slot)
        raise
    return _now_or_streamed(pool, slot, _retried, services, pair, ai_user, last, deadline, lease)


@router.delete("/{user_id}/messages/{message_id}", response_model=MessageDeleted, responses=documented(401, 404, 422))
def delete_message(
    user_id: str, caller: CurrentCaller, services: ServicesDep, message_id: str = PathParam(min_length=1, max_length=64)
) -> MessageDeleted:
    """Delete one message of the conversation (the person's or the AI's), also from short-term memory."""
    pair = services.ai_users.pair(caller.id, user_id)
    if not services.memory.repo.log.delete_message(pair, message_id):
        raise NotFound("no such message in this conversation")
    return MessageDeleted(deleted=message_id)


@router.post("/{user_id}/greet", response_model=Greeting, responses=documented(401, 404, 422))
def greet(user_id: str, caller: CurrentCaller, services: ServicesDep) -> Greeting:
    """Store and return the AI user's opening message when the chat is opened for the first time and is empty;
    `{"message": null}` otherwise (no greeting set, already greeted, the two have talked, or a greeting
    saved before the honesty rule that claims to be human)."""
    pair, ai_user = services.ai_users.companion(caller.id, user_id)
    greeting = opening(ai_user.greeting)
    if not greeting or services.memory.repo.log.last_message(pair) is not None:
        return Greeting(message=None)
    if not services.memory.repo.log.claim_greeting(pair):
        return Greeting(message=None)
    message = services.memory.record(pair, "assistant", greeting, kind="greeting")
    services.heartbeat_states.greeted(pair, ai_user, services.memory.repo.relationship(pair))  # first contact follows
    return Greeting(message=MessageOut.model_validate(message))


@router.post(
    "/{user_id}/save-message",
    status_code=status.HTTP_201_CREATED,
    response_model=SavedMessage,
    responses=documented(400, 401, 404, 409, 413, 422, 429),
)
def save_message(
    user_id: str,
    body: ChatMessage,
    caller: CurrentCaller,
    services: ServicesDep,
    idempotency_key: IdempotencyKey = None,
) -> SavedMessage:
    """Store the person's message without asking for a reply; `safety` holds help lines when it shows a crisis."""
    pair, ai_user = services.ai_users.companion(caller.id, user_id)
    claim = _claim(services, caller.id, idempotency_key, "save-message", user_id, body.content)
    if claim is not None and claim.replay is not None:
        return SavedMessage.model_validate(claim.replay)
    try:
        message, ended = services.chat.save(pair, ai_user, body.content)
    except BaseException:
        _abandon(services, claim)
        raise
    help_lines = services.chat.safety_of(pair, message)
    result = SavedMessage.model_validate(
        {"message": message, "topic_ended": ended, "safety": help_lines.as_dict() if help_lines is not None else None}
    )
    if claim is not None:
        _keys(services).finish(claim, result.model_dump())
    return result


@router.get("/{user_id}/messages", response_model=MessagePage, responses=documented(400, 401, 404, 422))
def messages(
    user_id: str,
    caller: CurrentCaller,
    services: ServicesDep,
    before: str | None = Query(default=None, min_length=1, max_length=64),
    after: str | None = Query(default=None, min_length=1, max_length=64),
    limit: int = Query(default=50, ge=1, le=200),
) -> MessagePage:
    """The conversation oldest to newest; `before` pages back, `after` fetches newer messages.

    `retry_message_id` names the person's latest message when it is in this page and its turn ended
    without an answer (the model failed, the connection dropped): `POST .../retry` answers it."""
    pair = services.ai_users.pair(caller.id, user_id)
    page = services.views.history(pair, before, after, limit)
    newest = page.newest
    return MessagePage(
        messages=[MessageOut.model_validate(m) for m in page.messages],
        next_cursor=page.next_cursor,
        retry_message_id=newest.id if newest is not None and _unanswered(services, pair, newest) else None,
    )


def _unanswered(services: Services, pair: PairId, last: Message) -> bool:
    """The conversation's last message is the person's, its turn ended without an answer, and `retry`
    would take it now: never retried and its turn's time is over, or its retry lease is free."""
    open_now = _answering(services).open_to_claim(*keys.answering(pair, last.id)) if awaits_answer(last) else False
    return retry_offered(last, open_now=open_now, over=_turn_over(services, last))


@router.post("/{user_id}/read", response_model=ReadUpToOut, responses=documented(400, 401, 404, 422))
def mark_read(user_id: str, body: ReadUpTo, caller: CurrentCaller, services: ServicesDep) -> ReadUpToOut:
    """The person has seen the conversation up to this message (replies shown from the stream, heartbeats)."""
    pair = services.ai_users.pair(caller.id, user_id)
    if not services.memory.repo.log.has_message(pair, body.message_id):
        raise NotFound("no such message in this conversation")
    services.ai_users.mark_read(caller.id, user_id, body.message_id)
    return ReadUpToOut(read_up_to=body.message_id)
