from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import Field, field_validator, model_validator

from dreamchat.api.deps import CurrentCaller, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.routers.heartbeat import reschedule_all
from dreamchat.api.schemas import Body, check_timezone
from dreamchat.services.zones import person_zone, set_person_zone

router = APIRouter(prefix="/api/profile", tags=["profile"], responses=documented(401))


class Profile(Body):
    """Either field or both; a field left out keeps its value, `timezone: null` goes back to each AI user's."""

    about_me: str = Field(default="", max_length=1000)
    timezone: str | None = Field(default=None, max_length=64)

    _timezone = field_validator("timezone")(check_timezone)

    @model_validator(mode="after")
    def _says_something(self) -> Profile:
        if not self.model_fields_set:
            raise ValueError("name about_me, timezone or both")
        return self


@router.get("")
def get_profile(caller: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
    """The caller's 关于我 (what every AI friend knows of them from the start) and time zone (null: each AI user's)."""
    store = services.runtime.store
    return {"about_me": services.memory.repo.about_person(caller.id), "timezone": person_zone(store, caller.id)}


@router.put("", responses=documented(400, 413, 422))
def put_profile(body: Profile, caller: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
    """Write the caller's 关于我 (at most 1000 characters; empty clears it) and/or time zone (an IANA name
    such as America/Los_Angeles: night windows, scheduled heartbeats and the time the AI sees follow it)."""
    store = services.runtime.store
    if "about_me" in body.model_fields_set:
        services.memory.repo.set_about_person(caller.id, body.about_me.strip())
    if "timezone" in body.model_fields_set:
        set_person_zone(store, caller.id, body.timezone)
        reschedule_all(services, caller.id)  # scheduled times and night windows now fall elsewhere
    return get_profile(caller, services)
