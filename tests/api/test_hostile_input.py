"""Hostile input gets a clear 4xx: forged cursors, invisible messages, oversized chunked bodies."""

from __future__ import annotations

import pytest

from tests.api.conftest import Person

INVISIBLE = ["\u200b", "\u200b\u200c\u200d", "\u2060\u2060", "\ufeff", " \u200b\t\u3000", "\u3164", "\u2800\u200b"]


@pytest.mark.parametrize("cursor", ["abc", "e30", "0", "eyJzayI6IiJ9", "eyJzayI6MX0", "%%%"])
def test_a_forged_paging_cursor_is_a_400(alice: Person, cursor: str) -> None:
    response = alice.get("/api/ai-users", params={"scope": "public", "cursor": cursor})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_request"


@pytest.mark.parametrize("bound", ["before", "after"])
def test_an_empty_history_bound_is_refused(alice: Person, bound: str) -> None:
    ai = alice.create_ai_user()
    assert alice.get(f"/api/ai-users/{ai['id']}/messages", params={bound: ""}).status_code == 422


@pytest.mark.parametrize("content", INVISIBLE)
@pytest.mark.parametrize("route", ["chat", "save-message"])
def test_a_message_of_only_invisible_characters_is_refused_like_an_empty_one(
    alice: Person, content: str, route: str
) -> None:
    ai = alice.create_ai_user()
    response = alice.post(f"/api/ai-users/{ai['id']}/{route}", json={"content": content})
    assert response.status_code == 422
    assert response.json()["error"]["message"] == "the message is empty"
    assert alice.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"] == []


def test_a_message_with_visible_text_among_zero_width_characters_is_kept(alice: Person) -> None:
    ai = alice.create_ai_user()
    response = alice.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": "\u200b你好\u200b"})
    assert response.status_code == 201


def test_a_10_mb_chunked_body_is_a_413_not_a_400(alice: Person) -> None:
    ai = alice.create_ai_user()
    chunk = b'{"content": "' + b"x" * (1024 * 1024)

    def chunks():
        for _ in range(10):
            yield chunk

    response = alice.client.post(
        f"/api/ai-users/{ai['id']}/save-message",
        content=chunks(),
        headers={**alice.headers, "Content-Type": "application/json"},
    )
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "payload_too_large"


def test_a_small_chunked_body_still_reaches_the_route(alice: Person) -> None:
    ai = alice.create_ai_user()

    def chunks():
        yield b'{"content": '
        yield '"你好"}'.encode()

    response = alice.client.post(
        f"/api/ai-users/{ai['id']}/save-message",
        content=chunks(),
        headers={**alice.headers, "Content-Type": "application/json"},
    )
    assert response.status_code == 201, response.text
    assert response.json()["message"]["content"] == "你好"


NOT_STRICT_JSON = {  # what Python's json reads and a browser's JSON.parse does not, or what costs a 500
    "NaN": (b'{"content": NaN}', "content: NaN is not a JSON number"),
    "Infinity": (b'{"content": "hi", "n": -Infinity}', "n: -Infinity is not a JSON number"),
    "a number too large for a double": (b'{"content": "hi", "n": 1e999}', "too large"),
    "nested 20,000 deep": (b'{"content": ' + b"[" * 20_000 + b"]" * 20_000 + b"}", "nested more than 64 levels"),
    "a 5,000-digit integer": (b'{"content": ' + b"9" * 5000 + b"}", "content: the integer 9999"),
    "a lone surrogate": (b'{"content": "hi \\ud800"}', "unpaired surrogate"),
}
ROUTES = {
    "save-message": lambda ai: f"/api/ai-users/{ai}/save-message",
    "a memory edit": lambda ai: f"/api/memory/{ai}/core",
    "a profile": lambda ai: "/api/profile",
}


@pytest.mark.parametrize("case", list(NOT_STRICT_JSON))
@pytest.mark.parametrize("route", list(ROUTES))
def test_a_json_body_that_is_not_strict_json_is_a_422_naming_where_before_any_work(
    alice: Person, case: str, route: str
) -> None:
    body, says = NOT_STRICT_JSON[case]
    ai = alice.create_ai_user()
    path = ROUTES[route](ai["id"])
    headers = {**alice.headers, "Content-Type": "application/json"}
    response = alice.client.request("PUT" if route != "save-message" else "POST", path, content=body, headers=headers)
    assert response.status_code == 422, response.text
    assert says in response.json()["error"]["message"]
    assert alice.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"] == []
    assert alice.get(f"/api/memory/{ai['id']}/files").json()["core"] == []
