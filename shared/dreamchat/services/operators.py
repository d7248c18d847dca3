"""Who runs the service, and what they did: the operators (`DREAMCHAT_OPERATORS`) and the audit log.

Every operator action, and every read of a person's messages an operator makes, is recorded here
before its answer leaves: who, what, when, which pair and which report or escalation; never a word
anyone wrote."""

from __future__ import annotations

import logging
import uuid

from dreamchat.config import Settings
from dreamchat.domain.models import Account, PairId
from dreamchat.domain.moderation import AuditEntry, is_operator
from dreamchat.errors import Forbidden
from dreamchat.ports import Clock
from dreamchat.services.paging import Page, cursor_after, key_of
from dreamchat.services.storage.unit_of_work import Storage

log = logging.getLogger(__name__)


class OperatorService:
    def __init__(self, storage: Storage, clock: Clock, settings: Settings) -> None:
        self._storage = storage
        self._clock = clock
        self._operators = tuple(settings.operators)

    def is_operator(self, account: Account) -> bool:
        return is_operator(account.username, self._operators)

    def require(self, account: Account) -> None:
        """Forbidden unless the account is an operator."""
        if not self.is_operator(account):
            raise Forbidden("for operators only")

    def record(
        self,
        operator: Account,
        action: str,
        *,
        target: str | None = None,
        pair: PairId | None = None,
        account_id: str | None = None,
    ) -> AuditEntry:
        """Write one audit entry (ids only); it lands before the action's answer is sent."""
        entry = AuditEntry(
            id=uuid.uuid4().hex,
            at=int(self._clock.now().timestamp()),
            operator_id=operator.id,
            operator=operator.username,
            action=action,
            target=target,
            account_id=pair.account_id if pair is not None else account_id,
            ai_user_id=pair.ai_user_id if pair is not None else None,
        )
        with self._storage.begin() as uow:
            uow.audit.add(entry)
            uow.commit()
        log.info("operator action", extra={"operator_id": operator.id, "action": action, "target": target})
        return entry

    def audit(self, cursor: str | None, limit: int) -> Page[AuditEntry]:
        """A page of the audit log, newest first."""
        with self._storage.begin() as uow:
            entries, before = uow.audit.page(key_of(cursor), limit)
        return Page(entries, cursor_after(before) if before is not None else None)
