# ruff: noqa: F811 (the fixtures of test_voice_replies, imported by name)
"""Attacks on the AI's voice replies (issue 41): a speech endpoint that answers too much, the wrong thing, too
little or nothing at all; markers in the spoken text; the pair erased while a heartbeat is spoken; odd voices;
a voice reply regenerated or deleted; minors' mode and a crisis. Whatever happens the reply arrives, in time,
and nothing is left behind that the person cannot see or that was erased."""

from __future__ import annotations

import threading
import time

import pytest

from dreamchat import keys
from dreamchat.domain.models import PairId
from dreamchat.wiring import Runtime
from tests.api.conftest import register
from tests.api.sse import parse_sse
from tests.api.test_chat import CHAT_MODEL
from tests.api.test_voice_replies import TWO_LINES, World, is_voice, speech, world, world_of  # noqa: F401
from tests.fakes.fake_llm import FakeLLMServer, Reply
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


def test_a_body_that_trickles_in_past_the_turns_deadline_leaves_the_reply_in_text(
    runtime: Runtime,
    fake_llm: FakeLLMServer,
    speech: FakeMediaServer,
) -> None:
    """Each piece comes well within the read timeout; only the deadline bounds the whole body (read between
    pieces: it may overrun by one gap, here within the turn's reserve)."""
    turn = 6.0
    bounds = {"chat_turn_seconds": turn, "chat_reserve_seconds": 0.5, "llm_timeout_seconds": 60}
    with world_of(runtime, fake_llm, speech, **bounds) as world:
        assert is_voice(world.said("在呢")[0])  # the first turn's one-time costs paid
        world.speech.script(SPEECH, MediaReply(raw=VOICE * 12, drip=0.25))  # 37 pieces, 9 s
        started = time.monotonic()
        assert texted(world) == AS_TEXT
        took = time.monotonic() - started
        assert world.kept() == (1, 1)  # the first turn's only
    assert took < turn, took


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


# --- what is spoken is what is shown ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        "早呀~ [TOPIC_ENDED]\n今天也要好好吃饭哦",
        "[TOPIC_SWITCH]早呀~\n今天也要好好吃饭哦",
        "早呀~\n今天也要好好吃饭哦 [NEXT_HEARTBEAT_HOURS:3]",
        "早呀~\nHEARTBEAT_OK\n今天也要好好吃饭哦",
    ],
)
def test_a_voice_reply_says_the_cleaned_text_the_person_sees(world: World, reply: str) -> None:
    [said] = world.said(reply)
    (asked,) = world.speech.requests_to(SPEECH)
    assert is_voice(said) and asked.json()["input"] == said["content"] == "早呀~ 今天也要好好吃饭哦"


def test_a_heartbeat_voice_says_the_cleaned_text(world: World) -> None:
    world.said("在呢")
    world.model.script(CHAT_MODEL, Reply.text("[NEXT_HEARTBEAT_HOURS:5]想你啦\n今天忙吗 [TOPIC_ENDED]"))
    [note] = world.alice.post(f"/api/heartbeat/trigger/{world.ai['id']}").json()["messages"]
    assert world.speech.requests_to(SPEECH)[-1].json()["input"] == note["content"] == "想你啦 今天忙吗"


@pytest.mark.parametrize("marker", ["[CRISIS]", "【crisis】", "[ Crisis ]"])
def test_a_reply_the_model_marks_as_a_crisis_is_never_spoken(world: World, marker: str) -> None:
    said = world.said(f"{marker}我在这里陪着你。\n你现在安全吗？", "我不想活了吧也许")
    assert said and not any(map(is_voice, said)) and world.speech.requests_to(SPEECH) == []
    assert all("risis" not in m["content"] and "【" not in m["content"] for m in said)


def test_a_heartbeat_the_model_marks_as_a_crisis_is_never_spoken(world: World) -> None:
    world.said("在呢")
    world.model.script(CHAT_MODEL, Reply.text("[CRISIS]你还好吗？我有点担心你"))
    result = world.alice.post(f"/api/heartbeat/trigger/{world.ai['id']}").json()
    assert all(m["media_id"] is None and "CRISIS" not in m["content"] for m in result["messages"]), result
    assert len(world.speech.requests_to(SPEECH)) == 1  # the first turn's only


def test_a_heartbeat_to_a_person_in_minors_mode_or_a_crisis_is_never_spoken(world: World) -> None:
    world.said("在呢")
    assert world.alice.put("/api/profile/protection", json={"minor_mode": True}).status_code == 200
    world.model.script(CHAT_MODEL, Reply.text("想你啦"))
    minor = world.alice.post(f"/api/heartbeat/trigger/{world.ai['id']}").json()
    assert [m["media_id"] for m in minor["messages"]] == [None], minor
    assert world.alice.put("/api/profile/protection", json={"minor_mode": False}).status_code == 200
    world.model.script(CHAT_MODEL, Reply.text("我在这里陪着你。"))
    world.chat("我今晚就准备自杀")
    world.model.script(CHAT_MODEL, Reply.text("你现在还好吗？"))
    crisis = world.alice.post(f"/api/heartbeat/trigger/{world.ai['id']}").json()
    assert all(m["media_id"] is None for m in crisis["messages"]), crisis
    assert len(world.speech.requests_to(SPEECH)) == 1  # the first turn's only


# --- erased while a heartbeat is being spoken ------------------------------------------------------------------


def _left(world: World, account_id: str) -> list[str]:
    """Whatever is still stored of the pair: its partitions' items and its blobs."""
    pair = PairId(account_id=account_id, ai_user_id=world.ai["id"])
    items = [f"{pk} {i['sk']}" for pk in keys.pair_partitions(pair) for i in world.runtime.store.query(pk).items]
    return items + world.runtime.blobs.list(keys.pair_blob_prefix(pair))


