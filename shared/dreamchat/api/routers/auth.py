from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, status

from dreamchat.api.deps import CurrentCaller, OptionalCaller, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.schemas import Credentials, LogoutRequest, RefreshRequest
from dreamchat.domain.models import Account
from dreamchat.errors import Unauthorized
from dreamchat.services.auth import Tokens

router = APIRouter(prefix="/api/auth", tags=["auth"])


def _account_view(account: Account) -> dict[str, Any]:
    return {"id": account.id, "username": account.username, "created_at": account.created_at}


def _tokens_view(tokens: Tokens) -> dict[str, Any]:
    return {
        "access_token": tokens.access_token,
        "refresh_token": tokens.refresh_token,
        "token_type": "bearer",
        "expires_in": tokens.expires_in,
    }


@router.post("/register", status_code=status.HTTP_201_CREATED, responses=documented(400, 403, 409, 413, 422, 429, 503))
def register(body: Credentials, request: Request, services: ServicesDep) -> dict[str, Any]:
    """Create an account and log it in."""
    account, tokens = services.auth.register(body.username, body.password, _client(request))
    return {"user": _account_view(account), **_tokens_view(tokens)}


@router.post("/login", responses=documented(400, 401, 413, 422, 429, 503))
def login(body: Credentials, request: Request, services: ServicesDep) -> dict[str, Any]:
    """Exchange username and password for an access and a refresh token."""
    account, tokens = services.auth.login(body.username, body.password, _client(request))
    return {"user": _account_view(account), **_tokens_view(tokens)}


def _client(request: Request) -> str:
    """The caller's address: the socket's, or one a configured proxy vouched for (uvicorn's
    forwarded_allow_ips); in AWS, API Gateway's sourceIp (Mangum puts it here)."""
    return request.client.host if request.client else "unknown"


@router.post("/refresh", responses=documented(400, 401, 413, 422))
def refresh(body: RefreshRequest, services: ServicesDep) -> dict[str, Any]:
    """Rotate the refresh token; a reused old one revokes its whole family."""
    return _tokens_view(services.auth.refresh(body.refresh_token))


@router.post("/logout", responses=documented(400, 401, 413, 422))
def logout(caller: OptionalCaller, services: ServicesDep, body: LogoutRequest | None = None) -> dict[str, bool]:
    """Revoke a session: the access token's, and/or the refresh token's given in the body."""
    refresh = body.refresh_token if body else None
    if caller is None and not refresh:
        raise Unauthorized("send the access token or the refresh token to log out")
    if refresh:  # first: a refresh token that is not the caller's refuses the whole request
        services.auth.logout_refresh(refresh, caller.id if caller else None)
    if caller is not None:
        services.auth.logout(caller.id, caller.family)
    return {"logged_out": True}


@router.get("/user", responses=documented(401))
def current_user(caller: CurrentCaller) -> dict[str, Any]:
    """The logged-in account."""
    return _account_view(caller.account)


@router.delete("/user", responses=documented(401))
def delete_account(caller: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
    """Delete the account with its AI users and every memory of every pair."""
    erased = services.ai_users.erase_account(caller.id)
    services.auth.delete_account(caller.account)
    return {"deleted": True, "erased": {"items": erased.items, "blobs": erased.blobs}}
