"""A person's reports (举报/投诉) of a public AI user or a message in their own chat, and their answers."""

from __future__ import annotations

from fastapi import APIRouter, status

from dreamchat.api.deps import CurrentCaller, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.pages import Cursor, Limit
from dreamchat.api.responses import ReportOut, ReportPageOut
from dreamchat.api.schemas import ReportCreate
from dreamchat.services.paging import DEFAULT_LIMIT

router = APIRouter(prefix="/api/reports", tags=["reports"])


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    response_model=ReportOut,
    responses=documented(400, 401, 404, 409, 413, 422),
)
def make_report(body: ReportCreate, caller: CurrentCaller, services: ServicesDep) -> ReportOut:
    """Report another account's public AI user, or a message in one's own chat with it (at most 20 open at once);
    an operator answers by `respond_by`."""
    report = services.reports.report(caller.id, body.kind, body.ai_user_id, body.message_id, body.reason)
    return ReportOut.model_validate(report)


@router.get("", response_model=ReportPageOut, responses=documented(401, 422))
def my_reports(
    caller: CurrentCaller, services: ServicesDep, cursor: Cursor = None, limit: Limit = DEFAULT_LIMIT
) -> ReportPageOut:
    """The caller's own reports, newest first, each with its status and the operator's answer."""
    page = services.reports.mine(caller.id, cursor, limit)
    return ReportPageOut(reports=[ReportOut.model_validate(r) for r in page.items], next_cursor=page.cursor)
