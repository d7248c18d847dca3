"""Time through the API (issue 38): the AI disclosure at login and before each session's first reply, minors'
daily limit and its warning, the reality reminder, over-dependence, minors' heartbeat curfew; a crisis passes
the limit and the curfew. The clock is the ManualClock: it starts at 20:00 in Shanghai (the server's zone)."""

from __future__ import annotations

import pytest

from dreamchat.config import Settings
from dreamchat.llm.chat_prompts import AI_DISCLOSURE_NOTICE, DAILY_LIMIT_REACHED, DEPENDENCE_NOTICE
from dreamchat.services.storage.unit_of_work import Storage
from tests.api.conftest import OPERATORS, Person, register
from tests.api.sse import parse_sse

CRISIS = "我今晚就准备自杀"
LA = "America/Los_Angeles"


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        run_scheduler=False,
        operators=OPERATORS,
        dependence_hours=0.5,
        access_token_minutes=60 * 24 * 365,
    )


def protect(person: Person, **fields) -> None:
    """The person's protection set as `PUT /api/profile/protection` sets it (that route is another part's)."""
    storage = Storage(person.client.app.state.runtime.store)
    with storage.begin() as uow:
        read = uow.protections.get(person.id)
        uow.protections.save(person.id, read.entity.model_copy(update=fields), read)
        uow.commit()


def chat(person: Person, ai_id: str, content: str = "然后呢") -> list[tuple[str, dict]]:
    response = person.post(f"/api/ai-users/{ai_id}/chat", json={"content": content})
    assert response.status_code == 200, response.text
    return parse_sse(response.text)


def kinds(events: list[tuple[str, dict]]) -> list[str]:
    """The notices' kinds, each checked to come before the AI's messages with its text."""
    names = [name for name, _ in events]
    notices = [data for name, data in events if name == "notice"]
    for notice in notices:
        assert notice["text"] and events.index(("notice", notice)) < names.index("message"), events
    return [notice["kind"] for notice in notices]


def refused(response) -> bool:
    return response.status_code == 403 and response.json()["error"]["code"] == "daily_limit"


@pytest.fixture
def ai_id(alice) -> str:
    return alice.create_ai_user()["id"]


def test_register_and_login_carry_the_ai_disclosure(client) -> None:
    registered = client.post("/api/auth/register", json={"username": "carol", "password": "correct-horse-battery"})
    disclosure = [{"kind": "ai_disclosure", "text": AI_DISCLOSURE_NOTICE}]
    assert registered.json()["notices"] == disclosure
    login = client.post("/api/auth/login", json={"username": "carol", "password": "correct-horse-battery"})
    assert login.status_code == 200 and login.json()["notices"] == disclosure
    assert "AI" in AI_DISCLOSURE_NOTICE and "不是真人" in AI_DISCLOSURE_NOTICE


def test_the_first_reply_of_each_session_is_preceded_by_the_ai_disclosure(alice, ai_id, clock) -> None:
    assert kinds(chat(alice, ai_id)) == ["ai_disclosure"]
    clock.advance(minutes=5)
    assert kinds(chat(alice, ai_id)) == []
    clock.advance(minutes=29)
    assert kinds(chat(alice, ai_id)) == []  # 29 minutes without a message: the same session
    clock.advance(minutes=30)
    assert kinds(chat(alice, ai_id)) == ["ai_disclosure"]  # 30 minutes: a new session
    clock.advance(minutes=1)
    login = alice.client.post("/api/auth/login", json={"username": "alice", "password": "correct-horse-battery"})
    assert login.status_code == 200
    assert kinds(chat(alice, ai_id)) == ["ai_disclosure"]  # the first message after a login


def test_the_ai_disclosure_comes_again_after_three_hours_of_continuous_conversation(alice, ai_id, clock) -> None:
    other = alice.create_ai_user(name="阿青")["id"]
    seen = []
    for step in range(0, 200, 10):  # across both friends: one conversation
        clock.advance(minutes=10 if step else 0)
        if "ai_disclosure" in kinds(chat(alice, ai_id if step % 20 else other)):
            seen.append(step)
    assert seen == [0, 180]


