"""The AI's voice: whether a reply is spoken (its owner's `voice_replies`, by `dreamchat.domain.voice`), and
the speaking — the text-to-speech role makes MP3, its length is measured from the bytes, and the voice is kept
in the pair (the bytes under its prefix, the record `Media`, `by="ai"`, in its media partition, so forgetting the
pair or deleting the account erases both) for the one message that carries it (`TopicService.record`).

Speaking is never in the way of the answer: no role configured, a person in minors' mode, a text too long for
one voice message, the account's budget spent (`DREAMCHAT_TEXT_TO_SPEECH_PER_MINUTE`), a provider that fails or
is slow (its call ends by the turn's deadline) or answers with bytes that are no MP3 of the text (none, cut off, minutes long, `plausible`) — each leaves None, and the
reply goes as text, with no error to the person.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from dreamchat import keys
from dreamchat.budget import Deadline
from dreamchat.domain import ids
from dreamchat.domain.media import Media
from dreamchat.domain.models import AIUser, PairId
from dreamchat.domain.voice import fits, plausible, speaks
from dreamchat.errors import TooManyRequests
from dreamchat.llm.errors import LLMError
from dreamchat.ports import BlobStore, Clock, RandomSource
from dreamchat.services.storage.unit_of_work import Storage

log = logging.getLogger(__name__)

SPOKEN_TYPE = "audio/mpeg"  # what the text-to-speech role is asked for (`dreamchat.llm.media_models.SPEECH_FORMAT`)


class Speech(Protocol):
    """The text-to-speech role (`dreamchat.llm.media_models.OpenAIMediaModels`)."""

    def configured(self, role: str) -> bool: ...

    def speak(self, text: str, voice: str, *, deadline: Deadline | None = None) -> bytes: ...


@dataclass(frozen=True)
class Voice:
    """A reply that may be spoken: in this AI user's voice, ready by `deadline` (or it goes as text)."""

    ai_user: AIUser
    deadline: Deadline


class VoiceService:
    def __init__(
        self,
        speech: Speech | None,
        storage: Storage,
        blobs: BlobStore,
        clock: Clock,
        random: RandomSource,
        spend: Callable[[str], None],  # the account's budget of voice replies: TooManyRequests beyond it
        measure: Callable[[bytes], float],  # how long MP3 bytes play (`dreamchat.adapters.media_files.mp3_seconds`)
        *,
        minor: Callable[[str], bool],  # the person is in minors' mode
        default_voice: str,
    ) -> None:
        self._speech, self._storage, self._blobs, self._clock, self._random = speech, storage, blobs, clock, random
        self._spend, self._measure, self._minor, self._default_voice = spend, measure, minor, default_voice

    def spoken(self, pair: PairId, voice: Voice, text: str) -> Media | None:
        """The voice message saying `text`, its bytes kept (its record is the message's to store), or None:
        the reply goes as text."""
        if self._speech is None or not self._wanted(pair, voice.ai_user, text):
            return None
        extra = {"ai_user_id": pair.ai_user_id, "chars": len(text)}
        try:
            self._spend(pair.account_id)
            audio = self._speech.speak(text, voice.ai_user.voice or self._default_voice, deadline=voice.deadline)
        except TooManyRequests:
            log.info("voice reply over the account's budget: text", extra=extra)
            return None
        except LLMError as error:
            log.warning("voice reply failed: text", extra={**extra, "error": type(error).__name__})
            return None
        seconds = self._measure(audio)
        if not plausible(text, seconds):
            log.warning(
                "voice reply was no MP3 of its text: text", extra={**extra, "bytes": len(audio), "seconds": seconds}
            )
            return None
        media = self._record(pair, text, len(audio), seconds)
        self._keep(pair, media, audio)
        log.info("voice reply spoken", extra={**extra, "bytes": len(audio), "seconds": seconds})
        return media

    def discard(self, pair: PairId, media: Media) -> None:
        """The voice of a message that was not stored: its record, then its bytes."""
        with self._storage.pair(pair) as uow:
            uow.media.remove(media.id)
            uow.commit()
        self._blobs.delete(keys.media_blob(pair, media.id))

    def _keep(self, pair: PairId, media: Media, audio: bytes) -> None:
        """The bytes first, then the record in the pair's generation (a pair forgotten meanwhile: Gone, and the
        bytes go again)."""
        blob = keys.media_blob(pair, media.id)
        self._blobs.put(blob, audio, SPOKEN_TYPE)
        try:
            with self._storage.pair(pair) as uow:
                uow.media.add(media)
                uow.commit()
        except BaseException:
            self._blobs.delete(blob)
            raise

    def _wanted(self, pair: PairId, ai_user: AIUser, text: str) -> bool:
        """The owner's choice (and the draw, for "sometimes"), a role to speak with, a text that fits, and a
        person not in minors' mode."""
        if ai_user.voice_replies == "never" or self._speech is None or not self._speech.configured("text_to_speech"):
            return False
        return fits(text) and speaks(ai_user.voice_replies, self._random.random) and not self._minor(pair.account_id)

    def _record(self, pair: PairId, text: str, size: int, seconds: float) -> Media:
        now = self._clock.now()
        return Media(
            id=ids.media_id(now, self._random.random(), pair.ai_user_id),
            account_id=pair.account_id,
            ai_user_id=pair.ai_user_id,
            kind="audio",
            content_type=SPOKEN_TYPE,
            size=size,
            created_at=int(now.timestamp()),
            duration_s=seconds,
            text=text,
            text_state="done",
            by="ai",
        )
