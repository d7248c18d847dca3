"""Reports (举报/投诉): a person reports a listed AI user or a message in their own chat and sees their reports
with the operator's answer; an operator lists them by status, oldest first, reads one (for a message: it
and the 10 before it, an audited read) and acts on it once, a takedown (`TakedownService`) or a dismissal.

Anything a person may not report is a NotFound, as anything they may not see is. The reason and the
operator's note are never logged nor audited: ids only."""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass

from dreamchat.config import Settings
from dreamchat.domain.models import Account, AIUser, Message, PairId
from dreamchat.domain.moderation import (
    OPEN_REPORTS_PER_PERSON,
    Report,
    ReportAction,
    ReportKind,
    ReportStatus,
    month_of,
)
from dreamchat.errors import Conflict, Invalid, NotFound
from dreamchat.ports import Clock
from dreamchat.services.ai_users import AIUserService
from dreamchat.services.friend_lists import FriendListService
from dreamchat.services.memory_repo import MessageLog
from dreamchat.services.operators import OperatorService
from dreamchat.services.paging import MAX_LIMIT, Page, cursor_after, key_of
from dreamchat.services.storage.unit_of_work import Storage
from dreamchat.services.takedowns import TakedownService

log = logging.getLogger(__name__)

MESSAGES_BEFORE_REPORTED = 10  # what an operator reads of a reported message's chat: it and these before it
_NOT_FOUND = "nothing to report: no such AI user or message in your chats"


@dataclass(frozen=True)
class ReportView:
    """A report as an operator sees it in a list: overdue while still open past its `respond_by`."""

    report: Report
    overdue: bool


@dataclass(frozen=True)
class ReportDetail:
    """One report as an operator reads it: the AI user it names (None once deleted) and, for a message,
    that message and the ones before it (none once the person deleted it)."""

    view: ReportView
    ai_user: AIUser | None
    messages: list[Message]


@dataclass(frozen=True)
class ConsoleCounts:
    """The console's badges: counts only."""

    open_reports: int
    open_escalations: int
    ratings_up: int = 0  # 👍 on the AI's messages this UTC month (`dreamchat.services.ratings`)
    ratings_down: int = 0


