"""A photo or voice note sent with a message, through the API, with fake speech and vision servers and a fake
chat model on 127.0.0.1: the transcript or description becomes the message's text (what the log, the crisis
check and the model read), typed words go beside it; a crisis heard or seen starts the protocol; a role that
is down, slow or past its budget leaves the placeholder, the media kept and the words owed (redone by the
healing sweep later); the chat model is shown the photo itself only when it reads images; erasure and export
carry the media. What is stored runs on every store."""

from __future__ import annotations

import dataclasses
import io
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from PIL import Image
from pydantic import SecretStr

from dreamchat import keys
from dreamchat.api.app import create_app
from dreamchat.domain.models import PairId
from dreamchat.llm.chat_prompts import CRISIS_GUIDANCE, UNHEARD_GUIDANCE, UNSEEN_GUIDANCE
from dreamchat.llm.offline import UNHEARD_REPLY
from dreamchat.services.registry import Services
from dreamchat.wiring import Runtime
from tests.api.conftest import Person, register
from tests.api.sse import parse_sse
from tests.api.test_media_upload import served
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.fakes.fake_media import TRANSCRIPTIONS, VISION, FakeMediaServer, MediaReply
from tests.services.conftest import runtime  # noqa: F401 (the fixture: memory, or every store)

MEDIA = Path(__file__).resolve().parents[1] / "data" / "media"
CHAT_MODEL = "deepseek-chat"
HEARD = "今天下班路上看到一只橘猫"  # the fake speech server's default transcript
SEEN = "一只橘猫趴在窗台上晒太阳。"  # the fake vision server's default description
CRISIS = "我今晚就准备自杀"


def picture() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (320, 240), (200, 120, 40)).save(out, format="JPEG")
    return out.getvalue()


VOICE = (MEDIA / "voice.ogg").read_bytes()


@dataclass
class World:
    client: TestClient
    runtime: Runtime
    services: Services
    alice: Person
    ai: dict
    chat_model: FakeLLMServer
    media_models: FakeMediaServer
    ops: Person | None = None

    @property
    def pair(self) -> PairId:
        return PairId(account_id=self.alice.id, ai_user_id=self.ai["id"])

    def upload(self, data: bytes, person: Person | None = None) -> str:
        files = {"file": ("f.bin", data, "application/octet-stream")}
        response = (person or self.alice).post(f"/api/ai-users/{self.ai['id']}/media", files=files)
        assert response.status_code == 201, response.text
        return str(response.json()["media_id"])

    def chat(self, body: dict[str, Any], key: str | None = None, person: Person | None = None):
        who = person or self.alice
        headers = {**who.headers, **({"Idempotency-Key": key} if key else {})}
        return self.client.post(f"/api/ai-users/{self.ai['id']}/chat", json=body, headers=headers)

    def events(self, body: dict[str, Any], key: str | None = None) -> list[tuple[str, dict]]:
        response = self.chat(body, key)
        assert response.status_code == 200, response.text
        return [(name, data) for name, data in parse_sse(response.text) if data.get("kind") != "ai_disclosure"]

    def history(self) -> list[dict]:
        return self.alice.get(f"/api/ai-users/{self.ai['id']}/messages", params={"limit": 200}).json()["messages"]

    def mine(self) -> list[dict]:
        return [m for m in self.history() if m["role"] == "user"]

    def record(self, media_id: str):
        found = self.services.media.get(self.pair, media_id)
        assert found is not None
        return found

    def kept(self) -> tuple[int, int]:
        records = [i for i in self.runtime.store.query(keys.media_pk(self.pair)).items if i["sk"].startswith("MEDIA#")]
        blobs = [k for k in self.runtime.blobs.list(keys.pair_blob_prefix(self.pair)) if "/media/" in k]
        return len(records), len(blobs)

    def last_prompt(self) -> list[dict]:
        return self.chat_model.requests_for(CHAT_MODEL)[-1].messages


def roles(server: FakeMediaServer | None, *, speech: bool = True, vision: bool = True) -> dict[str, Any]:
    """The media roles pointed at the fake server (a role left out is not configured: offline)."""
    found: dict[str, Any] = {}
    if server is not None and speech:
        found |= {"speech_to_text_base_url": server.base_url, "speech_to_text_api_key": SecretStr("k")}
    if server is not None and vision:
        found |= {"vision_base_url": server.base_url, "vision_api_key": SecretStr("k")}
    return found


