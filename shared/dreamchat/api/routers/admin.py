"""The operator's API: who they are and the audit log (reports, accounts and escalations have their own
routers). Every route answers 403 to anyone not named in `DREAMCHAT_OPERATORS`."""

from __future__ import annotations

from fastapi import APIRouter

from dreamchat.api.deps import OperatorDep, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.pages import Cursor, Limit
from dreamchat.api.responses import AuditEntryOut, AuditPageOut, OperatorOut
from dreamchat.services.paging import DEFAULT_LIMIT

router = APIRouter(prefix="/api/admin", tags=["admin"])


@router.get("/me", response_model=OperatorOut, responses=documented(401, 403))
def me(operator: OperatorDep) -> OperatorOut:
    """The operator's own account: the console checks it before it shows anything."""
    return OperatorOut(operator=True, username=operator.account.username)


@router.get("/audit", response_model=AuditPageOut, responses=documented(401, 403, 422))
def audit(
    operator: OperatorDep, services: ServicesDep, cursor: Cursor = None, limit: Limit = DEFAULT_LIMIT
) -> AuditPageOut:
    """The audit log, newest first: who did what, when, to which pair; never the content."""
    page = services.operators.audit(cursor, limit)
    return AuditPageOut(entries=[AuditEntryOut.model_validate(e) for e in page.items], next_cursor=page.cursor)
