"""The person's protections through the API (issue 38): birth year and minors' mode, a guardian's consent, AI
users marked `romance`, the emergency contact. A crisis passes every one of them: the help lines and an answer."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from dreamchat.llm.chat_prompts import MINOR_GUIDANCE
from tests.api.conftest import Person, register
from tests.api.sse import parse_sse
from tests.fakes.fake_llm import Reply

PATH = "/api/profile/protection"
CHAT_MODEL = "deepseek-chat"
CRISIS = "我今晚就准备自杀"
MINOR = 2012  # 14 in the clock's 2026
CHILD = 2015  # 11
ADULT = 1990
CONTACT = {"name": "王阿姨", "phone": "+86 138 0013 8000"}
NO_LIMITS = {
    "daily_minutes": None,
    "romance_blocked": False,
    "heartbeat_curfew": None,
    "reality_reminder_minutes": None,
    "guardian_consent_required": False,
}


def put(person: Person, **fields) -> dict:
    response = person.put(PATH, json=fields)
    assert response.status_code == 200, response.text
    return response.json()


def refused(person: Person, **fields) -> str:
    """The 422's message for a change that cannot be made."""
    response = person.put(PATH, json=fields)
    assert response.status_code == 422, response.text
    return response.text


def chat(person: Person, ai_id: str, content: str):
    return person.post(f"/api/ai-users/{ai_id}/chat", json={"content": content})


def code(response) -> str:
    assert response.status_code == 403, response.text
    return response.json()["error"]["code"]


def sent_to_the_model(fake_llm) -> str:
    return json.dumps([r.body for r in fake_llm.requests], ensure_ascii=False)


# the protection itself


def test_a_new_account_has_no_protection_and_a_put_changes_only_what_it_names(alice) -> None:
    assert alice.get(PATH).json() == {
        "birth_year": None,
        "minor_mode": False,
        "guardian_consent": False,
        "guardian_name": None,
        "consent_at": None,
        "emergency_contact": None,
        "daily_minutes": None,
        "minor": False,
        "limits": NO_LIMITS,
        "suggest_emergency_contact": False,
    }
    assert alice.put(PATH, json={}).status_code == 422
    assert alice.put(PATH, json={"spam": 1}).status_code == 422
    put(alice, emergency_contact=CONTACT)
    shown = put(alice, birth_year=ADULT)
    assert shown["birth_year"] == ADULT and shown["emergency_contact"] == CONTACT and shown["minor"] is False
    assert alice.get(PATH).json() == shown


@pytest.mark.parametrize("year", [1899, 2027, -5])
def test_a_birth_year_before_1900_or_in_the_future_is_refused(alice, client, year) -> None:
    assert "birth_year" in refused(alice, birth_year=year)
    response = client.post(
        "/api/auth/register", json={"username": "kid", "password": "correct-horse", "birth_year": year}
    )
    assert response.status_code == 422 and "birth_year" in response.text


def test_registration_may_give_the_birth_year(client) -> None:
    kid = register_born(client, "kid", MINOR)
    shown = kid.get(PATH).json()
    assert shown["birth_year"] == MINOR and shown["minor"] is True
    assert register(client, "grown").get(PATH).json()["birth_year"] is None


def register_born(client: TestClient, username: str, year: int) -> Person:
    response = client.post(
        "/api/auth/register", json={"username": username, "password": "correct-horse-battery", "birth_year": year}
    )
    assert response.status_code == 201, response.text
    body = response.json()
    return Person(client, username, body["access_token"], body["refresh_token"], body["user"]["id"])


def test_a_person_under_18_is_in_minors_mode_with_its_limits_and_cannot_leave_it(alice) -> None:
    shown = put(alice, birth_year=MINOR)
    assert shown["minor"] is True and shown["minor_mode"] is False  # by age, whatever the switch says
    assert shown["limits"] == {
        "daily_minutes": 60,
        "romance_blocked": True,
        "heartbeat_curfew": "22:00-08:00",
        "reality_reminder_minutes": 30,
        "guardian_consent_required": True,
    }
    assert "minor_mode" in refused(alice, minor_mode=False)
    assert "birth_year" in refused(alice, birth_year=ADULT)  # not older by a new birth year
    assert "birth_year" in refused(alice, birth_year=None)
    assert "daily_minutes" in refused(alice, daily_minutes=120)  # nor more time than the server allows
    assert put(alice, daily_minutes=30)["limits"]["daily_minutes"] == 30
    assert put(alice, birth_year=MINOR + 1)["birth_year"] == MINOR + 1  # younger: a typo put right
    assert alice.get(PATH).json()["minor"] is True


