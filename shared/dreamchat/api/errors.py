"""Every error leaves the API as `{"error": {"code", "message"}}` with the right status."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from dreamchat import errors
from dreamchat.api.json_response import StrictJSONResponse
from dreamchat.logsafe import failure

log = logging.getLogger(__name__)

STATUS = {
    errors.BadRequest: 400,
    errors.Unauthorized: 401,
    errors.Forbidden: 403,
    errors.NotFound: 404,
    errors.Contended: 409,
    errors.Conflict: 409,
    errors.TooLarge: 413,
    errors.Invalid: 422,
    errors.TooManyRequests: 429,
    errors.Unavailable: 503,
}

_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    411: "length_required",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "validation_error",
    429: "too_many_requests",
}


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorBody(BaseModel):
    """The body of every error response."""

    error: ErrorDetail


_MEANING = {
    400: "Malformed request: a body that is not JSON, a cursor this API did not issue",
    401: "Missing, invalid, expired or revoked token",
    403: "Not allowed for this caller",
    404: "No such resource, or not visible to the caller",
    409: "Conflicts with the current state (e.g. a taken username, a reused Idempotency-Key)",
    413: "Request body or message too large",
    415: "The request body's Content-Type is not one this route takes",
    422: "The request does not match the schema",
    429: "Too many requests; see Retry-After",
    503: "Temporarily unavailable; see Retry-After",
}


def documented(*statuses: int) -> dict[int | str, dict]:
    """OpenAPI `responses` for the error statuses a route can answer, all with the error body."""
    return {status: {"model": ErrorBody, "description": _MEANING[status]} for status in statuses}


def error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return StrictJSONResponse({"error": {"code": code, "message": message}}, status_code=status, headers=headers)


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(errors.DreamChatError, _domain_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    # Not an exception handler for Exception: Starlette re-raises after calling one, and the
    # server then logs the error a second time, with its message.
    app.add_middleware(UnhandledErrors)


async def _domain_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, errors.DreamChatError)
    status = next((s for kind, s in STATUS.items() if isinstance(exc, kind)), 500)
    retry_after = getattr(exc, "retry_after", None)
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
    return error_response(status, exc.code, exc.message, headers)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    message = exc.detail if isinstance(exc.detail, str) else "request failed"
    return error_response(
        exc.status_code, _HTTP_CODES.get(exc.status_code, "error"), message, dict(exc.headers) if exc.headers else None
    )


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    problems = [_describe(problem) for problem in exc.errors()]
    return error_response(422, "validation_error", "; ".join(problems) or "invalid request")


def _describe(problem: dict) -> str:
    where = ".".join(str(part) for part in problem.get("loc", ()) if part != "body")
    return f"{where}: {problem.get('msg', 'invalid')}" if where else str(problem.get("msg", "invalid"))


class UnhandledErrors:
    """A 500 for any error nothing else handled, logged once with ids and never its message."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception as error:  # noqa: BLE001 - the last line of defence, logged below
            log.error("unhandled error: %s", failure(error), extra={"path": scope["path"], "method": scope["method"]})
            if not started:
                await error_response(500, "internal_error", "something went wrong on our side")(scope, receive, send)
