"""A person changes their password: the old one confirms it is them (a wrong one is refused and counted
like a failed login), the new one follows the registration rule (`dreamchat.domain.accounts.password_problem`),
and every login of the account ends — each refresh token family revoked, so a stolen session stops — before
this device gets a new one."""

from __future__ import annotations

from dreamchat import keys
from dreamchat.config import Settings
from dreamchat.domain.accounts import password_problem, username_skeleton
from dreamchat.domain.models import Account
from dreamchat.errors import Contended, Invalid, WrongPassword
from dreamchat.ports import Clock
from dreamchat.services.auth import AuthService, Tokens
from dreamchat.services.limits import RateLimit
from dreamchat.services.storage.unit_of_work import Storage, retry_on_conflict


class PasswordService:
    def __init__(self, storage: Storage, auth: AuthService, clock: Clock, settings: Settings) -> None:
        self._storage = storage
        self._auth = auth
        self._limit = RateLimit(storage, clock)
        self._settings = settings

    def change(self, account: Account, old_password: str, new_password: str) -> Tokens:
        """The new password kept, every token family revoked, and a new login for the caller;
        WrongPassword (403) for a wrong old one, Invalid for a new one the registration would refuse."""
        scope, window = keys.login_limit_scope(username_skeleton(account.username)), self._window()
        self._limit.hit(scope, self._settings.login_attempts, window, "too many wrong passwords; try again later")
        if not self._auth.hashing.verify(account.password_hash, old_password):
            raise WrongPassword("the current password is not right")
        self._limit.reset(scope, window)
        problem = password_problem(new_password)
        if problem:
            raise Invalid(problem)
        hashed = self._auth.hashing.hash(new_password)

        def write() -> None:
            with self._storage.begin() as uow:
                read = uow.accounts.read(account.id)
                if read is None:
                    raise Contended("the account is gone")
                uow.accounts.save(read.entity.model_copy(update={"password_hash": hashed}), read)
                uow.commit()

        retry_on_conflict(write)
        self._revoke_all(account.id)
        return self._auth.start_family(account.id)

    def _revoke_all(self, account_id: str) -> None:
        with self._storage.begin() as uow:
            for family in uow.tokens.all(account_id):
                if not family.entity.revoked:
                    uow.tokens.revoke(family)
            uow.commit_in_parts()

    def _window(self) -> int:
        return self._settings.login_window_minutes * 60
