"""The AI answers with its voice (issue 41), through the API, with the fake chat model and a fake speech server on
127.0.0.1: an AI user whose owner chose `voice_replies` "always" (or "sometimes", a seeded draw) answers with one
voice message — its lines spoken as one text, kept in the pair, served to its person, shown in the history — and
in text whenever speaking cannot or must not happen: never chosen, the role down or slow, the account's budget
spent, distress or a crisis, minors' mode. A heartbeat may be a voice note. Forgetting the friend and deleting
the account erase the voice, on every store; the account export lists it."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import SecretStr

from dreamchat import keys
from dreamchat.api.app import create_app
from dreamchat.budget import Deadline
from dreamchat.config import Settings
from dreamchat.domain.models import PairId
from dreamchat.domain.voice import VOICE_MAX_CHARS, VOICE_SHARE
from dreamchat.services.voice import Voice
from dreamchat.wiring import Runtime
from tests.api.conftest import Person, register
from tests.api.sse import parse_sse
from tests.api.test_chat import CHAT_MODEL, DISCLOSURE
from tests.api.test_media_upload import served
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.fakes.fake_media import SPEECH, VOICE, FakeMediaServer, MediaReply
from tests.fakes.fake_push import FakePushService
from tests.services.conftest import runtime  # noqa: F401 (the fixture: memory, or every store)

CRISIS = "我今晚就准备自杀"
DISTRESS = "最近好难过，一直想哭"
TWO_LINES = "早呀~\n今天也要好好吃饭哦"
SPOKEN = "早呀~ 今天也要好好吃饭哦"  # the lines as one text


@dataclass
class World:
    app: FastAPI
    client: TestClient
    runtime: Runtime
    alice: Person
    ai: dict
    model: FakeLLMServer
    speech: FakeMediaServer

    def chat(self, content: str, person: Person | None = None) -> list[tuple[str, dict]]:
        response = (person or self.alice).post(f"/api/ai-users/{self.ai['id']}/chat", json={"content": content})
        assert response.status_code == 200, response.text
        return [event for event in parse_sse(response.text) if event != ("notice", DISCLOSURE)]

    def said(self, reply: str, content: str = "早上好呀？", person: Person | None = None) -> list[dict]:
        """The AI's `message` events for one turn whose model answers `reply`."""
        self.model.script(CHAT_MODEL, Reply.text(reply))
        return [data for name, data in self.chat(content, person) if name == "message"]

    def history(self, person: Person | None = None) -> list[dict]:
        return (person or self.alice).get(f"/api/ai-users/{self.ai['id']}/messages").json()["messages"]

    def voice(self, **fields) -> dict:
        response = self.alice.put(f"/api/ai-users/{self.ai['id']}", json=fields)
        assert response.status_code == 200, response.text
        return response.json()

    def kept(self, account_id: str | None = None) -> tuple[int, int]:
        """(media records, media blobs) of a pair with the AI user: alice's unless named."""
        pair = PairId(account_id=account_id or self.alice.id, ai_user_id=self.ai["id"])
        records = [i for i in self.runtime.store.query(keys.media_pk(pair)).items if i["sk"].startswith("MEDIA#")]
        blobs = [k for k in self.runtime.blobs.list(keys.pair_blob_prefix(pair)) if "/media/" in k]
        return len(records), len(blobs)


@contextmanager
def world_of(base: Runtime, model: FakeLLMServer, speech: FakeMediaServer, **settings) -> Iterator[World]:
    changed = base.settings.model_copy(
        update={
            "llm_base_url": model.base_url,
            "llm_api_key": SecretStr("test-key"),
            "llm_timeout_seconds": 2,
            "llm_max_retries": 0,
            "text_to_speech_base_url": speech.base_url,
            "text_to_speech_api_key": SecretStr("speech-key"),
            "reply_decision": "model",  # every message answered: the test is of how, not whether
            "max_delay_seconds": 30,
            "access_token_minutes": 60 * 24 * 365,
            "starters": False,
            **settings,
        }
    )
    app = create_app(changed, dataclasses.replace(base, settings=changed))
    with TestClient(app) as client:
        alice = register(client, "alice")
        ai = alice.create_ai_user(name="小梦", visibility="public", voice="nova", voice_replies="always")
        yield World(app, client, base, alice, ai, model, speech)


