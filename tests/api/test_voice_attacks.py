# ruff: noqa: F811 (the fixtures of test_voice_replies, imported by name)
"""Attacks on the AI's voice replies (issue 41): a speech endpoint that answers too much, the wrong thing, too
little or nothing at all; markers in the spoken text; the pair erased while a heartbeat is spoken; odd voices;
a voice reply regenerated or deleted; minors' mode and a crisis. Whatever happens the reply arrives, in time,
and nothing is left behind that the person cannot see or that was erased."""

from __future__ import annotations

import time

import pytest

from dreamchat.wiring import Runtime
from tests.api.test_voice_replies import TWO_LINES, World, is_voice, speech, world, world_of  # noqa: F401
from tests.fakes.fake_llm import FakeLLMServer
from tests.fakes.fake_media import SPEECH, VOICE, FakeMediaServer, MediaReply
from tests.services.conftest import runtime  # noqa: F401

AS_TEXT = ["早呀~", "今天也要好好吃饭哦"]
WAV = b"RIFF" + (36).to_bytes(4, "little") + b"WAVEfmt " + bytes(24) + b"data" + bytes(4000)
HTML = b"<!doctype html><html><body>502 Bad Gateway</body></html>"
FRAMES = VOICE[45:]  # its MPEG frames, without the ID3 tag before them
TEN_MINUTES = FRAMES * 194  # 3.1 s each: ten minutes of real frames (2.3 MB)


def texted(world: World) -> list[str]:
    said = world.said(TWO_LINES)
    assert not any(map(is_voice, said)), said
    return [m["content"] for m in said]


@pytest.mark.parametrize(
    "reply",
    [
        MediaReply(raw=WAV),
        MediaReply(raw=HTML),
        MediaReply(raw=b""),
        MediaReply(raw=VOICE[:300]),  # truncated in the first frames: well under a second
        MediaReply(raw=TEN_MINUTES),
        MediaReply(raw=VOICE, reset=True),
        MediaReply.error(429),
    ],
    ids=["wav", "html", "empty", "truncated", "ten-minutes", "reset", "429"],
)
def test_a_bad_voice_leaves_the_reply_in_text_and_nothing_kept(world: World, reply: MediaReply) -> None:
    world.speech.script(SPEECH, reply)
    assert texted(world) == AS_TEXT
    assert world.kept() == (0, 0)
    assert [m["content"] for m in world.history()][-2:] == AS_TEXT


def test_a_huge_body_is_neither_kept_nor_waited_for(world: World) -> None:
    world.speech.script(SPEECH, MediaReply(raw=FRAMES * (50 * 1024 * 1024 // len(FRAMES))))  # 50 MB of real MP3
    started = time.monotonic()
    assert texted(world) == AS_TEXT
    assert time.monotonic() - started < 5
    assert world.kept() == (0, 0)


def test_a_429_then_success_is_spoken_when_a_retry_is_allowed(
    runtime: Runtime,  # noqa: F811
    fake_llm: FakeLLMServer,
    speech: FakeMediaServer,  # noqa: F811
) -> None:
    with world_of(runtime, fake_llm, speech, llm_max_retries=1) as world:
        world.speech.script(SPEECH, MediaReply.error(429))
        [said] = world.said(TWO_LINES)
        assert is_voice(said) and world.kept() == (1, 1)
        assert len(world.speech.requests_to(SPEECH)) == 2
