"""Whole chat turns through the API, with the fake OpenAI-compatible server as the model."""

from __future__ import annotations

import json
import threading

from fastapi.testclient import TestClient

from dreamchat.api.app import create_app
from dreamchat.config import Settings
from dreamchat.llm.chat_context import TURN_MESSAGE
from dreamchat.llm.chat_prompts import AI_DISCLOSURE_NOTICE
from dreamchat.wiring import build_runtime
from tests.api.conftest import Person, register
from tests.api.sse import parse_sse
from tests.fakes.fake_llm import Reply

CHAT_MODEL = "deepseek-chat"
DISCLOSURE = {"kind": "ai_disclosure", "text": AI_DISCLOSURE_NOTICE}


def send(person: Person, ai: dict, content: str) -> list[tuple[str, dict]]:
    """The turn's events but the AI disclosure a session's first reply carries (tests/api/test_usage_notices.py)."""
    response = person.post(f"/api/ai-users/{ai['id']}/chat", json={"content": content})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    return [event for event in parse_sse(response.text) if event != ("notice", DISCLOSURE)]


def history(person: Person, ai: dict, **params) -> list[dict]:
    return person.get(f"/api/ai-users/{ai['id']}/messages", params=params).json()["messages"]


def test_a_reply_of_several_lines_arrives_as_several_messages(person, ai, fake_llm) -> None:
    fake_llm.script(CHAT_MODEL, Reply.text("嗨~在呢\n今天过得怎么样？"))
    events = send(person, ai, "你好")
    assert [name for name, _ in events] == ["message", "message", "done"]
    assert [data["content"] for _, data in events[:2]] == ["嗨~在呢", "今天过得怎么样？"]
    assert [data["index"] for _, data in events[:2]] == [0, 1]
    assert events[-1][1] == {
        "replied": True,
        "topic_ended": False,
        "message_count": 2,
        "read_after_ms": 0,
        "reason": None,
    }
    stored = history(person, ai)
    assert [(m["role"], m["content"]) for m in stored] == [
        ("user", "你好"),
        ("assistant", "嗨~在呢"),
        ("assistant", "今天过得怎么样？"),
    ]
    assert [m["id"] for m in stored] == [stored[0]["id"], events[0][1]["message_id"], events[1][1]["message_id"]]


def test_delays_follow_the_formula(person, ai, fake_llm) -> None:
    fake_llm.script(CHAT_MODEL, Reply.text("一二三四五六七八九十\n一二三四五"))
    events = send(person, ai, "你好")
    for (_, data), chars in zip(events[:2], (10, 5), strict=True):
        assert 0.5 * chars * 1000 <= data["delay_ms"] <= 1.2 * chars * 1000


def test_delays_are_capped(person, ai, fake_llm) -> None:
    fake_llm.script(CHAT_MODEL, Reply.text("长" * 100))
    events = send(person, ai, "你好")
    assert events[0][1]["delay_ms"] == 30_000


def test_more_than_five_lines_are_merged_into_five(person, ai, fake_llm) -> None:
    fake_llm.script(CHAT_MODEL, Reply.text("一\n二\n\n三\n四\n五\n六\n七"))
    events = send(person, ai, "讲个故事")
    contents = [data["content"] for name, data in events if name == "message"]
    assert contents == ["一", "二", "三", "四", "五 六 七"]


def test_the_ai_may_read_without_replying(person, ai, fake_llm) -> None:
    fake_llm.script(CHAT_MODEL, Reply.text(""))
    events = send(person, ai, "嗯")
    [(name, done)] = events
    assert name == "done"
    assert {k: v for k, v in done.items() if k != "read_after_ms"} == {
        "replied": False,
        "topic_ended": False,
        "message_count": 0,
        "reason": "read_no_reply",  # the client can say why no answer came
    }
    assert 2000 <= done["read_after_ms"] <= 8000  # 已读 after a human-like pause
    assert [(m["role"], m["read_no_reply"]) for m in history(person, ai)] == [("user", True)]


def test_a_farewell_keyword_ends_the_topic(app, person, ai, fake_llm) -> None:
    fake_llm.script(CHAT_MODEL, Reply.text("好呀"), Reply.text("拜拜~明天见"))
    send(person, ai, "我们周末去海边吧")
    events = send(person, ai, "那就这么定了，拜拜")
    assert events[-1][1]["topic_ended"] is True
    fake_llm.script(
        "qwen-plus",
        Reply.json(
            {
                "summary": "约好周末去海边",
                "emotion_tags": {"basic_emotion": "开心", "scene": "闲聊", "atmosphere": "轻松"},
            }
        ),
    )
    app.state.runtime.bus.drain()
    files = person.get(f"/api/memory/{ai['id']}/files").json()
    assert [m["summary"] for m in files["mid_term"]] == ["约好周末去海边"]
    assert files["mid_term"][0]["message_count"] == 4
    assert files["short_term"]["conversations"] == [] and files["short_term_pending"] == []


