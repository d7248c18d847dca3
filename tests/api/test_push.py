"""The push and presence routes: the key, devices, the endpoint checks (a subscription can never aim
the server at an inside address), the content switch, and a chat turn's push through the route."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from dreamchat.api.app import create_app
from dreamchat.config import Settings
from dreamchat.wiring import build_runtime
from tests.api.conftest import Person, register
from tests.api.sse import parse_sse
from tests.fakes.fake_llm import Reply
from tests.fakes.fake_push import FakePushService


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
        llm_timeout_seconds=2,
        llm_max_retries=0,
        max_delay_seconds=30,
        push_allowed_endpoints=[*Settings().push_allowed_endpoints, push_service.prefix],
    )
    with TestClient(create_app(settings, build_runtime(settings, clock=clock, random=rng))) as test_client:
        push_service.server_key = test_client.app.state.services.push.public_key()
        yield test_client


@pytest.fixture
def alice(client) -> Person:
    return register(client, "alice")


def unsubscribe(person: Person, body: dict):
    return person.client.request("DELETE", "/api/push/subscriptions", json=body, headers=person.headers)


def subscription(endpoint: str, **keys: str) -> dict:
    device_keys = {"p256dh": FakePushService().device().p256dh, "auth": "AAAAAAAAAAAAAAAAAAAAAA", **keys}
    return {"endpoint": endpoint, "expirationTime": None, "keys": device_keys}


def test_the_key_is_an_uncompressed_p256_point_in_base64url(alice) -> None:
    import base64

    response = alice.get("/api/push/key")
    assert response.status_code == 200
    key = response.json()["public_key"]
    raw = base64.urlsafe_b64decode(key + "=" * (-len(key) % 4))
    assert len(raw) == 65 and raw[0] == 4 and "=" not in key


def test_the_key_stays_the_same_across_restarts_and_is_kept_owner_only(tmp_path, alice, client) -> None:
    settings = Settings(data_dir=tmp_path / "data", run_scheduler=False)
    with TestClient(create_app(settings)) as again:
        assert register(again, "bob").get("/api/push/key").json() == alice.get("/api/push/key").json()
    assert (tmp_path / "data" / "vapid_private_key").stat().st_mode & 0o077 == 0


def test_routes_need_an_account(client) -> None:
    for method, path in [("get", "/api/push/key"), ("post", "/api/push/subscriptions"), ("post", "/api/presence")]:
        assert getattr(client, method)(path).status_code == 401


def test_several_devices_subscribe_and_one_unsubscribes(alice, push_service) -> None:
    phone, laptop = push_service.device(), push_service.device()
    assert alice.post("/api/push/subscriptions", json=phone.subscription).status_code == 201
    response = alice.post("/api/push/subscriptions", json=laptop.subscription)
    assert response.status_code == 201 and response.json()["devices"] == 2
    again = alice.post("/api/push/subscriptions", json=phone.subscription)  # the same device again
    assert again.json()["devices"] == 2
    gone = unsubscribe(alice, {"endpoint": phone.endpoint})
    assert gone.status_code == 200
    assert unsubscribe(alice, {"endpoint": phone.endpoint}).status_code == 404


def test_another_account_cannot_remove_a_device(client, alice, push_service) -> None:
    phone = push_service.device()
    alice.post("/api/push/subscriptions", json=phone.subscription)
    bob = register(client, "bob")
    assert unsubscribe(bob, {"endpoint": phone.endpoint}).status_code == 404
    assert len(client.app.state.services.push.subscriptions(alice.id)) == 1


def test_the_browsers_push_services_are_accepted(alice) -> None:
    for endpoint in (
        "https://fcm.googleapis.com/fcm/send/dGVzdA:APA91bH",
        "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABk",
        "https://web.push.apple.com/QGuQyavXutnMH",
        "https://wns2-par02p.notify.windows.com/w/?token=BQYAAAB",
    ):
        assert alice.post("/api/push/subscriptions", json=subscription(endpoint)).status_code == 201, endpoint


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://fcm.googleapis.com/fcm/send/x",  # another scheme
        "ftp://fcm.googleapis.com/x",
        "file:///etc/passwd",
        "javascript:alert(1)",
        "https://169.254.169.254/latest/meta-data/",  # metadata
        "http://169.254.169.254/latest/meta-data/",
        "https://metadata.google.internal/computeMetadata/v1/",
        "https://[fd00:ec2::254]/latest/meta-data/",
        "https://127.0.0.1/push",  # loopback
        "https://localhost/push",
        "https://[::1]/push",
        "https://[::ffff:127.0.0.1]/push",
        "https://10.0.0.5/push",  # private
        "https://192.168.1.1/push",
        "https://2130706433/push",  # 127.0.0.1 as a number
        "https://0x7f.0.0.1/push",
        "https://user:pass@fcm.googleapis.com/fcm/send/x",  # userinfo
        "https://fcm.googleapis.com@evil.example/x",
        "https://evil.example#@fcm.googleapis.com/x",
        "https://fcm.googleapis.com:8443/fcm/send/x",  # odd port
        "https://fcm.googleapis.com:0/x",
        "https://fcm.googleapis.com:99999/x",
        "https://fcm.googleapis.com:/x",
        "https://fcm.googleapis.com.evil.example/x",  # a look-alike host
        "https://fcm.googleapis.com./x",
        "https://evil.example/fcm.googleapis.com/",
        "https://notify.windows.com/w/",  # the wildcard needs one label
        "https://a.b.notify.windows.com/w/",  # and only one
        "https://evil.example/?.notify.windows.com/",
        "https://x.notify.windows.com.evil.example/w/",
        "https://fcm.googleapis.com\\@evil.example/x",
        "https://fcm.googleapis.com/x y",
        "https://fcm.googleapis.com/x\n",
        "https://fcm.googleapis.com/" + "a" * 1100,
        "fcm.googleapis.com/fcm/send/x",
        "",
    ],
)
def test_an_endpoint_outside_the_push_services_is_refused(alice, endpoint) -> None:
    response = alice.post("/api/push/subscriptions", json=subscription(endpoint))
    assert response.status_code == 422, endpoint
    assert endpoint not in response.text or not endpoint  # the answer does not echo a token back


def test_the_tests_loopback_service_is_accepted_only_as_listed(alice, push_service) -> None:
    other_port = push_service.base_url.rsplit(":", 1)[0] + ":1/push/x"
    assert alice.post("/api/push/subscriptions", json=subscription(other_port)).status_code == 422
    outside = push_service.base_url + "/elsewhere/x"
    assert alice.post("/api/push/subscriptions", json=subscription(outside)).status_code == 422


@pytest.mark.parametrize(
    "keys",
    [
        {"p256dh": "not-a-key"},
        {
            "p256dh": "BAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        },  # off the curve
        {"auth": "c2hvcnQ"},
        {"auth": "!!!!"},
    ],
)
def test_keys_that_are_not_a_p256_key_and_an_auth_secret_are_refused(alice, push_service, keys) -> None:
    body = subscription(push_service.device().endpoint, **keys)
    assert alice.post("/api/push/subscriptions", json=body).status_code == 422


def test_show_content_is_on_until_turned_off(alice) -> None:
    assert alice.get("/api/push/settings").json() == {"show_content": True}
    assert alice.put("/api/push/settings", json={"show_content": False}).json() == {"show_content": False}
    assert alice.get("/api/push/settings").json() == {"show_content": False}
    assert alice.put("/api/push/settings", json={"show_content": "yes"}).status_code == 422


def test_presence_is_one_small_call(alice) -> None:
    ai = alice.create_ai_user(name="小梦")
    assert alice.post("/api/presence", json={"ai_user_id": None}).status_code == 200
    assert alice.post("/api/presence", json={"ai_user_id": ai["id"], "device": "tab-1"}).json()["present"] is True
    assert (
        alice.post("/api/presence", json={"ai_user_id": ai["id"], "device": "tab-1", "visible": False}).status_code
        == 200
    )
    assert alice.post("/api/presence", json={"ai_user_id": "a1", "device": "tab-1"}).status_code == 404  # no friend
    assert alice.post("/api/presence", json={"ai_user_id": "../x"}).status_code == 422
    assert alice.post("/api/presence", json={"device": "x" * 65}).status_code == 422


def test_a_reply_that_lands_after_the_person_left_is_pushed_once_per_turn(alice, fake_llm, push_service) -> None:
    fake_llm.default = lambda body: Reply.text("我也想你\n\n周末见？")
    ai = alice.create_ai_user(name="小梦", avatar="https://example.com/a.png")
    phone = push_service.device()
    alice.post("/api/push/subscriptions", json=phone.subscription)
    alice.post("/api/presence", json={"ai_user_id": ai["id"], "device": "phone"})
    turn = alice.post(f"/api/ai-users/{ai['id']}/chat", json={"content": "想你了"})
    assert [e for e, _ in parse_sse(turn.text)].count("message") == 2
    assert push_service.attempts == []  # the chat is open: the page shows it
    alice.post("/api/presence", json={"ai_user_id": ai["id"], "device": "phone", "visible": False})
    alice.post(f"/api/ai-users/{ai['id']}/chat", json={"content": "在吗"})
    [push] = push_service.received
    assert push.payload["body"] == "我也想你\n周末见？"
    assert push.payload["avatar"] == "https://example.com/a.png"
    assert push_service.problems == []
