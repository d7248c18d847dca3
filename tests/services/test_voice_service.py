"""The AI's voice kept and let go (`VoiceService`, `SpeakerService.send`), on every store: a voice is kept
(bytes and record) before the message that carries it; a message that cannot be stored lets its voice go, and a
pair forgotten while the voice was made keeps none of it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from dreamchat import keys
from dreamchat.budget import Deadline
from dreamchat.domain.models import AIUser, PairId
from dreamchat.services.container import Services
from dreamchat.services.speaker import Line
from dreamchat.services.tombstones import Gone
from dreamchat.services.voice import Voice
from dreamchat.wiring import Runtime
from tests.fakes.fake_llm import FakeLLMServer
from tests.fakes.fake_media import VOICE, FakeMediaServer
from tests.services.conftest import runtime, services_with_settings  # noqa: F401 (the fixture)


@pytest.fixture
def speech() -> Iterator[FakeMediaServer]:
    with FakeMediaServer() as server:
        yield server


@pytest.fixture
def voiced(runtime: Runtime, fake_llm: FakeLLMServer, speech: FakeMediaServer) -> Services:  # noqa: F811
    return services_with_settings(
        runtime, fake_llm, text_to_speech_base_url=speech.base_url, text_to_speech_api_key="speech-key"
    )


def friend(services: Services) -> tuple[PairId, AIUser]:
    ai_user = services.ai_users.create("acc_alice", {"name": "小梦", "voice_replies": "always"})
    return services.ai_users.companion("acc_alice", ai_user.id)


def kept(runtime: Runtime, pair: PairId) -> tuple[int, int]:  # noqa: F811
    records = [i for i in runtime.store.query(keys.media_pk(pair)).items if i["sk"].startswith("MEDIA#")]
    return len(records), len([k for k in runtime.blobs.list(keys.pair_blob_prefix(pair)) if "/media/" in k])


class Refused(Exception):
    """The message store said no."""


@pytest.mark.every_store
def test_a_voice_is_kept_before_its_message_and_carried_by_it(voiced: Services, runtime: Runtime) -> None:  # noqa: F811
    pair, ai_user = friend(voiced)
    speaker = voiced.chat.speaker
    [message] = speaker.send(pair, ["早呀", "吃了吗"], Line(voice=Voice(ai_user, Deadline.after(10))))
    assert (message.content, message.media_kind) == ("早呀 吃了吗", "audio")
    [media] = voiced.media.of_pair(pair)
    assert (media.id, media.message_id, media.by) == (message.media_id, message.id, "ai")
    assert runtime.blobs.get(keys.media_blob(pair, media.id)) == VOICE and kept(runtime, pair) == (1, 1)


@pytest.mark.every_store
def test_a_message_that_cannot_be_stored_lets_its_voice_go(voiced: Services, runtime: Runtime) -> None:  # noqa: F811
    pair, ai_user = friend(voiced)

    class RefusingTopics:
        def record(self, *args: object, **kwargs: object) -> None:
            raise Refused

    speaker = dataclasses.replace(voiced.chat.speaker, topics=RefusingTopics())  # type: ignore[arg-type]
    with pytest.raises(Refused):
        list(speaker.send(pair, ["早呀"], Line(voice=Voice(ai_user, Deadline.after(10)))))
    assert kept(runtime, pair) == (0, 0)


@pytest.mark.every_store
def test_a_pair_forgotten_while_its_voice_was_made_keeps_none_of_it(voiced: Services, runtime: Runtime) -> None:  # noqa: F811
    pair, ai_user = friend(voiced)
    voiced.ai_users.unfriend("acc_alice", ai_user.id, forget=True)  # the pair as seen before: an old generation
    with pytest.raises(Gone):
        voiced.chat.speaker.voice.spoken(pair, Voice(ai_user, Deadline.after(10)), "早呀")  # type: ignore[union-attr]
    assert kept(runtime, pair) == (0, 0)
