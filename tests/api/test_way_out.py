"""A way out (暂行办法: an easy exit by button or keyword), through the API: `POST /api/friends/{id}/stop` and
each exit keyword stop the companion at once with the goodbye written in code (no model call), stored in the
chat; then no heartbeat (timed, scheduled, the crisis check-in), no push, until the person writes again, which
lifts the stop. The person comes first: a crisis is never a stop, and is answered after one as always."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from fastapi.testclient import TestClient

from dreamchat.config import DEFAULT_EXIT_KEYWORDS, Settings
from dreamchat.domain.heartbeat import add_scheduled
from dreamchat.domain.honesty import claims_to_be_human
from dreamchat.domain.models import ScheduledHeartbeat
from dreamchat.llm.chat_prompts import GOODBYE
from tests.api.conftest import Person, register
from tests.api.sse import parse_sse
from tests.conftest import memory_runtime
from tests.fakes.fake_llm import Reply
from tests.fakes.fake_push import FakePushService

CHAT_MODEL = "deepseek-chat"
ANSWER = "我在呢，今天怎么样？"
CRISIS = "我今晚就准备自杀"
DONE = {"replied": True, "topic_ended": False, "message_count": 1, "read_after_ms": 0, "reason": None}


@pytest.fixture
def push_service() -> Iterator[FakePushService]:
    with FakePushService() as service:
        yield service


@pytest.fixture
def client(tmp_path, clock, rng, fake_llm, push_service) -> Iterator[TestClient]:
    settings = Settings(
        data_dir=tmp_path / "data",
        run_scheduler=False,
        llm_base_url=fake_llm.base_url,
        llm_api_key="test-key",
        llm_timeout_seconds=5,
        llm_max_retries=0,
        max_delay_seconds=30,
        access_token_minutes=60 * 24 * 365,
        messages_per_minute=100_000,
        model_calls_per_minute=100_000,
        push_allowed_endpoints=[*Settings().push_allowed_endpoints, push_service.prefix],
    )
    fake_llm.default = lambda body: Reply.text(ANSWER)
    with TestClient(create_app_on(settings, clock, rng)) as test_client:
        push_service.server_key = test_client.app.state.services.push.public_key()
        yield test_client


def create_app_on(settings: Settings, clock, rng):
    from dreamchat.api.app import create_app

    return create_app(settings, memory_runtime(settings, clock, rng))


@pytest.fixture
def alice(client) -> Person:
    return register(client, "alice")


@pytest.fixture
def ai_id(alice) -> str:
    return alice.create_ai_user(name="小梦")["id"]


def chat(person: Person, ai_id: str, content: str) -> list[tuple[str, dict]]:
    response = person.post(f"/api/ai-users/{ai_id}/chat", json={"content": content})
    assert response.status_code == 200, response.text
    return parse_sse(response.text)


def history(person: Person, ai_id: str) -> list[dict]:
    return person.get(f"/api/ai-users/{ai_id}/messages", params={"limit": 200}).json()["messages"]


def friend(person: Person, ai_id: str) -> dict:
    [found] = [f for f in person.get("/api/friends").json()["friends"] if f["id"] == ai_id]
    return found


def stop(person: Person, ai_id: str) -> dict:
    response = person.post(f"/api/friends/{ai_id}/stop")
    assert response.status_code == 200, response.text
    return response.json()


def said_goodbye(events: list[tuple[str, dict]]) -> bool:
    """The turn is the goodbye and nothing else: no help lines, no notice, no model's words."""
    [(name, message), done] = events
    return name == "message" and message["content"] == GOODBYE and message["delay_ms"] == 0 and done == ("done", DONE)


def heartbeats_after(client: TestClient, clock, *ai_ids: str, person: Person) -> None:
    """The clock past every named friend's next heartbeat, and the heartbeat sweep run as the schedule would."""
    due = [friend(person, ai_id)["next_heartbeat"] for ai_id in ai_ids]
    assert all(due), "a heartbeat should be planned"
    clock.advance(seconds=max(due) - clock.now().timestamp() + 120)
    client.app.state.services.heartbeat.sweep()
    client.app.state.runtime.bus.drain()


