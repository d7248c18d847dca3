"""Accounts and tokens: register, log in, rotate refresh tokens, log out, authenticate.

Access tokens live 15 minutes, refresh tokens 30 days. Each login starts a token family;
refreshing rotates the family's current refresh token, and presenting a rotated (old) one
revokes the whole family, since it means the token leaked. Access tokens name their family,
so logging out ends them too. A suspended account is refused (403 with the operator's reason) at login,
refresh and every request: its live tokens stop at once, and work again once the suspension is lifted.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import jwt

from dreamchat import keys
from dreamchat.config import Settings
from dreamchat.domain.accounts import normal_username, password_problem, username_problem, username_skeleton
from dreamchat.domain.models import Account, TokenFamily
from dreamchat.domain.protection import Protection, birth_year_problem
from dreamchat.errors import Conflict, Contended, Forbidden, Invalid, Suspended, Unauthorized
from dreamchat.ports import Clock
from dreamchat.services.limits import RateLimit
from dreamchat.services.passwords import HashingPool, dummy_hash
from dreamchat.services.storage.session import Versioned
from dreamchat.services.storage.unit_of_work import Storage, UnitOfWork

_ALGORITHM = "HS256"
TokenClaims = dict[str, Any]  # a decoded JWT
_BAD_LOGIN = "invalid username or password"


@dataclass(frozen=True)
class Tokens:
    access_token: str
    refresh_token: str
    expires_in: int


class AuthService:
    def __init__(self, storage: Storage, clock: Clock, settings: Settings, secret: str | None = None) -> None:
        """`secret` signs tokens; without it, DREAMCHAT_JWT_SECRET (the wiring finds local mode's own)."""
        self._storage = storage
        self._clock = clock
        self._settings = settings
        if secret is None:
            if settings.jwt_secret is None:
                raise ValueError("no JWT secret")
            secret = settings.jwt_secret.get_secret_value()
        self._secret = secret
        self._limit = RateLimit(storage, clock)
        self.hashing = HashingPool(settings.password_hash_workers)
        previous = settings.jwt_previous_secret
        self._previous = previous.get_secret_value() if previous is not None else None

    def register(
        self, username: str, password: str, client: str, birth_year: int | None = None
    ) -> tuple[Account, Tokens]:
        """A new account, logged in; the `birth_year` given is its protection's (minors' mode under 18)."""
        if not self._settings.allow_registration:
            raise Forbidden("registration is closed")
        self._count_client(client)
        username = normal_username(username)
        year = self._clock.now().year
        for problem in (username_problem(username), password_problem(password), birth_year_problem(birth_year, year)):
            if problem:
                raise Invalid(problem)
        account = Account(
            id=uuid.uuid4().hex,
            username=username,
            password_hash=self.hashing.hash(password),
            created_at=self._epoch(),
        )
        with self._storage.begin() as uow:
            uow.accounts.add(account)
            if birth_year is not None:
                uow.protections.save(account.id, Protection(birth_year=birth_year), uow.protections.get(account.id))
            try:
                uow.commit()
            except Contended as error:
                raise Conflict("username is taken (or looks like one that is)") from error
        return account, self.start_family(account.id)

    def login(self, username: str, password: str, client: str) -> tuple[Account, Tokens]:
        """Every attempt is counted before the password is checked: per client address, and per
        username whatever the address (a new X-Forwarded-For does not reset it)."""
        self._count_client(client)
        window = self._settings.login_window_minutes * 60
        self._limit.hit(
            keys.login_limit_scope(username_skeleton(username)),
            self._settings.login_attempts,
            window,
            "too many failed logins; try again later",
        )
        account = self._find(username)
        if not self.hashing.verify(account.password_hash if account else dummy_hash(), password) or account is None:
            raise Unauthorized(_BAD_LOGIN)
        self._limit.reset(keys.login_limit_scope(username_skeleton(username)), window)
        _refuse_suspended(account)  # only now: the reason is for the account's holder alone
        return account, self.start_family(account.id)

    def refresh(self, refresh_token: str) -> Tokens:
        claims = self._decode(refresh_token, "refresh")
        account_id, family = claims["sub"], claims["fam"]
        with self._storage.begin() as uow:
            read = uow.tokens.get(account_id, family)
            if read is None or read.entity.revoked:
                raise Unauthorized("refresh token is revoked")
            if read.entity.current_jti != claims["jti"]:
                self._revoke(uow, read)
                raise Unauthorized("refresh token was already used; please log in again")
            if (account := uow.accounts.get(account_id)) is not None:
                _refuse_suspended(account)  # the family stays: it works again once the suspension is lifted
            try:
                return self._rotate(uow, read)
            except Contended as error:
                self._revoke(uow, uow.tokens.get(account_id, family) or read)
                raise Unauthorized("refresh token was already used; please log in again") from error

    def logout(self, account_id: str, family: str) -> None:
        with self._storage.begin() as uow:
            read = uow.tokens.get(account_id, family)
            if read is not None:
                self._revoke(uow, read)

    def authenticate(self, access_token: str) -> tuple[Account, str]:
        """The account behind a valid access token, and the token's family."""
        claims = self._decode(access_token, "access")
        with self._storage.begin() as uow:
            read = uow.tokens.get(claims["sub"], claims["fam"])
        if read is None or read.entity.revoked:
            raise Unauthorized("token is revoked")
        account = self.account(claims["sub"])
        if account is None:
            raise Unauthorized("account no longer exists")
        _refuse_suspended(account)
        return account, claims["fam"]

    def delete_account(self, account: Account) -> None:
        """Remove the account, its username and every token family (its data goes first)."""
        names = keys.username(account.username), keys.legacy_username(account.username)
        self._storage.erase(keys.account_pk(account.id), *names)

    def account(self, account_id: str) -> Account | None:
        with self._storage.begin() as uow:
            return uow.accounts.get(account_id)

    def logout_refresh(self, refresh_token: str, account_id: str | None) -> None:
        """Revoke the refresh token's family (it must be the caller's when a caller is known)."""
        claims = self._decode(refresh_token, "refresh")
        if account_id is not None and claims["sub"] != account_id:
            raise Unauthorized("this refresh token belongs to another session")
        self.logout(claims["sub"], claims["fam"])

    def _find(self, username: str) -> Account | None:
        with self._storage.begin() as uow:
            return uow.accounts.named(normal_username(username))

    def start_family(self, account_id: str) -> Tokens:
        """A new login of the account: a token family and its first tokens."""
        family, jti = uuid.uuid4().hex, uuid.uuid4().hex
        with self._storage.begin() as uow:
            uow.tokens.save(
                TokenFamily(account_id=account_id, family=family, current_jti=jti), None, self._refresh_expiry()
            )
            uow.commit()
        return self._issue(account_id, family, jti)

    def _rotate(self, uow: UnitOfWork, read: Versioned[TokenFamily]) -> Tokens:
        """The family's next refresh token, over the version read: of two rotations one wins."""
        jti = uuid.uuid4().hex
        uow.tokens.save(read.entity.model_copy(update={"current_jti": jti}), read, self._refresh_expiry())
        uow.commit()
        return self._issue(read.entity.account_id, read.entity.family, jti)

    def _revoke(self, uow: UnitOfWork, read: Versioned[TokenFamily]) -> None:
        uow.tokens.revoke(read)
        uow.commit()

    def _issue(self, account_id: str, family: str, jti: str) -> Tokens:
        now = self._clock.now()
        access_life = timedelta(minutes=self._settings.access_token_minutes)
        base = {"sub": account_id, "fam": family, "iat": now}
        access = jwt.encode({**base, "typ": "access", "exp": now + access_life}, self._secret, _ALGORITHM)
        refresh_exp = now + timedelta(days=self._settings.refresh_token_days)
        refresh = jwt.encode({**base, "typ": "refresh", "jti": jti, "exp": refresh_exp}, self._secret, _ALGORITHM)
        return Tokens(access, refresh, int(access_life.total_seconds()))

    def _decode(self, token: str, kind: str) -> TokenClaims:
        claims = self._verified(token)
        if claims.get("typ") != kind:
            raise Unauthorized(f"this is not a {kind} token")
        if claims["exp"] <= self._clock.now().timestamp():
            raise Unauthorized("token has expired")
        return claims

    def _count_client(self, client: str) -> None:
        self._limit.hit(
            keys.client_limit_scope(client),
            self._settings.auth_requests_per_minute,
            60,
            "too many sign-in requests from this address; wait a moment",
        )

    def _verified(self, token: str) -> TokenClaims:
        """The claims of a token signed with the current secret, or with the previous one while
        the rotation window lasts (tokens are only ever signed with the current one)."""
        for secret in self._verifying_secrets():
            try:
                claims: TokenClaims = jwt.decode(
                    token,
                    secret,
                    algorithms=[_ALGORITHM],
                    # Expiry is checked against our clock, so tests can move time.
                    options={"require": ["exp", "sub", "typ", "fam"], "verify_exp": False, "verify_iat": False},
                )
            except jwt.InvalidSignatureError:
                continue
            except jwt.PyJWTError as error:
                raise Unauthorized("invalid token") from error
            return claims
        raise Unauthorized("invalid token")

    def _verifying_secrets(self) -> list[str]:
        rotated_at = self._settings.jwt_rotated_at
        window = self._settings.jwt_rotation_minutes * 60
        if self._previous is None or rotated_at is None or self._epoch() >= rotated_at + window:
            return [self._secret]
        return [self._secret, self._previous]

    def _refresh_expiry(self) -> int:
        return self._epoch() + self._settings.refresh_token_days * 86400

    def _epoch(self) -> int:
        return int(self._clock.now().timestamp())


def _refuse_suspended(account: Account) -> None:
    """Suspended (403, with the operator's reason) while an operator's suspension lasts."""
    if account.suspension is not None:
        raise Suspended(f"this account is suspended: {account.suspension.reason}")
