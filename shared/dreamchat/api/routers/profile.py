from __future__ import annotations

from fastapi import APIRouter
from pydantic import Field, field_validator, model_validator

from dreamchat.api.deps import CurrentCaller, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.responses import LocaleOut, ProfileOut
from dreamchat.api.schemas import Body, check_timezone
from dreamchat.domain import bounds
from dreamchat.domain.help_lines import is_locale
from dreamchat.domain.text import name_problem

router = APIRouter(prefix="/api/profile", tags=["profile"], responses=documented(401))


class Profile(Body):
    """Any of the fields; a field left out keeps its value, `timezone: null` goes back to each AI user's,
    `nickname: null` (or "") to 对方 / 你."""

    about_me: str = Field(default="", max_length=1000)
    timezone: str | None = Field(default=None, max_length=64)
    nickname: str | None = Field(default=None, max_length=bounds.NICKNAME_CHARS)

    _timezone = field_validator("timezone")(check_timezone)

    @field_validator("nickname")
    @classmethod
    def _shows_something(cls, value: str | None) -> str | None:
        """A nickname follows the rule every name follows (`name_problem`); empty or null forgets it."""
        value = " ".join(value.split()) if value is not None else None
        if not value:
            return None
        if (problem := name_problem(value)) is not None:
            raise ValueError(problem)
        return value

    @model_validator(mode="after")
    def _says_something(self) -> Profile:
        if not self.model_fields_set:
            raise ValueError("name about_me, nickname, timezone or more")
        return self


@router.get("", response_model=ProfileOut)
def get_profile(caller: CurrentCaller, services: ServicesDep) -> ProfileOut:
    """The caller's 关于我 (what every AI friend knows of them from the start) and time zone (null: each AI user's)."""
    return ProfileOut.model_validate(services.person_settings.profile(caller.id))


@router.put("", response_model=ProfileOut, responses=documented(400, 413, 422))
def put_profile(body: Profile, caller: CurrentCaller, services: ServicesDep) -> ProfileOut:
    """Write the caller's 关于我 (at most 1000 characters; empty clears it), nickname (at most 40 characters:
    what every AI friend calls them, `{{user}}` in a card's persona and greeting) and/or time zone (an IANA name
    such as America/Los_Angeles: night windows, scheduled heartbeats and the time the AI sees follow it)."""
    changes = body.model_dump(include=body.model_fields_set)
    return ProfileOut.model_validate(services.person_settings.change_profile(caller.id, changes))


class Locale(Body):
    """`locale`: a tag such as en-US, zh-CN or en; null goes back to the server's."""

    locale: str | None = Field(min_length=2, max_length=35)

    @field_validator("locale")
    @classmethod
    def _tag(cls, value: str | None) -> str | None:
        if value is not None and not is_locale(value):
            raise ValueError('locale must be a tag such as "zh-CN", "en-US" or "en"')
        return value


@router.get("/locale", response_model=LocaleOut)
def get_locale(caller: CurrentCaller, services: ServicesDep) -> LocaleOut:
    """The caller's locale and the help lines a crisis shows them (their locale's, else its language's,
    then the generic line; with none chosen, the server's DREAMCHAT_CRISIS_LOCALE)."""
    return LocaleOut.model_validate(services.person_settings.locale(caller.id))


@router.put("/locale", response_model=LocaleOut, responses=documented(400, 413, 422))
def put_locale(body: Locale, caller: CurrentCaller, services: ServicesDep) -> LocaleOut:
    """Choose whose help lines a crisis shows (e.g. en-US: the US 988 Lifeline, then the generic line)."""
    return LocaleOut.model_validate(services.person_settings.set_locale(caller.id, body.locale))