def test_the_topic_ended_marker_ends_the_topic_and_is_never_shown(app, person, ai, fake_llm) -> None:
    fake_llm.script(CHAT_MODEL, Reply.text("好的，早点休息\n[TOPIC_ENDED]"))
    events = send(person, ai, "我先去忙了")
    assert [d["content"] for n, d in events if n == "message"] == ["好的，早点休息"]
    assert events[-1][1]["topic_ended"] is True
    assert "[TOPIC_ENDED]" not in json.dumps(history(person, ai), ensure_ascii=False)


def test_a_topic_switch_moves_the_new_message_to_the_next_topic(app, person, ai, fake_llm) -> None:
    fake_llm.script(CHAT_MODEL, Reply.text("对呀"), Reply.text("[TOPIC_SWITCH]猫咪？好可爱"))
    send(person, ai, "今天天气真好")
    events = send(person, ai, "对了，我养了一只猫")
    assert [d["content"] for n, d in events if n == "message"] == ["猫咪？好可爱"]
    stored = history(person, ai)
    assert stored[0]["topic_id"] == stored[1]["topic_id"]
    assert stored[2]["topic_id"] == stored[3]["topic_id"] != stored[0]["topic_id"]
    topic_ids = [e.detail["topic_id"] for e, _ in list(app.state.runtime.bus._queue.queue)]
    assert topic_ids == [stored[0]["topic_id"]]


def test_a_model_failure_ends_with_an_error_and_keeps_the_message(person, ai, fake_llm) -> None:
    fake_llm.default = lambda _body: Reply.error(500)
    events = send(person, ai, "你还好吗")
    assert events[-1][0] == "error"
    assert events[-1][1]["code"] == "model_unavailable"
    assert [m["content"] for m in history(person, ai)] == ["你还好吗"]


def test_an_over_long_message_is_refused_and_nothing_is_stored(person, ai, fake_llm) -> None:
    response = person.post(f"/api/ai-users/{ai['id']}/chat", json={"content": "长" * 2001})
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "payload_too_large"
    assert person.post(f"/api/ai-users/{ai['id']}/chat", json={"content": "  "}).status_code == 422
    assert history(person, ai) == []
    assert fake_llm.requests == []


def test_save_message_stores_without_a_reply(person, ai, fake_llm) -> None:
    response = person.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": "晚安"})
    assert response.status_code == 201
    assert response.json()["topic_ended"] is True
    assert [m["content"] for m in history(person, ai)] == ["晚安"]
    assert fake_llm.requests == []


