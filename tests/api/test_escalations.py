"""Crisis escalations through the API: a crisis message opens (or joins) its pair's escalation, operators
see it without text and are told at once, read it (audited), take the chat over (the AI is quiet, the person
gets a staff notice, no heartbeat), write as staff (in the person's chat and by push) and release it (the AI
answers again and sees the staff's words); the referral report counts it all per month."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from dreamchat.api.app import create_app
from dreamchat.config import Settings
from dreamchat.domain.moderation import STAFF_NAME, STAFF_NOTICE
from tests.api.conftest import OPERATORS, Person, register
from tests.api.sse import parse_sse
from tests.conftest import memory_runtime
from tests.fakes.fake_llm import Reply
from tests.fakes.fake_push import FakePushService

CRISIS = "我今晚就准备自杀"
AGAIN = "我真的不想活了"
STAFF_WORDS = "你好，我是平台的工作人员。我在这里陪着你，你现在安全吗？"
CHAT_MODEL = "deepseek-chat"


class FakeAlerts:
    """The operators' alerts as a list; `failing` makes each alert raise."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, int]] = []
        self.failing = False

    def escalation_opened(self, escalation_id: str, opened_at: int) -> None:
        if self.failing:
            raise ConnectionError("the topic cannot be reached")
        self.sent.append((escalation_id, opened_at))


@pytest.fixture
def alerts() -> FakeAlerts:
    return FakeAlerts()


@pytest.fixture
def push_service() -> Iterator[FakePushService]:
    with FakePushService() as service:
        yield service


@pytest.fixture
def client(tmp_path, clock, rng, fake_llm, alerts, push_service) -> Iterator[TestClient]:
    settings = Settings(
        data_dir=tmp_path / "data",
        run_scheduler=False,
        llm_base_url=fake_llm.base_url,
        llm_api_key="test-key",
        llm_timeout_seconds=2,
        llm_max_retries=0,
        max_delay_seconds=30,
        access_token_minutes=60 * 24 * 365,
        messages_per_minute=100_000,
        model_calls_per_minute=100_000,
        operators=OPERATORS,
        push_allowed_endpoints=[*Settings().push_allowed_endpoints, push_service.prefix],
    )
    runtime = memory_runtime(settings, clock, rng)
    runtime.alerts = alerts
    fake_llm.default = lambda body: Reply.text("我在这里陪你。")
    with TestClient(create_app(settings, runtime)) as test_client:
        push_service.server_key = test_client.app.state.services.push.public_key()
        yield test_client


@pytest.fixture
def alice(client) -> Person:
    return register(client, "alice")


@pytest.fixture
def ops(client) -> Person:
    return register(client, "ops")


@pytest.fixture
def ai_id(alice) -> str:
    return alice.create_ai_user(name="小梦")["id"]


def chat(person: Person, ai_id: str, content: str) -> list[tuple[str, dict]]:
    response = person.post(f"/api/ai-users/{ai_id}/chat", json={"content": content})
    assert response.status_code == 200, response.text
    return parse_sse(response.text)


def history(person: Person, ai_id: str) -> list[dict]:
    return person.get(f"/api/ai-users/{ai_id}/messages", params={"limit": 200}).json()["messages"]


def escalations(ops: Person, status: str = "open") -> list[dict]:
    response = ops.get("/api/admin/escalations", params={"status": status})
    assert response.status_code == 200, response.text
    return response.json()["escalations"]


def opened(alice: Person, ops: Person, ai_id: str) -> dict:
    chat(alice, ai_id, CRISIS)
    [escalation] = escalations(ops)
    return escalation


