from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Query, status

from dreamchat.api.deps import CurrentCaller, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.schemas import AIUserCreate, AIUserUpdate, ai_user_view

router = APIRouter(prefix="/api/ai-users", tags=["ai-users"])


@router.get("", responses=documented(400, 401, 422))
def list_ai_users(
    caller: CurrentCaller,
    services: ServicesDep,
    scope: Literal["mine", "public"] = "mine",
    limit: int = Query(default=50, ge=1, le=100),
    cursor: str | None = Query(default=None, max_length=512),
) -> dict[str, Any]:
    """The caller's own AI users and befriended public ones; `scope=public` lists public ones to discover."""
    if scope == "public":
        found, next_cursor = services.ai_users.public(limit, cursor)
        return {"ai_users": [ai_user_view(a, caller.id) for a in found], "next_cursor": next_cursor}
    return {"ai_users": [ai_user_view(a, caller.id) for a in services.ai_users.listing(caller.id)], "next_cursor": None}


@router.post("", status_code=status.HTTP_201_CREATED, responses=documented(400, 401, 409, 413, 422))
def create_ai_user(body: AIUserCreate, caller: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
    """Create an AI user owned by the caller; the caller befriends it at once."""
    fields = body.model_dump()
    fields["timezone"] = fields["timezone"] or services.runtime.settings.timezone
    return ai_user_view(services.ai_users.create(caller.id, fields), caller.id)


@router.get("/{user_id}", responses=documented(401, 404, 422))
def get_ai_user(user_id: str, caller: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
    """One AI user the caller owns, or a public one."""
    return ai_user_view(services.ai_users.visible(caller.id, user_id), caller.id)


@router.put("/{user_id}", responses=documented(400, 401, 403, 404, 413, 422))
def update_ai_user(user_id: str, body: AIUserUpdate, caller: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
    """Change an AI user the caller owns (the base_soul is the owner's alone)."""
    return ai_user_view(services.ai_users.update(caller.id, user_id, body.changes()), caller.id)


@router.delete("/{user_id}", responses=documented(401, 403, 404, 422))
def delete_ai_user(user_id: str, caller: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
    """Delete an AI user the caller owns and all data of all its pairs."""
    erased = services.ai_users.delete(caller.id, user_id)
    return {"deleted": True, "erased": {"items": erased.items, "blobs": erased.blobs}}
