"""A second account tries every route against the first account's ids: always 404, nothing changes.

Each route is first shown to work for its owner, so a 404 here can only mean isolation.
"""

from __future__ import annotations

import pytest

# (method, path template, json body); {ai} is the first account's private AI user.
ROUTES = [
    ("GET", "/api/ai-users/{ai}", None),
    ("GET", "/api/ai-users/{ai}/card", None),
    ("POST", "/api/ai-users/{ai}/chat", {"content": "你好"}),
    ("POST", "/api/ai-users/{ai}/save-message", {"content": "你好"}),
    ("GET", "/api/ai-users/{ai}/messages", None),
    ("GET", "/api/memory/{ai}", None),
    ("GET", "/api/memory/{ai}/files", None),
    ("GET", "/api/memory/{ai}/export", None),
    ("PUT", "/api/memory/{ai}/core", {"content": "喜欢被叫昵称", "importance": 9}),
    ("POST", "/api/memory/{ai}/compress", None),
    ("POST", "/api/memory/{ai}/extract", None),
    ("GET", "/api/soul/{ai}", None),
    ("POST", "/api/soul/{ai}/update", None),
    ("POST", "/api/relationship/{ai}/judge", None),
    ("POST", "/api/heartbeat/trigger/{ai}", None),
    ("GET", "/api/heartbeat/scheduled/{ai}", None),
    ("POST", "/api/ai-users/{ai}/greet", None),
    ("PATCH", "/api/friends/{ai}", {"pinned": True, "muted": True}),
    ("PUT", "/api/ai-users/{ai}", {"name": "改名"}),
    ("POST", "/api/friends/{ai}", None),
    ("DELETE", "/api/friends/{ai}", None),
    ("DELETE", "/api/ai-users/{ai}", None),
]


def snapshot(person, ai_id: str) -> dict:
    return {
        "ai": person.get(f"/api/ai-users/{ai_id}").json(),
        "ai_users": person.get("/api/ai-users").json(),
        "friends": person.get("/api/friends").json(),
        "messages": person.get(f"/api/ai-users/{ai_id}/messages").json(),
        "memory": person.get(f"/api/memory/{ai_id}/files").json(),
        "soul": person.get(f"/api/soul/{ai_id}").json(),
    }


@pytest.mark.parametrize(("method", "template", "body"), ROUTES, ids=[f"{m} {p}" for m, p, _ in ROUTES])
def test_another_account_gets_404_and_changes_nothing(alice, bob, method, template, body) -> None:
    ai = alice.create_ai_user()
    alice.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": "我们聊聊天吧"})
    path = template.format(ai=ai["id"])
    before = snapshot(alice, ai["id"])
    response = bob.client.request(method, path, json=body, headers=bob.headers)
    assert response.status_code == 404, f"{method} {path}: {response.text}"
    assert response.json()["error"]["code"] == "not_found"
    assert snapshot(alice, ai["id"]) == before
    owner = alice.client.request(method, path, json=body, headers=alice.headers)
    assert owner.status_code < 400, f"owner {method} {path}: {owner.text}"


def test_a_public_ai_user_does_not_open_another_accounts_pair(alice, bob) -> None:
    ai = alice.create_ai_user(visibility="public")
    # bob can see the public character but has no pair with it until he befriends it
    assert bob.get(f"/api/ai-users/{ai['id']}").status_code == 200
    assert bob.delete(f"/api/friends/{ai['id']}").status_code == 404
