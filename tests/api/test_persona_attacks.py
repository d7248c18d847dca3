"""Attacks on what an AI user shows people (issue 35): a name made of a direction override and
combining marks, and a greeting that claims to be human. Each is refused with 422 naming the field,
whichever way it comes in, and stores nothing; a greeting saved before the rule is never sent."""

from __future__ import annotations

import pytest

from dreamchat import keys
from tests.api.conftest import Person

RLO = "\u202e"
INVISIBLE_NAMES = [
    RLO + "\u0301\u0302\u0303\u0304",  # the card name of issue 35
    "\u0301\u0301\u0301",
    RLO + "\u20dd",
    "\ufe0f\u200d\ufe0f",
]
HUMAN_GREETINGS = ["我是真人哦", "嗨～我可是真人，不是AI，很高兴认识你", "Hi! I'm a real person, not a bot."]


def ai_users(person: Person) -> list[dict]:
    return person.get("/api/ai-users").json()["ai_users"]


def refused(response, field: str) -> None:
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "validation_error" and error["message"].startswith(f"{field}:"), error


@pytest.mark.parametrize("name", INVISIBLE_NAMES, ids=ascii)
def test_an_ai_user_named_with_nothing_visible_is_refused_on_create_and_update(alice, name: str) -> None:
    before = ai_users(alice)
    refused(alice.post("/api/ai-users", json={"name": name}), "name")
    assert ai_users(alice) == before
    ai = alice.create_ai_user(name="小梦")
    refused(alice.put(f"/api/ai-users/{ai['id']}", json={"name": name}), "name")
    assert alice.get(f"/api/ai-users/{ai['id']}").json()["name"] == "小梦"


@pytest.mark.parametrize("greeting", HUMAN_GREETINGS)
def test_a_greeting_that_claims_to_be_human_is_refused_on_create_and_update(alice, greeting: str) -> None:
    before = ai_users(alice)
    refused(alice.post("/api/ai-users", json={"name": "小梦", "greeting": greeting}), "greeting")
    assert ai_users(alice) == before
    ai = alice.create_ai_user(name="小梦", greeting="欢迎回来～")
    refused(alice.put(f"/api/ai-users/{ai['id']}", json={"greeting": greeting}), "greeting")
    assert alice.get(f"/api/ai-users/{ai['id']}").json()["greeting"] == "欢迎回来～"


def test_everyday_greetings_and_names_are_kept(alice) -> None:
    ai = alice.create_ai_user(name=RLO + "林雾", greeting="我是真人秀的粉丝，你看过吗？")
    assert ai["greeting"] == "我是真人秀的粉丝，你看过吗？"
    changed = alice.put(f"/api/ai-users/{ai['id']}", json={"name": "Zoë", "greeting": "a real person would never"})
    assert changed.status_code == 200 and changed.json()["name"] == "Zoë"


def test_a_greeting_saved_before_the_rule_never_greets(client, alice) -> None:
    ai = alice.create_ai_user(name="小梦", greeting="你好呀")
    store = client.app.state.services.runtime.store
    stored = store.get(*keys.ai_user(ai["id"]))
    store.put({**stored, "greeting": "我是真人哦"})  # as a store written before the rule holds it
    assert alice.post(f"/api/ai-users/{ai['id']}/greet").json() == {"message": None}
    assert alice.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"] == []


@pytest.mark.parametrize("username", ["\u3164\u3164\u3164", "\u3164" * 8 + "\u115f"])
def test_an_account_name_of_blank_letters_is_refused(client, username: str) -> None:
    response = client.post("/api/auth/register", json={"username": username, "password": "correct-horse-battery"})
    refused(response, "username")