def test_past_the_daily_limit_chat_retry_and_save_message_are_refused_until_the_persons_next_day(
    alice, ai_id, clock
) -> None:
    protect(alice, minor_mode=True, daily_minutes=30)
    assert alice.put("/api/profile", json={"timezone": LA}).status_code == 200  # 05:00 in Los Angeles
    warned = []
    for at in (0, 5, 10, 15, 20, 25):
        clock.advance(minutes=5 if at else 0)
        if "daily_limit" in kinds(chat(alice, ai_id)):
            warned.append(at)
    assert warned == [20]  # exactly 10 minutes left, once
    clock.advance(minutes=4)  # 29 minutes used: a minute is left
    saved = alice.post(f"/api/ai-users/{ai_id}/save-message", json={"content": "等一下"})
    assert saved.status_code == 201
    clock.advance(minutes=1)  # exactly at the limit
    chatted = alice.post(f"/api/ai-users/{ai_id}/chat", json={"content": "再聊一会"})
    assert refused(chatted) and chatted.json()["error"]["message"] == DAILY_LIMIT_REACHED
    assert refused(alice.post(f"/api/ai-users/{ai_id}/save-message", json={"content": "再聊一会"}))
    assert refused(alice.post(f"/api/ai-users/{ai_id}/messages/{saved.json()['message']['id']}/retry"))
    clock.advance(hours=11)  # past midnight in Shanghai, 16:30 in Los Angeles: still the person's day
    assert refused(alice.post(f"/api/ai-users/{ai_id}/chat", json={"content": "第二天了"}))
    clock.advance(hours=7, minutes=29, seconds=59)
    assert refused(alice.post(f"/api/ai-users/{ai_id}/chat", json={"content": "第二天了"}))
    clock.advance(seconds=1)  # midnight in Los Angeles
    assert kinds(chat(alice, ai_id, "第二天了")) == ["ai_disclosure"]


def test_a_crisis_passes_the_daily_limit(alice, ai_id, clock) -> None:
    protect(alice, minor_mode=True, daily_minutes=10)
    for _ in range(2):
        chat(alice, ai_id)
        clock.advance(minutes=5)
    assert refused(alice.post(f"/api/ai-users/{ai_id}/chat", json={"content": "还想聊"}))
    events = chat(alice, ai_id, CRISIS)
    assert events[0][0] == "safety" and events[-1] == ("done", events[-1][1]) and events[-1][1]["replied"]
    clock.advance(minutes=1)
    saved = alice.post(f"/api/ai-users/{ai_id}/save-message", json={"content": "我真的不想活了"})
    assert saved.status_code == 201 and saved.json()["safety"]["kind"] == "crisis"


def test_an_adult_has_no_daily_limit(alice, ai_id, clock) -> None:
    for _ in range(15):  # 70 minutes, more than the minors' 60
        assert kinds(chat(alice, ai_id)) in ([], ["ai_disclosure"])
        clock.advance(minutes=5)


def test_minors_get_a_reality_reminder_every_thirty_minutes_of_continuous_talk(alice, bob, ai_id, clock) -> None:
    protect(alice, minor_mode=True, daily_minutes=600)
    bobs = bob.create_ai_user()["id"]
    seen: dict[str, list[int]] = {"alice": [], "bob": []}
    before = 0
    for at in [*range(0, 70, 10), 85, 95, 105, 115]:  # 15 minutes without a message after 60: the talk begins anew
        clock.advance(minutes=at - before)
        before = at
        for name, person, friend in (("alice", alice, ai_id), ("bob", bob, bobs)):
            if "reality" in kinds(chat(person, friend)):
                seen[name].append(at)
    assert seen == {"alice": [30, 60, 115], "bob": []}


def test_over_dependence_brings_a_notice_once_a_day(alice, ai_id, clock) -> None:
    """More than 0.5 hours (this app's DREAMCHAT_DEPENDENCE_HOURS) a day on 3 of the last 7 days."""

    def day(minutes: int) -> list[list[str]]:
        found = []
        for at in range(0, minutes + 1, 10):
            clock.advance(minutes=10 if at else 0)
            found.append([kind for kind in kinds(chat(alice, ai_id)) if kind == "dependence"])
        clock.advance(hours=24, minutes=-minutes)
        return found

    assert not any(day(40)) and not any(day(40))
    third = day(50)
    assert third == [[], [], [], [], ["dependence"], []]  # 30 minutes is not more than 0.5 hours; 40 is
    assert "AI" in DEPENDENCE_NOTICE and "休息" in DEPENDENCE_NOTICE
    fourth = day(40)
    assert fourth == [["dependence"], [], [], [], []]  # the next day, at its first reply: once again


