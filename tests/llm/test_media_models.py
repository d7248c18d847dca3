"""The media roles through the openai SDK against a fake server on 127.0.0.1."""

from __future__ import annotations

import base64
import json
import time

import pytest

from dreamchat.config import Settings
from dreamchat.llm.client import OpenAIClient
from dreamchat.llm.errors import LLMNotConfigured, LLMOutputError, LLMUnavailable
from dreamchat.llm.media_models import OpenAIMediaModels, PhotoSeen
from dreamchat.llm.registry import build_registry
from tests.fakes.fake_media import SPEECH, TRANSCRIPTIONS, VISION, VOICE, FakeMediaServer, MediaReply, _completion


@pytest.fixture
def server():
    with FakeMediaServer() as running:
        yield running


def models(monkeypatch: pytest.MonkeyPatch, base_url: str, roles=("speech_to_text", "text_to_speech", "vision")):
    for role in roles:
        monkeypatch.setenv(f"DREAMCHAT_{role.upper()}_BASE_URL", base_url)
        monkeypatch.setenv(f"DREAMCHAT_{role.upper()}_API_KEY", "k")
    client = OpenAIClient(build_registry(Settings()), monotonic=time.monotonic, sleep=lambda _: None, max_retries=1)
    return OpenAIMediaModels(client)


def test_a_voice_note_is_sent_as_a_file_and_its_words_come_back(monkeypatch, server) -> None:
    heard = models(monkeypatch, server.base_url).transcribe(b"OggS-voice", "audio/ogg")
    assert heard == "今天下班路上看到一只橘猫"
    (request,) = server.requests_to(TRANSCRIPTIONS)
    assert b'filename="voice.ogg"' in request.body and b"OggS-voice" in request.body
    assert b"gpt-4o-mini-transcribe" in request.body


def test_the_ai_speaks_in_its_voice_as_mp3(monkeypatch, server) -> None:
    spoken = models(monkeypatch, server.base_url).speak("早安呀", "alloy")
    assert spoken == VOICE
    (request,) = server.requests_to(SPEECH)
    assert request.json() == {"model": "gpt-4o-mini-tts", "voice": "alloy", "input": "早安呀", "response_format": "mp3"}


def test_a_photo_is_sent_inline_and_described_with_its_concern(monkeypatch, server) -> None:
    server.script(VISION, MediaReply.seen("桌上有一大把药片。", "pills"))
    seen = models(monkeypatch, server.base_url).look(b"\xff\xd8jpeg", "image/jpeg", "zh-CN")
    assert seen == PhotoSeen("桌上有一大把药片。", "pills")
    content = server.requests_to(VISION)[0].json()["messages"][0]["content"]
    assert content[1]["image_url"]["url"] == "data:image/jpeg;base64," + base64.b64encode(b"\xff\xd8jpeg").decode()
    assert "中文" in content[0]["text"]


def test_an_unknown_concern_is_no_concern_and_a_reply_without_a_description_is_an_output_error(monkeypatch, server):
    media = models(monkeypatch, server.base_url)
    server.script(VISION, MediaReply.seen("一片海。", "ocean"), MediaReply(body=_completion(json.dumps({"x": 1}))))
    assert media.look(b"x", "image/png", "en").concern is None
    with pytest.raises(LLMOutputError):
        media.look(b"x", "image/png", "en")


def test_a_failing_role_is_retried_then_unavailable(monkeypatch, server) -> None:
    server.script(TRANSCRIPTIONS, MediaReply.error(500), MediaReply.error(500))
    with pytest.raises(LLMUnavailable):
        models(monkeypatch, server.base_url).transcribe(b"x", "audio/webm")
    assert len(server.requests_to(TRANSCRIPTIONS)) == 2


def test_a_role_without_a_key_is_not_called(monkeypatch, server) -> None:
    media = models(monkeypatch, server.base_url, roles=("vision",))
    assert not media.configured("speech_to_text") and media.configured("vision")
    with pytest.raises(LLMNotConfigured):
        media.transcribe(b"x", "audio/webm")
    assert server.requests == []