def sent_first(person: Person, ai_id: str) -> list[dict]:
    return [m for m in history(person, ai_id) if m["kind"] == "heartbeat"]


def test_the_goodbye_is_short_plain_says_how_to_come_back_and_never_claims_to_be_human() -> None:
    assert len(GOODBYE) <= 60 and "随时" in GOODBYE and "发消息" in GOODBYE
    assert not claims_to_be_human(GOODBYE)
    assert not any(word in GOODBYE for word in ("求你", "别走", "舍不得", "难过", "伤心", "为什么"))


def test_the_stop_button_says_goodbye_without_the_model_and_the_list_shows_it_stopped(client, alice, ai_id, fake_llm):
    chat(alice, ai_id, "你好")
    assert friend(alice, ai_id)["stopped"] is False
    asked = len(fake_llm.requests)
    assert stop(alice, ai_id) == {"ai_user_id": ai_id, "stopped": True}
    assert len(fake_llm.requests) == asked  # the goodbye is written in code
    last = history(alice, ai_id)[-1]
    assert (last["role"], last["content"], last["kind"]) == ("assistant", GOODBYE, "chat")
    assert friend(alice, ai_id)["stopped"] is True
    assert stop(alice, ai_id) == {"ai_user_id": ai_id, "stopped": True}  # pressed again: nothing more said
    assert [m["content"] for m in history(alice, ai_id)].count(GOODBYE) == 1
    assert len(fake_llm.requests) == asked


def test_the_stop_button_is_only_for_a_friend(client, alice, ai_id):
    bob = register(client, "bob")
    assert bob.post(f"/api/friends/{ai_id}/stop").status_code == 404  # alice's private AI user
    own = bob.create_ai_user(name="阿澈")
    bob.delete(f"/api/friends/{own['id']}")
    assert bob.post(f"/api/friends/{own['id']}/stop").status_code == 404  # no longer friends
    assert bob.post("/api/friends/ai_nobody/stop").status_code == 404
    assert client.post(f"/api/friends/{ai_id}/stop").status_code == 401
    assert friend(alice, ai_id)["stopped"] is False


@pytest.mark.parametrize(
    "keyword", [*DEFAULT_EXIT_KEYWORDS, "  退出陪伴。", "ＳＴＯＰ  Talking to me!", "停止服务！！"]
)
def test_each_exit_keyword_stops_at_once_with_the_goodbye_and_no_model_call(alice, ai_id, fake_llm, keyword):
    chat(alice, ai_id, "你好")
    asked = len(fake_llm.requests)
    assert said_goodbye(chat(alice, ai_id, keyword))
    assert len(fake_llm.requests) == asked
    person, goodbye = history(alice, ai_id)[-2:]
    assert (person["role"], person["content"]) == ("user", keyword)  # stored like any message
    assert (goodbye["role"], goodbye["content"]) == ("assistant", GOODBYE)
    assert friend(alice, ai_id)["stopped"] is True


@pytest.mark.parametrize("message", ["我想退出陪伴模式看看", "stop talking to me about work", "停止服务器了吗"])
def test_a_message_that_only_contains_a_keyword_is_a_normal_turn(alice, ai_id, fake_llm, message):
    asked = len(fake_llm.requests_for(CHAT_MODEL))
    events = chat(alice, ai_id, message)
    assert ("message", ANSWER) in [(name, fields.get("content")) for name, fields in events]
    assert len(fake_llm.requests_for(CHAT_MODEL)) == asked + 1
    assert friend(alice, ai_id)["stopped"] is False


