from __future__ import annotations

from fastapi import APIRouter, Response, status

from dreamchat.api.deps import BefriendableDep, CompanionDep, CurrentCaller, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.pages import DEFAULT_LIMIT, Cursor, Limit, next_page, paged
from dreamchat.api.responses import (
    AIUserOut,
    BefriendedOut,
    EndedFriendshipOut,
    ErasedOut,
    FriendHeartbeatOut,
    FriendListOut,
    FriendOut,
    FriendSettingsOut,
    StoppedOut,
    UnfriendedOut,
)
from dreamchat.api.schemas import Body
from dreamchat.domain.heartbeat import Mode

router = APIRouter(prefix="/api/friends", tags=["friends"])


@router.get("", response_model=FriendListOut, responses={**paged("A page of the chat list"), **documented(401, 422)})
def list_friends(
    caller: CurrentCaller,
    services: ServicesDep,
    response: Response,
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
) -> FriendListOut:
    """The AI users the caller is friends with, a page at a time (by id; `X-Next-Cursor` names the next page)."""
    page = services.views.friends(caller.id, cursor, limit)
    next_page(response, page.cursor)
    ended = [EndedFriendshipOut.model_validate(e) for e in services.friend_lists.ended(caller.id)]
    return FriendListOut(friends=[FriendOut.from_view(friend, caller.id) for friend in page.items], ended=ended)


@router.post(
    "/{user_id}",
    status_code=status.HTTP_201_CREATED,
    response_model=BefriendedOut,
    responses={200: {"description": "Already friends"}, **documented(401, 403, 404, 409, 422)},
)
def add_friend(
    user_id: str, befriendable: BefriendableDep, caller: CurrentCaller, services: ServicesDep, response: Response
) -> BefriendedOut:
    """Befriend one's own or a public AI user; a new pair starts with fresh memories. 403 `minor_protection`
    for an AI user marked `romance` in minors' mode."""
    already = any(a.id == user_id for a, _ in services.friend_lists.friends(caller.id))
    ai_user = services.ai_users.befriend(caller.id, user_id)
    response.status_code = status.HTTP_200_OK if already else status.HTTP_201_CREATED
    return BefriendedOut(friend=AIUserOut.of(ai_user, caller.id), created=not already)


@router.delete("/{user_id}", response_model=UnfriendedOut, responses=documented(401, 404, 409, 422))
def remove_friend(user_id: str, caller: CurrentCaller, services: ServicesDep, forget: bool = False) -> UnfriendedOut:
    """Remove from the friends list; `forget=true` also erases the pair's memories."""
    erased = services.ai_users.unfriend(caller.id, user_id, forget=forget)
    return UnfriendedOut(removed=True, forgot=forget, erased=ErasedOut.model_validate(erased))


class FriendSettings(Body):
    pinned: bool | None = None
    muted: bool | None = None


@router.patch("/{user_id}", response_model=FriendSettingsOut, responses=documented(400, 401, 404, 413, 422))
def change_friend(
    user_id: str, body: FriendSettings, caller: CurrentCaller, services: ServicesDep
) -> FriendSettingsOut:
    """Pin (listed first) or mute (a quiet unread count, left out of the total) one friend in the caller's chat list."""
    changes = body.model_dump(exclude_none=True)
    return FriendSettingsOut(ai_user_id=user_id, **services.ai_users.set_friendship(caller.id, user_id, changes))


class HeartbeatMode(Body):
    mode: Mode


@router.put("/{user_id}/heartbeat", response_model=FriendHeartbeatOut, responses=documented(400, 401, 404, 413, 422))
def set_heartbeat(
    user_id: str, body: HeartbeatMode, companion: CompanionDep, services: ServicesDep
) -> FriendHeartbeatOut:
    """Heartbeats of this friend: `on` (every one), `off` (none) or `scheduled` (only the times it set).
    Muting a friend silences its pushes, not its heartbeats; this switch stops them."""
    state = services.person_settings.set_heartbeat_mode(companion.pair, companion.ai_user, body.mode)
    return FriendHeartbeatOut(ai_user_id=user_id, heartbeat=state.mode, next_heartbeat=state.next_due)


@router.post("/{user_id}/stop", response_model=StoppedOut, responses=documented(401, 404, 409, 422))
def stop(user_id: str, companion: CompanionDep, services: ServicesDep) -> StoppedOut:
    """A way out: the AI says one plain goodbye (stored in the chat) and sends nothing more, no heartbeat and
    no push, until the person writes again. A second press says nothing more."""
    services.exits.stop(companion.pair)
    return StoppedOut(ai_user_id=user_id, stopped=True)