class ReportService:
    def __init__(
        self,
        storage: Storage,
        ai_users: AIUserService,
        friend_lists: FriendListService,
        messages: MessageLog,
        operators: OperatorService,
        takedowns: TakedownService,
        clock: Clock,
        settings: Settings,
    ) -> None:
        self._storage = storage
        self._ai_users = ai_users
        self._friend_lists = friend_lists
        self._messages = messages
        self._operators = operators
        self._takedowns = takedowns
        self._clock = clock
        self._respond_seconds = settings.report_response_hours * 3600

    def report(self, account_id: str, kind: ReportKind, ai_user_id: str, message_id: str | None, reason: str) -> Report:
        """A new open report, to be answered by `respond_by`; NotFound for what the person may not report,
        Conflict past `OPEN_REPORTS_PER_PERSON` open ones."""
        self._check_reportable(account_id, kind, ai_user_id, message_id)
        now = self._epoch()
        report = Report(
            id=f"rep_{uuid.uuid4().hex[:16]}",
            account_id=account_id,
            kind=kind,
            ai_user_id=ai_user_id,
            message_id=message_id if kind == "message" else None,
            reason=reason,
            created_at=now,
            respond_by=now + self._respond_seconds,
        )
        with self._storage.begin() as uow:
            if uow.reports.open_count(account_id) >= OPEN_REPORTS_PER_PERSON:
                raise Conflict(f"at most {OPEN_REPORTS_PER_PERSON} open reports; wait for an answer first")
            uow.reports.add(report)
            uow.commit()
        log.info("report made", extra={"report_id": report.id, "kind": kind, "ai_user_id": ai_user_id})
        return report

    def mine(self, account_id: str, cursor: str | None, limit: int) -> Page[Report]:
        """A page of the person's own reports, newest first, with their status and answer."""
        with self._storage.begin() as uow:
            found, after = uow.reports.of_account(account_id, key_of(cursor), limit)
        return Page(found, cursor_after(after) if after is not None else None)

    def listed(self, status: ReportStatus, cursor: str | None, limit: int) -> Page[ReportView]:
        """A page of one status's reports, oldest first (for operators)."""
        with self._storage.begin() as uow:
            found, after = uow.reports.listed(status, key_of(cursor), limit)
        return Page([self._view(r) for r in found], cursor_after(after) if after is not None else None)

    def read(self, operator: Account, report_id: str) -> ReportDetail:
        """One report with what it names, for an operator; the read is audited before it is answered."""
        report = self._get(report_id)
        pair = PairId(account_id=report.account_id, ai_user_id=report.ai_user_id)
        with self._storage.begin() as uow:
            ai_user = uow.ai_users.get(report.ai_user_id)
        messages = self._reported_messages(pair, report.message_id) if report.kind == "message" else []
        self._operators.record(operator, "report.read", target=report.id, pair=pair)
        return ReportDetail(self._view(report), ai_user, messages)

    def resolve(self, operator: Account, report_id: str, action: ReportAction, note: str) -> ReportView:
        """Act on an open report once, over the version read (of two operators at once, one wins, the other
        gets Conflict): a takedown resolves it and takes the AI user down, a dismissal dismisses it."""
        with self._storage.begin() as uow:
            read = uow.reports.get(report_id)
            if read is None:
                raise NotFound("report not found")
            if read.entity.status != "open":
                raise Conflict("this report was already acted on")
            status = "resolved" if action == "takedown" else "dismissed"
            changes = {"status": status, "action": action, "note": note, "resolved_by": operator.id}
            acted = Report.model_validate({**read.entity.model_dump(), **changes, "resolved_at": self._epoch()})
            uow.reports.save(acted, read)
            uow.commit()
        pair = PairId(account_id=acted.account_id, ai_user_id=acted.ai_user_id)
        self._operators.record(operator, "report.resolve", target=acted.id, pair=pair)
        if action == "takedown":
            self._takedowns.take_down(acted.ai_user_id, note, acted.id)
        return self._view(acted)

    def restore(self, operator: Account, ai_user_id: str) -> AIUser:
        """Lift a takedown (`TakedownService.restore`)."""
        return self._takedowns.restore(operator, ai_user_id)

    def summary(self) -> ConsoleCounts:
        """How many reports and crisis escalations wait for an operator; this month's 👍 and 👎."""
        with self._storage.begin() as uow:
            open_reports = uow.reports.count("open")
            open_escalations = len(uow.escalations.listed("open", None, MAX_LIMIT)[0])
            ratings = uow.rating_counts.get(month_of(self._clock.now())).entity
        return ConsoleCounts(open_reports, open_escalations, ratings.get("up", 0), ratings.get("down", 0))

    def _check_reportable(self, account_id: str, kind: ReportKind, ai_user_id: str, message_id: str | None) -> None:
        """A listed AI user of another account; or a message in the person's own chat with another account's
        AI user (a friendship that ended keeps its chat). NotFound for anything else."""
        if kind == "ai_user":
            ai_user = self._ai_users.visible(account_id, ai_user_id)
            if ai_user.owner_id == account_id or not ai_user.listed:
                raise NotFound(_NOT_FOUND)
            return
        if message_id is None:
            raise Invalid("message_id: required for a report of a message")
        pair, ai_user = self._friend_lists.kept(account_id, ai_user_id)
        if ai_user.owner_id == account_id or not self._messages.has_message(pair, message_id):
            raise NotFound(_NOT_FOUND)

    def _reported_messages(self, pair: PairId, message_id: str | None) -> list[Message]:
        """The reported message and the ones before it, oldest first; none once it is gone."""
        reported = self._messages.message(pair, message_id) if message_id else None
        if reported is None:
            return []
        before, _ = self._messages.messages(pair, before=reported.id, after=None, limit=MESSAGES_BEFORE_REPORTED)
        return [*before, reported]

    def _get(self, report_id: str) -> Report:
        with self._storage.begin() as uow:
            read = uow.reports.get(report_id)
        if read is None:
            raise NotFound("report not found")
        return read.entity

    def _view(self, report: Report) -> ReportView:
        return ReportView(report, report.status == "open" and self._epoch() > report.respond_by)

    def _epoch(self) -> int:
        return int(self._clock.now().timestamp())
