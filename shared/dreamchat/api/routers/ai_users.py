from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Query, status

from dreamchat.api.deps import CurrentCaller, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.responses import AIUserOut, AIUserPageOut, DeletedOut, ErasedOut
from dreamchat.api.schemas import AIUserCreate, AIUserUpdate
from dreamchat.domain import bounds
from dreamchat.domain.discover import CharacterCategory, Search
from dreamchat.errors import Invalid
from dreamchat.services.paging import DEFAULT_LIMIT

router = APIRouter(prefix="/api/ai-users", tags=["ai-users"])
PUBLIC_PAGE = 50  # what `scope=public` shows when no limit is asked


@router.get("", response_model=AIUserPageOut, responses=documented(400, 401, 422))
def list_ai_users(
    caller: CurrentCaller,
    services: ServicesDep,
    scope: Literal["mine", "public"] = "mine",
    limit: int | None = Query(
        default=None, ge=1, le=100, description=f"default {DEFAULT_LIMIT} (mine), {PUBLIC_PAGE} (public)"
    ),
    cursor: str | None = Query(default=None, max_length=512),
    q: str | None = Query(default=None, max_length=bounds.NAME_CHARS, description="words in a name or a tag"),
    tag: str | None = Query(default=None, max_length=bounds.TAG_CHARS, description="one tag, exactly"),
    category: CharacterCategory | None = None,
) -> AIUserPageOut:
    """The caller's own AI users and befriended public ones (by id); `scope=public` lists public ones to discover,
    `q`, `tag` and `category` search them (case ignored). Either way a page at a time: `next_cursor` is the next
    page's `cursor` (null on the last); a search's page may hold fewer than `limit`, even none, before the last."""
    search = Search.of(q, tag, category)
    if scope == "public":
        page = services.friend_lists.public(limit or PUBLIC_PAGE, cursor, search)
        return AIUserPageOut(ai_users=[AIUserOut.of(a, caller.id) for a in page.items], next_cursor=page.cursor)
    if not search.empty:
        raise Invalid("q, tag and category search the public listing: add scope=public")
    page = services.views.ai_users(caller.id, cursor, limit or DEFAULT_LIMIT)
    return AIUserPageOut(ai_users=[AIUserOut.of(a, caller.id) for a in page.items], next_cursor=page.cursor)


@router.post(
    "", status_code=status.HTTP_201_CREATED, response_model=AIUserOut, responses=documented(400, 401, 409, 413, 422)
)
def create_ai_user(body: AIUserCreate, caller: CurrentCaller, services: ServicesDep) -> AIUserOut:
    """Create an AI user owned by the caller; the caller befriends it at once."""
    fields = body.model_dump()
    fields["timezone"] = fields["timezone"] or services.runtime.settings.timezone
    return AIUserOut.of(services.ai_users.create(caller.id, fields), caller.id)


@router.get("/{user_id}", response_model=AIUserOut, responses=documented(401, 404, 422))
def get_ai_user(user_id: str, caller: CurrentCaller, services: ServicesDep) -> AIUserOut:
    """One AI user the caller owns, or a public one."""
    return AIUserOut.of(services.ai_users.visible(caller.id, user_id), caller.id)


@router.put("/{user_id}", response_model=AIUserOut, responses=documented(400, 401, 403, 404, 413, 422))
def update_ai_user(user_id: str, body: AIUserUpdate, caller: CurrentCaller, services: ServicesDep) -> AIUserOut:
    """Change an AI user the caller owns (the base_soul is the owner's alone)."""
    return AIUserOut.of(services.ai_users.update(caller.id, user_id, body.changes()), caller.id)


@router.delete("/{user_id}", response_model=DeletedOut, responses=documented(401, 403, 404, 422))
def delete_ai_user(user_id: str, caller: CurrentCaller, services: ServicesDep) -> DeletedOut:
    """Delete an AI user the caller owns and all data of all its pairs."""
    erased = services.ai_users.delete(caller.id, user_id)
    return DeletedOut(deleted=True, erased=ErasedOut.model_validate(erased))
