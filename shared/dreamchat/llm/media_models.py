"""The three media roles over the OpenAI protocol, through the same client, retries and deadlines as the
model keys: a voice note heard (`/audio/transcriptions`), the AI's voice (`/audio/speech`), a photo seen
(chat completions with an `image_url` part). A role without a key raises LLMNotConfigured, as a model key
does; every SDK error is LLMUnavailable."""

from __future__ import annotations

import base64
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

import httpx2
from openai import OpenAI

from dreamchat.budget import Deadline
from dreamchat.config import Settings
from dreamchat.llm.client import OpenAIClient
from dreamchat.llm.errors import LLMOutputError, LLMUnavailable
from dreamchat.llm.parsing import extract_json_object
from dreamchat.llm.prompts import PHOTO_CONCERNS, photo_prompt
from dreamchat.llm.registry import ModelConfig, build_registry

SPEECH_FORMAT: Literal["mp3"] = "mp3"  # what the AI's voice is kept as: every browser plays it
SPEECH_MAX_BYTES = 4 * 1024 * 1024  # the most of a voice read: two minutes at 256 kbit/s; more is an error
_EXTENSIONS = {"audio/webm": "webm", "audio/ogg": "ogg", "audio/mp4": "m4a", "audio/mpeg": "mp3"}


@dataclass(frozen=True)
class PhotoSeen:
    """What the vision role saw: a sentence or two, and a concern the crisis protocol must act on."""

    description: str
    concern: str | None = None


class OpenAIMediaModels:
    def __init__(self, client: OpenAIClient) -> None:
        self._client = client

    @classmethod
    def from_settings(cls, settings: Settings, sleep: Callable[[float], None] = time.sleep) -> OpenAIMediaModels:
        """The media roles as the environment configures them, with the model keys' retry policy."""
        client = OpenAIClient(
            build_registry(settings), monotonic=time.monotonic, sleep=sleep, max_retries=settings.llm_max_retries
        )
        return cls(client)

    def configured(self, role: str) -> bool:
        return self._client.configured(role)

    def transcribe(self, audio: bytes, content_type: str, *, deadline: Deadline | None = None) -> str:
        """What a voice note says (empty when nothing was said)."""
        upload = (f"voice.{_EXTENSIONS.get(content_type, 'webm')}", audio, content_type)

        def hear(client: OpenAI, config: ModelConfig, timeout: float) -> Any:
            return client.audio.transcriptions.create(model=config.model, file=upload, timeout=timeout)

        return " ".join(str(self._client.call("speech_to_text", hear, deadline=deadline).text or "").split())

    def speak(self, text: str, voice: str, *, deadline: Deadline | None = None) -> bytes:
        """The AI's words in its voice, as MP3: read as it comes, so a body beyond `SPEECH_MAX_BYTES` or past
        the deadline is dropped unread (LLMOutputError, LLMUnavailable) instead of held in memory or waited for."""

        def say(client: OpenAI, config: ModelConfig, timeout: float) -> bytes:
            with client.audio.speech.with_streaming_response.create(
                model=config.model, voice=voice, input=text, response_format=SPEECH_FORMAT, timeout=timeout
            ) as spoken:
                return _at_most(spoken.iter_bytes(), deadline)

        return self._client.call("text_to_speech", say, deadline=deadline)

    def look(self, image: bytes, content_type: str, language: str, *, deadline: Deadline | None = None) -> PhotoSeen:
        """A photo described in the person's language; LLMOutputError when the answer is not the JSON asked."""
        url = f"data:{content_type};base64,{base64.b64encode(image).decode('ascii')}"
        messages: Any = [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": photo_prompt(language)},
                    {"type": "image_url", "image_url": {"url": url}},
                ],
            }
        ]

        def see(client: OpenAI, config: ModelConfig, timeout: float) -> Any:
            return client.chat.completions.create(
                model=config.model, temperature=config.temperature, messages=messages, timeout=timeout
            )

        answer = self._client.call("vision", see, deadline=deadline)
        found = extract_json_object(str(answer.choices[0].message.content or ""))
        description = " ".join(str((found or {}).get("description") or "").split())
        if not description:
            raise LLMOutputError("vision: no description in the answer")
        concern = (found or {}).get("concern")
        return PhotoSeen(description[:200], concern if concern in PHOTO_CONCERNS else None)


def _at_most(chunks: Iterator[bytes], deadline: Deadline | None) -> bytes:
    """The body's chunks joined, while within `SPEECH_MAX_BYTES` and the deadline."""
    body = bytearray()
    try:
        for chunk in chunks:
            body += chunk
            if len(body) > SPEECH_MAX_BYTES:
                raise LLMOutputError(f"text_to_speech: more than {SPEECH_MAX_BYTES} bytes")
            if deadline is not None and deadline.remaining() <= 0:
                raise LLMUnavailable("text_to_speech: the body outlasted the deadline")
    except httpx2.HTTPError as error:  # the connection dropped mid-body: the SDK (on httpx2) does not wrap it
        raise LLMUnavailable(f"text_to_speech: {type(error).__name__}") from error
    return bytes(body)
