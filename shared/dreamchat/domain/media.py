"""What a person may send beside text: a photo or a voice note. The limits each obeys, and the words that
stand for it wherever text is read (the log, the memory, the crisis check, the context and the model).

A voice note's transcript and a photo's description are the text of the message; until the model that
writes them has answered, the message says plainly what it is ("语音（未转写）", "一张图片") and the work
is owed, to be redone when the model is back.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Literal

from dreamchat.domain.bounds import MESSAGE_CHARS
from dreamchat.domain.crisis import QUIET, Verdict
from dreamchat.domain.models import Entity, MediaKind

TextState = Literal["owed", "done"]  # owed: no transcript or description yet (no model, or it failed)

IMAGE_TYPES = ("image/jpeg", "image/png", "image/webp", "image/heic")
AUDIO_TYPES = ("audio/webm", "audio/ogg", "audio/mp4", "audio/mpeg")
IMAGE_MAX_BYTES = 8 * 1024 * 1024
IMAGE_MAX_SIDE = 1600  # pixels, the longer side, after the server's resize
# a larger picture is refused before it is decoded: a small file may claim a huge canvas (a bomb)
IMAGE_MAX_PIXELS = 50_000_000
AUDIO_MAX_BYTES = 2 * 1024 * 1024
AUDIO_MAX_SECONDS = 60.0

UNHEARD = "语音（未转写）"
SILENT = "语音：没有听到说话"  # transcribed, and nothing was said: not a note nobody could listen to
# the longest transcript or description kept: a minute of fast speech is well under it, a model that floods
# (or is made to) is cut here, so the record and the message it becomes stay bounded
MEDIA_WORDS_CHARS = 1000
# what the vision role may see that the crisis protocol acts on: a photo of self-harm or of a crisis scene
# (a ledge, a rope, a farewell letter) is a crisis, as the words would be; a weapon or pills are the means
# at hand, everyday on their own (a kitchen knife, a box of vitamins), so they make the turn careful
# (distress: answered, never silence) and a crisis only in a conversation that already shows distress
CRISIS_CONCERNS = ("self_harm", "crisis")
MEANS_CONCERNS = ("weapon", "pills")
UNSEEN = "一张图片"


class MediaProblem(ValueError):
    """An upload broke a rule; `rule` names it for the 422 (type, size, pixels, duration, decode)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule


class Media(Entity):
    """A photo or a voice note of one pair, kept in the blob store under `blob_key`."""

    id: str
    account_id: str
    ai_user_id: str
    kind: MediaKind
    content_type: str
    size: int
    created_at: int
    width: int | None = None
    height: int | None = None
    duration_s: float | None = None
    text: str = ""  # the transcript of a voice note, the description of a photo
    text_state: TextState = "owed"
    flagged: bool = False  # the vision model saw self-harm, weapons, pills or a crisis scene
    concern: str | None = None  # which of them (`CRISIS_CONCERNS`, `MEANS_CONCERNS`): the protocol reads it
    message_id: str | None = None  # the message that carries it, once sent
    by: Literal["person", "ai"] = "person"


@dataclass(frozen=True)
class Inspected:
    """An upload that passed every rule, as it is kept."""

    kind: MediaKind
    content_type: str
    data: bytes
    width: int | None = None
    height: int | None = None
    duration_s: float | None = None


def kind_of(content_type: str) -> MediaKind:
    """The kind of an accepted type; MediaProblem for any other."""
    if content_type in IMAGE_TYPES:
        return "image"
    if content_type in AUDIO_TYPES:
        return "audio"
    raise MediaProblem("type", f"not an accepted type: {content_type}")


def check_size(kind: MediaKind, size: int) -> None:
    limit = IMAGE_MAX_BYTES if kind == "image" else AUDIO_MAX_BYTES
    if size > limit:
        raise MediaProblem("size", f"a {kind} file may be at most {limit // (1024 * 1024)} MB")
    if size == 0:
        raise MediaProblem("size", "the file is empty")