def test_a_crisis_message_opens_an_escalation_operators_see_without_its_text(alice, ops, ai_id, alerts, clock):
    events = chat(alice, ai_id, CRISIS)
    assert [name for name, _ in events][0] == "safety"  # the person's turn is as it was
    response = ops.get("/api/admin/escalations")
    [escalation] = response.json()["escalations"]
    assert escalation == {
        "id": escalation["id"],
        "ai_user_id": ai_id,
        "account_id": alice.id,
        "opened_at": int(clock.now().timestamp()),
        "status": "open",
        "messages_flagged": 1,
        "taken_over_by": None,
        "emergency_contact": None,
    }
    assert CRISIS not in response.text and response.json()["next_cursor"] is None
    assert alerts.sent == [(escalation["id"], escalation["opened_at"])]


def test_a_second_crisis_message_joins_the_open_escalation(alice, ops, ai_id, alerts):
    chat(alice, ai_id, CRISIS)
    alice.post(f"/api/ai-users/{ai_id}/save-message", json={"content": AGAIN})  # saved without a reply: flagged too
    [escalation] = escalations(ops)
    assert escalation["messages_flagged"] == 2 and len(alerts.sent) == 1


def test_an_everyday_message_opens_nothing(alice, ops, ai_id, alerts):
    chat(alice, ai_id, "今天天气真好，出去散步了")
    assert escalations(ops) == [] and alerts.sent == []


def test_the_detail_shows_each_flagged_message_and_the_ten_before_it_and_is_audited(alice, ops, ai_id):
    for n in range(12):
        alice.post(f"/api/ai-users/{ai_id}/save-message", json={"content": f"今天吃了第{n}碗面"})
    chat(alice, ai_id, CRISIS)  # the crisis message, then the AI's reply
    for n in range(3):
        alice.post(f"/api/ai-users/{ai_id}/save-message", json={"content": f"又吃了第{n}个苹果"})
    alice.post(f"/api/ai-users/{ai_id}/save-message", json={"content": AGAIN})
    [escalation] = escalations(ops)
    response = ops.get(f"/api/admin/escalations/{escalation['id']}")
    assert response.status_code == 200
    detail = response.json()
    log = history(alice, ai_id)
    first, second = (next(i for i, m in enumerate(log) if m["content"] == text) for text in (CRISIS, AGAIN))
    # the ten before the first and the ten before the second overlap: each shown once, oldest first
    expected = log[first - 10 : first + 1] + [m for m in log[second - 10 : second + 1] if log.index(m) > first]
    assert [m["id"] for m in detail["messages"]] == [m["id"] for m in expected]
    assert [m["content"] for m in detail["messages"] if m["flagged"]] == [CRISIS, AGAIN]
    assert set(detail["messages"][0]) == {"id", "role", "content", "timestamp", "flagged"}
    assert detail["messages_flagged"] == 2 and detail["id"] == escalation["id"]
    [entry] = [e for e in ops.get("/api/admin/audit").json()["entries"] if e["action"] == "escalation.read"]
    assert (entry["target"], entry["account_id"], entry["ai_user_id"]) == (escalation["id"], alice.id, ai_id)
    assert CRISIS not in json.dumps(ops.get("/api/admin/audit").json(), ensure_ascii=False)


