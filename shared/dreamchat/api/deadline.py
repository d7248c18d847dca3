"""Gives every request a deadline: DREAMCHAT_CHAT_TURN_SECONDS from its start, or the Lambda
invocation's end if that is sooner (Mangum puts the Lambda context in the ASGI scope).

The chat route reads it from the scope; any other model call made while serving the request
(compress now, reflect, judge) ends by it too, less the time kept for storing the result."""

from __future__ import annotations

from typing import Any

from dreamchat.budget import Deadline, models_deadline_set

SCOPE_KEY = "dreamchat.deadline"
# what Mangum needs after the app to hand the response back before Lambda's own timeout
LAMBDA_RETURN_SECONDS = 1.0


def request_deadline(scope: dict[str, Any], turn_seconds: float) -> Deadline:
    """`turn_seconds` from now, or the Lambda invocation's end (less a second to return) if sooner."""
    remaining = getattr(scope.get("aws.context"), "get_remaining_time_in_millis", None)
    if remaining is not None:
        turn_seconds = min(turn_seconds, remaining() / 1000 - LAMBDA_RETURN_SECONDS)
    return Deadline.after(turn_seconds)


class RequestDeadline:
    def __init__(self, app: Any, turn_seconds: float, reserve_seconds: float) -> None:
        self.app = app
        self.turn_seconds = turn_seconds
        self.reserve_seconds = reserve_seconds

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        deadline = request_deadline(scope, self.turn_seconds)
        scope[SCOPE_KEY] = deadline
        with models_deadline_set(deadline.sooner(self.reserve_seconds)):
            await self.app(scope, receive, send)