def test_two_concurrent_chats_both_store_their_messages_in_order(person, ai, fake_llm) -> None:
    # the person's words end the current message, after its per-turn block (issue 27)
    fake_llm.default = lambda body: Reply.text(
        "回复：" + body["messages"][-1]["content"].split(TURN_MESSAGE + "\n")[-1]
    )
    barrier = threading.Barrier(2)

    def chat(text: str) -> None:
        barrier.wait()
        send(person, ai, text)

    threads = [threading.Thread(target=chat, args=(text,)) for text in ("第一句", "第二句")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stored = [m["content"] for m in history(person, ai)]
    assert sorted(stored) == sorted(["第一句", "第二句", "回复：第一句", "回复：第二句"])
    for text in ("第一句", "第二句"):
        assert stored.index(text) < stored.index("回复：" + text)


def test_the_context_follows_the_spec_order(person, ai, fake_llm) -> None:
    fake_llm.script(CHAT_MODEL, Reply.text("在呢"), Reply.text("记得"))
    send(person, ai, "你好")
    send(person, ai, "还记得我吗")
    messages = fake_llm.requests_for(CHAT_MODEL)[-1].messages
    assert messages[0]["role"] == "system"
    assert "【自我认知】" in messages[0]["content"] and "温柔体贴" in messages[0]["content"]
    assert [(m["role"], m["content"]) for m in messages[1:3]] == [("user", "你好"), ("assistant", "在呢")]
    # the current message: its per-turn block (issue 27), then the person's words, as they were sent
    assert messages[3]["role"] == "user" and messages[3]["content"].endswith(f"{TURN_MESSAGE}\n还记得我吗")
    assert len(messages) == 4


def test_a_reasoner_ai_user_uses_the_reasoner_model(person, fake_llm) -> None:
    ai = person.create_ai_user(model="reasoner")
    send(person, ai, "你好")
    assert [r.model for r in fake_llm.requests] == ["deepseek-reasoner"]


def test_history_pages_back_and_forward(person, ai, fake_llm) -> None:
    fake_llm.default = lambda body: Reply.text("")
    for i in range(5):
        send(person, ai, f"消息{i}")
    latest = person.get(f"/api/ai-users/{ai['id']}/messages", params={"limit": 2}).json()
    assert [m["content"] for m in latest["messages"]] == ["消息3", "消息4"]
    older = person.get(
        f"/api/ai-users/{ai['id']}/messages", params={"limit": 2, "before": latest["next_cursor"]}
    ).json()
    assert [m["content"] for m in older["messages"]] == ["消息1", "消息2"]
    oldest = person.get(
        f"/api/ai-users/{ai['id']}/messages", params={"limit": 2, "before": older["next_cursor"]}
    ).json()
    assert [m["content"] for m in oldest["messages"]] == ["消息0"] and oldest["next_cursor"] is None
    newer = person.get(
        f"/api/ai-users/{ai['id']}/messages", params={"limit": 3, "after": oldest["messages"][0]["id"]}
    ).json()
    assert [m["content"] for m in newer["messages"]] == ["消息1", "消息2", "消息3"]
    assert newer["next_cursor"] == newer["messages"][-1]["id"]


def test_unread_counts_ai_messages_until_the_person_looks(person, ai, fake_llm) -> None:
    fake_llm.script(CHAT_MODEL, Reply.text("一\n二"))
    send(person, ai, "你好")
    assert person.get("/api/friends").json()["friends"][0]["unread"] == 2
    history(person, ai)
    friend = person.get("/api/friends").json()["friends"][0]
    assert friend["unread"] == 0 and friend["relationship"] == "一般"


def test_replies_seen_over_the_stream_are_marked_read_up_to_a_message(person, ai, fake_llm) -> None:
    fake_llm.script(CHAT_MODEL, Reply.text("一\n二"))
    messages = [data for event, data in send(person, ai, "你好") if event == "message"]
    read = f"/api/ai-users/{ai['id']}/read"
    assert person.post(read, json={"message_id": messages[0]["message_id"]}).json() == {
        "read_up_to": messages[0]["message_id"]
    }
    friend = person.get("/api/friends").json()["friends"][0]
    assert friend["unread"] == 1
    assert friend["last_message"]["content"] == "二" and friend["last_message"]["role"] == "assistant"
    person.post(read, json={"message_id": messages[1]["message_id"]})
    person.post(read, json={"message_id": messages[0]["message_id"]})  # never moves back
    assert person.get("/api/friends").json()["friends"][0]["unread"] == 0
    assert person.post(read, json={"message_id": "msg_not_here"}).status_code == 404
    assert person.post(read, json={"message_id": ""}).status_code == 422


def test_a_topic_that_grows_too_long_ends(tmp_path, clock, rng, fake_llm) -> None:
    settings = Settings(
        data_dir=tmp_path / "long",
        run_scheduler=False,
        llm_base_url=fake_llm.base_url,
        llm_api_key="test-key",
        topic_max_messages=6,
    )
    with TestClient(create_app(settings, build_runtime(settings, clock=clock, random=rng))) as client:
        person = register(client, "carol")
        ai = person.create_ai_user()
        fake_llm.default = lambda body: Reply.text("嗯嗯")
        assert [send(person, ai, f"第{i}句")[-1][1]["topic_ended"] for i in range(3)] == [False, False, True]


def test_messages_per_minute_are_limited_per_account(tmp_path, clock, rng) -> None:
    settings = Settings(data_dir=tmp_path / "limit", run_scheduler=False, messages_per_minute=3)
    with TestClient(create_app(settings, build_runtime(settings, clock=clock, random=rng))) as client:
        person = register(client, "erin")
        ai = person.create_ai_user()
        codes = [
            person.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": f"{i}"}).status_code
            for i in range(4)
        ]
        assert codes == [201, 201, 201, 429]
        assert len(history(person, ai)) == 3
        clock.advance(minutes=1)
        assert person.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": "again"}).status_code == 201
