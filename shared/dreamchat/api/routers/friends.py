from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response, status

from dreamchat.api.deps import CurrentCaller, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.schemas import Body, ai_user_view
from dreamchat.domain.heartbeat import Mode
from dreamchat.domain.models import AIUser, PairId

router = APIRouter(prefix="/api/friends", tags=["friends"])


@router.get("", responses=documented(401))
def list_friends(caller: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
    """The AI users the caller is friends with."""
    friends = services.ai_users.friends(caller.id)
    return {"friends": [_friend_view(services, caller.id, a, friendship) for a, friendship in friends]}


def _friend_view(services: ServicesDep, account_id: str, ai_user: AIUser, friendship: dict) -> dict[str, Any]:
    pair = PairId(account_id=account_id, ai_user_id=ai_user.id)
    relationship = services.memory.repo.relationship(pair)
    state = services.heartbeats.get(pair)
    last = services.memory.repo.last_message(pair)
    return {
        **ai_user_view(ai_user, account_id),
        "since": friendship["since"],
        "relationship": relationship.level,
        "unread": services.memory.repo.unread(pair, friendship["last_read"]),
        "next_heartbeat": state.next_due,
        "pinned": friendship.get("pinned", False),
        "muted": friendship.get("muted", False),
        "heartbeat": state.mode,
        "last_message": {"role": last.role, "content": last.content, "timestamp": last.timestamp, "kind": last.kind}
        if last
        else None,
    }


@router.post(
    "/{user_id}",
    status_code=status.HTTP_201_CREATED,
    responses={200: {"description": "Already friends"}, **documented(401, 404, 409, 422)},
)
def add_friend(user_id: str, caller: CurrentCaller, services: ServicesDep, response: Response) -> dict[str, Any]:
    """Befriend one's own or a public AI user; a new pair starts with fresh memories."""
    already = any(a.id == user_id for a, _ in services.ai_users.friends(caller.id))
    ai_user = services.ai_users.befriend(caller.id, user_id)
    response.status_code = status.HTTP_200_OK if already else status.HTTP_201_CREATED
    return {"friend": ai_user_view(ai_user, caller.id), "created": not already}


@router.delete("/{user_id}", responses=documented(401, 404, 422))
def remove_friend(user_id: str, caller: CurrentCaller, services: ServicesDep, forget: bool = False) -> dict[str, Any]:
    """Remove from the friends list; `forget=true` also erases the pair's memories."""
    erased = services.ai_users.unfriend(caller.id, user_id, forget=forget)
    return {"removed": True, "forgot": forget, "erased": {"items": erased.items, "blobs": erased.blobs}}


class FriendSettings(Body):
    pinned: bool | None = None
    muted: bool | None = None


@router.patch("/{user_id}", responses=documented(400, 401, 404, 413, 422))
def change_friend(user_id: str, body: FriendSettings, caller: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
    """Pin (listed first) or mute (a quiet unread count, left out of the total) one friend in the caller's chat list."""
    changes = body.model_dump(exclude_none=True)
    return {"ai_user_id": user_id, **services.ai_users.set_friendship(caller.id, user_id, changes)}


class HeartbeatMode(Body):
    mode: Mode


@router.put("/{user_id}/heartbeat", responses=documented(400, 401, 404, 413, 422))
def set_heartbeat(user_id: str, body: HeartbeatMode, caller: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
    """Heartbeats of this friend: `on` (every one), `off` (none) or `scheduled` (only the times it set).
    Muting a friend silences its pushes, not its heartbeats; this switch stops them."""
    pair, ai_user = services.ai_users.companion(caller.id, user_id)
    relationship = services.memory.repo.relationship(pair)
    state = services.heartbeats.set_mode(pair, ai_user, relationship, body.mode)
    return {"ai_user_id": user_id, "heartbeat": state.mode, "next_heartbeat": state.next_due}
