"""Suspending an account and lifting it: the account is refused at login, refresh and every request
(`AuthService`), and its AI users are hidden from everyone else while it lasts. Nothing is deleted.

Each AI user's `owner_suspended` follows the account as read when the AI user is written (over the
version read): of a suspension and a lift at once, or a suspension and the owner's edit, the AI user
ends as the account is."""

from __future__ import annotations

import logging
from collections.abc import Callable

from dreamchat.domain.models import Account, AIUser, Suspension
from dreamchat.errors import Conflict, Forbidden, NotFound
from dreamchat.ports import Clock
from dreamchat.services.ai_users import AIUserService
from dreamchat.services.operators import OperatorService
from dreamchat.services.storage.unit_of_work import Storage, retry_on_conflict

log = logging.getLogger(__name__)

_NOT_FOUND = "account not found"
type _Decide = Callable[[Account], Account]  # the account as it is stored now -> as it is to be


class SuspensionService:
    def __init__(self, storage: Storage, ai_users: AIUserService, operators: OperatorService, clock: Clock) -> None:
        self._storage = storage
        self._ai_users = ai_users
        self._operators = operators
        self._clock = clock

    def account(self, account_id: str) -> Account:
        """The account as an operator sees it; NotFound when there is none."""
        with self._storage.begin() as uow:
            found = uow.accounts.get(account_id)
        if found is None:
            raise NotFound(_NOT_FOUND)
        return found

    def is_operator(self, account: Account) -> bool:
        return self._operators.is_operator(account)

    def suspend(self, operator: Account, account_id: str, reason: str) -> Account:
        """Suspend the account and hide its AI users; Forbidden for oneself or an operator, Conflict
        when it is suspended already."""
        suspension = Suspension(reason=reason, at=int(self._clock.now().timestamp()), by=operator.id)

        def suspended(account: Account) -> Account:
            if account.id == operator.id or self.is_operator(account):
                raise Forbidden("an operator cannot suspend themselves or another operator")
            if account.suspension is not None:
                raise Conflict("this account is suspended already")
            return account.model_copy(update={"suspension": suspension})

        return self._act(operator, account_id, suspended, "account.suspend")

    def lift(self, operator: Account, account_id: str) -> Account:
        """Lift the suspension and show the account's AI users again; Conflict when it is not suspended."""

        def lifted(account: Account) -> Account:
            if account.suspension is None:
                raise Conflict("this account is not suspended")
            return account.model_copy(update={"suspension": None})

        return self._act(operator, account_id, lifted, "account.lift")

    def _act(self, operator: Account, account_id: str, decide: _Decide, action: str) -> Account:
        account = self._change(account_id, decide)
        hidden = self._follow(account_id)
        self._operators.record(operator, action, target=account_id, account_id=account_id)
        log.info("account %s: %s, ai_users=%d", action, account_id, hidden)
        return account

    def _change(self, account_id: str, decide: _Decide) -> Account:
        def write() -> Account:
            with self._storage.begin() as uow:
                read = uow.accounts.read(account_id)
                if read is None:
                    raise NotFound(_NOT_FOUND)
                changed = decide(read.entity)
                uow.accounts.save(changed, read)
                uow.commit()
            return changed

        return retry_on_conflict(write)

    def _follow(self, account_id: str) -> int:
        """Each AI user the account owns marked as the account stands now; how many there are."""
        with self._storage.begin() as uow:
            owned = uow.ai_users.owned_by(account_id)
        for ai_user_id in owned:
            try:
                self._ai_users.change(ai_user_id, lambda ai_user: self._as_owner_stands(ai_user, account_id))
            except NotFound:  # deleted meanwhile: nothing to hide
                continue
        return len(owned)

    def _as_owner_stands(self, ai_user: AIUser, account_id: str) -> AIUser:
        """Read afresh at every try, so the last write follows the last suspension or lift."""
        with self._storage.begin() as uow:
            owner = uow.accounts.get(account_id)
        suspended = owner is not None and owner.suspension is not None
        return ai_user.model_copy(update={"owner_suspended": suspended})
