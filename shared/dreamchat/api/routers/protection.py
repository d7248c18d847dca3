"""The person's protections (`dreamchat.domain.protection`): birth year and minors' mode, a guardian's
consent, an emergency contact (never shown to the AI), the daily minutes of minors' mode."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import Field, model_validator

from dreamchat.api.deps import CurrentCaller, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.responses import ProtectionOut
from dreamchat.api.schemas import Body
from dreamchat.domain.protection import EmergencyContact

router = APIRouter(prefix="/api/profile/protection", tags=["profile"], responses=documented(401))


class ProtectionChange(Body):
    """The fields to change, at least one; a field left out keeps its value. `guardian_consent: true` names
    the guardian (`guardian_name`) and is recorded with the time; `false` withdraws it."""

    birth_year: int | None = None
    minor_mode: bool = False
    guardian_consent: bool = False
    guardian_name: str | None = Field(default=None, min_length=1, max_length=40)
    emergency_contact: EmergencyContact | None = None
    daily_minutes: int | None = Field(default=None, ge=1, le=24 * 60)

    @model_validator(mode="after")
    def _says_something(self) -> ProtectionChange:
        named = self.model_fields_set
        if not named:
            raise ValueError("name at least one of " + ", ".join(ProtectionChange.model_fields))
        if self.guardian_consent and not self.guardian_name:
            raise ValueError("guardian_name: the guardian who consents is named")
        if "guardian_name" in named and not self.guardian_consent:
            raise ValueError("guardian_name: given with guardian_consent: true")
        return self


@router.get("", response_model=ProtectionOut)
def get_protection(caller: CurrentCaller, services: ServicesDep) -> ProtectionOut:
    """The caller's protections, whether they are in minors' mode now (`minor`) and the `limits` in force."""
    return ProtectionOut.of(services.protections.standing(caller.id))


@router.put("", response_model=ProtectionOut, responses=documented(400, 413, 422))
def put_protection(body: ProtectionChange, caller: CurrentCaller, services: ServicesDep) -> ProtectionOut:
    """Change the fields the body names. 422 for a birth year before 1900 or in the future, and for what a
    person under 18 cannot do: switch minors' mode off, give an earlier birth year, allow more daily minutes."""
    changes = body.model_dump(include=body.model_fields_set)
    return ProtectionOut.of(services.protections.change(caller.id, changes))