@pytest.fixture
def speech() -> Iterator[FakeMediaServer]:
    with FakeMediaServer() as server:
        yield server


@pytest.fixture
def world(runtime: Runtime, fake_llm: FakeLLMServer, speech: FakeMediaServer) -> Iterator[World]:  # noqa: F811
    with world_of(runtime, fake_llm, speech) as built:
        yield built


def is_voice(message: dict) -> bool:
    return message.get("media_id") is not None


# --- always: one voice message ---------------------------------------------------------------------------------


def test_an_ai_user_that_always_speaks_answers_with_one_voice_message_served_and_in_the_history(world: World) -> None:
    [said] = world.said(TWO_LINES)
    assert said["content"] == SPOKEN and said["media_kind"] == "audio" and said["duration_s"] == pytest.approx(3.1)
    assert 0.5 * len(SPOKEN) * 1000 <= said["delay_ms"] <= 1.2 * len(SPOKEN) * 1000  # the spec's formula on the text
    (asked,) = world.speech.requests_to(SPEECH)
    assert asked.json() | {"model": "-"} == {"model": "-", "voice": "nova", "input": SPOKEN, "response_format": "mp3"}
    served = world.alice.get(f"/api/media/{said['media_id']}")
    assert served.status_code == 200 and served.content == VOICE and served.headers["content-type"] == "audio/mpeg"
    reply = world.history()[-1]
    assert (reply["role"], reply["id"], reply["content"]) == ("assistant", said["message_id"], SPOKEN)
    assert (reply["media_id"], reply["media_kind"], reply["duration_s"]) == (said["media_id"], "audio", 3.1)
    assert world.kept() == (1, 1)


def test_the_voice_record_is_the_ais_with_its_text_and_names_its_message(world: World) -> None:
    [said] = world.said("晚安，做个好梦")
    pair = PairId(account_id=world.alice.id, ai_user_id=world.ai["id"])
    [media] = world.app.state.services.media.of_pair(pair)
    assert (media.id, media.by, media.kind, media.content_type) == (said["media_id"], "ai", "audio", "audio/mpeg")
    assert (media.text, media.text_state, media.message_id, media.size) == (
        "晚安，做个好梦",
        "done",
        said["message_id"],
        len(VOICE),
    )


def test_an_ai_user_without_its_own_voice_speaks_in_the_operators_default(world: World) -> None:
    assert world.voice(voice=None)["voice"] is None
    world.said("在呢")
    assert world.speech.requests_to(SPEECH)[0].json()["voice"] == "alloy"


def test_nobody_else_hears_the_ais_voice(world: World) -> None:
    [said] = world.said("嗯嗯")
    bob = register(world.client, "bob")
    assert bob.get(f"/api/media/{said['media_id']}").status_code == 404
    assert bob.post(f"/api/friends/{world.ai['id']}").status_code == 201  # a friend too, in a pair of its own
    assert bob.get(f"/api/media/{said['media_id']}").status_code == 404


def test_the_ais_voice_is_never_the_persons_to_send(world: World) -> None:
    pair, ai_user = world.app.state.services.ai_users.companion(world.alice.id, world.ai["id"])
    kept = world.app.state.services.chat.speaker.voice.spoken(pair, Voice(ai_user, Deadline.after(10)), "早呀")
    assert kept is not None and kept.message_id is None  # kept, its message not stored (a crash between)
    response = world.alice.post(f"/api/ai-users/{world.ai['id']}/chat", json={"media_id": kept.id})
    assert response.status_code == 404, response.text