@contextmanager
def world_of(
    base: Runtime, chat_model: FakeLLMServer, media: FakeMediaServer, *, chat: bool = True, **settings: Any
) -> Iterator[World]:
    model = {"llm_base_url": chat_model.base_url, "llm_api_key": SecretStr("test-key")} if chat else {}
    fields = {
        "llm_max_retries": 0,
        "llm_timeout_seconds": 2,
        "max_delay_seconds": 30,
        "messages_per_minute": 10_000,
        "model_calls_per_minute": 10_000,
        "operators": ["ops"],
        "starters": False,
        **model,
        **roles(media),
        **settings,
    }
    changed = base.settings.model_copy(update=fields)
    app = create_app(changed, dataclasses.replace(base, settings=changed))
    with TestClient(app) as client:
        alice = register(client, "alice")
        ai = alice.create_ai_user(name="小梦", visibility="public")
        yield World(client, base, app.state.services, alice, ai, chat_model, media)


@pytest.fixture
def media_server() -> Iterator[FakeMediaServer]:
    with FakeMediaServer() as server:
        yield server


@pytest.fixture
def world(runtime: Runtime, fake_llm: FakeLLMServer, media_server: FakeMediaServer) -> Iterator[World]:  # noqa: F811
    with world_of(runtime, fake_llm, media_server) as built:
        yield built


# --- the words of the media are the message's text ------------------------------------------------------


@pytest.mark.every_store
def test_a_voice_notes_transcript_becomes_the_text_the_memory_and_the_model_read(world: World) -> None:
    world.chat_model.script(CHAT_MODEL, Reply.text("橘猫！好可爱，它在干嘛呀？"))
    media_id = world.upload(VOICE)
    events = world.events({"media_id": media_id})
    assert [name for name, _ in events] == ["message", "done"]
    [said] = world.mine()
    assert said["content"] == f"[语音] {HEARD}"
    assert (said["media_id"], said["media_kind"]) == (media_id, "audio") and 2.5 <= said["duration_s"] <= 3.5
    record = world.record(media_id)
    assert (record.text, record.text_state, record.message_id) == (HEARD, "done", said["id"])
    assert world.last_prompt()[-1]["content"].endswith(f"[语音] {HEARD}")  # what the model answered
    [heard] = world.media_models.requests_to(TRANSCRIPTIONS)
    assert b"voice.ogg" in heard.body and VOICE[:64] in heard.body
    short_term = world.services.repo.short_term(world.pair)
    assert [m.content for m in short_term if m.role == "user"] == [f"[语音] {HEARD}"]
    assert world.kept() == (1, 1)


@pytest.mark.every_store
def test_a_photos_description_becomes_the_text_with_what_was_typed_beside_it(world: World) -> None:
    media_id = world.upload(picture())
    world.events({"content": "看我家猫", "media_id": media_id})
    [said] = world.mine()
    assert said["content"] == f"[图片：{SEEN}] 看我家猫" and said["media_kind"] == "image"
    assert said["duration_s"] is None
    [seen] = world.media_models.requests_to(VISION)
    parts = seen.json()["messages"][0]["content"]
    assert parts[1]["image_url"]["url"].startswith("data:image/jpeg;base64,")
    assert world.record(media_id).text == SEEN and not world.record(media_id).flagged


def test_save_message_carries_media_and_answers_with_the_stored_message(world: World) -> None:
    media_id = world.upload(VOICE)
    response = world.alice.post(f"/api/ai-users/{world.ai['id']}/save-message", json={"media_id": media_id})
    assert response.status_code == 201, response.text
    message = response.json()["message"]
    assert (message["content"], message["media_id"], message["media_kind"]) == (f"[语音] {HEARD}", media_id, "audio")
    assert world.chat_model.requests_for(CHAT_MODEL) == []  # no reply asked for
    assert world.record(media_id).message_id == message["id"]


# --- what may not be sent ---------------------------------------------------------------------------


