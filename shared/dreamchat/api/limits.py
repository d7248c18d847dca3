"""Refuses request bodies over a size limit with 413 (`BodySizeLimit`), and JSON bodies that are not
strict JSON with 422 (`StrictJson`), before the app reads them.

A body without a Content-Length (chunked) is read here first, up to the limit, then handed to
the app: counting while the app reads would let the app's own body parser turn the refusal
into a 400. Our bodies are small JSON documents, so holding one in memory costs nothing; the
few routes that take an upload (a character card, a memory export) name their own, larger limit in `larger`.
"""

from __future__ import annotations

import json
import re
from email.message import Message
from typing import Any

from dreamchat.domain import strict_json

MAX_BODY_BYTES = 64 * 1024


class BodySizeLimit:
    def __init__(
        self,
        app: Any,
        max_bytes: int = MAX_BODY_BYTES,
        larger: dict[str, int] | None = None,
        hints: dict[str, str] | None = None,
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        # path -> its own limit; a `{name}` segment stands for any one segment (an AI user's id)
        self.larger = [(_pattern(path), limit) for path, limit in (larger or {}).items()]
        # path -> what a 413 there adds: where a body that large may go instead
        self.hints = [(_pattern(path), hint) for path, hint in (hints or {}).items()]

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = next((n for path, n in self.larger if path.fullmatch(scope["path"])), self.max_bytes)
        hint = next((h for path, h in self.hints if path.fullmatch(scope["path"])), "")
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            await _refuse(send, 413 if declared.isdigit() else 400, limit, hint)
            return
        messages = await self._read(receive, limit)
        if messages is None:
            await _refuse(send, 413, limit, hint)
            return
        await self.app(scope, _replay(messages, receive), send)

    async def _read(self, receive: Any, limit: int) -> list[dict] | None:
        """Every message of the request body, or None once it grows past the limit."""
        messages, size = [], 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                return messages
            size += len(message.get("body", b""))
            if size > limit:
                return None
            if not message.get("more_body", False):
                return messages


class StrictJson:
    """A JSON body (`application/json`, `application/*+json`: what FastAPI reads as JSON) must be strict
    JSON (`dreamchat.domain.strict_json`: no NaN or Infinity, no huge number, nothing nested over 64
    levels, no unpaired surrogate, nothing but JSON), else 422 naming where, before any route works on
    it. Sits inside `BodySizeLimit`, so the body it reads is bounded."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not _is_json(scope):
            await self.app(scope, receive, send)
            return
        messages = await _body(receive)
        body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.request")
        if body.strip():
            try:
                strict_json.loads(body)
            except strict_json.JsonProblem as problem:
                await _send_error(send, 422, "validation_error", f"the body {problem}")
                return
        await self.app(scope, _replay(messages, receive), send)


def _is_json(scope: dict) -> bool:
    declared = dict(scope.get("headers") or []).get(b"content-type")
    if declared is None:
        return False
    header = Message()
    header["content-type"] = declared.decode("latin-1")
    subtype = header.get_content_subtype()
    return header.get_content_maintype() == "application" and (subtype == "json" or subtype.endswith("+json"))


async def _body(receive: Any) -> list[dict]:
    """Every message of the request body (its size already bounded by BodySizeLimit)."""
    messages = []
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request" or not message.get("more_body", False):
            return messages


def _pattern(path: str) -> re.Pattern[str]:
    return re.compile("[^/]+".join(re.escape(part) for part in re.split(r"\{[^/{}]+\}", path)))


def _replay(messages: list[dict], receive: Any) -> Any:
    pending = list(messages)

    async def replayed() -> dict:
        return pending.pop(0) if pending else await receive()

    return replayed


async def _refuse(send: Any, status: int, limit: int, hint: str = "") -> None:
    if status == 413:
        code, message = "payload_too_large", f"request body is over {limit // 1024} KiB" + (f"; {hint}" if hint else "")
    else:
        code, message = "bad_request", "invalid Content-Length"
    await _send_error(send, status, code, message)


async def _send_error(send: Any, status: int, code: str, message: str) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
