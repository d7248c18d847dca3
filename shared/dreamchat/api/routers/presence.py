"""Presence: the open page says which chat it shows, so the server pushes only what is not seen."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import Field, StrictBool

from dreamchat.api.deps import CurrentCaller, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.responses import PresenceOut
from dreamchat.api.schemas import Body

router = APIRouter(prefix="/api/presence", tags=["presence"], responses=documented(401))


class PresenceBody(Body):
    ai_user_id: str | None = Field(default=None, min_length=1, max_length=64, pattern=r"^[\w-]+$")
    device: str = Field(default="web", min_length=1, max_length=64, pattern=r"^[\w-]+$")
    visible: StrictBool = True


@router.post("", response_model=PresenceOut, responses=documented(400, 404, 413, 422))
def presence(body: PresenceBody, caller: CurrentCaller, services: ServicesDep) -> PresenceOut:
    """This device shows the chat with `ai_user_id` (null: the chat list); `visible: false` when it is hidden.

    Sent every 30 s while the page is visible and when it is shown or hidden; one write, kept
    `DREAMCHAT_PRESENCE_SECONDS`. No push is sent for a chat that is open on a device. A chat with an
    AI user who is not the caller's friend is 404, and nothing is stored."""
    if body.visible:
        if body.ai_user_id is not None:
            services.ai_users.pair(caller.id, body.ai_user_id)  # the caller's friend, or NotFound
        services.presence.seen(caller.id, body.device, body.ai_user_id)
    else:
        services.presence.left(caller.id, body.device)
    return PresenceOut(present=body.visible, seconds=services.runtime.settings.presence_seconds)