@pytest.mark.every_store
def test_unknown_anothers_or_already_sent_media_is_refused_and_nothing_is_stored(world: World) -> None:
    bob = register(world.client, "bob")
    assert bob.post(f"/api/friends/{world.ai['id']}").status_code == 201
    his = world.upload(VOICE, person=bob)
    for unknown in ("md_nothing", his):
        response = world.chat({"media_id": unknown})
        assert response.status_code == 404 and response.json()["error"]["code"] == "not_found", response.text
    mine = world.upload(VOICE)
    save = f"/api/ai-users/{world.ai['id']}/save-message"
    assert world.alice.post(save, json={"media_id": his}).status_code == 404
    assert world.chat({"media_id": mine}).status_code == 200
    for again in (world.chat({"media_id": mine}), world.alice.post(save, json={"media_id": mine})):
        assert again.status_code == 409 and again.json()["error"]["code"] == "media_already_sent", again.text
    assert len(world.mine()) == 1
    for empty in ({}, {"content": None}, {"media_id": None}, {"media_id": ""}):
        assert world.chat(empty).status_code == 422
        assert world.alice.post(save, json=empty).status_code == 422
    assert len(world.mine()) == 1


def test_an_idempotent_retry_replays_the_first_answer_and_hears_once(world: World) -> None:
    media_id = world.upload(VOICE)
    first = world.chat({"media_id": media_id}, key="k-1")
    again = world.chat({"media_id": media_id}, key="k-1")
    assert first.status_code == again.status_code == 200, again.text
    assert parse_sse(again.text) == parse_sse(first.text)
    assert len(world.media_models.requests_to(TRANSCRIPTIONS)) == 1 and len(world.mine()) == 1


# --- safety -------------------------------------------------------------------------------------------


def escalations(world: World) -> list[dict]:
    if world.ops is None:
        world.ops = register(world.client, "ops")
    return list(world.ops.get("/api/admin/escalations").json()["escalations"])


def test_a_crisis_said_in_a_voice_note_is_checked_like_typed_words(world: World) -> None:
    world.media_models.script(TRANSCRIPTIONS, MediaReply(body={"text": CRISIS}))
    events = world.events({"media_id": world.upload(VOICE)})
    assert events[0][0] == "safety" and events[0][1]["kind"] == "crisis" and events[0][1]["resources"]
    assert [name for name, _ in events][-1] == "done" and events[-1][1]["replied"]
    [said] = world.mine()
    assert (said["content"], said["safety"]) == (f"[语音] {CRISIS}", "crisis")
    assert CRISIS_GUIDANCE in world.last_prompt()[-1]["content"]
    assert len(escalations(world)) == 1
    assert world.services.heartbeat_states.get(world.pair).checkin_at is not None


@pytest.mark.parametrize("concern", ["self_harm", "crisis"])
def test_a_photo_the_vision_role_flags_as_self_harm_starts_the_protocol(world: World, concern: str) -> None:
    world.media_models.script(VISION, MediaReply.seen("手腕上有几道划痕。", concern))
    events = world.events({"media_id": world.upload(picture())})
    assert events[0][0] == "safety" and events[-1][1]["replied"]
    [said] = world.mine()
    assert said["safety"] == "crisis" and said["content"] == "[图片：手腕上有几道划痕。]"
    assert world.record(said["media_id"]).flagged and world.record(said["media_id"]).concern == concern
    assert len(escalations(world)) == 1
    assert world.services.heartbeat_states.get(world.pair).checkin_at is not None


def test_pills_or_a_weapon_make_the_turn_careful_and_a_crisis_only_beside_distress(world: World) -> None:
    world.media_models.script(VISION, MediaReply.seen("桌上有一把菜刀。", "weapon"))
    events = world.events({"media_id": world.upload(picture())})
    assert "safety" not in [name for name, _ in events] and events[-1][1]["replied"]
    assert world.mine()[-1]["safety"] == "distress" and escalations(world) == []
    world.runtime.clock.advance(seconds=5)
    world.media_models.script(VISION, MediaReply.seen("一大把白色药片。", "pills"))
    events = world.events({"content": "我真的撑不下去了", "media_id": world.upload(picture())})
    assert events[0][0] == "safety" and world.mine()[-1]["safety"] == "crisis"


# --- a role that cannot answer: the placeholder, the media kept, honesty -----------------------------------


