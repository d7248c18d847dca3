"""Chat Lambda: API Gateway (HTTP API) -> Mangum -> the FastAPI app."""

from __future__ import annotations

from typing import Any

_adapter: Any = None


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    global _adapter
    if _adapter is None:  # built on the first call, then reused by the warm container
        from mangum import Mangum

        from dreamchat.api.app import create_app
        from dreamchat.serverless import load_settings

        _adapter = Mangum(create_app(load_settings()), lifespan="off")
    return _adapter(event, context)