# --- never, sometimes ------------------------------------------------------------------------------------------


def test_an_ai_user_that_never_speaks_answers_in_text(world: World) -> None:
    assert world.voice(voice_replies="never")["voice_replies"] == "never"
    said = world.said(TWO_LINES)
    assert [m["content"] for m in said] == ["早呀~", "今天也要好好吃饭哦"] and not any(map(is_voice, said))
    assert world.speech.requests_to(SPEECH) == [] and world.kept() == (0, 0)


def test_a_new_ai_user_never_speaks_unless_its_owner_says_so(world: World) -> None:
    plain = world.alice.create_ai_user(name="阿青")
    assert (plain["voice"], plain["voice_replies"]) == (None, "never")


def test_an_ai_user_that_sometimes_speaks_answers_both_ways_over_seeded_draws(world: World) -> None:
    world.voice(voice_replies="sometimes")
    turns = 30
    spoken = sum(is_voice(m) for _ in range(turns) for m in world.said("好呀\n那我们明天见？", "明天见吗？"))
    assert world.kept() == (spoken, spoken) and len(world.speech.requests_to(SPEECH)) == spoken
    assert 0 < spoken < turns
    assert abs(spoken / turns - VOICE_SHARE) < 0.25  # near the documented share, for the seed


# --- text whenever speaking cannot or must not happen ---------------------------------------------------------


def test_a_speech_role_that_fails_leaves_the_reply_in_text(world: World) -> None:
    world.speech.script(SPEECH, MediaReply.error(500))
    said = world.said(TWO_LINES)
    assert [m["content"] for m in said] == ["早呀~", "今天也要好好吃饭哦"] and not any(map(is_voice, said))
    assert world.kept() == (0, 0) and [m["role"] for m in world.history()] == ["user", "assistant", "assistant"]


def test_bytes_that_are_no_mp3_leave_the_reply_in_text(world: World) -> None:
    world.speech.script(SPEECH, MediaReply(raw=b"<html>not audio</html>"))
    assert not any(map(is_voice, world.said("好的")))
    assert world.kept() == (0, 0)


def test_a_text_too_long_to_be_one_voice_message_goes_as_text(world: World) -> None:
    said = world.said("好" * (VOICE_MAX_CHARS + 1))
    assert not any(map(is_voice, said)) and world.speech.requests_to(SPEECH) == []


def test_a_slow_speech_role_leaves_the_reply_in_text_within_the_turns_deadline(
    runtime: Runtime,  # noqa: F811
    fake_llm: FakeLLMServer,
    speech: FakeMediaServer,
) -> None:
    turn = 8.0  # the only bound on the speech call: its own timeout is a minute
    bounds = {"chat_turn_seconds": turn, "chat_reserve_seconds": 0.5, "llm_timeout_seconds": 60}
    with world_of(runtime, fake_llm, speech, **bounds) as world:
        assert is_voice(world.said("在呢")[0])  # the first turn's one-time costs paid
        world.speech.script(SPEECH, MediaReply(raw=VOICE, delay=30))
        world.model.script(CHAT_MODEL, Reply.text(TWO_LINES))
        started = time.monotonic()
        events = world.chat("早上好呀？")
        took = time.monotonic() - started
    said = [data for name, data in events if name == "message"]
    assert events[-1][0] == "done", events
    assert [m["content"] for m in said] == ["早呀~", "今天也要好好吃饭哦"] and not any(map(is_voice, said))
    assert took < turn, took


def test_beyond_the_accounts_voice_budget_the_replies_are_text(
    runtime: Runtime,  # noqa: F811
    fake_llm: FakeLLMServer,
    speech: FakeMediaServer,
) -> None:
    with world_of(runtime, fake_llm, speech, text_to_speech_per_minute=2) as world:
        kinds = [is_voice(m) for _ in range(4) for m in world.said("在的")]
        assert kinds == [True, True, False, False]
        world.runtime.clock.advance(seconds=60)
        assert is_voice(world.said("在的")[0])