@pytest.mark.every_store
@pytest.mark.parametrize("erase", ["forget-the-friend", "delete-the-account", "delete-the-ai-user"])
def test_a_pair_erased_while_its_heartbeat_is_spoken_stays_erased(world: World, erase: str) -> None:
    bob = register(world.client, "bob")
    assert bob.post(f"/api/friends/{world.ai['id']}").status_code == 201
    world.said("在呢", person=bob)
    world.speech.script(SPEECH, MediaReply(raw=VOICE, delay=1.5))
    world.model.script(CHAT_MODEL, Reply.text("想你啦"))
    beat: dict = {}
    heartbeat = threading.Thread(
        target=lambda: beat.update(r=bob.post(f"/api/heartbeat/trigger/{world.ai['id']}")), daemon=True
    )
    heartbeat.start()
    deadline = time.monotonic() + 5
    while len(world.speech.requests_to(SPEECH)) < 2 and time.monotonic() < deadline:  # the voice being made
        time.sleep(0.02)
    assert len(world.speech.requests_to(SPEECH)) == 2  # erased while the speech role is still speaking
    erased = {
        "forget-the-friend": lambda: bob.delete(f"/api/friends/{world.ai['id']}", params={"forget": "true"}),
        "delete-the-account": lambda: bob.delete("/api/auth/user"),
        "delete-the-ai-user": lambda: world.alice.delete(f"/api/ai-users/{world.ai['id']}"),
    }[erase]()
    assert erased.status_code in (200, 204), erased.text
    heartbeat.join(10)
    assert not heartbeat.is_alive() and beat["r"].status_code < 500, beat
    assert _left(world, bob.id) == []


# --- odd values ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [
        {"voice": "../../etc/passwd"},
        {"voice": "a/b"},
        {"voice": "nova\\x"},
        {"voice": "nova\u0000"},
        {"voice": "nova\n"},
        {"voice": "v" * 1000},
        {"voice": "😀"},
        {"voice": "ｎｏｖａ"},
        {"voice": ["nova"]},
        {"voice": {"id": "nova"}},
        {"voice_replies": "ALWAYS"},
        {"voice_replies": "always "},
        {"voice_replies": 1},
        {"voice_replies": True},
        {"voice_replies": ["always"]},
        {"voice_replies": "x" * 1000},
    ],
)
def test_an_odd_voice_or_voice_replies_is_422_never_500(world: World, fields: dict) -> None:
    changed = world.alice.put(f"/api/ai-users/{world.ai['id']}", json=fields)
    assert changed.status_code == 422, changed.text
    created = world.alice.post("/api/ai-users", json={"name": "阿青", **fields})
    assert created.status_code == 422, created.text
    shown = world.alice.get(f"/api/ai-users/{world.ai['id']}").json()
    assert (shown["voice"], shown["voice_replies"]) == ("nova", "always")


def test_voice_replies_null_leaves_it_on_a_change_and_is_422_on_a_new_ai_user(world: World) -> None:
    """A change's null means "left as it is" (every field of `AIUserUpdate` but `voice`); a new AI user has no
    earlier value to keep."""
    assert world.voice(voice_replies=None)["voice_replies"] == "always"
    assert world.alice.post("/api/ai-users", json={"name": "阿青", "voice_replies": None}).status_code == 422


# --- a voice reply regenerated, shown again, edited away, deleted ----------------------------------------------


def _regenerate(world: World, words: str) -> dict:
    world.model.script(CHAT_MODEL, Reply.text(words))
    last = world.history()[-1]
    again = world.alice.post(f"/api/ai-users/{world.ai['id']}/messages/{last['id']}/regenerate")
    [new] = [data for name, data in parse_sse(again.text) if name == "message"]
    return new


def test_a_regenerated_voice_reply_keeps_only_the_voice_shown(world: World) -> None:
    [first] = world.said(TWO_LINES)
    replaced = [first["media_id"]]
    for n in range(3):
        new = _regenerate(world, f"换个说法{n}")
        assert is_voice(new) and world.kept() == (1, 1)  # the replaced answers are text now: their voice erased
        replaced.append(new["media_id"])
    assert all(world.alice.get(f"/api/media/{gone}").status_code == 404 for gone in replaced[:-1])
    path = f"/api/ai-users/{world.ai['id']}/messages/{new['message_id']}/alternative"
    assert world.alice.put(path, json={"index": 0}).json()["media_id"] is None
    assert world.kept() == (0, 0)  # the voice no longer shown can never be played again
    assert world.alice.put(path, json={"index": 3}).json()["content"] == "换个说法2"  # its words stay, as text


def test_an_edit_erases_the_voice_of_the_old_answer(world: World) -> None:
    world.said(TWO_LINES)
    mine = world.history()[-2]
    world.model.script(CHAT_MODEL, Reply.text("好呀"))
    edited = world.alice.put(f"/api/ai-users/{world.ai['id']}/messages/{mine['id']}", json={"content": "晚上好"})
    assert edited.status_code == 200, edited.text
    assert world.kept() == (1, 1) and world.history()[-1]["content"] == "好呀"


def test_deleting_a_regenerated_voice_reply_leaves_no_voice(world: World) -> None:
    world.said(TWO_LINES)
    new = _regenerate(world, "换个说法")
    assert world.alice.delete(f"/api/ai-users/{world.ai['id']}/messages/{new['message_id']}").status_code == 200
    assert world.kept() == (0, 0)
