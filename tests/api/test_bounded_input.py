"""Every value a person or a model sends is bounded (issue 25 §3): attacks that gave 500s or stored
unbounded values, kept as tests."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from dreamchat.api.app import create_app
from dreamchat.config import Settings
from dreamchat.domain import bounds
from dreamchat.domain.models import Relationship
from dreamchat.domain.relationship import heartbeat_interval
from dreamchat.wiring import build_runtime
from tests.api.conftest import register
from tests.api.sse import parse_sse
from tests.fakes.fake_llm import Reply


@pytest.mark.parametrize(
    "zone", ["Asia", "America", "Etc", "Europe/", "posixrules/..", "../etc/passwd", "Mars/Olympus"]
)
def test_a_folder_of_the_zone_database_or_any_other_non_zone_is_a_422(alice, zone) -> None:
    created = alice.post("/api/ai-users", json={"name": "小梦", "timezone": zone})
    assert created.status_code == 422, created.text
    ai = alice.create_ai_user()
    updated = alice.put(f"/api/ai-users/{ai['id']}", json={"timezone": zone})
    assert updated.status_code == 422, updated.text


@pytest.mark.parametrize("zone", ["Asia/Shanghai", "America/Los_Angeles", "Etc/UTC", "UTC"])
def test_real_zones_are_accepted(alice, zone) -> None:
    assert alice.post("/api/ai-users", json={"name": "小梦", "timezone": zone}).json()["timezone"] == zone


HUGE = ["99999999999", "9" * 401, "1e308", "-5", ""]


@pytest.mark.parametrize("hours", HUGE)
def test_a_huge_next_heartbeat_marker_on_trigger_is_bounded_and_sent_once(person, ai, fake_llm, app, hours) -> None:
    fake_llm.default = lambda body: Reply.text(f"想你了 [NEXT_HEARTBEAT_HOURS:{hours}]")
    answer = person.post(f"/api/heartbeat/trigger/{ai['id']}")
    assert answer.status_code == 200, answer.text
    sent = [m for m in messages(person, ai) if m["kind"] == "heartbeat"]
    assert [m["content"] for m in sent] == ["想你了"]
    state = app.state.services.heartbeat_states.get(pair_of(app, person, ai))
    longest = heartbeat_interval(Relationship()).total_seconds() * app.state.settings.heartbeat_max_backoff
    if state.moved_to is not None:  # within the longest wait of 一般 at the largest back-off
        assert state.moved_to - state.last_run_at <= longest


def test_in_the_background_a_huge_marker_reaches_the_person_once_and_counts(person, ai, fake_llm, app, clock) -> None:
    services = app.state.services
    fake_llm.default = lambda body: Reply.text("在干嘛呀 [NEXT_HEARTBEAT_HOURS:99999999999]")
    person.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": "我先去忙了"})
    for _ in range(4):  # every lease attempt, and beyond
        clock.advance(hours=30)
        services.heartbeat.sweep()
        app.state.runtime.bus.drain()
    sent = [m for m in messages(person, ai) if m["kind"] == "heartbeat"]
    assert len(sent) == len({m["timestamp"] for m in sent}) and sent[0]["content"] == "在干嘛呀"
    state = services.heartbeat_states.get(pair_of(app, person, ai))
    assert state.unanswered == len(sent) and state.recent  # counted toward the cap, back-off and no-repeat


@pytest.mark.parametrize(
    "reply",
    [
        "好呀 HEARTBEAT_OK",
        "好呀\n[NEXT_HEARTBEAT_HOURS:3]",
        "好呀【NEXT_HEARTBEAT_HOURS：3】",
        "heartbeat_ok 好呀",
        "好呀 [next heartbeat hours 2]",
    ],
)
def test_control_markers_in_a_chat_reply_never_reach_the_person(person, ai, fake_llm, reply) -> None:
    fake_llm.default = lambda body: Reply.text(reply)
    events = parse_sse(person.post(f"/api/ai-users/{ai['id']}/chat", json={"content": "在吗"}).text)
    assert [data["content"] for name, data in events if name == "message"] == ["好呀"]
    assert [m["content"] for m in messages(person, ai) if m["role"] == "assistant"] == ["好呀"]


def messages(person, ai) -> list[dict]:
    return person.get(f"/api/ai-users/{ai['id']}/messages", params={"limit": 200}).json()["messages"]


def pair_of(app, person, ai):
    return app.state.services.ai_users.companion(person.id, ai["id"])[0]


def test_a_back_off_beyond_the_bound_is_a_422(person) -> None:
    assert person.post("/api/heartbeat/configure", json={"max_backoff": 1024}).status_code == 422
    assert person.post("/api/heartbeat/configure", json={"max_backoff": 64}).status_code == 200


def test_a_huge_summary_from_the_model_is_stored_cut_to_the_bound_of_a_persons_edit(person, ai, fake_llm) -> None:
    summary = "今天聊了很多。" * 30_000  # 210,000 characters
    fake_llm.script("qwen-plus", Reply.json({"summary": summary, "emotion_tags": TAGS}))
    person.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": "今天去爬山了，累坏了"})
    produced = person.post(f"/api/memory/{ai['id']}/compress").json()["mid_term"]
    assert len(produced) == 1 and 0 < len(produced[0]["summary"]) <= 2000
    assert produced[0]["summary"].endswith("。")  # cut at a sentence end
    assert produced[0]["degraded"] is False


def test_two_thousand_key_points_are_stored_as_twenty(person, ai, fake_llm, app) -> None:
    fake_llm.script("qwen-plus", Reply.json({"summary": "聊了爬山", "emotion_tags": TAGS}))
    person.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": "今天去爬山了，累坏了"})
    mid = person.post(f"/api/memory/{ai['id']}/compress").json()["mid_term"][0]
    memory = {"title": "爬山" * 100, "key_points": [f"第{n}点" for n in range(2000)], "detail_content": "x" * 50_000}
    fake_llm.script("doubao-pro-32k", Reply.json({"memories": [{**memory, "source_mid_ids": [mid["id"]]}] * 50}))
    result = person.post(f"/api/memory/{ai['id']}/extract").json()
    assert 1 <= len(result["long_term"]) <= 20
    assert all(len(e["key_points"]) <= 20 and len(e["title"]) <= 60 for e in result["long_term"])
    judge = [r for r in fake_llm.requests_for("deepseek-chat") if "核心" in json.dumps(r.messages, ensure_ascii=False)]
    assert all(len(json.dumps(r.messages, ensure_ascii=False)) < 40_000 for r in judge)


TAGS = {"basic_emotion": "开心", "scene": "闲聊", "atmosphere": "轻松"}


@pytest.mark.parametrize("look_alike", ["ａｌｉｃｅ", "аlice", "alicе", "ALICE", "Ａlice", "аlісе"])
def test_a_name_that_looks_like_an_existing_one_is_refused(client, alice, look_alike) -> None:
    answer = client.post("/api/auth/register", json={"username": look_alike, "password": "correct-horse-battery"})
    assert answer.status_code == 409, answer.text


def test_a_full_width_name_is_stored_as_its_plain_form_and_logs_in_either_way(client) -> None:
    made = client.post("/api/auth/register", json={"username": "ｍｅｉｍｅｉ", "password": "correct-horse-battery"})
    assert made.status_code == 201 and made.json()["user"]["username"] == "meimei"
    for typed in ("meimei", "ｍｅｉｍｅｉ"):
        assert (
            client.post("/api/auth/login", json={"username": typed, "password": "correct-horse-battery"}).status_code
            == 200
        )


def test_names_in_other_scripts_stay_their_own(client) -> None:
    for name in ("小明同学", "мария", "ελένη"):
        answer = client.post("/api/auth/register", json={"username": name, "password": "correct-horse-battery"})
        assert answer.status_code == 201, (name, answer.text)


@pytest.mark.parametrize("flag", ["yes", "true", 1, "1"])
def test_delete_must_be_a_real_boolean(person, ai, flag) -> None:
    core = person.put(f"/api/memory/{ai['id']}/core", json={"content": "怕黑", "importance": 9}).json()["memory"]
    answer = person.put(f"/api/memory/{ai['id']}/core", json={"id": core["id"], "delete": flag})
    assert answer.status_code == 422, answer.text
    assert [c["id"] for c in files(person, ai)["core"]] == [core["id"]]


@pytest.mark.parametrize("blank", ["   ", "\u200b\u200b", "\u3000", "\u2800", " \u200d "])
def test_a_core_memory_of_spaces_or_invisible_characters_is_refused(person, ai, blank) -> None:
    assert person.put(f"/api/memory/{ai['id']}/core", json={"content": blank}).status_code == 422
    assert files(person, ai)["core"] == []


def test_an_account_may_make_only_so_many_ai_users_and_friends(tmp_path, clock, rng) -> None:
    settings = Settings(data_dir=tmp_path / "data", run_scheduler=False, max_ai_users=3, max_friends=4)
    with TestClient(create_app(settings, build_runtime(settings, clock=clock, random=rng))) as client:
        maker, other = register(client, "maker"), register(client, "other")
        for n in range(3):
            assert maker.post("/api/ai-users", json={"name": f"小{n}"}).status_code == 201
        refused = maker.post("/api/ai-users", json={"name": "又一个"})
        assert refused.status_code == 409 and "at most 3" in refused.json()["error"]["message"]
        public = [other.create_ai_user(name=f"公{n}", visibility="public")["id"] for n in range(3)]
        assert maker.post(f"/api/friends/{public[0]}").status_code in (200, 201)
        assert maker.post(f"/api/friends/{public[1]}").status_code == 409  # 3 own + 1 = 4 friends
        assert len(maker.get("/api/friends").json()["friends"]) == 4


def test_a_person_may_add_only_so_many_core_memories_by_hand(tmp_path, clock, rng) -> None:
    settings = Settings(data_dir=tmp_path / "data", run_scheduler=False, max_person_core_memories=2)
    with TestClient(create_app(settings, build_runtime(settings, clock=clock, random=rng))) as client:
        person = register(client, "alice")
        ai = person.create_ai_user()
        for n in range(2):
            assert person.put(f"/api/memory/{ai['id']}/core", json={"content": f"第{n}件事"}).status_code == 200
        assert person.put(f"/api/memory/{ai['id']}/core", json={"content": "再一件"}).status_code == 409


def files(person, ai) -> dict:
    return person.get(f"/api/memory/{ai['id']}/files").json()


def import_into(person, ai_id: str, document: dict):
    body = json.dumps(document, ensure_ascii=False).encode()
    headers = {**person.headers, "Content-Type": "application/json"}
    return person.client.post(f"/api/ai-users/{ai_id}/memory/import", content=body, headers=headers)


def a_pair_with_a_long_term_entry(person) -> str:
    ai = person.create_ai_user()
    for line in ["周末去海边看日出", "带上相机拍照", "拜拜"]:
        assert person.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": line}).status_code == 201
    assert person.post(f"/api/memory/{ai['id']}/compress").status_code == 200
    assert person.post(f"/api/memory/{ai['id']}/extract").json()["long_term"]
    return ai["id"]


LONG_LINE = ("今天天气不错。" * 300)[: bounds.MESSAGE_CHARS + 1]  # everyday words: distress would be kept, cut
SHARED_BOUNDS = {  # the API's own route, and the import's field, at one past the same bound
    "a message": (
        lambda p, ai, e: p.post(f"/api/ai-users/{ai}/save-message", json={"content": LONG_LINE}),
        lambda d: d["messages"][0].update(content=LONG_LINE),
    ),
    "a long-term entry's key points": (
        lambda p, ai, e: p.put(
            f"/api/memory/{ai}/long_term", json={"id": e, "key_points": ["点"] * (bounds.KEY_POINTS + 1)}
        ),
        lambda d: d["long_term"][0]["index"].update(key_points=["点"] * (bounds.KEY_POINTS + 1)),
    ),
    "a long-term entry's title": (
        lambda p, ai, e: p.put(f"/api/memory/{ai}/long_term", json={"id": e, "title": "题" * (bounds.TITLE_CHARS + 1)}),
        lambda d: d["long_term"][0]["index"].update(title="题" * (bounds.TITLE_CHARS + 1)),
    ),
    "a summary": (
        lambda p, ai, e: p.put(
            f"/api/memory/{ai}/mid_term", json={"id": e, "summary": "总" * (bounds.SUMMARY_CHARS + 1)}
        ),
        lambda d: d["mid_term"][0].update(summary="总" * (bounds.SUMMARY_CHARS + 1)),
    ),
}


@pytest.mark.parametrize("what", list(SHARED_BOUNDS))
def test_the_api_and_the_import_refuse_the_same_one_past_a_bound(alice, what) -> None:
    through_api, in_document = SHARED_BOUNDS[what]
    ai_id = a_pair_with_a_long_term_entry(alice)
    document = alice.get(f"/api/memory/{ai_id}/export").json()
    entry = document["long_term"][0]["index"]["id"] if "long-term" in what else document["mid_term"][0]["id"]
    assert through_api(alice, ai_id, entry).status_code in (413, 422)
    in_document(document)
    assert alice.delete(f"/api/friends/{ai_id}", params={"forget": "true"}).status_code == 200
    assert alice.post(f"/api/friends/{ai_id}").status_code in (200, 201)
    refused = import_into(alice, ai_id, document)
    assert refused.status_code == 422, refused.text
    assert alice.get(f"/api/memory/{ai_id}/export").json()["messages"] == []


def test_the_tools_and_the_import_share_the_heartbeat_interval_and_self_soul_bounds() -> None:
    from dreamchat.llm.tools import UpdateRelationship, UpdateSelfSoul

    for hours in (0, -5, bounds.MAX_HEARTBEAT_HOURS + 1):
        with pytest.raises(ValueError):
            UpdateRelationship(level="一般", heartbeat_hours=hours)
        assert bounds.heartbeat_hours_problem(hours) is not None
    assert bounds.heartbeat_hours_problem(bounds.MAX_HEARTBEAT_HOURS) is None
    UpdateRelationship(level="一般", heartbeat_hours=bounds.MAX_HEARTBEAT_HOURS)
    with pytest.raises(ValueError):
        UpdateSelfSoul(new_content="我" * (bounds.SELF_SOUL_CHARS + 1))


def test_no_core_memory_enters_a_pair_that_holds_its_bound() -> None:
    from datetime import UTC, datetime

    from dreamchat.domain.core_memory import Candidate, admission_problem
    from dreamchat.domain.models import CoreMemory

    held = [
        CoreMemory(id=f"core_{n}", content=f"第{n}件事", importance=9, created_at=1_700_000_000, source="person")
        for n in range(bounds.CORE_MEMORIES)
    ]
    now = datetime(2026, 3, 15, tzinfo=UTC)
    assert "already holds" in (admission_problem(Candidate(True, "全新的事", 9), held, now, "UTC") or "")
    assert admission_problem(Candidate(True, "全新的事", 9), held[:-1], now, "UTC") is None
