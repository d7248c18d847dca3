"""A chat turn, and the answer asked for again after a turn that failed (`retry`).

A turn is accepted before its answer is made: a model pool slot is reserved (full: 503, nothing stored), an
Idempotency-Key claimed (a retry with the key gets the first answer again), a photo's or voice note's words
found (`dreamchat.services.media_words`), then the person's message is stored (`ChatService.accept`). Distress
or a crisis, or a message in its topic, is never refused: with no slot free, or past the message limit, it is
stored and answered at once without the model (words of care and the help lines). A message that is an exit
keyword is answered at once with the goodbye written in code (`dreamchat.services.exits`); any other lifts a
stop. Otherwise the answer runs on the model pool (`Turn.events`), whole, before its first event: a client
that hangs up cannot cut it short. A turn that fails leaves the message free to be answered again
(`dreamchat.services.answering`). A protection of the person (`UsageService.admit`: minors' mode, a guardian's
consent, the daily limit) refuses a turn with a 403 before anything is stored, never on distress or a crisis.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dreamchat.budget import Deadline
from dreamchat.domain.answering import NOT_THE_LATEST
from dreamchat.domain.media import Media, message_text
from dreamchat.domain.models import AIUser, Message, PairId
from dreamchat.errors import Conflict, NotFound, TooManyRequests, Unavailable
from dreamchat.llm.offline import caring_reply
from dreamchat.services.answering import AnsweringService
from dreamchat.services.chat import ChatService
from dreamchat.services.chat_events import ChatEvent, Failed, Replayed, kept
from dreamchat.services.crisis_protocol import CrisisService
from dreamchat.services.exits import ExitService
from dreamchat.services.idempotency import IdempotencyClaim, IdempotencyService, abandon_key, claim_key
from dreamchat.services.leases import LeaseClaim
from dreamchat.services.media_words import MediaWordsService
from dreamchat.services.memory_repo import MessageLog
from dreamchat.services.model_pool import ModelPool, Slot
from dreamchat.services.tombstones import Gone
from dreamchat.services.turn import NOT_ANSWERED, Turn
from dreamchat.services.usage import UsageService

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Replacing:
    """An edit: `take_back` removes the person's last message and its answer, `put_back` undoes it."""

    message_id: str
    take_back: Callable[[], list[tuple[Message, bool]]]
    put_back: Callable[[list[tuple[Message, bool]]], None]


