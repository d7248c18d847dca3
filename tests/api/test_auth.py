from __future__ import annotations

import jwt

from tests.api.conftest import register


def login(client, username="alice", password="correct-horse-battery"):
    return client.post("/api/auth/login", json={"username": username, "password": password})


def test_register_returns_the_account_and_tokens(client) -> None:
    response = client.post("/api/auth/register", json={"username": "alice", "password": "correct-horse-battery"})
    assert response.status_code == 201
    body = response.json()
    assert body["user"]["username"] == "alice"
    assert body["token_type"] == "bearer" and body["expires_in"] == 900
    assert "password" not in str(body["user"]) and "hash" not in str(body)


def test_register_refuses_a_taken_username_case_insensitively(client, alice) -> None:
    response = client.post("/api/auth/register", json={"username": "ALICE", "password": "another-password"})
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "conflict"


def test_register_validates_username_and_password(client) -> None:
    assert client.post("/api/auth/register", json={"username": "a b", "password": "long-enough"}).status_code == 422
    assert client.post("/api/auth/register", json={"username": "carol", "password": "short"}).status_code == 422
    assert client.post("/api/auth/register", json={"username": "carol"}).status_code == 422
    extra = client.post("/api/auth/register", json={"username": "carol", "password": "long-enough", "admin": True})
    assert extra.status_code == 422
    assert extra.json()["error"]["code"] == "validation_error"


def test_registration_can_be_closed(tmp_path, clock) -> None:
    from fastapi.testclient import TestClient

    from dreamchat.api.app import create_app
    from dreamchat.config import Settings
    from dreamchat.wiring import build_runtime

    settings = Settings(data_dir=tmp_path, allow_registration=False)
    client = TestClient(create_app(settings, build_runtime(settings, clock=clock)))
    response = client.post("/api/auth/register", json={"username": "alice", "password": "long-enough"})
    assert response.status_code == 403


def test_login_gives_tokens_that_open_the_user_route(client, alice) -> None:
    response = login(client)
    assert response.status_code == 200
    token = response.json()["access_token"]
    me = client.get("/api/auth/user", headers={"Authorization": f"Bearer {token}"})
    assert me.status_code == 200
    assert me.json() == {"id": alice.id, "username": "alice", "created_at": me.json()["created_at"]}


def test_unknown_user_and_wrong_password_get_the_same_answer(client, alice) -> None:
    wrong_password = login(client, password="not-the-password")
    unknown_user = login(client, username="nobody")
    assert wrong_password.status_code == unknown_user.status_code == 401
    assert wrong_password.json() == unknown_user.json()


def test_failed_logins_are_limited_per_username_and_client(client, alice, clock) -> None:
    for _ in range(5):
        assert login(client, password="wrong-password").status_code == 401
    limited = login(client)
    assert limited.status_code == 429
    assert int(limited.headers["Retry-After"]) > 0
    assert login(client, username="bob-unrelated", password="whatever-pw").status_code == 401
    clock.advance(minutes=16)
    assert login(client).status_code == 200


def test_a_successful_login_resets_the_failure_count(client, alice) -> None:
    for _ in range(4):
        login(client, password="wrong-password")
    assert login(client).status_code == 200
    for _ in range(4):
        login(client, password="wrong-password")
    assert login(client).status_code == 200


def test_refresh_rotates_the_refresh_token(client, alice) -> None:
    first = client.post("/api/auth/refresh", json={"refresh_token": alice.refresh_token})
    assert first.status_code == 200
    rotated = first.json()["refresh_token"]
    assert rotated != alice.refresh_token
    second = client.post("/api/auth/refresh", json={"refresh_token": rotated})
    assert second.status_code == 200


def test_reusing_a_rotated_refresh_token_revokes_the_whole_family(client, alice) -> None:
    rotated = client.post("/api/auth/refresh", json={"refresh_token": alice.refresh_token}).json()
    reuse = client.post("/api/auth/refresh", json={"refresh_token": alice.refresh_token})
    assert reuse.status_code == 401
    assert client.post("/api/auth/refresh", json={"refresh_token": rotated["refresh_token"]}).status_code == 401
    headers = {"Authorization": f"Bearer {rotated['access_token']}"}
    assert client.get("/api/auth/user", headers=headers).status_code == 401


def test_logout_revokes_access_and_refresh_tokens(client, alice) -> None:
    assert alice.post("/api/auth/logout").status_code == 200
    assert alice.get("/api/auth/user").status_code == 401
    assert client.post("/api/auth/refresh", json={"refresh_token": alice.refresh_token}).status_code == 401