def test_a_crisis_is_answered_in_text_with_the_help_lines(world: World) -> None:
    world.model.script(CHAT_MODEL, Reply.text("我在这里陪着你。\n你现在安全吗？"))
    events = world.chat(CRISIS)
    assert "safety" in [name for name, _ in events]
    said = [data for name, data in events if name == "message"]
    assert said and not any(map(is_voice, said))
    assert not any(map(is_voice, world.said("谢谢你愿意告诉我", "我还是很难受")))  # the rest of the topic too
    assert world.speech.requests_to(SPEECH) == []


def test_distress_is_answered_in_text(world: World) -> None:
    said = world.said("抱抱你，想说说发生了什么吗？", DISTRESS)
    assert said and not any(map(is_voice, said)) and world.speech.requests_to(SPEECH) == []


def test_the_words_of_care_written_when_the_model_fails_are_text(world: World) -> None:
    world.model.script(CHAT_MODEL, Reply.error(500))
    said = [data for name, data in world.chat(CRISIS) if name == "message"]
    assert said and not any(map(is_voice, said)) and world.speech.requests_to(SPEECH) == []


def test_without_a_chat_model_the_offline_reply_is_text(
    runtime: Runtime,  # noqa: F811
    fake_llm: FakeLLMServer,
    speech: FakeMediaServer,
) -> None:
    with world_of(runtime, fake_llm, speech, llm_api_key=None) as world:
        said = [data for name, data in world.chat("在吗？") if name == "message"]
        assert said and not any(map(is_voice, said)) and world.speech.requests_to(SPEECH) == []


def test_an_honest_i_cannot_listen_now_written_by_the_server_is_text(world: World) -> None:
    """No speech-to-text role here: the person's voice note stays unheard, and when the model says nothing the
    server's own words answer it, in text (a model that answers is spoken as any reply)."""
    files = {"file": ("v.mp3", VOICE, "application/octet-stream")}
    media_id = world.alice.post(f"/api/ai-users/{world.ai['id']}/media", files=files).json()["media_id"]
    world.model.script(CHAT_MODEL, Reply.text(""))
    response = world.alice.post(f"/api/ai-users/{world.ai['id']}/chat", json={"media_id": media_id})
    said = [data for name, data in parse_sse(response.text) if name == "message"]
    assert said and not any(map(is_voice, said)) and world.speech.requests_to(SPEECH) == []


def test_a_person_in_minors_mode_is_answered_in_text(world: World) -> None:
    response = world.alice.put("/api/profile/protection", json={"minor_mode": True})
    assert response.status_code == 200, response.text
    said = world.said("好呀")
    assert said and not any(map(is_voice, said)) and world.speech.requests_to(SPEECH) == []


def test_a_voice_answer_asked_for_anew_is_spoken_and_an_earlier_one_shown_again_is_its_text(world: World) -> None:
    [first] = world.said(TWO_LINES)
    world.model.script(CHAT_MODEL, Reply.text("换个说法：早安！"))
    again = world.alice.post(f"/api/ai-users/{world.ai['id']}/messages/{first['message_id']}/regenerate")
    [new] = [data for name, data in parse_sse(again.text) if name == "message"]
    assert new["content"] == "换个说法：早安！" and new["media_id"] not in (None, first["media_id"])
    path = f"/api/ai-users/{world.ai['id']}/messages/{new['message_id']}/alternative"
    shown = world.alice.put(path, json={"index": 0}).json()
    assert (shown["content"], shown["media_id"], shown["duration_s"]) == (SPOKEN, None, None)
    assert world.history()[-1]["media_id"] is None


# --- heartbeats -----------------------------------------------------------------------------------------------


