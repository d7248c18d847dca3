"""Extract Lambdas: `sweep` (hourly: idle topics, lost compressions, one queue message per due
pair) and `worker` (queue -> one pair's mid-term to long-term extraction, then core judgment)."""

from __future__ import annotations

from typing import Any

_app: Any = None


def _serverless() -> Any:
    global _app
    if _app is None:  # built on the first call, then reused by the warm container
        from dreamchat.serverless import Serverless

        _app = Serverless()
    return _app


def sweep(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return _serverless().extract(event, context)


def worker(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return _serverless().extract_work(event, context)