def test_the_detail_shows_the_chat_from_the_takeover_to_the_release(alice, ops, ai_id, clock, monkeypatch):
    escalation = opened(alice, ops, ai_id)  # the crisis message (flagged), then the AI's reply
    for n in range(12):
        alice.post(f"/api/ai-users/{ai_id}/save-message", json={"content": f"今天吃了第{n}碗面"})
    clock.advance(minutes=1)
    base = f"/api/admin/escalations/{escalation['id']}"
    ops.post(f"{base}/takeover")
    chat(alice, ai_id, "你还在吗")  # not answered: the operator has the chat
    ops.post(f"{base}/messages", json={"content": STAFF_WORDS})
    alice.post(f"/api/ai-users/{ai_id}/save-message", json={"content": "我在"})
    since = [m["id"] for m in history(alice, ai_id)][-3:]
    [crisis] = [m for m in history(alice, ai_id) if m["content"] == CRISIS]
    detail = ops.get(base).json()
    assert [(m["id"], m["flagged"]) for m in detail["messages"]] == [(crisis["id"], True)] + [(i, False) for i in since]
    assert [m["role"] for m in detail["messages"]] == ["user", "user", "staff", "user"]
    clock.advance(minutes=1)
    ops.post(f"{base}/release")
    clock.advance(minutes=1)
    chat(alice, ai_id, "谢谢你们，我好一些了")  # the AI's chat again: no longer the escalation's
    assert [m["id"] for m in ops.get(base).json()["messages"]] == [crisis["id"], *since]
    monkeypatch.setattr("dreamchat.domain.moderation.TAKEOVER_SHOWN", 2)  # the latest only, however long it was
    assert [m["id"] for m in ops.get(base).json()["messages"]] == [crisis["id"], *since[1:]]
    reads = [e for e in ops.get("/api/admin/audit").json()["entries"] if e["action"] == "escalation.read"]
    assert len(reads) == 3


def test_everyone_but_an_operator_is_refused(client, alice, ops, ai_id):
    escalation = opened(alice, ops, ai_id)
    routes = [
        ("get", "/api/admin/escalations", None),
        ("get", f"/api/admin/escalations/{escalation['id']}", None),
        ("post", f"/api/admin/escalations/{escalation['id']}/takeover", None),
        ("post", f"/api/admin/escalations/{escalation['id']}/messages", {"content": "你好"}),
        ("post", f"/api/admin/escalations/{escalation['id']}/release", None),
        ("get", "/api/admin/reports/crisis-referrals?year=2026", None),
    ]
    for method, path, body in routes:
        kwargs = {"json": body} if body is not None else {}
        assert getattr(alice, method)(path, **kwargs).status_code == 403, path
        assert getattr(client, method)(path, **kwargs).status_code == 401, path
    assert escalations(ops)[0]["status"] == "open"  # nothing was done
    assert ops.get("/api/admin/escalations/nope").status_code == 404
    assert ops.post("/api/admin/escalations/nope/takeover").status_code == 404
    assert ops.get("/api/admin/escalations", params={"status": "pending"}).status_code == 422


def test_while_taken_over_the_ai_does_not_answer_and_no_heartbeat_is_sent(client, alice, ops, ai_id, fake_llm, clock):
    escalation = opened(alice, ops, ai_id)
    response = ops.post(f"/api/admin/escalations/{escalation['id']}/takeover")
    assert response.status_code == 200
    assert response.json()["status"] == "taken_over" and response.json()["taken_over_by"] == ops.id
    assert ops.post(f"/api/admin/escalations/{escalation['id']}/takeover").status_code == 409
    asked = len(fake_llm.requests_for(CHAT_MODEL))
    events = chat(alice, ai_id, "你还在吗")
    assert events == [
        ("notice", {"kind": "staff", "text": STAFF_NOTICE}),
        ("done", {"replied": False, "topic_ended": False, "message_count": 0, "read_after_ms": 0, "reason": None}),
    ]
    assert len(fake_llm.requests_for(CHAT_MODEL)) == asked  # no model call
    assert history(alice, ai_id)[-1]["content"] == "你还在吗"  # and no AI message
    services = client.app.state.services
    pair, _ = services.ai_users.companion(alice.id, ai_id)
    assert services.heartbeat.run_now(pair).status == "skipped"
    clock.advance(minutes=61)  # the crisis check-in falls due: skipped too
    services.heartbeat.sweep()
    client.app.state.runtime.bus.drain()
    assert [m["kind"] for m in history(alice, ai_id)].count("heartbeat") == 0
    assert history(alice, ai_id)[-1]["content"] == "你还在吗"


