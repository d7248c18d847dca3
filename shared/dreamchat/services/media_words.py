"""A photo or voice note sent with a message: its words, found before the message is stored, and what the chat
model is told of it and shown.

A voice note is transcribed (the `speech_to_text` role), a photo described (`vision`, with what it shows that
the crisis protocol must act on) within `MEDIA_SHARE` of the turn's time left, so the chat model keeps the
rest; the client's retries and timeouts bound each call. The words are what the log, the memory, the crisis
check, the context and the model read (`dreamchat.domain.media.message_text`). A role not configured, failing,
too slow, or past the account's per-minute budget (`DREAMCHAT_SPEECH_TO_TEXT_PER_MINUTE`,
`DREAMCHAT_VISION_PER_MINUTE`) is never called past that point: the message goes with the placeholder
(`[语音（未转写）]`, `[图片：一张图片]`), the media stays linked, and the words are owed (redone later by
`dreamchat.services.media_redo`). Nothing is lost and nothing waits on a model that is down.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from dreamchat.budget import Deadline
from dreamchat.domain.media import Media, heard, owed_words
from dreamchat.domain.models import MediaKind, Message, PairId
from dreamchat.errors import TooManyRequests
from dreamchat.llm.chat_prompts import UNHEARD_GUIDANCE, UNSEEN_GUIDANCE
from dreamchat.llm.errors import LLMError
from dreamchat.llm.media_models import PhotoSeen
from dreamchat.llm.port import ModelMessage
from dreamchat.services.media import MediaService

log = logging.getLogger(__name__)

# of a turn's time left, the share a voice note's transcription or a photo's description may take: the chat
# model that answers keeps the rest
MEDIA_SHARE = 0.4
ROLES: dict[MediaKind, str] = {"audio": "speech_to_text", "image": "vision"}


class MediaModels(Protocol):
    """The media roles a message's words come from (`dreamchat.llm.media_models.OpenAIMediaModels`)."""

    def configured(self, role: str) -> bool: ...

    def transcribe(self, audio: bytes, content_type: str, *, deadline: Deadline | None = None) -> str: ...

    def look(
        self, image: bytes, content_type: str, language: str, *, deadline: Deadline | None = None
    ) -> PhotoSeen: ...


class MediaWordsService:
    def __init__(
        self,
        media: MediaService,
        models: MediaModels | None,
        budgets: Mapping[str, Callable[[str], None]],
        language: Callable[[str], str],
    ) -> None:
        self._media = media
        self._models = models
        self._budgets = budgets  # per role: the account's per-minute budget, TooManyRequests beyond it
        self._language = language  # the person's locale: a photo is described in it

    def words(self, pair: PairId, media_id: str, deadline: Deadline | None) -> Media:
        """The upload a message is about to carry (NotFound, MediaAlreadySent) with its words, or owed."""
        media = self._media.unsent(pair, media_id)
        share = deadline.sooner(deadline.remaining() * (1 - MEDIA_SHARE)) if deadline is not None else None
        return self.hear(pair, media, share)

    def kept(self, pair: PairId, replaced: Message | None) -> Media | None:
        """The media of a message being edited: the edit keeps it (its words as they are) for the new one."""
        media = self._media.get(pair, replaced.media_id) if replaced and replaced.media_id else None
        return media if media is not None and replaced is not None and media.message_id == replaced.id else None

    def forget(self, pair: PairId, message: Message) -> None:
        """The media of a deleted message erased with it (record and bytes)."""
        if message.media_id is not None and self._media.get(pair, message.media_id) is not None:
            self._media.erase(pair, message.media_id)

    def hear(self, pair: PairId, media: Media, deadline: Deadline | None = None) -> Media:
        """The record with its words done, or as it was (owed) when its role cannot give them now."""
        role = ROLES[media.kind]
        extra = {"ai_user_id": pair.ai_user_id, "media_id": media.id, "role": role}
        if self._models is None or not self._models.configured(role):
            return media
        try:
            self._budgets[role](pair.account_id)
        except TooManyRequests:
            log.info("media words owed: over the budget", extra=extra)
            return media
        data = self._media.data(pair, media)
        if data is None:
            return media
        try:
            if media.kind == "audio":
                return heard(media, self._models.transcribe(data, media.content_type, deadline=deadline))
            seen = self._models.look(data, media.content_type, self._language(pair.account_id), deadline=deadline)
            return heard(media, seen.description, seen.concern)
        except LLMError as error:
            log.warning("media words owed", extra={**extra, "error": type(error).__name__})
            return media


@dataclass(frozen=True)
class MediaTurnService:
    """What a chat turn's model is told of the photo or voice note the person's message carries, and shown."""

    media: MediaService | None = None
    accepts_images: bool = False  # DREAMCHAT_CHAT_ACCEPTS_IMAGES: the chat model reads `image_url` parts

    def guidance(self, person: Message) -> str:
        """Honesty about what could not be heard or seen: the model never pretends to have."""
        if not owed_words(person.media_kind, person.content):
            return ""
        if person.media_kind == "audio":
            return UNHEARD_GUIDANCE
        return "" if self.accepts_images else UNSEEN_GUIDANCE  # a model that reads the photo sees it itself

    def shown(self, pair: PairId, person: Message, messages: list[ModelMessage]) -> list[ModelMessage]:
        """The turn's messages; to a chat model that reads images, the message answered carries its photo
        (only that message: the history goes as words)."""
        if not self.accepts_images or self.media is None or person.media_kind != "image" or not messages:
            return messages
        found = self.media.get(pair, person.media_id) if person.media_id else None
        data = self.media.data(pair, found) if found is not None else None
        if found is None or data is None:
            return messages
        url = f"data:{found.content_type};base64,{base64.b64encode(data).decode('ascii')}"
        current = messages[-1]
        parts = [{"type": "text", "text": current["content"]}, {"type": "image_url", "image_url": {"url": url}}]
        return [*messages[:-1], {**current, "content": parts}]
