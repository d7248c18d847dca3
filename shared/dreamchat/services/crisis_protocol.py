"""The person comes first: what the chat turn asks of the crisis check, and what the protocol does.

`CrisisService.judge` reads a new message with the topic's latest ones (`dreamchat.domain.crisis.CrisisCheck`:
the lexicon and the classifier); `protected` says whether a message may ever be refused; `help` gives the
help lines of the person's locale (`help_shown` when they are sent to the person: counted); `check_in_later`
owes the pair a check-in heartbeat; `referred` counts a referral and flags the message for the operators (an
escalation, `dreamchat.services.escalations`): ids and counts only, never the words. `staffed` says what a
chat turn sends while an operator has the chat (the AI stays quiet in it, never silent).
"""

from __future__ import annotations

import logging

from dreamchat.config import Settings
from dreamchat.crisis_data import crisis_check
from dreamchat.domain import help_lines
from dreamchat.domain.bounds import MESSAGE_CHARS
from dreamchat.domain.crisis import CrisisCheck, Verdict
from dreamchat.domain.heartbeat import check_in_after
from dreamchat.domain.media import photo_verdict, stronger
from dreamchat.domain.models import AIUser, Message, PairId
from dreamchat.domain.moderation import STAFF_NOTICE
from dreamchat.domain.protocol import CUT_MARK, recent_words, topic_state
from dreamchat.domain.text import is_blank
from dreamchat.errors import Invalid, TooLarge
from dreamchat.logsafe import failure
from dreamchat.ports import Clock, Counter
from dreamchat.services.chat_events import ChatEvent, Done, Notice, SafetyNotice
from dreamchat.services.escalations import EscalationService
from dreamchat.services.heartbeat_state import HeartbeatStateService
from dreamchat.services.memory_repo import MemoryRepository
from dreamchat.services.profile import ProfileService
from dreamchat.services.referrals import ReferralService

log = logging.getLogger(__name__)

CRISIS_REFERRALS = "CrisisReferrals"


class CrisisService:
    def __init__(
        self,
        repo: MemoryRepository,
        profiles: ProfileService,
        heartbeats: HeartbeatStateService,
        clock: Clock,
        settings: Settings,
        count: Counter | None = None,
        check: CrisisCheck | None = None,
        *,
        escalations: EscalationService,
        referrals: ReferralService,
    ) -> None:
        self._escalations, self._referrals = escalations, referrals
        self._repo = repo
        self._heartbeats = heartbeats
        self._clock = clock
        self._settings = settings
        self._count = count or (lambda name, value=1: None)
        self.check = check or crisis_check()
        self._profiles = profiles
        self._help: dict[str, SafetyNotice] = {}

    def locale(self, account_id: str) -> str:
        """Whose help lines a crisis shows this person: the locale they chose, else the server's."""
        return self._profiles.locale(account_id) or self._settings.crisis_locale

    def help(self, account_id: str) -> SafetyNotice:
        """The help lines of the person's locale (theirs if they chose one, else the server's)."""
        locale = self.locale(account_id)
        if locale not in self._help:
            self._help[locale] = SafetyNotice(tuple(help_lines.resources_for(locale, self._settings.crisis_table)))
        return self._help[locale]

    def help_shown(self, account_id: str) -> SafetyNotice:
        """The help lines, sent to the person now (the referral report counts each time)."""
        self._referrals.count("help_lines_shown")
        return self.help(account_id)

    def staffed(self, pair: PairId, person: Message) -> list[ChatEvent] | None:
        """What a chat turn sends while an operator has the chat, asked before the model and again before
        the AI's lines are stored (None: the AI answers): the help lines beside a crisis message, the staff
        notice and Done: the AI stays quiet, the person is never met with silence."""
        if not self._escalations.taken_over(pair):
            return None
        help_lines: list[ChatEvent] = [self.help_shown(pair.account_id)] if person.safety == "crisis" else []
        return [*help_lines, Notice("staff", STAFF_NOTICE), Done(False, False, 0)]

    def open_topic(self, pair: PairId) -> list[Message]:
        """The messages of the conversation's latest topic still in short-term memory."""
        last = self._repo.log.last_message(pair)
        return self._repo.short_term(pair, last.topic_id) if last else []

    def protected(self, pair: PairId, content: str, flagged: bool = False) -> bool:
        """Whether a message is never refused (no 429, no 503): it shows distress or a crisis (its words, or
        its photo `flagged` by the vision role), or its topic already did. Past a limit it is still stored
        and answered, without the model."""
        return flagged or self.check.judge(content).distress or topic_state(self.open_topic(pair)) is not None

    def fitted(self, content: str) -> tuple[str, Verdict | None]:
        """A message over the length limit that shows distress is kept, cut at the limit and marked (a
        crisis letter is answered, never refused); its verdict over the whole text comes with it. Any other
        over the limit is TooLarge (413), a blank one Invalid (422)."""
        whole = self.check.judge(content) if len(content) > MESSAGE_CHARS else None
        if whole is not None and whole.distress:
            content = content[: MESSAGE_CHARS - len(CUT_MARK)] + CUT_MARK
        if len(content) > MESSAGE_CHARS:
            raise TooLarge(f"a message may have at most {MESSAGE_CHARS} characters")
        if is_blank(content):
            raise Invalid("the message is empty")
        return content, whole

    def judge(self, topic: list[Message], content: str, whole: Verdict | None, concern: str | None = None) -> Verdict:
        """The new message read with the topic's latest words (a crisis split over two messages is one), and
        what the vision role saw in its photo (`concern`: `dreamchat.domain.media.photo_verdict`)."""
        verdict = self.check.recent([*recent_words(topic), content])
        verdict = whole if whole is not None and whole.crisis else verdict
        distressed = verdict.distress or topic_state(topic) is not None
        return stronger(verdict, photo_verdict(concern, distressed))

    def check_in_later(self, pair: PairId, ai_user: AIUser) -> None:
        now, minutes = self._clock.now(), self._settings.crisis_checkin_minutes
        relationship = self._repo.relationship(pair)
        self._heartbeats.change(pair, ai_user, relationship, lambda state: check_in_after(state, now, minutes))

    def referred(self, pair: PairId, message_id: str, by: str) -> None:
        """The protocol fired on this message: counted, never described (ids and counts only), and flagged
        for the operators. A failure to open the escalation is logged; the person's turn goes on."""
        log.info("crisis protocol", extra={"ai_user_id": pair.ai_user_id, "detected_by": by})
        self._count(CRISIS_REFERRALS, 1)
        self._referrals.count("protocol_fired")
        try:
            self._escalations.flag(pair, message_id)
        except Exception as error:  # noqa: BLE001 - logged; a crisis turn never fails for want of an escalation
            extra = {"ai_user_id": pair.ai_user_id, "message_id": message_id, "error": failure(error)}
            log.error("escalation not opened", extra=extra)