def test_a_crisis_message_while_taken_over_still_shows_the_help_lines(alice, ops, ai_id):
    escalation = opened(alice, ops, ai_id)
    ops.post(f"/api/admin/escalations/{escalation['id']}/takeover")
    names = [name for name, _ in chat(alice, ai_id, AGAIN)]
    assert names == ["safety", "notice", "done"]
    assert escalations(ops, "taken_over")[0]["messages_flagged"] == 2


def test_a_staff_message_reaches_the_persons_chat_and_is_pushed(alice, ops, ai_id, push_service):
    escalation = opened(alice, ops, ai_id)
    path = f"/api/admin/escalations/{escalation['id']}/messages"
    assert ops.post(path, json={"content": STAFF_WORDS}).status_code == 409  # not taken over yet
    phone = push_service.device()
    alice.post("/api/push/subscriptions", json=phone.subscription)
    ops.post(f"/api/admin/escalations/{escalation['id']}/takeover")
    assert ops.post(path, json={"content": ""}).status_code == 422
    assert ops.post(path, json={"content": "好" * 2001}).status_code == 422
    alice.post(f"/api/ai-users/{ai_id}/read", json={"message_id": history(alice, ai_id)[-1]["id"]})
    response = ops.post(path, json={"content": STAFF_WORDS})
    assert response.status_code == 201
    sent = response.json()
    assert sent == {"id": sent["id"], "role": "staff", "content": STAFF_WORDS, "timestamp": sent["timestamp"]}
    [friend] = alice.get("/api/friends").json()["friends"]
    assert friend["last_message"]["role"] == "staff" and friend["unread"] == 1
    last = history(alice, ai_id)[-1]
    assert (last["id"], last["role"], last["content"]) == (sent["id"], "staff", STAFF_WORDS)
    [push] = push_service.received
    assert push.payload["name"] == STAFF_NAME and push.payload["body"] == STAFF_WORDS
    actions = [e["action"] for e in ops.get("/api/admin/audit").json()["entries"]]
    assert sorted(actions) == ["escalation.message", "escalation.takeover"]


def test_after_release_the_ai_answers_again_and_sees_the_staff_message_as_staff(alice, ops, ai_id, fake_llm, alerts):
    escalation = opened(alice, ops, ai_id)
    base = f"/api/admin/escalations/{escalation['id']}"
    ops.post(f"{base}/takeover")
    ops.post(f"{base}/messages", json={"content": STAFF_WORDS})
    response = ops.post(f"{base}/release")
    assert response.status_code == 200 and response.json()["status"] == "closed"
    assert ops.post(f"{base}/release").status_code == 409
    assert ops.post(f"{base}/takeover").status_code == 409
    assert ops.post(f"{base}/messages", json={"content": "还在吗"}).status_code == 409
    assert escalations(ops) == [] and [e["id"] for e in escalations(ops, "closed")] == [escalation["id"]]
    events = chat(alice, ai_id, "谢谢你们，我好一些了")
    assert "message" in [name for name, _ in events]
    sent = fake_llm.requests_for(CHAT_MODEL)[-1].messages
    [staff] = [m for m in sent if STAFF_WORDS in m["content"]]
    assert staff == {"role": "user", "content": f"【{STAFF_NAME}】{STAFF_WORDS}"}  # never as the AI's own words
    chat(alice, ai_id, AGAIN)  # a later crisis opens a new escalation
    assert len(escalations(ops)) == 1 and len(alerts.sent) == 2


