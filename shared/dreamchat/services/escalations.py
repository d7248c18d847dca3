"""Crisis escalations: every message the crisis protocol fires on opens one for its pair, or joins the one
open or taken over (`flag`); operators are told at once (`dreamchat.ports.OperatorAlerts`). An operator
lists them (ids and counts, no text), reads one (each flagged message and the ones before it: an audited
read; with the person's emergency contact, if they recorded one), takes the chat over (the AI neither answers nor sends heartbeats there: `taken_over`), writes to the
person as staff (a message with role "staff", pushed like a heartbeat) and releases it (the AI answers
again, and sees the staff's words). Every operator action leaves an audit entry (ids only)."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable

from dreamchat.domain import moderation as rules
from dreamchat.domain.models import Account, AIUser, Message, PairId
from dreamchat.domain.moderation import Escalation
from dreamchat.domain.protection import EmergencyContact
from dreamchat.domain.text import is_blank
from dreamchat.errors import Conflict, Invalid, NotFound
from dreamchat.logsafe import failure
from dreamchat.ports import Clock, OperatorAlerts
from dreamchat.services.ai_users import AIUserService
from dreamchat.services.memory_repo import MessageLog
from dreamchat.services.operators import OperatorService
from dreamchat.services.paging import Page, cursor_after, key_of
from dreamchat.services.referrals import ReferralService
from dreamchat.services.storage.unit_of_work import Storage, retry_on_conflict
from dreamchat.services.topics import TopicService

log = logging.getLogger(__name__)

Push = Callable[[PairId, AIUser, list[Message]], object]


class EscalationService:
    def __init__(
        self,
        storage: Storage,
        message_log: MessageLog,
        topics: TopicService,
        ai_users: AIUserService,
        push: Push,
        operators: OperatorService,
        referrals: ReferralService,
        alerts: OperatorAlerts,
        clock: Clock,
        *,
        contacts: Callable[[str], EmergencyContact | None],  # the person's emergency contact, never the AI's to see
    ) -> None:
        self._storage, self._log, self._topics, self._ai_users = storage, message_log, topics, ai_users
        self._push, self._operators, self._referrals = push, operators, referrals
        self._alerts, self._clock, self._contacts = alerts, clock, contacts

    # what the crisis protocol and the AI ask

    def flag(self, pair: PairId, message_id: str) -> Escalation:
        """The message the protocol fired on, in the pair's escalation: a new one (the operators are told),
        or the one open or taken over. Of two crisis messages at once, one opens it and the other joins."""

        def open_or_join() -> tuple[Escalation, bool]:
            with self._storage.begin() as uow:
                read = uow.escalations.of_pair(pair)
                if read is not None:
                    joined = rules.flagged(read.entity, message_id)
                    if joined != read.entity:
                        uow.escalations.save(joined, read)
                        uow.commit()
                    return joined, False
                opened = Escalation(
                    id=uuid.uuid4().hex,
                    account_id=pair.account_id,
                    ai_user_id=pair.ai_user_id,
                    opened_at=self._now(),
                    flagged=[message_id],
                    messages_flagged=1,
                )
                uow.escalations.add(opened)  # Contended when another opened the pair's first: join it
                uow.commit()
                return opened, True

        escalation, opened = retry_on_conflict(open_or_join)
        if opened:
            log.info("escalation opened", extra={"escalation_id": escalation.id, "ai_user_id": pair.ai_user_id})
            self._referrals.count("escalations_opened")
            self._alert(escalation)
        return escalation

    def taken_over(self, pair: PairId) -> bool:
        """Whether an operator has the pair's chat: then the AI neither answers nor writes first."""
        with self._storage.begin() as uow:
            read = uow.escalations.of_pair(pair)
        return read is not None and read.entity.status == "taken_over"

    # what an operator does

    def listed(self, status: str, cursor: str | None, limit: int) -> Page[Escalation]:
        """A page of one status's escalations, oldest first: ids, times and counts, no text."""
        with self._storage.begin() as uow:
            found, after = uow.escalations.listed(status, key_of(cursor), limit)
        return Page(found, cursor_after(after) if after is not None else None)

    def contact(self, escalation: Escalation) -> EmergencyContact | None:
        """The emergency contact the person recorded, for the operator with their escalation."""
        return self._contacts(escalation.account_id)

    def read(self, operator: Account, escalation_id: str) -> tuple[Escalation, list[tuple[Message, bool]]]:
        """The escalation and what the operator reads of the chat: each flagged message and the
        `LOOK_BACK` before it, and once taken over the chat since the takeover (until the release; the
        latest `TAKEOVER_SHOWN`), oldest first, each once (whether flagged beside it). An audited read."""
        escalation = self._get(escalation_id)
        pair = _pair(escalation)
        self._operators.record(operator, "escalation.read", target=escalation.id, pair=pair)
        windows = []
        for message_id in escalation.flagged:
            before, _ = self._log.messages(pair, before=message_id, after=None, limit=rules.LOOK_BACK)
            flagged = self._log.message(pair, message_id)
            windows.append([*before, *([flagged] if flagged is not None else [])])
        span = rules.takeover_span(escalation)
        if span is not None:
            start, end = span
            since, _ = self._log.messages(pair, before=end, after=None, limit=rules.TAKEOVER_SHOWN)
            windows.append([message for message in since if message.id >= start])
        return escalation, rules.shown_messages(windows, escalation.flagged)

    def take_over(self, operator: Account, escalation_id: str) -> Escalation:
        """The operator has the chat from now: the AI is quiet in it until it is released."""
        now = self._now()
        escalation = self._change(
            escalation_id, rules.takeover_refusal, lambda e: rules.taken_over(e, operator.id, now)
        )
        self._operators.record(operator, "escalation.takeover", target=escalation.id, pair=_pair(escalation))
        self._referrals.count("taken_over")
        return escalation

    def write(self, operator: Account, escalation_id: str, content: str) -> Message:
        """The operator's words to the person: a staff message in the chat (and its short-term memory, so
        the AI sees it once the chat is released), pushed as a heartbeat is."""
        if is_blank(content):
            raise Invalid("the message is empty")
        escalation = self._get(escalation_id)
        refusal = rules.staff_refusal(escalation)
        if refusal is not None:
            raise Conflict(refusal)
        pair, ai_user = self._ai_users.companion(escalation.account_id, escalation.ai_user_id)
        message = self._topics.record(pair, "staff", content)
        self._operators.record(operator, "escalation.message", target=escalation.id, pair=pair)
        self._push(pair, ai_user, [message])
        return message

    def release(self, operator: Account, escalation_id: str) -> Escalation:
        """The chat is handed back to the AI; the escalation is closed (a later crisis opens a new one)."""
        now = self._now()
        escalation = self._change(escalation_id, rules.release_refusal, lambda e: rules.closed(e, now))
        self._operators.record(operator, "escalation.release", target=escalation.id, pair=_pair(escalation))
        return escalation

    def _change(
        self,
        escalation_id: str,
        refusal: Callable[[Escalation], str | None],
        change: Callable[[Escalation], Escalation],
    ) -> Escalation:
        """Change the escalation over the version read; Conflict when its state refuses the change (of two
        operators acting at once, the second reads the first's change and is refused)."""

        def attempt() -> Escalation:
            with self._storage.begin() as uow:
                read = uow.escalations.get(escalation_id)
                if read is None:
                    raise NotFound("no such escalation")
                refused = refusal(read.entity)
                if refused is not None:
                    raise Conflict(refused)
                changed = change(read.entity)
                uow.escalations.save(changed, read)
                uow.commit()
                return changed

        return retry_on_conflict(attempt)

    def _get(self, escalation_id: str) -> Escalation:
        with self._storage.begin() as uow:
            read = uow.escalations.get(escalation_id)
        if read is None:
            raise NotFound("no such escalation")
        return read.entity

    def _alert(self, escalation: Escalation) -> None:
        try:
            self._alerts.escalation_opened(escalation.id, escalation.opened_at)
        except Exception as error:  # noqa: BLE001 - logged; the console's badge still shows it, the turn goes on
            log.error("operator alert failed", extra={"escalation_id": escalation.id, "error": failure(error)})

    def _now(self) -> int:
        return int(self._clock.now().timestamp())


def _pair(escalation: Escalation) -> PairId:
    return PairId(account_id=escalation.account_id, ai_user_id=escalation.ai_user_id)