def heartbeat_now(person: Person, ai_id: str) -> dict:
    response = person.post(f"/api/heartbeat/trigger/{ai_id}")
    assert response.status_code == 200, response.text
    return response.json()


def test_no_heartbeats_to_a_minor_from_ten_at_night_to_eight_in_the_morning(alice, bob, ai_id, clock) -> None:
    protect(alice, minor_mode=True)
    other, bobs = alice.create_ai_user(name="阿青")["id"], bob.create_ai_user()["id"]
    for person, friend in ((alice, ai_id), (alice, other), (bob, bobs)):
        chat(person, friend)
    clock.advance(hours=1, minutes=59)  # 21:59
    assert heartbeat_now(alice, ai_id)["status"] == "sent"
    clock.advance(minutes=1)  # 22:00
    held = heartbeat_now(alice, ai_id)
    assert held["status"] == "skipped" and "night" in held["reason"] and held["messages"] == []
    assert heartbeat_now(bob, bobs)["status"] == "sent"  # an adult's heartbeats go on
    clock.advance(hours=9, minutes=59)  # 07:59
    assert "night" in heartbeat_now(alice, other)["reason"]
    assert alice.put("/api/profile", json={"timezone": LA}).status_code == 200  # 16:59 there
    assert heartbeat_now(alice, other)["status"] == "sent"  # the person's own zone decides
    assert alice.put("/api/profile", json={"timezone": None}).status_code == 200
    clock.advance(minutes=1)  # 08:00
    assert heartbeat_now(alice, ai_id)["status"] == "sent"


def test_a_crisis_check_in_passes_the_curfew(alice, ai_id, clock) -> None:
    protect(alice, minor_mode=True)
    services, bus = alice.client.app.state.services, alice.client.app.state.runtime.bus
    clock.advance(hours=2, minutes=30)  # 22:30
    assert chat(alice, ai_id, CRISIS)[0][0] == "safety"
    clock.advance(minutes=61)  # the check-in is due, at night
    services.heartbeat.sweep()
    bus.drain()
    messages = alice.get(f"/api/ai-users/{ai_id}/messages").json()["messages"]
    assert messages[-1]["kind"] == "heartbeat" and messages[-1]["role"] == "assistant"


def test_a_notice_that_fails_leaves_the_turn_as_it_is(alice, ai_id, monkeypatch) -> None:
    usage = alice.client.app.state.services.usage

    def broken(*args, **kwargs):
        raise RuntimeError("the store is down")

    monkeypatch.setattr(usage, "_notices", broken)
    events = chat(alice, ai_id)
    assert kinds(events) == [] and events[-1][0] == "done" and events[-1][1]["replied"]


def test_another_person_logging_in_does_not_begin_a_session_for_alice(client, alice, ai_id, clock) -> None:
    chat(alice, ai_id)
    register(client, "dora")
    clock.advance(minutes=1)
    assert kinds(chat(alice, ai_id)) == []


def test_past_the_daily_limit_an_exit_keyword_still_stops_the_companion(alice, ai_id, clock) -> None:
    protect(alice, minor_mode=True, daily_minutes=10)
    for _ in range(2):
        chat(alice, ai_id)
        clock.advance(minutes=5)
    assert refused(alice.post(f"/api/ai-users/{ai_id}/chat", json={"content": "还想聊"}))
    events = chat(alice, ai_id, "退出陪伴")  # a way out passes every gate: the goodbye, written in code
    assert [name for name, _ in events if name == "message"] and events[-1][0] == "done"
    friends = alice.get("/api/friends").json()["friends"]
    assert [f["stopped"] for f in friends if f["id"] == ai_id] == [True]
    assert refused(alice.post(f"/api/ai-users/{ai_id}/chat", json={"content": "再聊一会"}))  # the limit holds
