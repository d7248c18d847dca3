from __future__ import annotations

import pytest


def test_create_and_read_an_ai_user(alice) -> None:
    ai = alice.create_ai_user(night_owl=True, timezone="Europe/Berlin", model="reasoner")
    assert ai["id"].startswith("ai_")
    assert ai["visibility"] == "private" and ai["night_owl"] is True and ai["model"] == "reasoner"
    assert "owner_id" not in ai and ai["is_owner"] is True
    assert alice.get(f"/api/ai-users/{ai['id']}").json() == ai


def test_new_ai_users_default_to_the_configured_timezone(alice) -> None:
    assert alice.create_ai_user()["timezone"] == "Asia/Shanghai"


@pytest.mark.parametrize(
    "fields",
    [
        {"name": ""},
        {"name": "   "},
        {"name": "\u200b\u2060\ufeff"},  # zero-width space, word joiner, BOM
        {"name": "\u3164"},  # Hangul filler
        {"name": "x" * 41},
        {"base_soul": "x" * 4001},
        {"timezone": "Mars/Olympus"},
        {"visibility": "secret"},
        {"model": "gpt"},
        {"unknown": 1},
    ],
)
def test_invalid_ai_user_fields_are_refused(alice, fields) -> None:
    response = alice.post("/api/ai-users", json={"name": "小梦", **fields})
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "validation_error"


def test_a_body_over_64_kib_is_refused(alice) -> None:
    response = alice.post("/api/ai-users", json={"name": "小梦", "base_soul": "x" * 70_000})
    assert response.status_code == 413


def test_owner_updates_an_ai_user(alice) -> None:
    ai = alice.create_ai_user()
    response = alice.put(f"/api/ai-users/{ai['id']}", json={"base_soul": "活泼开朗", "visibility": "public"})
    assert response.status_code == 200
    assert response.json()["base_soul"] == "活泼开朗" and response.json()["visibility"] == "public"
    assert response.json()["name"] == ai["name"]
    assert alice.put(f"/api/ai-users/{ai['id']}", json={"owner_id": "x"}).status_code == 422
    assert alice.put(f"/api/ai-users/{ai['id']}", json={"name": " \u3000 "}).status_code == 422
    assert alice.put(f"/api/ai-users/{ai['id']}", json={"name": "  小雨 "}).json()["name"] == "小雨"


def test_listing_shows_own_and_befriended_public_ai_users(alice, bob) -> None:
    mine = alice.create_ai_user(name="A")
    public = bob.create_ai_user(name="B", visibility="public")
    bob.create_ai_user(name="C", visibility="public")
    assert [a["name"] for a in alice.get("/api/ai-users").json()["ai_users"]] == ["A"]
    alice.post(f"/api/friends/{public['id']}")
    names = sorted(a["name"] for a in alice.get("/api/ai-users").json()["ai_users"])
    assert names == ["A", "B"]
    discover = sorted(a["name"] for a in alice.get("/api/ai-users", params={"scope": "public"}).json()["ai_users"])
    assert discover == ["B", "C"]
    assert mine["id"] not in str(bob.get("/api/ai-users", params={"scope": "public"}).json())


def test_others_may_read_but_not_change_a_public_ai_user(alice, bob) -> None:
    ai = bob.create_ai_user(visibility="public")
    assert alice.get(f"/api/ai-users/{ai['id']}").json()["is_owner"] is False
    assert alice.put(f"/api/ai-users/{ai['id']}", json={"base_soul": "hacked"}).status_code == 403
    assert alice.delete(f"/api/ai-users/{ai['id']}").status_code == 403
    assert bob.get(f"/api/ai-users/{ai['id']}").json()["base_soul"] == ai["base_soul"]


def test_friends_add_list_and_remove(alice, bob) -> None:
    ai = bob.create_ai_user(visibility="public")
    first = alice.post(f"/api/friends/{ai['id']}")
    assert first.status_code == 201 and first.json()["created"] is True
    again = alice.post(f"/api/friends/{ai['id']}")
    assert again.status_code == 200 and again.json()["created"] is False
    friends = alice.get("/api/friends").json()["friends"]
    assert [f["id"] for f in friends] == [ai["id"]]
    removed = alice.delete(f"/api/friends/{ai['id']}")
    assert removed.status_code == 200 and removed.json()["forgot"] is False
    assert alice.get("/api/friends").json()["friends"] == []
    assert alice.delete(f"/api/friends/{ai['id']}").status_code == 404


def test_an_owner_is_friends_with_a_new_ai_user(alice) -> None:
    ai = alice.create_ai_user()
    assert [f["id"] for f in alice.get("/api/friends").json()["friends"]] == [ai["id"]]


def test_unknown_ai_user_is_404_everywhere(alice) -> None:
    for response in (
        alice.get("/api/ai-users/ai_missing"),
        alice.put("/api/ai-users/ai_missing", json={"name": "x"}),
        alice.delete("/api/ai-users/ai_missing"),
        alice.post("/api/friends/ai_missing"),
        alice.delete("/api/friends/ai_missing"),
    ):
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"


def test_deleting_an_ai_user_says_what_was_erased(alice, bob) -> None:
    ai = alice.create_ai_user(visibility="public")
    bob.post(f"/api/friends/{ai['id']}")
    response = alice.delete(f"/api/ai-users/{ai['id']}")
    assert response.status_code == 200
    assert response.json()["deleted"] is True and "erased" in response.json()
    assert alice.get(f"/api/ai-users/{ai['id']}").status_code == 404
    assert bob.get("/api/friends").json()["friends"] == []