def check_pixels(width: int, height: int) -> None:
    if width * height > IMAGE_MAX_PIXELS:
        raise MediaProblem("pixels", f"a picture may have at most {IMAGE_MAX_PIXELS:,} pixels")


def check_duration(seconds: float) -> None:
    if seconds > AUDIO_MAX_SECONDS:
        raise MediaProblem("duration", f"a voice message may be at most {AUDIO_MAX_SECONDS:.0f} seconds")
    if seconds <= 0:
        raise MediaProblem("duration", "the recording has no sound in it")


def fitted(width: int, height: int, side: int = IMAGE_MAX_SIDE) -> tuple[int, int]:
    """The size a picture is kept at: its longer side at most `side`, the proportions kept."""
    longer = max(width, height)
    if longer <= side:
        return width, height
    return max(1, round(width * side / longer)), max(1, round(height * side / longer))


def message_text(media: Media, content: str = "") -> str:
    """What the rest of the system reads for a message with media: its words for the media, then what the
    person typed beside it. The media's words give way to the typed ones so the whole fits MESSAGE_CHARS
    (what was typed is the person's own, checked against the limit like any message)."""
    words = media.text if media.text_state == "done" else ""
    typed = content.strip()
    room = MESSAGE_CHARS - len(typed) - len(_said(media, "")) - (1 if typed else 0)
    if len(words) > room:
        words = words[: max(room - 1, 0)].rstrip() + "…" if room > 1 else ""
    said = _said(media, words)
    return f"{said} {content}".strip() if typed else said


def _said(media: Media, words: str) -> str:
    if media.kind == "audio":
        if words:
            return f"[语音] {words}"
        return f"[{SILENT}]" if media.text_state == "done" and not media.text else f"[{UNHEARD}]"
    return f"[图片：{words or UNSEEN}]"


def typed_beside(media: Media, content: str) -> str | None:
    """What the person typed beside `media`, read back from a message's `content` written by `message_text`
    (None when the content no longer opens with the media's words: the person's edit made it theirs)."""
    said = message_text(media)
    return content[len(said) :].strip() if content.startswith(said) else None


def heard(media: Media, text: str, concern: str | None = None) -> Media:
    """The record once its model answered: the words done (plain text: control characters dropped, at most
    MEDIA_WORDS_CHARS), a photo's concern kept (and flagged)."""
    plain = "".join((" " if c.isspace() else "") if unicodedata.category(c) == "Cc" else c for c in text).strip()
    words = plain if len(plain) <= MEDIA_WORDS_CHARS else plain[: MEDIA_WORDS_CHARS - 1].rstrip() + "…"
    return media.model_copy(update={"text": words, "text_state": "done", "concern": concern, "flagged": bool(concern)})


def owed_words(kind: MediaKind | None, content: str) -> bool:
    """Whether a message's media still lacks its words (its content opens with the placeholder)."""
    if kind == "audio":
        return content.startswith(f"[{UNHEARD}]")
    return kind == "image" and content.startswith(f"[图片：{UNSEEN}]")


def unheard(kind: MediaKind | None, content: str) -> bool:
    """A voice note nobody could listen to, with nothing typed beside it: the AI must say it cannot listen
    now, never answer as if it had heard, and never read it without replying."""
    return kind == "audio" and content.strip() == f"[{UNHEARD}]"


def photo_verdict(concern: str | None, distressed: bool) -> Verdict:
    """What a photo's concern adds to the crisis check of its message (`distressed`: the words, or the
    topic, already show distress)."""
    if concern in CRISIS_CONCERNS:
        return Verdict(crisis=True, distress=True, by="vision")
    if concern in MEANS_CONCERNS:
        return Verdict(crisis=distressed, distress=True, by="vision")
    return QUIET


def stronger(words: Verdict, photo: Verdict) -> Verdict:
    """The verdict of a message with a photo: the words' unless the photo says more."""
    if words.crisis or not (photo.crisis or photo.distress):
        return words
    if photo.crisis or not words.distress:
        return photo
    return words
