from __future__ import annotations

from fastapi import APIRouter, Request, status

from dreamchat.api.deps import CurrentCaller, OptionalCaller, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.responses import AccountOut, DeletedOut, ErasedOut, LoggedOut, LoginOut, TokensOut
from dreamchat.api.schemas import Credentials, LogoutRequest, PasswordChange, RefreshRequest, Registration
from dreamchat.domain.models import Account
from dreamchat.errors import Unauthorized
from dreamchat.services.auth import Tokens
from dreamchat.services.registry import Services

router = APIRouter(prefix="/api/auth", tags=["auth"])


def _logged_in(services: Services, account: Account, tokens: Tokens) -> LoginOut:
    """The tokens, and the AI disclosure: a login begins a session."""
    notices = services.usage.logged_in(account.id)
    return LoginOut.model_validate(
        {**TokensOut.model_validate(tokens).model_dump(), "user": account, "notices": notices}
    )


@router.post(
    "/register",
    status_code=status.HTTP_201_CREATED,
    response_model=LoginOut,
    responses=documented(400, 403, 409, 413, 422, 429, 503),
)
def register(body: Registration, request: Request, services: ServicesDep) -> LoginOut:
    """Create an account and log it in; a `birth_year` under 18 years ago puts the person in minors' mode."""
    registered = services.auth.register(body.username, body.password, _client(request), body.birth_year)
    return _logged_in(services, *registered)


@router.post("/login", response_model=LoginOut, responses=documented(400, 401, 403, 413, 422, 429, 503))
def login(body: Credentials, request: Request, services: ServicesDep) -> LoginOut:
    """Exchange username and password for an access and a refresh token."""
    return _logged_in(services, *services.auth.login(body.username, body.password, _client(request)))


def _client(request: Request) -> str:
    """The caller's address: the socket's, or one a configured proxy vouched for (uvicorn's
    forwarded_allow_ips); in AWS, API Gateway's sourceIp (Mangum puts it here)."""
    return request.client.host if request.client else "unknown"


@router.post("/refresh", response_model=TokensOut, responses=documented(400, 401, 403, 413, 422))
def refresh(body: RefreshRequest, services: ServicesDep) -> TokensOut:
    """Rotate the refresh token; a reused old one revokes its whole family."""
    return TokensOut.model_validate(services.auth.refresh(body.refresh_token))


@router.post("/logout", response_model=LoggedOut, responses=documented(400, 401, 413, 422))
def logout(caller: OptionalCaller, services: ServicesDep, body: LogoutRequest | None = None) -> LoggedOut:
    """Revoke a session: the access token's, and/or the refresh token's given in the body."""
    refresh = body.refresh_token if body else None
    if caller is None and not refresh:
        raise Unauthorized("send the access token or the refresh token to log out")
    if refresh:  # first: a refresh token that is not the caller's refuses the whole request
        services.auth.logout_refresh(refresh, caller.id if caller else None)
    if caller is not None:
        services.auth.logout(caller.id, caller.family)
    return LoggedOut(logged_out=True)


@router.get("/user", response_model=AccountOut, responses=documented(401))
def current_user(caller: CurrentCaller) -> AccountOut:
    """The logged-in account."""
    return AccountOut.model_validate(caller.account)


@router.put("/password", response_model=TokensOut, responses=documented(400, 401, 403, 413, 422, 429))
def change_password(body: PasswordChange, caller: CurrentCaller, services: ServicesDep) -> TokensOut:
    """Change the password: `old_password` confirms it (wrong: 403 `wrong_password`, counted like a failed
    login), `new_password` follows the registration rule (422). Every login of the account ends (each refresh
    token revoked, its access tokens with it); the answer is this device's new tokens."""
    return TokensOut.model_validate(services.passwords.change(caller.account, body.old_password, body.new_password))


@router.delete("/user", response_model=DeletedOut, responses=documented(401))
def delete_account(caller: CurrentCaller, services: ServicesDep) -> DeletedOut:
    """Delete the account with its AI users and every memory of every pair."""
    erased = services.ai_users.erase_account(caller.id)
    services.auth.delete_account(caller.account)
    return DeletedOut(deleted=True, erased=ErasedOut.model_validate(erased))