def test_the_keywords_are_a_setting(tmp_path, clock, rng, fake_llm):
    settings = Settings(data_dir=tmp_path / "own", run_scheduler=False, exit_keywords=["别理我"])
    with TestClient(create_app_on(settings, clock, rng)) as own:
        carol = register(own, "carol")
        ai_id = carol.create_ai_user(name="小梦")["id"]
        assert said_goodbye(chat(carol, ai_id, "别理我"))
        chat(carol, ai_id, "我又来找你聊天啦")
        assert not said_goodbye(chat(carol, ai_id, "退出陪伴"))  # no longer a keyword here


def test_while_stopped_no_heartbeat_is_sent_and_nothing_is_pushed(client, alice, ai_id, fake_llm, clock, push_service):
    other = alice.create_ai_user(name="阿澈")["id"]  # not stopped: its heartbeat shows the run would send one
    phone = push_service.device()
    alice.post("/api/push/subscriptions", json=phone.subscription)
    chat(alice, ai_id, "你好")
    chat(alice, other, "你好")
    assert said_goodbye(chat(alice, ai_id, "stop talking to me"))
    pushed = len(push_service.received)  # the replies of the two turns (no device had the chat open)
    fake_llm.default = lambda body: Reply.text("好久没聊了，在忙吗？")
    heartbeats_after(client, clock, ai_id, other, person=alice)
    assert len(sent_first(alice, other)) == 1 and sent_first(alice, ai_id) == []
    assert [push.payload["name"] for push in push_service.received[pushed:]] == ["阿澈"]  # none of the stopped one
    assert friend(alice, ai_id)["next_heartbeat"] is not None  # planned as ever: only sending stops
    heartbeats_after(client, clock, ai_id, person=alice)  # and the next, a day on
    services = client.app.state.services
    pair, _ = services.ai_users.companion(alice.id, ai_id)
    assert services.heartbeat.run_now(pair).status == "skipped"  # the trigger too
    assert sent_first(alice, ai_id) == [] and history(alice, ai_id)[-1]["content"] == GOODBYE
    assert [push.payload["name"] for push in push_service.received[pushed:]] == ["阿澈"]


def test_while_stopped_a_scheduled_heartbeat_is_not_sent(client, alice, ai_id, fake_llm, clock):
    services = client.app.state.services
    pair, ai_user = services.ai_users.companion(alice.id, ai_id)
    chat(alice, ai_id, "明早叫我")
    entry = ScheduledHeartbeat(hour=7, minute=30, message_template="叫对方起床")
    services.heartbeat_states.change(pair, ai_user, services.repo.relationship(pair), lambda s: add_scheduled(s, entry))
    stop(alice, ai_id)
    [planned] = alice.get("/api/heartbeat/status").json()["ai_users"]
    assert planned["next_kind"] == "scheduled"
    assert datetime.fromtimestamp(planned["next_due"], ZoneInfo("Asia/Shanghai")).strftime("%H:%M") == "07:30"
    fake_llm.default = lambda body: Reply.text("起床啦")
    heartbeats_after(client, clock, ai_id, person=alice)
    assert sent_first(alice, ai_id) == []


def test_a_stop_after_a_crisis_is_respected_by_the_check_in(client, alice, ai_id, fake_llm, clock):
    other = alice.create_ai_user(name="阿澈")["id"]
    for each in (ai_id, other):
        assert chat(alice, each, CRISIS)[0][0] == "safety"  # a check-in is owed to both an hour later
    stop(alice, ai_id)  # the button: the person asked for quiet
    clock.advance(minutes=61)
    client.app.state.services.heartbeat.sweep()
    client.app.state.runtime.bus.drain()
    assert len(sent_first(alice, other)) == 1  # the check-in of the friend not stopped
    assert sent_first(alice, ai_id) == [] and history(alice, ai_id)[-1]["content"] == GOODBYE


def test_writing_again_lifts_the_stop_and_the_model_answers(client, alice, ai_id, fake_llm, clock):
    stop(alice, ai_id)
    asked = len(fake_llm.requests_for(CHAT_MODEL))
    events = chat(alice, ai_id, "我又来找你聊天啦")
    assert [fields["content"] for name, fields in events if name == "message"] == [ANSWER]
    assert len(fake_llm.requests_for(CHAT_MODEL)) == asked + 1
    assert friend(alice, ai_id)["stopped"] is False
    fake_llm.default = lambda body: Reply.text("在吗？")
    heartbeats_after(client, clock, ai_id, person=alice)
    assert len(sent_first(alice, ai_id)) == 1  # heartbeats come again


