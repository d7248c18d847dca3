"""Running the service: who is an operator, what they act on (reports, escalations), what they do to an
AI user (a takedown, `dreamchat.domain.models.Moderation`) or an account (a suspension,
`dreamchat.domain.models.Suspension`), and the audit entry each action leaves.

Pure rules and entities: times are epoch seconds, passed in. An audit entry names who, what, when and
which pair, never a word anyone wrote."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Literal

from pydantic import Field

from dreamchat.domain.accounts import username_skeleton
from dreamchat.domain.bounds import NOTE_CHARS, REPORT_REASON_CHARS
from dreamchat.domain.ids import message_id_floor
from dreamchat.domain.models import AIUser, Entity, Message

OPEN_REPORTS_PER_PERSON = 20  # open reports one person may have at once
FLAGGED_KEPT = 100  # the ids of flagged messages an escalation keeps (the latest; its count goes on)
LOOK_BACK = 10  # the messages an operator is shown before each flagged one
TAKEOVER_SHOWN = 200  # the latest messages of the chat since the takeover an operator is shown

STAFF_NAME = "工作人员"  # who an operator's messages are from, to the person (never the AI)
STAFF_NOTICE = "工作人员正在这里陪你，稍后会回复你。"  # a chat turn's notice while an operator has the chat
# what the referral report counts per month (SB 243): numbers only
CRISIS_COUNTS = ("protocol_fired", "help_lines_shown", "escalations_opened", "taken_over")

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
    flagged: list[str] = Field(default_factory=list)  # the ids of the messages the protocol fired on (latest)
    messages_flagged: int = 0  # how many it fired on, all told
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


def flagged(escalation: Escalation, message_id: str) -> Escalation:
    """The escalation with one more message the protocol fired on (one message counts once); the ids of
    the latest `FLAGGED_KEPT` are kept."""
    if message_id in escalation.flagged:
        return escalation
    kept = [*escalation.flagged, message_id][-FLAGGED_KEPT:]
    return escalation.model_copy(update={"flagged": kept, "messages_flagged": escalation.messages_flagged + 1})


def takeover_refusal(escalation: Escalation) -> str | None:
    """Why an operator may not take the chat over (None: they may)."""
    if escalation.status == "taken_over":
        return "this escalation is already taken over"
    return "this escalation is closed" if escalation.status == "closed" else None


def taken_over(escalation: Escalation, operator_id: str, at: int) -> Escalation:
    return escalation.model_copy(update={"status": "taken_over", "taken_over_by": operator_id, "taken_over_at": at})


def staff_refusal(escalation: Escalation) -> str | None:
    """Why an operator may not write in the chat (None: it is taken over)."""
    return None if escalation.status == "taken_over" else "take the chat over before writing in it"


def release_refusal(escalation: Escalation) -> str | None:
    return "this escalation is already closed" if escalation.status == "closed" else None


def closed(escalation: Escalation, at: int) -> Escalation:
    return escalation.model_copy(update={"status": "closed", "closed_at": at})


def takeover_span(escalation: Escalation) -> tuple[str, str | None] | None:
    """The message ids bounding the chat an operator had: from the takeover's second to the second after
    the release (None: it is still taken over); None when it was never taken over. After the release the
    chat is the AI's again, and no longer the escalation's."""
    if escalation.taken_over_at is None:
        return None
    end = message_id_floor(escalation.closed_at + 1) if escalation.closed_at is not None else None
    return message_id_floor(escalation.taken_over_at), end


def shown_messages(windows: Iterable[Iterable[Message]], flagged_ids: Iterable[str]) -> list[tuple[Message, bool]]:
    """What an operator reads of an escalation: the messages of each window (a flagged message and the
    ones before it), oldest first, each once, with whether the protocol fired on it."""
    found = {message.id: message for window in windows for message in window}
    marked = set(flagged_ids)
    return [(found[key], key in marked) for key in sorted(found)]


def month_of(at: datetime) -> str:
    """The UTC month a count falls in: `YYYY-MM`."""
    return f"{at.astimezone(UTC):%Y-%m}"


def months_of(year: int) -> list[str]:
    return [f"{year:04d}-{month:02d}" for month in range(1, 13)]


def counted(counts: dict[str, int], name: str) -> dict[str, int]:
    """The month's counts with one more `name` (one of `CRISIS_COUNTS`)."""
    if name not in CRISIS_COUNTS:
        raise ValueError(f"not a crisis count: {name}")
    return {**counts, name: counts.get(name, 0) + 1}


def report_row(counts: dict[str, int]) -> dict[str, int]:
    """One month of the referral report: every count, zeros included."""
    return {name: counts.get(name, 0) for name in CRISIS_COUNTS}
