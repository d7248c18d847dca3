"""The person's controls over the latest exchange (rules in `dreamchat.domain.answers`): a new answer to
their last message (换一个回答), an earlier answer shown again, their last message edited and answered anew.

A new answer runs as a retry does (`ChatTurnService.retry`): the person's protections, a model pool slot,
a lease (here `AnsweringService.claim_anew`, so two taps make one answer), then `ChatTurnService.respond`
told it must answer (the draw never declines). The old answer is taken out of the conversation and
short-term memory before the model is asked, so the context ends with the person's message as in the first
turn; a turn that fails puts it back as it was. The new answer's first message keeps every answer the
exchange had (`Message.alternatives`), as text: the voice of an answer replaced or no longer shown is erased
(`forget`), as nothing can play it again. An edit is `ChatTurnService.send` with the old message and its
answer taken back just before the new text is stored: the crisis check, the protections, the message
budget and the Idempotency-Key are the chat's own.
"""

from __future__ import annotations

from collections.abc import Callable

from dreamchat.budget import Deadline
from dreamchat.domain.answers import (
    TAIL_MESSAGES,
    Exchange,
    choice_problem,
    edit_problem,
    last_exchange,
    regenerate_problem,
    with_new_answer,
)
from dreamchat.domain.models import AIUser, Message, PairId
from dreamchat.errors import Conflict, Contended, Invalid, NotFound
from dreamchat.services.answering import AnsweringService
from dreamchat.services.chat_events import ChatEvent, Failed, Sent
from dreamchat.services.chat_turns import ChatTurnService, Replacing
from dreamchat.services.crisis_protocol import CrisisService
from dreamchat.services.leases import LeaseClaim
from dreamchat.services.memory_repo import MessageLog
from dreamchat.services.topics import TopicService
from dreamchat.services.turn import Turn
from dreamchat.services.usage import UsageService

NO_SUCH_MESSAGE = "no such message in this conversation"


class AnswerService:
    def __init__(
        self,
        turns: ChatTurnService,
        message_log: MessageLog,
        topics: TopicService,
        answering: AnsweringService,
        protocol: CrisisService,
        usage: UsageService,
        forget: Callable[[PairId, Message], None],  # a message's voice erased (`MediaWordsService.forget`)
    ) -> None:
        self._turns = turns
        self._log = message_log
        self._topics = topics
        self._answering = answering
        self._protocol = protocol
        self._usage = usage
        self._forget = forget

    def regenerate(self, pair: PairId, ai_user: AIUser, message_id: str, deadline: Deadline) -> Turn:
        """A new answer in place of the AI's answer `message_id` belongs to; Conflict unless that answer is
        the conversation's last exchange, or while another new answer to it is being made."""
        exchange = self._exchange(pair, message_id)
        problem = regenerate_problem(exchange, message_id)
        if problem is not None or exchange is None:
            raise Conflict(problem or "")
        person = exchange.person
        if person.safety is None and not self._protocol.protected(pair, person.content):  # distress passes them all
            self._usage.admit(pair.account_id, ai_user)
        slot = self._turns.slot(pair.account_id, person.safety is not None)
        try:
            lease = self._answering.claim_anew(pair, person.id)
            if lease.status != "won":
                raise Conflict("a new answer to this message is already being made")
        except BaseException:
            if slot is not None:
                slot.release()
            raise
        return self._turns.run(slot, self._anew, pair, ai_user, exchange, deadline, lease)

    def choose(self, pair: PairId, message_id: str, index: int) -> Message:
        """Show the exchange's answer number `index` again (the one shown now kept in its place); the answer
        becomes one message holding it. Conflict unless `message_id` starts the last exchange's answer."""
        exchange = self._exchange(pair, message_id)
        problem = choice_problem(exchange, message_id, index)
        if problem is not None or exchange is None:
            raise Conflict(problem or "")
        alternatives = exchange.alternatives
        if index >= len(alternatives):
            raise Invalid(f"index: this answer has {len(alternatives)} alternatives (0 to {len(alternatives) - 1})")
        first, words = exchange.answer[0], alternatives[index]
        # a voice message says its own words: shown with others, the answer is their text
        unvoiced = {} if words == first.content else {"media_id": None, "media_kind": None, "duration_s": None}
        shown = first.model_copy(
            update={"content": words, "alternatives": alternatives, "alternative": index, **unvoiced}
        )
        self._log.rewrite(pair, first, shown, exchange.answer[1:])
        if unvoiced:
            self._forget(pair, first)
        return shown

    def edit(
        self, pair: PairId, ai_user: AIUser, message_id: str, content: str, key: str | None, deadline: Deadline
    ) -> Turn:
        """The person's last message replaced by `content` (the AI's answer after it dropped), then answered
        as any message is; NotFound for a message not in the conversation, Conflict unless it is their last."""

        taken: list[tuple[Message, bool]] = []

        def take_back() -> list[tuple[Message, bool]]:
            exchange = self._exchange(pair, message_id)
            problem = edit_problem(exchange, message_id)
            if problem is not None or exchange is None:
                raise Conflict(problem or "")
            taken[:] = self._log.take_back(pair, [exchange.person, *exchange.answer])
            return taken

        replacing = Replacing(message_id, take_back, lambda back: self._log.put_back(pair, back))
        turn = self._turns.send(pair, ai_user, content, key, deadline, replacing)
        for answer, _ in taken[1:]:  # the person's message keeps its own media; the old answer's voice goes
            self._forget(pair, answer)
        return turn

    def _exchange(self, pair: PairId, message_id: str) -> Exchange | None:
        if not self._log.has_message(pair, message_id):
            raise NotFound(NO_SUCH_MESSAGE)
        return last_exchange(self._log.tail(pair, TAIL_MESSAGES))

    def _anew(
        self,
        pair: PairId,
        ai_user: AIUser,
        exchange: Exchange,
        deadline: Deadline,
        lease: LeaseClaim,
        model: bool = True,
    ) -> list[ChatEvent]:
        """The old answer out, a new one made (put back when none came), the lease given back."""
        try:
            try:
                taken = self._log.take_back(pair, exchange.answer)
            except Contended:
                return [Failed("conflict", "这段对话刚刚变了，请再试一次。")]
            turn = self._turns.respond(pair, ai_user, exchange.person, deadline, model, must_answer=True)
            sent = [event.message for event in turn if isinstance(event, Sent)]
            if not sent:
                self._log.put_back(pair, taken)
            else:
                self._keep_alternatives(pair, exchange, sent)
            return turn
        finally:
            self._answering.anew_done(lease)

    def _keep_alternatives(self, pair: PairId, exchange: Exchange, sent: list[Message]) -> None:
        """The new answer's first message holds every answer the exchange had, the new one shown (the old as text:
        its voice erased)."""
        new = "\n".join(m.content for m in sent)
        alternatives, index = with_new_answer(exchange.alternatives, new)
        self._topics.update_message(
            pair, sent[0], sent[0].model_copy(update={"alternatives": alternatives, "alternative": index})
        )
        for old in exchange.answer:
            self._forget(pair, old)
