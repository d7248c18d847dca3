"""Request dependencies: the services, and the account behind the bearer token."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from dreamchat.domain.models import Account
from dreamchat.errors import Unauthorized
from dreamchat.services.container import Services

_bearer = HTTPBearer(auto_error=False)


def get_services(request: Request) -> Services:
    return request.app.state.services


ServicesDep = Annotated[Services, Depends(get_services)]


@dataclass(frozen=True)
class Caller:
    account: Account
    family: str

    @property
    def id(self) -> str:
        return self.account.id


def get_caller(
    services: ServicesDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Caller:
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise Unauthorized("missing bearer token")
    account, family = services.auth.authenticate(credentials.credentials)
    return Caller(account, family)


CurrentCaller = Annotated[Caller, Depends(get_caller)]


def get_optional_caller(
    services: ServicesDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Caller | None:
    """The caller when a bearer token is sent (it must then be valid), else None."""
    return None if credentials is None else get_caller(services, credentials)


OptionalCaller = Annotated[Caller | None, Depends(get_optional_caller)]