def test_a_heartbeat_may_be_a_voice_note(world: World) -> None:
    world.said("在呢")
    world.model.script(CHAT_MODEL, Reply.text("想你啦\n今天忙吗"))
    result = world.alice.post(f"/api/heartbeat/trigger/{world.ai['id']}").json()
    assert result["status"] == "sent"
    [note] = result["messages"]
    assert (note["kind"], note["content"], note["media_kind"]) == ("heartbeat", "想你啦 今天忙吗", "audio")
    assert note["duration_s"] == pytest.approx(3.1)
    assert world.alice.get(f"/api/media/{note['media_id']}").content == VOICE
    assert world.history()[-1]["media_id"] == note["media_id"]


def test_a_voice_reply_and_heartbeat_are_pushed_as_voice_messages_with_their_words(
    runtime: Runtime,  # noqa: F811
    fake_llm: FakeLLMServer,
    speech: FakeMediaServer,
) -> None:
    with FakePushService() as push_service:
        allowed = [*Settings().push_allowed_endpoints, push_service.prefix]
        with world_of(runtime, fake_llm, speech, push_allowed_endpoints=allowed) as world:
            push_service.server_key = world.app.state.services.push.public_key()
            assert world.alice.post("/api/push/subscriptions", json=push_service.device().subscription).is_success
            world.said("在呢")
            world.model.script(CHAT_MODEL, Reply.text("想你啦\n今天忙吗"))
            assert world.alice.post(f"/api/heartbeat/trigger/{world.ai['id']}").json()["messages"][0]["media_id"]
        reply, beat = push_service.received  # nobody had the chat open: the reply, then the heartbeat
    assert (reply.payload["body"], beat.payload["body"]) == ("[语音] 在呢", "[语音] 想你啦 今天忙吗")
    assert push_service.problems == []


def test_a_heartbeat_whose_voice_fails_is_sent_in_text(world: World) -> None:
    world.said("在呢")
    world.speech.script(SPEECH, MediaReply.error(503))
    world.model.script(CHAT_MODEL, Reply.text("想你啦"))
    result = world.alice.post(f"/api/heartbeat/trigger/{world.ai['id']}").json()
    assert [(m["content"], m["media_id"]) for m in result["messages"]] == [("想你啦", None)]


# --- the owner's settings -------------------------------------------------------------------------------------


def test_the_owner_sets_and_clears_the_voice_and_when_it_is_used(world: World) -> None:
    assert (world.ai["voice"], world.ai["voice_replies"]) == ("nova", "always")
    changed = world.voice(voice="zh-CN-XiaoxiaoNeural", voice_replies="sometimes")
    assert (changed["voice"], changed["voice_replies"]) == ("zh-CN-XiaoxiaoNeural", "sometimes")
    assert world.voice(name="小梦梦")["voice"] == "zh-CN-XiaoxiaoNeural"  # a change that does not name it keeps it
    assert world.voice(voice=None)["voice"] is None  # null: the default voice
    shown = world.alice.get(f"/api/ai-users/{world.ai['id']}").json()
    assert (shown["voice"], shown["voice_replies"]) == (None, "sometimes")


@pytest.mark.parametrize(
    "fields",
    [
        {"voice_replies": "often"},
        {"voice_replies": None, "name": ""},
        {"voice": ""},
        {"voice": "a voice"},
        {"voice": "声音"},
        {"voice": "-dash-first"},
        {"voice": "v" * 65},
        {"voice": 7},
    ],
)
def test_a_bad_voice_or_voice_replies_is_422(world: World, fields: dict) -> None:
    assert world.alice.put(f"/api/ai-users/{world.ai['id']}", json=fields).status_code == 422
    created = world.alice.post("/api/ai-users", json={"name": "阿青", **fields})
    assert created.status_code == 422
    assert world.alice.get(f"/api/ai-users/{world.ai['id']}").json()["voice"] == "nova"


def test_only_the_owner_chooses_the_voice(world: World) -> None:
    bob = register(world.client, "bob")
    assert bob.put(f"/api/ai-users/{world.ai['id']}", json={"voice_replies": "never"}).status_code == 403


