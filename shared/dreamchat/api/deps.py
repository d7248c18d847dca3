"""Request dependencies: the services, the account behind the bearer token, and what a route may touch:
the caller's pair with the AI user in its path (`PairDep`), with the AI user too (`CompanionDep`), an AI user
the caller may befriend (`BefriendableDep`: visible, and no protection of the person stands in the way), the
request's deadline and the model pool."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from dreamchat.api.deadline import SCOPE_KEY
from dreamchat.budget import Deadline
from dreamchat.domain.models import Account, AIUser, PairId
from dreamchat.errors import Unauthorized
from dreamchat.services.container import Services
from dreamchat.services.model_pool import ModelPool

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


def get_pair(user_id: str, caller: CurrentCaller, services: ServicesDep) -> PairId:
    """The caller's pair with `user_id`, one of their friends; NotFound otherwise."""
    return services.ai_users.pair(caller.id, user_id)


PairDep = Annotated[PairId, Depends(get_pair)]


@dataclass(frozen=True)
class Companion:
    """The caller's pair with one of their AI friends, and that AI user."""

    pair: PairId
    ai_user: AIUser


def get_companion(user_id: str, caller: CurrentCaller, services: ServicesDep) -> Companion:
    """The caller's pair with `user_id` and the AI user; NotFound unless it is one of their friends."""
    return Companion(*services.ai_users.companion(caller.id, user_id))


CompanionDep = Annotated[Companion, Depends(get_companion)]


def get_befriendable(user_id: str, caller: CurrentCaller, services: ServicesDep) -> AIUser:
    """The AI user `user_id` if the caller may see it and befriend it: NotFound, or Protected (403
    `minor_protection`: a romantic partner in minors' mode)."""
    ai_user = services.ai_users.visible(caller.id, user_id)
    services.protections.admit(caller.id, ai_user, befriending=True)
    return ai_user


BefriendableDep = Annotated[AIUser, Depends(get_befriendable)]


def get_deadline(request: Request) -> Deadline:
    """The request's deadline, set by `dreamchat.api.deadline.RequestDeadline`."""
    return request.scope[SCOPE_KEY]


DeadlineDep = Annotated[Deadline, Depends(get_deadline)]


def get_model_pool(services: ServicesDep) -> ModelPool:
    return services.model_pool


ModelPoolDep = Annotated[ModelPool, Depends(get_model_pool)]


def get_operator(caller: CurrentCaller, services: ServicesDep) -> Caller:
    """The caller, who must be an operator (`DREAMCHAT_OPERATORS`); 403 for everyone else."""
    services.operators.require(caller.account)
    return caller


OperatorDep = Annotated[Caller, Depends(get_operator)]
