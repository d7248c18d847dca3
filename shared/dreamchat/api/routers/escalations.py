"""Crisis escalations: the pairs the crisis protocol fired on, read (audited), taken over, written to as staff, released; and the referral report. 403 unless an operator."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi import Path as PathParam
from pydantic import Field

from dreamchat.api.deps import OperatorDep, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.pages import Cursor, Limit
from dreamchat.api.responses import (
    EscalationDetailOut,
    EscalationMessageOut,
    EscalationOut,
    EscalationPageOut,
    ReferralMonthOut,
    ReferralReportOut,
    StaffMessageOut,
)
from dreamchat.api.schemas import Body
from dreamchat.domain.bounds import MESSAGE_CHARS
from dreamchat.domain.moderation import EscalationStatus
from dreamchat.services.paging import DEFAULT_LIMIT

router = APIRouter(prefix="/api/admin", tags=["admin"])
EscalationId = Annotated[str, PathParam(min_length=1, max_length=64)]


class StaffMessage(Body):
    content: str = Field(min_length=1, max_length=MESSAGE_CHARS)


@router.get("/escalations", response_model=EscalationPageOut, responses=documented(401, 403, 422))
def escalations(
    operator: OperatorDep,
    services: ServicesDep,
    status: EscalationStatus = "open",
    cursor: Cursor = None,
    limit: Limit = DEFAULT_LIMIT,
) -> EscalationPageOut:
    """One status's escalations, oldest first: ids, times and counts, no text; each person's emergency contact."""
    page = services.escalations.listed(status, cursor, limit)
    shown = [EscalationOut.of(e, services.escalations.contact(e)) for e in page.items]
    return EscalationPageOut(escalations=shown, next_cursor=page.cursor)


@router.get(
    "/escalations/{escalation_id}", response_model=EscalationDetailOut, responses=documented(401, 403, 404, 422)
)
def escalation(escalation_id: EscalationId, operator: OperatorDep, services: ServicesDep) -> EscalationDetailOut:
    """The escalation with each flagged message and the 10 before it, and once taken over the chat since the
    takeover, to the release (an audited read)."""
    found, messages = services.escalations.read(operator.account, escalation_id)
    shown = [
        EscalationMessageOut(**m.model_dump(include={"id", "role", "content", "timestamp"}), flagged=f)
        for m, f in messages
    ]
    contact = services.escalations.contact(found)
    return EscalationDetailOut(**EscalationOut.of(found, contact).model_dump(), messages=shown)


@router.post(
    "/escalations/{escalation_id}/takeover", response_model=EscalationOut, responses=documented(401, 403, 404, 409, 422)
)
def take_over(escalation_id: EscalationId, operator: OperatorDep, services: ServicesDep) -> EscalationOut:
    """The operator takes the chat over: the AI neither answers nor sends heartbeats there until released."""
    escalation = services.escalations.take_over(operator.account, escalation_id)
    return EscalationOut.of(escalation, services.escalations.contact(escalation))


@router.post(
    "/escalations/{escalation_id}/messages",
    status_code=201,
    response_model=StaffMessageOut,
    responses=documented(400, 401, 403, 404, 409, 413, 422),
)
def write(
    escalation_id: EscalationId, body: StaffMessage, operator: OperatorDep, services: ServicesDep
) -> StaffMessageOut:
    """The operator's words to the person, as staff (工作人员), in the chat and by push; 409 unless taken over."""
    return StaffMessageOut.model_validate(services.escalations.write(operator.account, escalation_id, body.content))


@router.post(
    "/escalations/{escalation_id}/release", response_model=EscalationOut, responses=documented(401, 403, 404, 409, 422)
)
def release(escalation_id: EscalationId, operator: OperatorDep, services: ServicesDep) -> EscalationOut:
    """The chat is handed back to the AI (which then sees the staff's messages); the escalation is closed."""
    escalation = services.escalations.release(operator.account, escalation_id)
    return EscalationOut.of(escalation, services.escalations.contact(escalation))


@router.get("/reports/crisis-referrals", response_model=ReferralReportOut, responses=documented(401, 403, 422))
def crisis_referrals(
    operator: OperatorDep, services: ServicesDep, year: int | None = Query(default=None, ge=2000, le=2100)
) -> ReferralReportOut:
    """Per UTC month of the year (without `year`, this one): the crisis protocol fired, help lines shown,
    escalations opened and taken over. Counts only (SB 243's annual report)."""
    chosen, rows = services.referrals.report(year)
    return ReferralReportOut(year=chosen, months=[ReferralMonthOut(month=m, **counts) for m, counts in rows])
