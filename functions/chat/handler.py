"""Chat Lambda: API Gateway (HTTP API) -> Mangum -> the FastAPI app."""

from __future__ import annotations

from typing import Any

_function: Any = None


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    global _function
    if _function is None:  # built on the first call, then reused by the warm container
        from dreamchat.serverless import ChatFunction

        _function = ChatFunction()
    return _function(event, context)
