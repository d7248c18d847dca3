from __future__ import annotations

from itertools import pairwise

from tests.api.test_chat import CHAT_MODEL, history, send
from tests.fakes.fake_llm import Reply


def test_status_lists_every_ai_friend(person, ai, fake_llm) -> None:
    send(person, ai, "你好")
    status = person.get("/api/heartbeat/status").json()
    [entry] = status["ai_users"]
    assert entry["ai_user_id"] == ai["id"] and entry["level"] == "一般" and entry["enabled"] is True
    assert entry["next_due"] > 0 and entry["next_kind"] == "timed" and entry["scheduled"] == []
    assert status["prefs"]["daily_cap"] == 5


def test_configure_changes_the_callers_settings_and_replans(person, ai, fake_llm) -> None:
    send(person, ai, "你好")
    off = person.post("/api/heartbeat/configure", json={"enabled": False, "daily_cap": 2}).json()
    assert off["prefs"]["enabled"] is False and off["prefs"]["daily_cap"] == 2
    assert off["ai_users"][0]["next_due"] is None
    assert person.post("/api/heartbeat/configure", json={"daily_cap": -1}).status_code == 422
    assert person.post("/api/heartbeat/configure", json={"spam": True}).status_code == 422
    started = person.post("/api/heartbeat/start").json()
    assert started["prefs"]["enabled"] is True and started["ai_users"][0]["next_due"] is not None


def test_trigger_runs_one_now_and_says_what_happened(person, ai, fake_llm) -> None:
    send(person, ai, "今天好累")
    fake_llm.script(CHAT_MODEL, Reply.text("还累吗？早点休息"))
    result = person.post(f"/api/heartbeat/trigger/{ai['id']}").json()
    assert result["status"] == "sent"
    assert [m["content"] for m in result["messages"]] == ["还累吗？早点休息"]
    stored = history(person, ai)
    assert [(m["role"], m["kind"]) for m in stored][-1] == ("assistant", "heartbeat")
    assert all("心跳" not in m["content"] for m in stored)


def test_trigger_respects_heartbeat_ok(person, ai, fake_llm) -> None:
    send(person, ai, "晚安")
    fake_llm.script(CHAT_MODEL, Reply.text("HEARTBEAT_OK"))
    result = person.post(f"/api/heartbeat/trigger/{ai['id']}").json()
    assert result == {"status": "skipped", "reason": "the AI chose not to disturb", "messages": []}


def test_trigger_on_someone_elses_ai_user_is_404(person, fake_llm, app) -> None:
    assert person.post("/api/heartbeat/trigger/ai_unknown").status_code == 404


def test_a_person_who_answers_each_heartbeat_gets_one_every_twenty_minutes(app, person, ai, fake_llm, clock) -> None:
    """特别关心 is 20 minutes in the spec: no daily cap or back-off gets in the way while the person answers."""
    services = app.state.services
    pair, ai_user = services.ai_users.companion(person.id, ai["id"])
    services.soul.set_relationship(pair, ai_user, "特别关心", None, "测试")
    texts = iter(f"第{n}次想你了" for n in range(100))
    fake_llm.default = lambda body: Reply.text(next(texts))
    person.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": "我在呢"})  # 20:00 in Shanghai
    sent_at = []
    for _ in range(170):  # until 22:50, before the night window
        clock.advance(minutes=1)
        services.heartbeat.sweep()
        app.state.runtime.bus.drain()
        latest = history(person, ai)[-1]
        if latest["kind"] == "heartbeat" and latest["timestamp"] not in sent_at:
            sent_at.append(latest["timestamp"])
            clock.advance(minutes=1)
            person.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": "收到啦"})
    gaps = [(b - a) // 60 for a, b in pairwise(sent_at)]
    assert len(sent_at) == 8 and gaps == [21] * 7  # 20 minutes after each answer; more than the cap of 5
