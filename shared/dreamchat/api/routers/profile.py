from __future__ import annotations

from fastapi import APIRouter
from pydantic import Field, field_validator, model_validator

from dreamchat.api.deps import CurrentCaller, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.responses import ProfileOut
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


@router.get("", response_model=ProfileOut)
def get_profile(caller: CurrentCaller, services: ServicesDep) -> ProfileOut:
    """The caller's 关于我 (what every AI friend knows of them from the start) and time zone (null: each AI user's)."""
    return ProfileOut(
        about_me=services.profiles.about_me(caller.id), timezone=person_zone(services.runtime.store, caller.id)
    )


@router.put("", response_model=ProfileOut, responses=documented(400, 413, 422))
def put_profile(body: Profile, caller: CurrentCaller, services: ServicesDep) -> ProfileOut:
    """Write the caller's 关于我 (at most 1000 characters; empty clears it) and/or time zone (an IANA name
    such as America/Los_Angeles: night windows, scheduled heartbeats and the time the AI sees follow it)."""
    if "about_me" in body.model_fields_set:
        services.profiles.set_about_me(caller.id, body.about_me)
    if "timezone" in body.model_fields_set:
        set_person_zone(services.runtime.store, caller.id, body.timezone)
        reschedule_all(services, caller.id)  # scheduled times and night windows now fall elsewhere
    return get_profile(caller, services)
