from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import Field

from dreamchat.api.deps import CurrentCaller, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.schemas import Body

router = APIRouter(prefix="/api/profile", tags=["profile"], responses=documented(401))


class Profile(Body):
    about_me: str = Field(max_length=1000)


@router.get("")
def get_profile(caller: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
    """The caller's 关于我: what every AI friend knows of them from the start."""
    return {"about_me": services.memory.repo.about.get(caller.id)}


@router.put("", responses=documented(400, 413, 422))
def put_profile(body: Profile, caller: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
    """Write the caller's 关于我 (at most 1000 characters; empty clears it)."""
    about = body.about_me.strip()
    services.memory.repo.about.set(caller.id, about)
    return {"about_me": about}
