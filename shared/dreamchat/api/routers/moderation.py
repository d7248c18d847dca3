"""What operators do to what a report names and to accounts: resolve a report (a takedown or a dismissal), restore an AI user, suspend an account. 403 unless an operator."""

from __future__ import annotations

from fastapi import APIRouter

from dreamchat.api.deps import OperatorDep, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.responses import AccountSuspensionOut, AdminAccountOut
from dreamchat.api.schemas import SuspensionRequest
from dreamchat.domain.models import Account

router = APIRouter(prefix="/api/admin", tags=["admin"])


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
    responses=documented(401, 403, 404, 409, 413, 422),
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