@pytest.mark.every_store
def test_without_a_speech_role_the_voice_note_is_kept_unheard_and_the_ai_says_so(
    runtime: Runtime,  # noqa: F811
    fake_llm: FakeLLMServer,
    media_server: FakeMediaServer,
) -> None:
    with world_of(runtime, fake_llm, media_server, speech_to_text_api_key=None) as world:
        media_id = world.upload(VOICE)
        events = world.events({"media_id": media_id})
        assert events[-1][1]["replied"]
        [said] = world.mine()
        assert said["content"] == "[语音（未转写）]" and said["media_id"] == media_id
        assert UNHEARD_GUIDANCE in world.last_prompt()[-1]["content"]
        record = world.record(media_id)
        assert (record.text_state, record.message_id) == ("owed", said["id"]) and world.kept() == (1, 1)
        assert world.media_models.requests == []
        # the model says nothing: the honest line from code, never 已读不回
        world.runtime.clock.advance(seconds=5)
        world.chat_model.script(CHAT_MODEL, Reply.text(""))
        events = world.events({"media_id": world.upload(VOICE)})
        assert [d["content"] for n, d in events if n == "message"] == [UNHEARD_REPLY]


def test_with_no_model_at_all_an_unheard_voice_note_gets_the_honest_line(
    runtime: Runtime,  # noqa: F811
    fake_llm: FakeLLMServer,
    media_server: FakeMediaServer,
) -> None:
    with world_of(runtime, fake_llm, media_server, chat=False, speech_to_text_api_key=None) as world:
        events = world.events({"media_id": world.upload(VOICE)})
        assert [d["content"] for n, d in events if n == "message"] == [UNHEARD_REPLY]
        assert world.mine()[0]["content"] == "[语音（未转写）]"


def test_a_failing_vision_role_leaves_an_unseen_photo_and_the_model_is_told(world: World) -> None:
    world.media_models.script(VISION, MediaReply.error(500))
    media_id = world.upload(picture())
    world.events({"content": "你看", "media_id": media_id})
    assert world.mine()[0]["content"] == "[图片：一张图片] 你看"
    assert UNSEEN_GUIDANCE in world.last_prompt()[-1]["content"]
    assert world.record(media_id).text_state == "owed"


def test_a_slow_speech_role_does_not_hold_the_turn_past_its_deadline(
    runtime: Runtime,  # noqa: F811
    fake_llm: FakeLLMServer,
    media_server: FakeMediaServer,
) -> None:
    # BM25 alone: a local embedding model loading on the first turn would eat the reply's share of the time
    turn = {"chat_turn_seconds": 10, "chat_reserve_seconds": 1, "llm_timeout_seconds": 30, "embedding_provider": "none"}
    with world_of(runtime, fake_llm, media_server, **turn) as world:
        media_server.script(TRANSCRIPTIONS, MediaReply(body={"text": HEARD}, delay=12))
        media_id = world.upload(VOICE)
        started = time.monotonic()
        events = world.events({"media_id": media_id})
        took = time.monotonic() - started
        assert 3.5 < took < 10, took  # the transcription had 40 % of the turn (4 s), the reply the rest
        assert events[-1][0] == "done" and world.mine()[0]["content"] == "[语音（未转写）]"
        assert world.record(media_id).text_state == "owed"


def test_past_the_accounts_speech_budget_the_words_are_owed_and_the_message_still_goes(
    runtime: Runtime,  # noqa: F811
    fake_llm: FakeLLMServer,
    media_server: FakeMediaServer,
) -> None:
    with world_of(runtime, fake_llm, media_server, speech_to_text_per_minute=1) as world:
        world.events({"media_id": world.upload(VOICE)})
        world.runtime.clock.advance(seconds=1)
        media_server.script(TRANSCRIPTIONS, MediaReply(body={"text": CRISIS}))  # never asked for: over budget
        second = world.upload(VOICE)
        world.events({"media_id": second})
        assert [m["content"] for m in world.mine()] == [f"[语音] {HEARD}", "[语音（未转写）]"]
        assert len(media_server.requests_to(TRANSCRIPTIONS)) == 1
        assert world.record(second).text_state == "owed"
        # a crisis in what was typed beside it is still checked
        world.runtime.clock.advance(seconds=1)
        events = world.events({"content": CRISIS, "media_id": world.upload(VOICE)})
        assert events[0][0] == "safety" and world.mine()[-1]["safety"] == "crisis"


# --- the chat model sees the photo itself only when it reads images ---------------------------------


