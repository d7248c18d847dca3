"""Running the service: who is an operator, what they act on (reports, escalations), what they do to an
AI user (a takedown, `dreamchat.domain.models.Moderation`) or an account (a suspension,
`dreamchat.domain.models.Suspension`), and the audit entry each action leaves.

Pure rules and entities: times are epoch seconds, passed in. An audit entry names who, what, when and
which pair, never a word anyone wrote."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import Field

from dreamchat.domain.accounts import username_skeleton
from dreamchat.domain.bounds import NOTE_CHARS, REPORT_REASON_CHARS
from dreamchat.domain.models import AIUser, Entity

OPEN_REPORTS_PER_PERSON = 20  # open reports one person may have at once

ReportKind = Literal["ai_user", "message"]
ReportStatus = Literal["open", "resolved", "dismissed"]
ReportAction = Literal["takedown", "dismiss"]
EscalationStatus = Literal["open", "taken_over", "closed"]


def is_operator(username: str, operators: Iterable[str]) -> bool:
    """Whether a username is one of `DREAMCHAT_OPERATORS`, compared as registration compares names
    (look-alikes are one name, so no one can register a name that reads as an operator's)."""
    skeleton = username_skeleton(username)
    return any(username_skeleton(name) == skeleton for name in operators if name.strip())


def publish_refusal(ai_user: AIUser, visibility: str | None) -> str | None:
    """Why its owner may not make an AI user public (an operator took it down), or None."""
    if ai_user.moderation is None or visibility != "public":
        return None
    note = f": {ai_user.moderation.note}" if ai_user.moderation.note else ""
    return f"an operator took this AI user down{note}; it stays private until an operator restores it"


class Report(Entity):
    """A person's report (举报/投诉) of a public AI user or of a message in their own chat."""

    id: str
    account_id: str  # who reported
    kind: ReportKind
    ai_user_id: str
    message_id: str | None = None
    reason: str = Field(max_length=REPORT_REASON_CHARS)
    status: ReportStatus = "open"
    created_at: int
    respond_by: int
    action: ReportAction | None = None
    note: str = Field(default="", max_length=NOTE_CHARS)  # the operator's answer
    resolved_at: int | None = None
    resolved_by: str | None = None  # the operator's account id


class Escalation(Entity):
    """A pair the crisis protocol fired on, for a person to look at: ids and times only."""

    id: str
    account_id: str
    ai_user_id: str
    opened_at: int
    status: EscalationStatus = "open"
    flagged: list[str] = Field(default_factory=list)  # the ids of the messages the protocol fired on
    taken_over_by: str | None = None  # the operator's account id
    taken_over_at: int | None = None
    closed_at: int | None = None


class AuditEntry(Entity):
    """One operator action or read: who, what, when, which pair; never the content."""

    id: str
    at: int
    operator_id: str
    operator: str  # the operator's username
    action: str  # e.g. "report.resolve", "escalation.read", "account.suspend"
    target: str | None = None  # the report, escalation, AI user or account acted on
    account_id: str | None = None  # the pair's account, when a pair is concerned
    ai_user_id: str | None = None
