"""The three media roles over the OpenAI protocol, through the same client, retries and deadlines as the
model keys: a voice note heard (`/audio/transcriptions`), the AI's voice (`/audio/speech`), a photo seen
(chat completions with an `image_url` part). A role without a key raises LLMNotConfigured, as a model key
does; every SDK error is LLMUnavailable."""

from __future__ import annotations

import base64
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from openai import OpenAI

from dreamchat.budget import Deadline
from dreamchat.config import Settings
from dreamchat.llm.client import OpenAIClient
from dreamchat.llm.errors import LLMOutputError
from dreamchat.llm.parsing import extract_json_object
from dreamchat.llm.prompts import PHOTO_CONCERNS, photo_prompt
from dreamchat.llm.registry import ModelConfig, build_registry

SPEECH_FORMAT: Literal["mp3"] = "mp3"  # what the AI's voice is kept as: every browser plays it
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
        """The AI's words in its voice, as MP3."""

        def say(client: OpenAI, config: ModelConfig, timeout: float) -> bytes:
            spoken = client.audio.speech.create(
                model=config.model, voice=voice, input=text, response_format=SPEECH_FORMAT, timeout=timeout
            )
            return spoken.content

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