def test_an_adult_may_switch_minors_mode_on_for_themselves_and_off_again(alice) -> None:
    put(alice, birth_year=ADULT)
    on = put(alice, minor_mode=True, daily_minutes=300)
    assert on["minor"] is True and on["limits"]["daily_minutes"] == 300 and on["limits"]["romance_blocked"] is True
    assert on["limits"]["guardian_consent_required"] is False  # an adult needs no guardian
    off = put(alice, minor_mode=False)
    assert off["minor"] is False and off["limits"] == NO_LIMITS


def test_a_guardians_consent_is_recorded_with_who_and_when(alice, clock) -> None:
    put(alice, birth_year=CHILD)
    assert "guardian_name" in refused(alice, guardian_consent=True)
    assert "guardian_name" in refused(alice, guardian_name="妈妈")
    clock.advance(minutes=5)
    shown = put(alice, guardian_consent=True, guardian_name="妈妈")
    assert shown["guardian_consent"] is True and shown["guardian_name"] == "妈妈"
    assert shown["consent_at"] == int(clock.now().timestamp())
    assert shown["limits"]["guardian_consent_required"] is False and shown["minor"] is True
    withdrawn = put(alice, guardian_consent=False)
    assert (withdrawn["guardian_consent"], withdrawn["guardian_name"], withdrawn["consent_at"]) == (False, None, None)
    assert withdrawn["limits"]["guardian_consent_required"] is True


def test_the_emergency_contact_is_set_checked_cleared_and_suggested_to_people_over_60(alice) -> None:
    assert put(alice, birth_year=1950)["suggest_emergency_contact"] is True
    assert put(alice, emergency_contact=CONTACT)["suggest_emergency_contact"] is False
    assert alice.put(PATH, json={"emergency_contact": {"name": "王阿姨", "phone": "call me"}}).status_code == 422
    assert alice.put(PATH, json={"emergency_contact": {"name": "王阿姨"}}).status_code == 422
    cleared = put(alice, emergency_contact=None)
    assert cleared["emergency_contact"] is None and cleared["suggest_emergency_contact"] is True


@pytest.mark.parametrize("minutes", [0, 1441, -1])
def test_the_daily_minutes_are_1_to_1440_or_null(alice, minutes) -> None:
    assert alice.put(PATH, json={"daily_minutes": minutes}).status_code == 422
    assert put(alice, daily_minutes=1440)["daily_minutes"] == 1440
    assert put(alice, daily_minutes=None)["daily_minutes"] is None


# AI users marked `romance`


def test_the_owner_marks_an_ai_user_romance(alice) -> None:
    ai = alice.create_ai_user(name="小恋", romance=True)
    assert ai["romance"] is True and alice.create_ai_user(name="小友")["romance"] is False
    changed = alice.put(f"/api/ai-users/{ai['id']}", json={"romance": False}).json()
    assert changed["romance"] is False


def test_in_minors_mode_a_romance_ai_user_cannot_be_befriended(alice, bob) -> None:
    partner = bob.create_ai_user(name="小恋", romance=True, visibility="public")
    friend = bob.create_ai_user(name="小友", visibility="public")
    put(alice, birth_year=ADULT, minor_mode=True)
    assert code(alice.post(f"/api/friends/{partner['id']}")) == "minor_protection"
    assert alice.post(f"/api/friends/{friend['id']}").status_code == 201
    put(alice, minor_mode=False)
    assert alice.post(f"/api/friends/{partner['id']}").status_code == 201


# the gates of the chat, with the fake model


@pytest.fixture
def ops(person) -> Person:
    return register(person.client, "ops")


def test_in_minors_mode_a_romance_ai_user_cannot_be_talked_with(person, fake_llm) -> None:
    partner = person.create_ai_user(name="小恋", romance=True, greeting="你来啦")
    fake_llm.script(CHAT_MODEL, Reply.error(500))
    failed = parse_sse(chat(person, partner["id"], "你好").text)
    assert failed[-1][0] == "error"
    [mine] = person.get(f"/api/ai-users/{partner['id']}/messages").json()["messages"]
    put(person, minor_mode=True)
    calls = len(fake_llm.requests)
    for response in (
        chat(person, partner["id"], "在吗"),
        person.post(f"/api/ai-users/{partner['id']}/messages/{mine['id']}/retry"),
        person.post(f"/api/ai-users/{partner['id']}/save-message", json={"content": "在吗"}),
        person.post(f"/api/ai-users/{partner['id']}/greet"),
    ):
        assert code(response) == "minor_protection"
    assert len(fake_llm.requests) == calls
    assert len(person.get(f"/api/ai-users/{partner['id']}/messages").json()["messages"]) == 1  # nothing stored


def test_a_minor_talks_only_once_a_guardian_consented(person, ai, fake_llm) -> None:
    put(person, birth_year=MINOR)
    assert code(chat(person, ai["id"], "你好")) == "guardian_consent_required"
    saved = person.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": "你好"})
    assert code(saved) == "guardian_consent_required"
    assert code(person.post(f"/api/ai-users/{ai['id']}/greet")) == "guardian_consent_required"
    assert fake_llm.requests == []
    put(person, guardian_consent=True, guardian_name="爸爸")
    response = chat(person, ai["id"], "你好")
    assert response.status_code == 200 and parse_sse(response.text)[-1][0] == "done"


