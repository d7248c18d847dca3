from __future__ import annotations

from fastapi import APIRouter
from pydantic import Field

from dreamchat.api.deps import CurrentCaller, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.responses import ProfileOut
from dreamchat.api.schemas import Body

router = APIRouter(prefix="/api/profile", tags=["profile"], responses=documented(401))


class Profile(Body):
    about_me: str = Field(max_length=1000)


@router.get("", response_model=ProfileOut)
def get_profile(caller: CurrentCaller, services: ServicesDep) -> ProfileOut:
    """The caller's 关于我: what every AI friend knows of them from the start."""
    return ProfileOut(about_me=services.profiles.about_me(caller.id))


@router.put("", response_model=ProfileOut, responses=documented(400, 413, 422))
def put_profile(body: Profile, caller: CurrentCaller, services: ServicesDep) -> ProfileOut:
    """Write the caller's 关于我 (at most 1000 characters; empty clears it)."""
    return ProfileOut(about_me=services.profiles.set_about_me(caller.id, body.about_me))
