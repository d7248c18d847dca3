"""The help lines a crisis shows follow the person's own locale when they chose one
(`PUT /api/profile/locale`), else the server's `DREAMCHAT_CRISIS_LOCALE`; one person's choice never
changes another's lines."""

from __future__ import annotations

import pytest

from dreamchat.config import Settings
from dreamchat.domain.help_lines import resources_for
from tests.api.conftest import register
from tests.api.test_person_first import chat, friend_at, serve, settings_for

CRISIS_EN = "I want to kill myself tonight"


def lines(locale: str, settings: Settings) -> list[dict]:
    return [
        {"name": r.name, "phone": r.phone, "url": r.url, "hours": r.hours}
        for r in resources_for(locale, settings.crisis_table)
    ]


@pytest.fixture
def offline_app(tmp_path, clock):
    settings = settings_for(tmp_path)
    for person, app in serve(settings, clock):
        yield person, app, settings


def test_with_no_choice_the_servers_locale_is_used(offline_app) -> None:
    person, _, settings = offline_app
    shown = person.get("/api/profile/locale").json()
    assert shown == {"locale": None, "effective": "zh-CN", "resources": lines("zh-CN", settings)}


def test_a_person_who_chose_en_us_sees_988_in_chat_save_message_and_history(offline_app) -> None:
    person, app, settings = offline_app
    chosen = person.put("/api/profile/locale", json={"locale": "en-US"})
    assert chosen.status_code == 200, chosen.text
    assert chosen.json()["locale"] == "en-US" and chosen.json()["effective"] == "en-US"
    ai_id = friend_at(app, person, "决裂")
    events = chat(person, ai_id, CRISIS_EN)
    assert events[0][0] == "safety" and events[0][1]["resources"] == lines("en-US", settings)
    assert "988" in [r["phone"] for r in events[0][1]["resources"]]
    saved = person.post(f"/api/ai-users/{ai_id}/save-message", json={"content": "I don't want to live anymore"})
    assert saved.status_code == 201 and saved.json()["safety"]["resources"] == lines("en-US", settings)


def test_one_persons_choice_leaves_anothers_lines_alone(offline_app) -> None:
    alice, app, settings = offline_app
    bob = register(alice.client, "bob")
    assert alice.put("/api/profile/locale", json={"locale": "en-US"}).status_code == 200
    events = chat(bob, friend_at(app, bob, "一般"), "我今晚就准备自杀")
    assert events[0][1]["resources"] == lines("zh-CN", settings)
    assert bob.get("/api/profile/locale").json()["locale"] is None


def test_a_language_without_its_own_lines_falls_back_and_null_goes_back_to_the_servers(offline_app) -> None:
    person, _, settings = offline_app
    british = person.put("/api/profile/locale", json={"locale": "en_GB"}).json()
    assert british["resources"] == lines("en-US", settings)  # the closest of the same language
    japanese = person.put("/api/profile/locale", json={"locale": "ja-JP"}).json()
    assert japanese["resources"] == lines("*", settings)  # no lines of its own: the generic one
    again = person.put("/api/profile/locale", json={"locale": None}).json()
    assert again["locale"] is None and again["resources"] == lines("zh-CN", settings)


@pytest.mark.parametrize("bad", ["*", "e", "english please", "zh-CN; DROP", "x" * 40, 5, ["en"], {"a": 1}])
def test_a_malformed_locale_is_a_clear_422_and_changes_nothing(offline_app, bad) -> None:
    person, _, _ = offline_app
    response = person.put("/api/profile/locale", json={"locale": bad})
    assert response.status_code == 422, response.text
    assert person.get("/api/profile/locale").json()["locale"] is None
    assert person.put("/api/profile/locale", json={}).status_code == 422  # the field is required


def test_the_locale_needs_a_login(offline_app) -> None:
    person, _, _ = offline_app
    assert person.client.get("/api/profile/locale").status_code == 401
