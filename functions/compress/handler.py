"""Compress Lambda: the TopicEnded EventBridge event -> one mid-term memory."""

from __future__ import annotations

from typing import Any

_app: Any = None


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    global _app
    if _app is None:  # built on the first call, then reused by the warm container
        from dreamchat.serverless import Serverless

        _app = Serverless()
    return _app.compress(event, context)