@pytest.mark.parametrize("accepts", [True, False])
def test_the_photo_goes_to_the_chat_model_only_when_it_reads_images(
    runtime: Runtime,  # noqa: F811
    fake_llm: FakeLLMServer,
    media_server: FakeMediaServer,
    accepts: bool,
) -> None:
    with world_of(runtime, fake_llm, media_server, chat_accepts_images=accepts) as world:
        world.events({"media_id": world.upload(picture())})
        world.runtime.clock.advance(seconds=5)
        world.events({"content": "它叫橘子"})
        first, second = (r.messages for r in fake_llm.requests_for(CHAT_MODEL))
        if accepts:
            text, image = first[-1]["content"]
            assert text["type"] == "text" and text["text"].endswith(f"[图片：{SEEN}]")
            assert image["image_url"]["url"].startswith("data:image/jpeg;base64,")
        else:
            assert isinstance(first[-1]["content"], str) and first[-1]["content"].endswith(f"[图片：{SEEN}]")
        assert all(isinstance(m["content"], str) for m in second)  # history goes as words


def test_an_unseen_photo_shown_to_a_model_that_reads_images_is_not_called_unseen(
    runtime: Runtime,  # noqa: F811
    fake_llm: FakeLLMServer,
    media_server: FakeMediaServer,
) -> None:
    with world_of(runtime, fake_llm, media_server, chat_accepts_images=True, vision_api_key=None) as world:
        world.events({"media_id": world.upload(picture())})
        text, image = world.last_prompt()[-1]["content"]
        assert UNSEEN_GUIDANCE not in text["text"] and image["type"] == "image_url"


# --- edit, erasure, export --------------------------------------------------------------------------


def test_an_edit_changes_the_typed_words_and_keeps_the_voice_note(world: World) -> None:
    media_id = world.upload(VOICE)
    world.events({"content": "听听", "media_id": media_id})
    [said] = world.mine()
    response = world.alice.put(f"/api/ai-users/{world.ai['id']}/messages/{said['id']}", json={"content": "你听听这个"})
    assert response.status_code == 200, response.text
    [edited] = world.mine()
    assert edited["content"] == f"[语音] {HEARD} 你听听这个" and edited["media_id"] == media_id
    assert world.record(media_id).message_id == edited["id"] and len(world.media_models.requests) == 1
    refused = world.alice.put(
        f"/api/ai-users/{world.ai['id']}/messages/{edited['id']}", json={"content": "x", "media_id": media_id}
    )
    assert refused.status_code == 422


@pytest.mark.every_store
def test_deleting_the_message_erases_its_media_record_and_bytes(world: World) -> None:
    kept = world.upload(picture())
    media_id = world.upload(VOICE)
    world.events({"media_id": media_id})
    [said] = world.mine()
    assert world.kept() == (2, 2)
    assert world.alice.delete(f"/api/ai-users/{world.ai['id']}/messages/{said['id']}").status_code == 200
    assert world.kept() == (1, 1) and served(world.alice, media_id).status_code == 404
    assert served(world.alice, kept).status_code == 200  # locally the bytes; with S3 the presigned GET's


@pytest.mark.every_store
def test_the_account_export_lists_the_sent_media_with_its_words_and_message(world: World) -> None:
    media_id = world.upload(VOICE)
    world.events({"media_id": media_id})
    [said] = world.mine()
    (friend,) = world.alice.get("/api/auth/user/export").json()["friends"]
    [listed] = friend["media"]
    assert (listed["id"], listed["text"], listed["text_state"], listed["message_id"]) == (
        media_id,
        HEARD,
        "done",
        said["id"],
    )


# --- owed words redone when the role is back --------------------------------------------------------


@pytest.mark.every_store
def test_words_owed_while_the_role_was_down_are_redone_by_the_healing_sweep(world: World) -> None:
    world.media_models.script(TRANSCRIPTIONS, MediaReply.error(503))
    media_id = world.upload(VOICE)
    world.events({"content": "路上录的", "media_id": media_id})
    assert world.mine()[0]["content"] == "[语音（未转写）] 路上录的"
    assert world.services.healing.owed_by(world.pair) == 1
    swept = world.services.extraction.sweep()  # the role answers again: the hourly sweep sends the pair
    assert (swept.healing, swept.owed) == (1, 1)
    world.runtime.bus.drain()  # its worker heals, then extracts
    world.runtime.bus.join()
    [said] = world.mine()
    assert said["content"] == f"[语音] {HEARD} 路上录的" and said["safety"] is None
    short_term = world.services.repo.short_term(world.pair)
    assert [m.content for m in short_term if m.role == "user"] == [said["content"]]
    assert world.record(media_id).text_state == "done" and world.services.healing.owed_by(world.pair) == 0
    assert world.services.healing.heal(world.pair, force=True) == []  # paid: nothing is redone twice


