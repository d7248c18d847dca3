"""What operators do to what a report names and to accounts: resolve a report (a takedown or a dismissal), restore an AI user, suspend an account. 403 unless an operator."""

from __future__ import annotations

from fastapi import APIRouter

from dreamchat.api.deps import OperatorDep, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.pages import Cursor, Limit
from dreamchat.api.responses import (
    AccountSuspensionOut,
    AdminAccountOut,
    AdminReportDetailOut,
    AdminReportOut,
    AdminReportPageOut,
    RestoredOut,
    SummaryOut,
)
from dreamchat.api.schemas import ReportResolution, SuspensionRequest
from dreamchat.domain.models import Account
from dreamchat.domain.moderation import ReportStatus
from dreamchat.services.paging import DEFAULT_LIMIT

router = APIRouter(prefix="/api/admin", tags=["admin"])


@router.get("/summary", response_model=SummaryOut, responses=documented(401, 403))
def summary(operator: OperatorDep, services: ServicesDep) -> SummaryOut:
    """The console's badges: how many reports and crisis escalations are open, and this UTC month's 👍 and 👎
    on the AI's messages (counts only)."""
    found = services.reports.summary()
    return SummaryOut(
        open_reports=found.open_reports,
        open_escalations=found.open_escalations,
        ratings_up=found.ratings_up,
        ratings_down=found.ratings_down,
    )


@router.get("/reports", response_model=AdminReportPageOut, responses=documented(401, 403, 422))
def list_reports(
    operator: OperatorDep,
    services: ServicesDep,
    status: ReportStatus = "open",
    cursor: Cursor = None,
    limit: Limit = DEFAULT_LIMIT,
) -> AdminReportPageOut:
    """Reports of one status, oldest first; `overdue`: still open past `respond_by`."""
    page = services.reports.listed(status, cursor, limit)
    return AdminReportPageOut(reports=[AdminReportOut.of(v) for v in page.items], next_cursor=page.cursor)


@router.get("/reports/{report_id}", response_model=AdminReportDetailOut, responses=documented(401, 403, 404, 422))
def read_report(report_id: str, operator: OperatorDep, services: ServicesDep) -> AdminReportDetailOut:
    """One report with the AI user it names and, for a message, it and the 10 before it (an audited read)."""
    return AdminReportDetailOut.of_detail(services.reports.read(operator.account, report_id))


@router.post(
    "/reports/{report_id}/resolve",
    response_model=AdminReportOut,
    responses=documented(400, 401, 403, 404, 409, 413, 422),
)
def resolve_report(
    report_id: str, body: ReportResolution, operator: OperatorDep, services: ServicesDep
) -> AdminReportOut:
    """Act on an open report once: `takedown` (the AI user becomes private at once) or `dismiss`; 409 if acted on."""
    return AdminReportOut.of(services.reports.resolve(operator.account, report_id, body.action, body.note))


@router.post(
    "/ai-users/{ai_user_id}/restore", response_model=RestoredOut, responses=documented(401, 403, 404, 409, 422)
)
def restore_ai_user(ai_user_id: str, operator: OperatorDep, services: ServicesDep) -> RestoredOut:
    """Lift a takedown: the AI user is public again if it was before; 409 unless it is taken down."""
    restored = services.reports.restore(operator.account, ai_user_id)
    return RestoredOut(ai_user_id=restored.id, visibility=restored.visibility, moderation=None)


# Accounts


def _suspension_of(account: Account) -> AccountSuspensionOut:
    return AccountSuspensionOut.model_validate({"account_id": account.id, "suspension": account.suspension})


@router.get("/accounts/{account_id}", response_model=AdminAccountOut, responses=documented(401, 403, 404, 422))
def read_account(account_id: str, operator: OperatorDep, services: ServicesDep) -> AdminAccountOut:
    """An account: its name, since when, whether an operator, and its suspension."""
    found = services.suspensions.account(account_id)
    operator_flag = services.suspensions.is_operator(found)
    return AdminAccountOut.model_validate({**found.model_dump(), "operator": operator_flag})


@router.post(
    "/accounts/{account_id}/suspend",
    response_model=AccountSuspensionOut,
    responses=documented(400, 401, 403, 404, 409, 413, 422),
)
def suspend(
    account_id: str, body: SuspensionRequest, operator: OperatorDep, services: ServicesDep
) -> AccountSuspensionOut:
    """Suspend an account: no login, its tokens stop, its AI users hide; nothing is deleted (audited)."""
    return _suspension_of(services.suspensions.suspend(operator.account, account_id, body.reason))


@router.delete(
    "/accounts/{account_id}/suspend", response_model=AccountSuspensionOut, responses=documented(401, 403, 404, 409, 422)
)
def lift(account_id: str, operator: OperatorDep, services: ServicesDep) -> AccountSuspensionOut:
    """Lift a suspension: the account logs in again and its AI users show again (audited)."""
    return _suspension_of(services.suspensions.lift(operator.account, account_id))
