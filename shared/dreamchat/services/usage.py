"""The person's conversation time and what it brings (`dreamchat.domain.usage`), by the person's own day
(their zone, else the server's DREAMCHAT_TIMEZONE): every message of theirs counts; minors' mode's daily limit
refuses chat once used up (403 `daily_limit`); a turn's notices before the AI's reply (the AI disclosure, the
daily limit's warning, the reality reminder, over-dependence), each shown once when due; the AI disclosure at
login; minors' heartbeat curfew. A crisis passes all of it: the callers ask about a message that is none."""

from __future__ import annotations

import logging
from collections.abc import Callable

from dreamchat.config import Settings
from dreamchat.domain import usage as rules
from dreamchat.domain.models import AIUser, PairId
from dreamchat.domain.protection import DAILY_LIMIT, REALITY_MINUTES
from dreamchat.errors import Protected
from dreamchat.llm.chat_prompts import (
    AI_DISCLOSURE_NOTICE,
    DAILY_LIMIT_REACHED,
    DEPENDENCE_NOTICE,
    daily_limit_notice,
    reality_notice,
)
from dreamchat.ports import Clock
from dreamchat.services.chat_events import Notice
from dreamchat.services.heartbeat_outcome import HeartbeatOutcome
from dreamchat.services.protection import ProtectionService
from dreamchat.services.storage.unit_of_work import Storage, retry_on_conflict
from dreamchat.services.zones import chosen_zone

log = logging.getLogger(__name__)


class UsageService:
    def __init__(self, storage: Storage, protections: ProtectionService, clock: Clock, settings: Settings) -> None:
        self._storage = storage
        self._protections = protections
        self._clock = clock
        self._settings = settings

    def admit(self, account_id: str, ai_user: AIUser, *, greeting: bool = False) -> None:
        """The person may talk with this AI user now (`ProtectionService.admit`: minors' mode, a guardian's
        consent), and, unless it is the AI user's `greeting`, has time left: 403 `daily_limit` once minors'
        mode's daily limit is used up, until the person's next day. Never asked for distress or a crisis,
        which pass every protection."""
        self._protections.admit(account_id, ai_user)
        if greeting:
            return
        minutes = self._protections.standing(account_id).daily_minutes
        if minutes is None:
            return
        now, zone = self._now(), self._zone(account_id)
        with self._storage.begin() as uow:
            usage = uow.conversation_time.get(account_id).entity
        if rules.limit_reached(usage, now, zone, minutes):
            if usage.limited_on != rules.local_day(now, zone):
                self._change(account_id, lambda read: (rules.limited(read, now, zone), None))
            log.info("daily limit reached", extra={"account_id": account_id})
            raise Protected(DAILY_LIMIT, DAILY_LIMIT_REACHED)

    def spoke(self, account_id: str) -> None:
        """The person sent a message now: the time since their last one may be conversation."""
        now, zone = self._now(), self._zone(account_id)
        self._change(account_id, lambda usage: (rules.spoke(usage, now, zone), None))

    def logged_in(self, account_id: str) -> list[Notice]:
        """A login begins a session: the AI disclosure now, and again before the next reply. The login
        stands even when the record of it fails."""
        try:
            self._change(account_id, lambda usage: (rules.logged_in(usage), None))
        except Exception as error:  # noqa: BLE001 - logged; the disclosure is shown all the same
            log.warning("login not recorded for the AI disclosure", extra={"error": type(error).__name__})
        return [Notice(rules.AI_DISCLOSURE, AI_DISCLOSURE_NOTICE)]

    def notices(self, account_id: str, distress: bool) -> list[Notice]:
        """The notices due before the AI's reply, each marked shown (in distress, the AI disclosure
        alone). Best effort: a failure here shows none and leaves the turn as it is."""
        try:
            return self._notices(account_id, distress)
        except Exception as error:  # noqa: BLE001 - logged; a notice never makes a turn fail
            log.warning("usage notices failed", extra={"error": type(error).__name__})
            return []

    def heartbeat_held(self, pair: PairId, ai_user: AIUser, kind: str) -> HeartbeatOutcome | None:
        """Why the AI user may not write first now, or None: a protection (`ProtectionService.held`), and
        minors' curfew: no heartbeat from 22:00 to 08:00 in the person's zone, the next one moved to its end.
        A check-in after a crisis passes both."""
        if kind == "checkin":
            return None
        if (reason := self._protections.held(pair, ai_user)) is not None:
            return HeartbeatOutcome("skipped", reason)
        if not self._protections.standing(pair.account_id).minor:
            return None
        left = rules.curfew_left(self._clock.now(), self._zone(pair.account_id))
        if left is None:
            return None
        hours = left.total_seconds() / 3600
        return HeartbeatOutcome("skipped", "minors' mode: no heartbeats at night", moved_hours=hours)

    def _notices(self, account_id: str, distress: bool) -> list[Notice]:
        standing = self._protections.standing(account_id)
        now, zone = self._now(), self._zone(account_id)
        situation = rules.Situation(standing.minor, standing.daily_minutes, self._settings.dependence_hours, distress)
        usage, kinds = self._change(account_id, lambda read: rules.reminders(read, now, zone, situation))
        left = rules.minutes_left(usage, now, zone, standing.daily_minutes or 0)
        return [Notice(kind, _text(kind, left)) for kind in kinds]

    def _change[T](
        self, account_id: str, decide: Callable[[rules.Usage], tuple[rules.Usage, T]]
    ) -> tuple[rules.Usage, T]:
        """Read the person's usage, decide, write it over the version read (a lost race decides again)."""

        def work() -> tuple[rules.Usage, T]:
            with self._storage.begin() as uow:
                read = uow.conversation_time.get(account_id)
                usage, found = decide(read.entity)
                if usage != read.entity:
                    uow.conversation_time.save(account_id, usage, read)
                    uow.commit()
                return usage, found

        return retry_on_conflict(work)

    def _zone(self, account_id: str) -> str:
        """The person's own zone, else the server's."""
        return chosen_zone(self._storage, account_id) or self._settings.timezone

    def _now(self) -> int:
        return int(self._clock.now().timestamp())


def _text(kind: str, minutes_left: int) -> str:
    """A notice's words (`dreamchat.llm.chat_prompts`): the app's, never the AI's."""
    if kind == rules.DAILY_LIMIT_SOON:
        return daily_limit_notice(minutes_left)
    if kind == rules.REALITY:
        return reality_notice(REALITY_MINUTES)
    return DEPENDENCE_NOTICE if kind == rules.DEPENDENCE else AI_DISCLOSURE_NOTICE
