"""`GET /api/client-config`: the constants the web client shows or checks, read from their one home.

Public (the login form checks a password's length before anyone is signed in) and the same for everyone.
The client loads it before its first screen and keeps the last copy, so it opens offline with it."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel

from dreamchat.domain import accounts, bounds
from dreamchat.domain.discover import CATEGORIES
from dreamchat.domain.emotions import LABELS
from dreamchat.domain.heartbeat import Prefs, night_window
from dreamchat.domain.media import AUDIO_MAX_BYTES, AUDIO_MAX_SECONDS, IMAGE_MAX_BYTES, IMAGE_MAX_SIDE
from dreamchat.domain.models import CoreMemory
from dreamchat.domain.voice import VOICE_REPLIES
from dreamchat.services.memory_import import MAX_IMPORT_BYTES

router = APIRouter(tags=["client"])


class NightOut(BaseModel):
    """Hours of the day (0-23) in the person's zone; `start` > `end` spans midnight."""

    start: int
    end: int


class NightsOut(BaseModel):
    """An AI user's own night window when the person has set none: the usual one, and a night owl's."""

    usual: NightOut
    night_owl: NightOut


class RangeOut(BaseModel):
    min: int
    max: int


class LimitsOut(BaseModel):
    """What the server accepts, in characters unless named otherwise."""

    message_chars: int
    summary_chars: int
    title_chars: int
    detail_chars: int
    core_chars: int
    category_chars: int
    importance: RangeOut
    name_chars: int
    avatar_chars: int
    base_soul_chars: int
    greeting_chars: int
    tag_chars: int
    tags: int  # how many tags an AI user holds
    password_chars: RangeOut
    daily_cap: RangeOut
    quiet_minutes: RangeOut
    memory_import_bytes: int
    report_reason_chars: int  # a person's report (举报)
    note_chars: int  # an operator's note on a report
    suspension_reason_chars: int  # an operator's reason for a suspension
    nickname_chars: int  # what the person wants to be called
    rating_reason_chars: int  # why a 👍/👎
    search_chars: int  # a history search
    voice_seconds: int  # the longest voice note (the recorder stops there)
    voice_bytes: int
    image_side: int  # pixels, a photo's longer side (the client scales down to it before the upload)
    image_bytes: int
    voice_id_chars: int  # an AI user's voice id (its text-to-speech voice)


class ClientConfigOut(BaseModel):
    night: NightsOut
    emotions: dict[str, list[str]]  # each kind of emotion tag and its labels, in the order they are shown
    limits: LimitsOut
    categories: list[str]  # the discover screen's categories, in the order it shows them
    voice_replies: list[str]  # when an AI user answers with its voice, as its owner chooses (the first: default)


@router.get("/api/client-config", response_model=ClientConfigOut)
def client_config() -> ClientConfigOut:
    """The night windows, the emotion labels, the input limits, the discover categories and the voice choices the
    web client uses."""
    return ClientConfigOut(
        night=NightsOut(usual=_night(night_window(False, Prefs())), night_owl=_night(night_window(True, Prefs()))),
        emotions={kind: list(labels) for kind, labels in LABELS.items()},
        limits=LimitsOut(
            message_chars=bounds.MESSAGE_CHARS,
            summary_chars=bounds.SUMMARY_CHARS,
            title_chars=bounds.TITLE_CHARS,
            detail_chars=bounds.DETAIL_CHARS,
            core_chars=bounds.CORE_CHARS,
            category_chars=bounds.CATEGORY_CHARS,
            importance=_range(CoreMemory, "importance"),
            name_chars=bounds.NAME_CHARS,
            avatar_chars=bounds.AVATAR_CHARS,
            base_soul_chars=bounds.BASE_SOUL_CHARS,
            greeting_chars=bounds.GREETING_CHARS,
            tag_chars=bounds.TAG_CHARS,
            tags=bounds.TAGS,
            password_chars=RangeOut(min=accounts.MIN_PASSWORD, max=accounts.MAX_PASSWORD),
            daily_cap=_range(Prefs, "daily_cap"),
            quiet_minutes=_range(Prefs, "quiet_minutes"),
            memory_import_bytes=MAX_IMPORT_BYTES,
            report_reason_chars=bounds.REPORT_REASON_CHARS,
            note_chars=bounds.NOTE_CHARS,
            suspension_reason_chars=bounds.SUSPENSION_REASON_CHARS,
            nickname_chars=bounds.NICKNAME_CHARS,
            rating_reason_chars=bounds.RATING_REASON_CHARS,
            search_chars=bounds.SEARCH_QUERY_CHARS,
            voice_seconds=int(AUDIO_MAX_SECONDS),
            voice_bytes=AUDIO_MAX_BYTES,
            image_side=IMAGE_MAX_SIDE,
            image_bytes=IMAGE_MAX_BYTES,
            voice_id_chars=bounds.VOICE_CHARS,
        ),
        categories=list(CATEGORIES),
        voice_replies=list(VOICE_REPLIES),
    )


def _night(night: object) -> NightOut:
    return NightOut.model_validate(night, from_attributes=True)


def _range(model: type[BaseModel], field: str) -> RangeOut:
    """The `ge`/`le` bounds a model declares for `field`."""
    metadata = model.model_fields[field].metadata
    low = next(m.ge for m in metadata if hasattr(m, "ge"))  # annotated_types.Ge, read by shape (pydantic's own)
    high = next(m.le for m in metadata if hasattr(m, "le"))
    return RangeOut.model_validate({"min": low, "max": high})