def test_a_card_keeps_the_voice_and_a_card_without_it_never_speaks(world: World) -> None:
    card = world.alice.get(f"/api/ai-users/{world.ai['id']}/card").json()
    ours = card["data"]["extensions"]["dreamchat"]
    assert (ours["voice"], ours["voice_replies"]) == ("nova", "always")
    imported = world.alice.post("/api/ai-users/import", files={"file": ("c.json", _json(card), "application/json")})
    assert imported.status_code == 201, imported.text
    assert (imported.json()["voice"], imported.json()["voice_replies"]) == ("nova", "always")
    del ours["voice"], ours["voice_replies"]
    plain = world.alice.post("/api/ai-users/import", files={"file": ("c.json", _json(card), "application/json")})
    assert (plain.json()["voice"], plain.json()["voice_replies"]) == (None, "never")
    ours["voice_replies"] = "loud"
    bad = world.alice.post("/api/ai-users/import", files={"file": ("c.json", _json(card), "application/json")})
    assert bad.status_code == 422 and "voice_replies" in bad.json()["error"]["message"]


def _json(card: dict) -> bytes:
    return json.dumps(card, ensure_ascii=False).encode()


# --- erased with the pair and the account; exported -----------------------------------------------------------


def test_deleting_a_voice_message_erases_its_voice(world: World) -> None:
    [said] = world.said("嗯嗯")
    assert world.kept() == (1, 1)
    assert world.alice.delete(f"/api/ai-users/{world.ai['id']}/messages/{said['message_id']}").status_code == 200
    assert world.kept() == (0, 0) and world.alice.get(f"/api/media/{said['media_id']}").status_code == 404


@pytest.mark.every_store
def test_forgetting_the_friend_erases_the_ais_voice(world: World) -> None:
    bob = register(world.client, "bob")
    assert bob.post(f"/api/friends/{world.ai['id']}").status_code == 201
    [theirs] = world.said("嗯嗯", person=bob)
    [mine] = world.said("嗯嗯")
    assert world.kept(bob.id) == (1, 1) and world.kept() == (1, 1)
    assert bob.delete(f"/api/friends/{world.ai['id']}", params={"forget": "true"}).status_code == 200
    assert world.kept(bob.id) == (0, 0)
    assert bob.get(f"/api/media/{theirs['media_id']}").status_code == 404
    kept = served(world.alice, mine["media_id"])  # in S3, through the presigned link the route redirects to
    assert (kept.status_code, kept.content, kept.content_type) == (200, VOICE, "audio/mpeg") and world.kept() == (1, 1)


@pytest.mark.every_store
def test_deleting_the_account_erases_the_ais_voice(world: World) -> None:
    bob = register(world.client, "bob")
    assert bob.post(f"/api/friends/{world.ai['id']}").status_code == 201
    world.said("嗯嗯", person=bob)
    world.said("嗯嗯")
    assert bob.delete("/api/auth/user").status_code == 200
    assert world.kept(bob.id) == (0, 0) and world.kept() == (1, 1)
    assert world.alice.delete("/api/auth/user").status_code == 200
    assert world.kept() == (0, 0)
    assert not [key for key in world.runtime.blobs.list("") if "/media/" in key]


@pytest.mark.every_store
def test_the_account_export_lists_the_ais_voice_messages(world: World) -> None:
    [said] = world.said(TWO_LINES)
    exported = world.alice.get("/api/auth/user/export")
    assert exported.status_code == 200, exported.text
    (friend,) = exported.json()["friends"]
    [listed] = friend["media"]
    assert (listed["id"], listed["by"], listed["kind"], listed["text"]) == (said["media_id"], "ai", "audio", SPOKEN)
    assert listed["message_id"] == said["message_id"] and listed["size"] == len(VOICE) and "data" not in listed
