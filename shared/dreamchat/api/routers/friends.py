from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response, status

from dreamchat.api.deps import CurrentCaller, ServicesDep
from dreamchat.api.schemas import ai_user_view

router = APIRouter(prefix="/api/friends", tags=["friends"])


@router.get("")
def list_friends(caller: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
    """The AI users the caller is friends with."""
    friends = services.ai_users.friends(caller.id)
    return {"friends": [{**ai_user_view(a, caller.id), "since": since} for a, since in friends]}


@router.post("/{user_id}")
def add_friend(user_id: str, caller: CurrentCaller, services: ServicesDep, response: Response) -> dict[str, Any]:
    """Befriend one's own or a public AI user; a new pair starts with fresh memories."""
    already = any(a.id == user_id for a, _ in services.ai_users.friends(caller.id))
    ai_user = services.ai_users.befriend(caller.id, user_id)
    response.status_code = status.HTTP_200_OK if already else status.HTTP_201_CREATED
    return {"friend": ai_user_view(ai_user, caller.id), "created": not already}


@router.delete("/{user_id}")
def remove_friend(user_id: str, caller: CurrentCaller, services: ServicesDep, forget: bool = False) -> dict[str, Any]:
    """Remove from the friends list; `forget=true` also erases the pair's memories."""
    erased = services.ai_users.unfriend(caller.id, user_id, forget=forget)
    return {"removed": True, "forgot": forget, "erased": {"items": erased.items, "blobs": erased.blobs}}