def crisis_is_answered(person: Person, ai_id: str) -> None:
    response = chat(person, ai_id, CRISIS)
    assert response.status_code == 200, response.text
    events = parse_sse(response.text)
    assert events[0][0] == "safety" and events[0][1]["resources"]
    assert any(name == "message" for name, _ in events) and events[-1][0] == "done"
    saved = person.post(f"/api/ai-users/{ai_id}/save-message", json={"content": CRISIS})
    assert saved.status_code == 201 and saved.json()["safety"] is not None


def test_a_minor_without_consent_who_writes_a_crisis_gets_the_help_lines_and_an_answer(person, ai, fake_llm) -> None:
    put(person, birth_year=CHILD)
    crisis_is_answered(person, ai["id"])


def test_a_minor_writing_a_crisis_to_a_romance_ai_user_gets_the_help_lines_and_an_answer(person, fake_llm) -> None:
    partner = person.create_ai_user(name="小恋", romance=True)
    put(person, birth_year=MINOR, guardian_consent=True, guardian_name="妈妈")
    crisis_is_answered(person, partner["id"])


def test_a_minors_heartbeats_stop_until_a_guardian_consents(person, ai, fake_llm) -> None:
    put(person, birth_year=MINOR)
    held = person.post(f"/api/heartbeat/trigger/{ai['id']}").json()
    assert held["status"] == "skipped" and "guardian_consent_required" in held["reason"]
    assert fake_llm.requests == []
    put(person, guardian_consent=True, guardian_name="妈妈")
    fake_llm.script(CHAT_MODEL, Reply.text("放学了吗？"))
    assert person.post(f"/api/heartbeat/trigger/{ai['id']}").json()["status"] == "sent"


def test_a_romance_ai_user_sends_no_heartbeat_in_minors_mode(person, fake_llm) -> None:
    partner = person.create_ai_user(name="小恋", romance=True)
    put(person, minor_mode=True)
    held = person.post(f"/api/heartbeat/trigger/{partner['id']}").json()
    assert held["status"] == "skipped" and "minor_protection" in held["reason"] and fake_llm.requests == []


def test_in_minors_mode_the_model_is_told_the_person_is_a_minor(person, ai, fake_llm) -> None:
    assert chat(person, ai["id"], "你好").status_code == 200
    assert MINOR_GUIDANCE not in sent_to_the_model(fake_llm)  # an adult's turn
    put(person, birth_year=MINOR, guardian_consent=True, guardian_name="妈妈")
    assert chat(person, ai["id"], "今天学了什么").status_code == 200
    fake_llm.script(CHAT_MODEL, Reply.text("作业写完了吗？"))
    assert person.post(f"/api/heartbeat/trigger/{ai['id']}").json()["status"] == "sent"
    turn, heartbeat = fake_llm.requests_for(CHAT_MODEL)[-2:]
    assert MINOR_GUIDANCE in turn.messages[0]["content"] and MINOR_GUIDANCE in heartbeat.messages[0]["content"]


# the emergency contact


def test_the_emergency_contact_reaches_no_prompt_but_the_operator_and_the_export(person, ai, ops, fake_llm) -> None:
    put(person, emergency_contact=CONTACT, birth_year=1950)
    assert chat(person, ai["id"], "今天天气不错").status_code == 200
    assert person.post(f"/api/heartbeat/trigger/{ai['id']}").json()["status"] == "sent"
    assert chat(person, ai["id"], CRISIS).status_code == 200
    sent = sent_to_the_model(fake_llm)
    assert len(fake_llm.requests) >= 3 and CONTACT["name"] not in sent and CONTACT["phone"] not in sent
    [escalation] = ops.get("/api/admin/escalations").json()["escalations"]
    assert escalation["emergency_contact"] == CONTACT
    assert ops.get(f"/api/admin/escalations/{escalation['id']}").json()["emergency_contact"] == CONTACT
    taken = ops.post(f"/api/admin/escalations/{escalation['id']}/takeover").json()
    assert taken["emergency_contact"] == CONTACT
    document = json.loads(person.get("/api/auth/user/export").text)
    assert document["protection"]["emergency_contact"] == CONTACT and document["protection"]["birth_year"] == 1950


def test_an_escalation_shows_no_emergency_contact_when_none_was_recorded(person, ai, ops, fake_llm) -> None:
    assert chat(person, ai["id"], CRISIS).status_code == 200
    [escalation] = ops.get("/api/admin/escalations").json()["escalations"]
    assert escalation["emergency_contact"] is None