class ChatTurnService:
    def __init__(
        self,
        chat: ChatService,
        protocol: CrisisService,
        message_log: MessageLog,
        pool: ModelPool,
        idempotency: IdempotencyService,
        answering: AnsweringService,
        usage: UsageService,
        exits: ExitService,
        words: MediaWordsService,
    ) -> None:
        self._words = words  # a photo's or voice note's words, before the message is stored
        self._chat = chat
        self._protocol = protocol
        self._log = message_log
        self._pool = pool
        self._idempotency = idempotency
        self._answering = answering
        self._usage = usage
        self._exits = exits  # a message that is an exit keyword stops the companion, any other lifts a stop

    def send(
        self,
        pair: PairId,
        ai_user: AIUser,
        content: str,
        key: str | None,
        deadline: Deadline,
        replacing: Replacing | None = None,
        media_id: str | None = None,
    ) -> Turn:
        """Store the person's message and the turn that answers it (before it is stored, a 503 means "send it
        again", nothing half-done; never for distress or a crisis). `replacing`: the person's last message edited,
        taken back with its answer just before the new one is stored. `media_id`: the upload, heard after the claim."""
        request = ("chat",) if replacing is None else ("edit", replacing.message_id)
        crisis = self._protocol.protected(pair, content)
        stop = self._exits.asks_to_stop(pair, content)  # a way out needs no model (no slot) and passes every gate
        if not crisis and not stop and media_id is None:  # a crisis passes every protection
            self._usage.admit(pair.account_id, ai_user)
        slot, claim, refused = None, None, None
        try:
            slot = None if stop else self.slot(pair.account_id, crisis)
        except (Unavailable, TooManyRequests) as error:
            if media_id is None:
                raise
            refused = error  # what the voice note or photo shows may yet be a crisis, never refused
        try:
            named = (content, media_id) if media_id else (content,)
            claim = claim_key(self._idempotency, pair.account_id, key, *request, pair.ai_user_id, *named)
            if claim is not None and claim.replay is not None:
                _release(slot)
                return Turn([Replayed(e["event"], json.loads(e["data"])) for e in claim.replay])
            taken = replacing.take_back() if replacing is not None else []
            try:
                replaced = taken[0][0] if taken else None  # an edit keeps the media its message carried
                media = self._words.words(pair, media_id, deadline) if media_id else self._words.kept(pair, replaced)
                if media is not None:  # the words heard or seen are checked, and gated, like typed ones
                    content = message_text(media, content)
                    crisis = crisis or self._chat.protected(pair, content, media)
                    if refused is not None and not crisis:
                        raise refused
                    if not crisis and not stop and media_id:
                        self._usage.admit(pair.account_id, ai_user)
                person, slot = self._accept(pair, ai_user, content, crisis, slot, media)
            except BaseException:
                if replacing is not None:
                    replacing.put_back(taken)
                raise
            goodbye = self._exits.wrote(pair, stop)
        except BaseException:
            _release(slot)
            abandon_key(self._idempotency, claim)
            raise
        if goodbye is not None:  # stopped: the goodbye written in code, at once, nothing else
            return Turn(self._finished(claim, ExitService.said(goodbye)))
        return self.run(slot, self._turn, pair, ai_user, person, deadline, claim)

    def _accept(
        self, pair: PairId, ai_user: AIUser, content: str, crisis: bool, slot: Slot | None, media: Media | None
    ) -> tuple[Message, Slot | None]:
        try:
            return self._chat.accept(pair, ai_user, content, media=media), slot
        except TooManyRequests:
            if not crisis:
                raise
            # past the message limit a crisis is still stored and answered, without the model
            person = self._chat.accept(pair, ai_user, content, limited=False, media=media)
            _release(slot)
            return person, None

    def retry(self, pair: PairId, ai_user: AIUser, message_id: str, deadline: Deadline) -> Turn:
        """Answer the person's latest message again after a failed turn (the message is not stored again);
        Conflict unless it is the conversation's last, the person's, and not read without a reply."""
        if not self._log.has_message(pair, message_id):
            raise NotFound("no such message in this conversation")
        last = self._log.last_message(pair)
        refusal = self._answering.refusal(pair, last, message_id)
        if refusal is not None or last is None:
            raise Conflict(refusal or NOT_THE_LATEST)
        if last.safety is None and not self._protocol.protected(pair, last.content):  # distress passes them all
            self._usage.admit(pair.account_id, ai_user)
        slot = self.slot(pair.account_id, last.safety is not None)
        try:
            lease = self._answering.claim(pair, message_id)
            if lease.status != "won":
                raise Conflict("this message is already being answered")
        except BaseException:
            _release(slot)
            raise
        return self.run(slot, self._retried, pair, ai_user, last, deadline, lease)

    def run(self, slot: Slot | None, turn: Callable[..., list[ChatEvent]], *args: Any) -> Turn:
        """The turn on its slot, or, a crisis without one, at once without the model."""
        if slot is None:
            return Turn(turn(*args, False))
        return Turn([], self._pool, slot, lambda: turn(*args))

    def _turn(
        self,
        pair: PairId,
        ai_user: AIUser,
        person: Message,
        deadline: Deadline,
        claim: IdempotencyClaim | None,
        model: bool = True,
    ) -> list[ChatEvent]:
        """The whole AI side of a turn, kept for the Idempotency-Key's retries."""
        turn = self.respond(pair, ai_user, person, deadline, model)
        if isinstance(turn[-1], Failed):  # the person may ask for the answer again at once
            self._answering.free(pair, person.id)
        return self._finished(claim, turn)

    def _finished(self, claim: IdempotencyClaim | None, turn: list[ChatEvent]) -> list[ChatEvent]:
        if claim is not None:
            with contextlib.suppress(Gone):  # none is kept once the conversation or the account was deleted
                self._idempotency.finish(claim, [kept(event) for event in turn])
        return turn

    def _retried(
        self,
        pair: PairId,
        ai_user: AIUser,
        person: Message,
        deadline: Deadline,
        lease: LeaseClaim,
        model: bool = True,
    ) -> list[ChatEvent]:
        """A retry's turn under its lease: a failure leaves the message free to retry, an answer ends it.
        The person asked for an answer: the draw never declines it (已读不回 is no answer to 重试)."""
        turn = self.respond(pair, ai_user, person, deadline, model, must_answer=True)
        self._answering.settle(lease, answered=not isinstance(turn[-1], Failed))
        return turn

    def respond(
        self,
        pair: PairId,
        ai_user: AIUser,
        person: Message,
        deadline: Deadline,
        model: bool = True,
        *,
        must_answer: bool = False,
    ) -> list[ChatEvent]:
        try:
            return list(self._chat.respond(pair, ai_user, person, deadline, model=model, must_answer=must_answer))
        except Gone:  # the account or the pair was deleted while the AI was answering
            return [Failed("gone", "this conversation was deleted")]
        except Exception as error:  # noqa: BLE001 - logged; the stream must still end with an event
            log.error("chat turn failed", extra={"ai_user_id": ai_user.id, "error": type(error).__name__})
            # a crisis or distress turn that fails all the same still leaves words of care (and the help lines)
            words = caring_reply(person.safety == "crisis", offline=False) if person.safety else NOT_ANSWERED
            return [*self._help_lines(pair, person), Failed("internal_error", words)]

    def _help_lines(self, pair: PairId, person: Message) -> list[ChatEvent]:
        """The help lines a turn on a crisis message shows even when it fails."""
        with contextlib.suppress(Exception):  # the turn's own failure may be the store's
            return [self._protocol.help_shown(pair.account_id)] if person.safety == "crisis" else []
        return []

    def slot(self, account_id: str, crisis: bool) -> Slot | None:
        """A model pool slot for the turn; for a crisis, when none is free, None: it is answered
        without the model (words of care and the help lines), never with a 503 (a crisis spends no budget)."""
        try:
            return self._pool.reserve(account_id, budgeted=not crisis)
        except (Unavailable, TooManyRequests):
            if not crisis:
                raise
            return None


def _release(slot: Slot | None) -> None:
    if slot is not None:
        slot.release()