def test_a_topic_summarised_while_a_photo_was_unseen_is_summarised_again_with_what_it_shows(world: World) -> None:
    """The words come back after the topic was compressed from "一张图片": its summary is owed again and made
    from the log, so the memory holds the cat, not a picture."""
    tags = {"basic_emotion": "开心", "scene": "闲聊", "atmosphere": "轻松"}
    world.media_models.script(VISION, MediaReply.error(500))
    world.chat_model.script(
        "qwen-plus", Reply.json({"summary": "对方发来一张图片，说是家里的猫", "emotion_tags": tags})
    )
    world.events({"content": "看我家猫", "media_id": world.upload(picture())})
    world.events({"content": "拜拜"})  # a farewell ends the topic: it is compressed from the placeholder
    world.runtime.bus.drain()
    world.runtime.bus.join()
    compressed = world.chat_model.requests_for("qwen-plus")
    assert compressed and "一张图片" in json.dumps(compressed[-1].body, ensure_ascii=False)
    asked = len(compressed)
    assert world.services.healing.owed_by(world.pair) == 1  # only the words: the summary was made
    world.chat_model.script(
        "qwen-plus", Reply.json({"summary": "对方给我看了家里的橘猫在窗台晒太阳", "emotion_tags": tags})
    )
    assert [h.outcome for h in world.services.healing.heal(world.pair, force=True)][0] == "healed"  # the words
    world.services.healing.heal(world.pair, force=True)  # the summary owed again, redone from the log
    again = world.chat_model.requests_for("qwen-plus")[asked:]
    assert again and SEEN in json.dumps(again[0].body, ensure_ascii=False)
    assert world.services.healing.owed_by(world.pair) == 0
    [mid] = world.alice.get(f"/api/memory/{world.ai['id']}/files").json()["mid_term"]
    assert "橘猫" in mid["summary"]


def test_owed_words_stay_owed_while_the_role_is_still_down(world: World) -> None:
    world.media_models.script(VISION, MediaReply.error(500), MediaReply.error(500))
    media_id = world.upload(picture())
    world.events({"media_id": media_id})
    assert [h.outcome for h in world.services.healing.heal(world.pair, force=True)] == ["degraded"]
    assert world.mine()[0]["content"] == "[图片：一张图片]" and world.services.healing.owed_by(world.pair) == 1


def test_a_crisis_heard_late_starts_the_protocol(world: World) -> None:
    world.media_models.script(TRANSCRIPTIONS, MediaReply.error(503), MediaReply(body={"text": CRISIS}))
    world.events({"media_id": world.upload(VOICE)})
    assert world.mine()[0]["safety"] is None and escalations(world) == []
    assert world.services.heartbeat_states.get(world.pair).checkin_at is None
    world.services.healing.heal(world.pair, force=True)
    [said] = world.mine()
    assert (said["content"], said["safety"]) == (f"[语音] {CRISIS}", "crisis")
    assert len(escalations(world)) == 1
    assert world.services.heartbeat_states.get(world.pair).checkin_at is not None


def test_past_the_model_budget_a_crisis_heard_is_still_answered_and_anything_else_is_429(
    runtime: Runtime,  # noqa: F811
    fake_llm: FakeLLMServer,
    media_server: FakeMediaServer,
) -> None:
    with world_of(runtime, fake_llm, media_server, model_calls_per_minute=1) as world:
        world.events({"content": "你好"})  # the account's one model call this minute
        world.runtime.clock.advance(seconds=1)
        everyday = world.upload(VOICE)
        refused = world.chat({"media_id": everyday})
        assert refused.status_code == 429, refused.text
        assert world.record(everyday).message_id is None and len(world.mine()) == 1  # not sent: send it again
        media_server.script(TRANSCRIPTIONS, MediaReply(body={"text": CRISIS}))
        events = world.events({"media_id": world.upload(VOICE)})
        assert events[0][0] == "safety" and events[-1][1]["replied"]  # words of care without the model
        assert world.mine()[-1]["safety"] == "crisis" and len(fake_llm.requests_for(CHAT_MODEL)) == 1
