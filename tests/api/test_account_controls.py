"""A person's own account in the app (issue 40): a password changed ends every login, a wrong old one is
refused; deleting the account stays one call."""

from __future__ import annotations

import json

import pytest

from tests.api.conftest import Person, register

OLD = "correct-horse-battery"
NEW = "purple-staple-harbour"


def change(person: Person, old: str, new: str):
    return person.put("/api/auth/password", json={"old_password": old, "new_password": new})


def login(person: Person, password: str):
    return person.client.post("/api/auth/login", json={"username": person.username, "password": password})


def test_a_changed_password_ends_every_login_and_this_device_gets_new_tokens(client, alice) -> None:
    other_device = login(alice, OLD).json()

    response = change(alice, OLD, NEW)

    assert response.status_code == 200, response.text
    tokens = response.json()
    for refresh in (alice.refresh_token, other_device["refresh_token"]):
        assert client.post("/api/auth/refresh", json={"refresh_token": refresh}).status_code == 401
    stale = {"Authorization": f"Bearer {other_device['access_token']}"}
    assert client.get("/api/auth/user", headers=stale).status_code == 401
    fresh = {"Authorization": f"Bearer {tokens['access_token']}"}
    assert client.get("/api/auth/user", headers=fresh).status_code == 200
    assert client.post("/api/auth/refresh", json={"refresh_token": tokens["refresh_token"]}).status_code == 200
    assert login(alice, OLD).status_code == 401
    assert login(alice, NEW).status_code == 200


def test_a_wrong_old_password_is_refused_and_nothing_changes(client, alice) -> None:
    response = change(alice, "not-my-password", NEW)

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "wrong_password"
    assert client.post("/api/auth/refresh", json={"refresh_token": alice.refresh_token}).status_code == 200
    assert login(alice, OLD).status_code == 200


def test_wrong_old_passwords_are_limited_like_failed_logins(client, alice) -> None:
    codes = [change(alice, f"guess-{n}-xxxx", NEW).status_code for n in range(6)]
    assert codes == [403] * 5 + [429]


@pytest.mark.parametrize("new", ["short", "x" * 129])
def test_a_new_password_the_registration_would_refuse_is_refused(client, alice, new) -> None:
    response = change(alice, OLD, new)
    assert response.status_code == 422
    assert login(alice, OLD).status_code == 200


@pytest.mark.parametrize(
    "body", [{}, {"old_password": OLD}, {"new_password": NEW}, {"old_password": OLD, "new_password": NEW, "x": 1}]
)
def test_a_change_needs_both_passwords_and_nothing_else(client, alice, body) -> None:
    assert alice.put("/api/auth/password", json=body).status_code == 422


def test_a_change_needs_a_login(client) -> None:
    assert client.put("/api/auth/password", json={"old_password": OLD, "new_password": NEW}).status_code == 401


def test_changing_one_password_leaves_another_account_alone(client, alice, bob) -> None:
    assert change(alice, OLD, NEW).status_code == 200
    assert client.post("/api/auth/refresh", json={"refresh_token": bob.refresh_token}).status_code == 200


def test_the_account_can_still_be_deleted_in_one_call(client) -> None:
    carol = register(client, "carol")
    assert carol.delete("/api/auth/user").status_code == 200
    assert login(carol, OLD).status_code == 401


# the nickname


CHAT_MODEL = "deepseek-chat"


def chat(person: Person, ai: dict, content: str) -> None:
    response = person.post(f"/api/ai-users/{ai['id']}/chat", json={"content": content})
    assert response.status_code == 200, response.text


def chat_prompt(fake_llm) -> str:
    return json.dumps(fake_llm.requests_for(CHAT_MODEL)[-1].messages, ensure_ascii=False)


@pytest.fixture
def old_friend(person) -> dict:
    return person.create_ai_user(name="小梦", base_soul="你是{{user}}的老朋友", greeting="{{user}}，好久不见")


def test_the_nickname_is_what_every_card_and_prompt_calls_the_person(person, old_friend, fake_llm) -> None:
    response = person.put("/api/profile", json={"nickname": "  阿青 "})

    assert response.status_code == 200, response.text
    assert response.json()["nickname"] == "阿青"
    assert person.get("/api/profile").json()["nickname"] == "阿青"
    greeting = person.post(f"/api/ai-users/{old_friend['id']}/greet").json()["message"]
    assert greeting["content"] == "阿青，好久不见"
    chat(person, old_friend, "在吗")
    prompt = chat_prompt(fake_llm)
    assert "你是阿青的老朋友" in prompt and "对方希望你叫TA「阿青」" in prompt and "{{user}}" not in prompt


def test_without_a_nickname_a_card_speaks_of_and_to_the_person_as_before(person, old_friend, fake_llm) -> None:
    assert person.get("/api/profile").json()["nickname"] is None
    greeting = person.post(f"/api/ai-users/{old_friend['id']}/greet").json()["message"]
    assert greeting["content"] == "你，好久不见"
    chat(person, old_friend, "在吗")
    prompt = chat_prompt(fake_llm)
    assert "你是对方的老朋友" in prompt and "【称呼】" not in prompt


def test_a_nickname_set_to_null_or_empty_is_forgotten(person, old_friend, fake_llm) -> None:
    person.put("/api/profile", json={"nickname": "阿青", "about_me": "喜欢爬山"})
    for cleared in (None, ""):
        person.put("/api/profile", json={"nickname": "阿青"})
        response = person.put("/api/profile", json={"nickname": cleared})
        assert response.status_code == 200 and response.json()["nickname"] is None
    assert person.get("/api/profile").json()["about_me"] == "喜欢爬山"  # the other fields stay
    chat(person, old_friend, "在吗")
    assert "阿青" not in chat_prompt(fake_llm)


@pytest.mark.parametrize("nickname", ["\u200b\u200b", "长" * 41, 7])
def test_a_nickname_that_shows_nothing_or_is_too_long_is_refused(person, nickname) -> None:
    assert person.put("/api/profile", json={"nickname": nickname}).status_code == 422
    assert person.get("/api/profile").json()["nickname"] is None


def test_one_persons_nickname_never_reaches_anothers_chat(person, old_friend, fake_llm) -> None:
    bob = register(person.client, "bob")
    bob.put("/api/profile", json={"nickname": "阿鲍"})
    chat(person, old_friend, "在吗")
    assert "阿鲍" not in chat_prompt(fake_llm)
