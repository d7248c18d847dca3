"""Request and response bodies of the HTTP API. Unknown request fields are refused."""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any
from zoneinfo import available_timezones

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

from dreamchat.domain import bounds
from dreamchat.domain.discover import DEFAULT_CATEGORY, CharacterCategory, unique_tags
from dreamchat.domain.models import ChatModel, Visibility
from dreamchat.domain.moderation import ReportAction, ReportKind
from dreamchat.domain.text import name_problem


def _visible(name: str) -> str:
    problem = name_problem(name)
    if problem is not None:
        raise ValueError(problem)
    return name


# A name is what a chat list shows: surrounding spaces are dropped, and one that shows nothing
# (`name_problem`, the rule every way a name comes in keeps) is refused.
Name = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=bounds.NAME_CHARS), AfterValidator(_visible)
]


# A tag as the discover screen shows it; a list keeps each tag once (`unique_tags`), at most `bounds.TAGS`.
Tag = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=bounds.TAG_CHARS)]
Tags = Annotated[list[Tag], Field(max_length=bounds.TAGS), AfterValidator(unique_tags)]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Credentials(Body):
    username: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=256)


class Registration(Credentials):
    """A new account; `birth_year` (optional, 1900 to this year) puts a person under 18 in minors' mode."""

    birth_year: int | None = None


class PasswordChange(Body):
    old_password: str = Field(min_length=1, max_length=256)
    new_password: str = Field(min_length=1, max_length=256)  # the registration's rule is the service's (422)


class RefreshRequest(Body):
    refresh_token: str = Field(min_length=1, max_length=4096)


class LogoutRequest(Body):
    refresh_token: str | None = Field(default=None, max_length=4096)


class SuspensionRequest(Body):
    """Why an operator suspends an account: the account's holder reads it when refused."""

    reason: Annotated[
        str, StringConstraints(strip_whitespace=True, min_length=1, max_length=bounds.SUSPENSION_REASON_CHARS)
    ]


@cache
def _zones() -> frozenset[str]:
    return frozenset(available_timezones())


def check_timezone(value: str | None) -> str | None:
    """An IANA zone name that names a zone: "Asia" or "Etc" are folders of the database, not zones."""
    if value is None:
        return None
    if value not in _zones():
        raise ValueError(f"unknown time zone {value!r} (an IANA name such as Asia/Shanghai)")
    return value


class AIUserCreate(Body):
    name: Name
    avatar: str = Field(default="", max_length=bounds.AVATAR_CHARS)
    base_soul: str = Field(default="", max_length=bounds.BASE_SOUL_CHARS)
    timezone: str | None = Field(default=None, max_length=64)
    night_owl: bool = False
    romance: bool = False  # a romantic or intimate partner: closed to a person in minors' mode
    visibility: Visibility = "private"
    model: ChatModel = "chat"
    greeting: str = Field(default="", max_length=bounds.GREETING_CHARS)
    category: CharacterCategory = DEFAULT_CATEGORY  # 恋爱 marks it `romance`
    tags: Tags = Field(default_factory=list)

    _timezone = field_validator("timezone")(check_timezone)


class AIUserUpdate(Body):
    name: Name | None = None
    avatar: str | None = Field(default=None, max_length=bounds.AVATAR_CHARS)
    base_soul: str | None = Field(default=None, max_length=bounds.BASE_SOUL_CHARS)
    timezone: str | None = Field(default=None, max_length=64)
    night_owl: bool | None = None
    romance: bool | None = None
    visibility: Visibility | None = None
    model: ChatModel | None = None
    greeting: str | None = Field(default=None, max_length=bounds.GREETING_CHARS)
    category: CharacterCategory | None = None  # 恋爱 marks it `romance`
    tags: Tags | None = None

    _timezone = field_validator("timezone")(check_timezone)

    def changes(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


# Reports (举报/投诉) and takedowns


class ReportCreate(Body):
    """A report of a listed AI user, or of one message in the person's own chat with it."""

    kind: ReportKind
    ai_user_id: str = Field(min_length=1, max_length=64)
    message_id: str | None = Field(default=None, min_length=1, max_length=64)
    reason: Annotated[
        str, StringConstraints(strip_whitespace=True, min_length=1, max_length=bounds.REPORT_REASON_CHARS)
    ]

    @model_validator(mode="after")
    def _message_named(self) -> ReportCreate:
        if (self.kind == "message") != (self.message_id is not None):
            raise ValueError("message_id: required for a report of a message, and only for one")
        return self


class ReportResolution(Body):
    """An operator's action on a report; `note` is the answer the person (and for a takedown the owner) reads."""

    action: ReportAction
    note: str = Field(default="", max_length=bounds.NOTE_CHARS)


class MediaUploadRequest(Body):
    """A file the client is about to post straight to S3: its type and size, checked against the media rules
    before it is signed (and its bytes checked again when it is claimed)."""

    content_type: str = Field(min_length=1, max_length=127)
    size: int = Field(ge=0, le=2**40)