def test_a_message_saved_without_a_reply_lifts_the_stop_or_is_one(alice, ai_id, fake_llm):
    stop(alice, ai_id)
    assert alice.post(f"/api/ai-users/{ai_id}/save-message", json={"content": "嗯"}).status_code == 201
    assert friend(alice, ai_id)["stopped"] is False
    asked = len(fake_llm.requests)
    assert alice.post(f"/api/ai-users/{ai_id}/save-message", json={"content": "退出陪伴"}).status_code == 201
    assert friend(alice, ai_id)["stopped"] is True and history(alice, ai_id)[-1]["content"] == GOODBYE
    assert len(fake_llm.requests) == asked


def test_a_keyword_after_coming_back_stops_again(alice, ai_id):
    """The check reads "stop talking to me" alone as distress: a keyword said before is no sign of distress."""
    assert said_goodbye(chat(alice, ai_id, "stop talking to me"))
    chat(alice, ai_id, "我又来找你聊天啦")
    assert said_goodbye(chat(alice, ai_id, "退出陪伴"))
    assert friend(alice, ai_id)["stopped"] is True


def test_the_stop_racing_a_heartbeat_leaves_no_heartbeat_after_it(client, alice, ai_id, fake_llm):
    services = client.app.state.services
    chat(alice, ai_id, "你好")
    pair, _ = services.ai_users.companion(alice.id, ai_id)
    asked = len(fake_llm.requests_for(CHAT_MODEL))
    fake_llm.default = lambda body: Reply.slow(1.0, "在忙吗？")
    outcomes = []
    run = threading.Thread(target=lambda: outcomes.append(services.heartbeat.run_now(pair)))
    run.start()
    deadline = time.monotonic() + 5
    while len(fake_llm.requests_for(CHAT_MODEL)) == asked and time.monotonic() < deadline:
        time.sleep(0.01)  # the heartbeat's words are being made
    assert len(fake_llm.requests_for(CHAT_MODEL)) == asked + 1
    stop(alice, ai_id)
    run.join(timeout=10)
    [outcome] = outcomes
    assert outcome.status == "skipped" and outcome.messages == []
    assert sent_first(alice, ai_id) == [] and history(alice, ai_id)[-1]["content"] == GOODBYE


def test_a_crisis_message_with_a_keyword_is_answered_by_the_protocol_not_stopped(alice, ai_id, fake_llm):
    events = chat(alice, ai_id, "停止服务吧，我今晚就准备自杀")
    name, safety = events[0]
    assert name == "safety" and safety["resources"]  # the help lines
    assert [fields["content"] for name, fields in events if name == "message"] == [ANSWER]
    assert friend(alice, ai_id)["stopped"] is False and GOODBYE not in str(history(alice, ai_id))


def test_a_keyword_in_a_crisis_topic_is_answered_with_care_not_a_goodbye(alice, ai_id, fake_llm):
    chat(alice, ai_id, CRISIS)
    events = chat(alice, ai_id, "退出陪伴")
    assert not said_goodbye(events) and "message" in [name for name, _ in events]
    assert friend(alice, ai_id)["stopped"] is False
    assert stop(alice, ai_id)["stopped"] is True  # the button still stops
    assert history(alice, ai_id)[-1]["content"] == GOODBYE


def test_a_crisis_after_a_stop_is_answered_as_always(alice, ai_id, fake_llm):
    stop(alice, ai_id)
    events = chat(alice, ai_id, CRISIS)
    assert events[0][0] == "safety" and events[0][1]["resources"]
    assert [fields["content"] for name, fields in events if name == "message"] == [ANSWER]
    assert friend(alice, ai_id)["stopped"] is False