def test_logout_leaves_other_sessions_alone(client, alice) -> None:
    other = login(client).json()
    alice.post("/api/auth/logout")
    assert client.get("/api/auth/user", headers={"Authorization": f"Bearer {other['access_token']}"}).status_code == 200


def test_expired_access_token_is_refused(client, alice, clock) -> None:
    clock.advance(minutes=15, seconds=1)
    response = alice.get("/api/auth/user")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"


def test_expired_refresh_token_is_refused(client, alice, clock) -> None:
    clock.advance(days=30, seconds=1)
    assert client.post("/api/auth/refresh", json={"refresh_token": alice.refresh_token}).status_code == 401


def test_tampered_token_is_refused(client, alice) -> None:
    header, payload, signature = alice.access_token.split(".")
    forged = jwt.encode(
        {**jwt.decode(alice.access_token, options={"verify_signature": False}), "sub": "someone-else"},
        "a-guessed-secret-that-is-long-enough-for-hs256",
        algorithm="HS256",
    )
    flipped = f"{header}.{payload}.{signature[:-2]}{'AA' if signature[-2:] != 'AA' else 'BB'}"
    for token in (forged, flipped, "not-a-jwt"):
        response = client.get("/api/auth/user", headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 401


def test_a_refresh_token_is_not_an_access_token(client, alice) -> None:
    response = client.get("/api/auth/user", headers={"Authorization": f"Bearer {alice.refresh_token}"})
    assert response.status_code == 401
    assert client.post("/api/auth/refresh", json={"refresh_token": alice.access_token}).status_code == 401


def test_routes_need_a_token(client) -> None:
    assert client.get("/api/auth/user").status_code == 401
    assert client.get("/api/ai-users").status_code == 401
    assert client.get("/api/friends").status_code == 401


def test_deleting_the_account_removes_it_and_its_ai_users(client, alice, bob) -> None:
    ai = alice.create_ai_user(visibility="public")
    assert bob.post(f"/api/friends/{ai['id']}").status_code == 201
    response = alice.delete("/api/auth/user")
    assert response.status_code == 200 and response.json()["deleted"] is True
    assert login(client).status_code == 401
    assert bob.get(f"/api/ai-users/{ai['id']}").status_code == 404
    assert bob.get("/api/friends").json()["friends"] == []
    assert register(client, "alice").username == "alice"


def test_logout_with_only_the_refresh_token_revokes_that_session(client, alice) -> None:
    assert client.post("/api/auth/logout", json={"refresh_token": alice.refresh_token}).status_code == 200
    assert client.post("/api/auth/refresh", json={"refresh_token": alice.refresh_token}).status_code == 401
    assert alice.get("/api/auth/user").status_code == 401
    assert client.post("/api/auth/logout").status_code == 401
    assert client.post("/api/auth/logout", json={"refresh_token": "forged"}).status_code == 401


def test_another_accounts_refresh_token_cannot_be_logged_out_by_the_caller(client, alice, bob) -> None:
    assert alice.post("/api/auth/logout", json={"refresh_token": bob.refresh_token}).status_code == 401
    assert bob.get("/api/auth/user").status_code == 200
    assert alice.get("/api/auth/user").status_code == 200


def test_a_new_x_forwarded_for_per_try_does_not_reset_the_limit(client, alice) -> None:
    for n in range(5):
        response = client.post(
            "/api/auth/login",
            json={"username": "alice", "password": "wrong-password"},
            headers={"X-Forwarded-For": f"203.0.113.{n}"},
        )
        assert response.status_code == 401
    response = client.post(
        "/api/auth/login",
        json={"username": "alice", "password": "correct-horse-battery"},
        headers={"X-Forwarded-For": "203.0.113.99"},
    )
    assert response.status_code == 429


def test_the_local_server_trusts_forwarded_headers_only_from_configured_proxies(monkeypatch, tmp_path) -> None:
    from dreamchat.api import server

    runs: list[dict] = []
    monkeypatch.setattr(server.uvicorn, "run", lambda app, **options: runs.append(options))
    monkeypatch.setattr("sys.argv", ["server"])
    monkeypatch.setenv("DREAMCHAT_DATA_DIR", str(tmp_path))
    server.main()
    monkeypatch.setenv("DREAMCHAT_TRUSTED_PROXIES", "10.0.0.5,10.0.0.6")
    server.main()
    assert runs[0]["proxy_headers"] is False
    assert (runs[1]["proxy_headers"], runs[1]["forwarded_allow_ips"]) == (True, "10.0.0.5,10.0.0.6")