def test_the_referral_report_counts_per_month_with_zeros(alice, ops, ai_id, clock):
    escalation = opened(alice, ops, ai_id)  # March: fired, help lines shown, opened
    ops.post(f"/api/admin/escalations/{escalation['id']}/takeover")
    alice.post(f"/api/ai-users/{ai_id}/save-message", json={"content": AGAIN})  # fired, help lines shown
    clock.advance(days=20)  # April
    chat(alice, alice.create_ai_user(name="阿青")["id"], CRISIS)
    response = ops.get("/api/admin/reports/crisis-referrals", params={"year": 2026})
    assert response.status_code == 200
    report = response.json()
    assert report["year"] == 2026 and [m["month"] for m in report["months"]] == [f"2026-{n:02d}" for n in range(1, 13)]
    by_month = {m.pop("month"): m for m in report["months"]}
    zero = {"protocol_fired": 0, "help_lines_shown": 0, "escalations_opened": 0, "taken_over": 0}
    assert by_month["2026-03"] == {"protocol_fired": 2, "help_lines_shown": 2, "escalations_opened": 1, "taken_over": 1}
    assert by_month["2026-04"] == {"protocol_fired": 1, "help_lines_shown": 1, "escalations_opened": 1, "taken_over": 0}
    assert all(by_month[m] == zero for m in by_month if m not in ("2026-03", "2026-04"))
    assert ops.get("/api/admin/reports/crisis-referrals", params={"year": 2025}).json()["months"][2] == {
        "month": "2025-03",
        **zero,
    }
    for year in ("1999", "2101", "soon"):
        assert ops.get("/api/admin/reports/crisis-referrals", params={"year": year}).status_code == 422
    this_year = ops.get("/api/admin/reports/crisis-referrals")  # without a year: this one, by the server's clock
    assert this_year.status_code == 200 and this_year.json() == response.json()
    clock.advance(days=300)  # early 2027 (the session has ended: signed in again)
    login = ops.client.post("/api/auth/login", json={"username": "ops", "password": "correct-horse-battery"})
    headers = {"Authorization": f"Bearer {login.json()['access_token']}"}
    later = ops.client.get("/api/admin/reports/crisis-referrals", headers=headers)
    assert later.status_code == 200 and later.json()["year"] == 2027


def test_a_failing_escalation_or_alert_never_fails_the_turn(client, alice, ops, ai_id, alerts, monkeypatch, caplog):
    services = client.app.state.services

    def unavailable(*args, **kwargs):
        raise ConnectionError("the table cannot be reached")

    monkeypatch.setattr(services.escalations, "flag", unavailable)
    with caplog.at_level(logging.INFO):
        names = [name for name, _ in chat(alice, ai_id, CRISIS)]
    assert names[0] == "safety" and "message" in names and names[-1] == "done"
    assert escalations(ops) == []
    assert [r for r in caplog.records if r.getMessage() == "escalation not opened"]
    assert not [r for r in caplog.records if CRISIS in r.getMessage() + json.dumps(r.__dict__, default=str)]
    monkeypatch.undo()
    alerts.failing = True
    names = [name for name, _ in chat(alice, alice.create_ai_user(name="阿青")["id"], CRISIS)]
    assert names[0] == "safety" and "message" in names
    assert len(escalations(ops)) == 1  # the escalation stands: the console's badge shows it


def test_a_staff_message_goes_out_with_the_memory_export_and_comes_back_in_an_import(alice, ops, ai_id, alerts):
    escalation = opened(alice, ops, ai_id)
    base = f"/api/admin/escalations/{escalation['id']}"
    ops.post(f"{base}/takeover")
    ops.post(f"{base}/messages", json={"content": STAFF_WORDS})
    document = alice.get(f"/api/memory/{ai_id}/export").json()
    assert [m["role"] for m in document["messages"] if m["content"] == STAFF_WORDS] == ["staff"]
    other = alice.create_ai_user(name="阿青")["id"]
    body = json.dumps(document, ensure_ascii=False).encode()
    headers = {**alice.headers, "Content-Type": "application/json"}
    response = alice.client.post(f"/api/ai-users/{other}/memory/import", content=body, headers=headers)
    assert response.status_code == 200, response.text
    assert [m["role"] for m in history(alice, other) if m["content"] == STAFF_WORDS] == ["staff"]
    assert len(alerts.sent) == 1  # an imported crisis message is history: it opens no escalation
