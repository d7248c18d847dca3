"""The person's own clock (`timezone` in the profile) and the per-friend heartbeat switch, through the
API on every storage adapter: the same pair's night window, scheduled 9:30 and late-night nudge
follow the person's zone (America/Los_Angeles) instead of the AI user's (Asia/Shanghai)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from fastapi.testclient import TestClient

from dreamchat.api.app import create_app
from dreamchat.domain.heartbeat import add_scheduled, person_wrote
from dreamchat.domain.models import ScheduledHeartbeat
from dreamchat.llm.offline import OFFLINE_MARK
from tests.api.conftest import Person, register
from tests.conftest import START
from tests.services.conftest import runtime  # noqa: F401 - a fixture (memory, or every adapter)

LA, SHANGHAI = "America/Los_Angeles", "Asia/Shanghai"
# START is 2026-03-15 12:00 UTC: 20:00 in Shanghai, 05:00 (still night) in Los Angeles


@pytest.fixture
def app(runtime):  # noqa: F811
    return create_app(runtime.settings, runtime)


@pytest.fixture
def client(app) -> Iterator[TestClient]:
    with TestClient(app) as test_client:
        yield test_client


def befriended(app, person: Person, wrote: datetime = START, **fields) -> dict:
    """A friend of `person`, to whom the person last wrote at `wrote`."""
    ai = person.create_ai_user(timezone=SHANGHAI, **fields)
    services = app.state.services
    pair, ai_user = services.ai_users.companion(person.id, ai["id"])
    services.heartbeat_states.change(pair, ai_user, services.repo.relationship(pair), lambda s: person_wrote(s, wrote))
    return ai


def schedule(app, person: Person, ai_id: str, hour: int, minute: int) -> None:
    """What the AI's set_scheduled_heartbeat tool does."""
    services = app.state.services
    pair, ai_user = services.ai_users.companion(person.id, ai_id)
    entry = ScheduledHeartbeat(hour=hour, minute=minute, message_template="说早安")
    services.heartbeat_states.change(pair, ai_user, services.repo.relationship(pair), lambda s: add_scheduled(s, entry))


def next_due(person: Person, ai_id: str) -> datetime:
    [friend] = [f for f in person.get("/api/friends").json()["friends"] if f["id"] == ai_id]
    return datetime.fromtimestamp(friend["next_heartbeat"], ZoneInfo("UTC"))


def test_the_zone_is_kept_validated_and_cleared(client) -> None:
    alice = register(client, "alice")
    assert alice.get("/api/profile").json() == {"about_me": "", "timezone": None, "nickname": None}
    assert alice.put("/api/profile", json={"about_me": "我叫小林"}).status_code == 200
    assert alice.put("/api/profile", json={"timezone": LA, "nickname": None}).json() == {
        "about_me": "我叫小林",
        "timezone": LA,
        "nickname": None,
    }
    for wrong in ("Mars/Olympus", "Asia", "", "america/los_angeles", 8):
        assert alice.put("/api/profile", json={"timezone": wrong}).status_code == 422, wrong
    assert alice.get("/api/profile").json()["timezone"] == LA
    assert register(client, "bob").get("/api/profile").json()["timezone"] is None  # each account its own
    assert alice.put("/api/profile", json={"timezone": None, "nickname": None}).json() == {
        "about_me": "我叫小林",
        "timezone": None,
        "nickname": None,
    }


@pytest.mark.every_store
def test_a_scheduled_930_follows_the_persons_zone(app, client) -> None:
    alice = register(client, "alice")
    ai = befriended(app, alice)
    schedule(app, alice, ai["id"], 9, 30)
    assert next_due(alice, ai["id"]) == datetime(2026, 3, 16, 9, 30, tzinfo=ZoneInfo(SHANGHAI))
    alice.put("/api/profile", json={"timezone": LA, "nickname": None})  # the plan moves with the clock, at once
    assert next_due(alice, ai["id"]) == datetime(2026, 3, 15, 9, 30, tzinfo=ZoneInfo(LA))
    alice.put("/api/profile", json={"timezone": None, "nickname": None})
    assert next_due(alice, ai["id"]) == datetime(2026, 3, 16, 9, 30, tzinfo=ZoneInfo(SHANGHAI))


@pytest.mark.every_store
def test_the_night_window_is_read_on_the_persons_clock(app, client) -> None:
    alice = register(client, "alice")
    ai = befriended(app, alice)
    services = app.state.services
    pair, ai_user = services.ai_users.companion(alice.id, ai["id"])
    services.soul.set_relationship(pair, ai_user, "特别关心", None, "")  # 20 minutes
    assert next_due(alice, ai["id"]) == START + timedelta(minutes=20)  # 20:00 in Shanghai: daytime
    alice.put("/api/profile", json={"timezone": LA, "nickname": None})
    assert next_due(alice, ai["id"]) == START + timedelta(minutes=60)  # 05:00 in LA: night counts a third


def test_a_night_owls_window_is_read_on_the_persons_clock(app, client, clock) -> None:
    clock.advance(hours=3)  # 23:00 in Shanghai (an owl's evening), 08:00 in LA (inside an owl's 02-10 night)
    alice = register(client, "alice")
    ai = befriended(app, alice, night_owl=True, wrote=clock.now())
    services = app.state.services
    pair, ai_user = services.ai_users.companion(alice.id, ai["id"])
    services.soul.set_relationship(pair, ai_user, "特别关心", None, "")
    assert next_due(alice, ai["id"]) == clock.now() + timedelta(minutes=20)
    alice.put("/api/profile", json={"timezone": LA, "nickname": None})
    assert next_due(alice, ai["id"]) == clock.now() + timedelta(minutes=60)


def test_heartbeats_are_switched_per_friend(app, client) -> None:
    alice = register(client, "alice")
    ai, other = befriended(app, alice), befriended(app, alice)
    schedule(app, alice, ai["id"], 9, 30)
    friends = {f["id"]: f for f in alice.get("/api/friends").json()["friends"]}
    assert friends[ai["id"]]["heartbeat"] == friends[other["id"]]["heartbeat"] == "on"
    assert next_due(alice, ai["id"]) == datetime(2026, 3, 16, 9, 30, tzinfo=ZoneInfo(SHANGHAI))  # before 72 h
    timed = next_due(alice, other["id"])

    off = alice.put(f"/api/friends/{ai['id']}/heartbeat", json={"mode": "off"})
    assert off.status_code == 200 and off.json() == {"ai_user_id": ai["id"], "heartbeat": "off", "next_heartbeat": None}
    assert alice.put(f"/api/friends/{ai['id']}/heartbeat", json={"mode": "scheduled"}).json()["next_heartbeat"] == (
        int(datetime(2026, 3, 16, 9, 30, tzinfo=ZoneInfo(SHANGHAI)).timestamp())
    )
    # only scheduled: with no scheduled time, nothing at all (the other friend keeps its timed one)
    assert (
        alice.put(f"/api/friends/{other['id']}/heartbeat", json={"mode": "scheduled"}).json()["next_heartbeat"] is None
    )
    alice.put(f"/api/friends/{other['id']}/heartbeat", json={"mode": "on"})
    assert next_due(alice, other["id"]) == timed

    friends = {f["id"]: f for f in alice.get("/api/friends").json()["friends"]}
    assert (friends[ai["id"]]["heartbeat"], friends[other["id"]]["heartbeat"]) == ("scheduled", "on")
    assert alice.put(f"/api/friends/{ai['id']}/heartbeat", json={"mode": "sometimes"}).status_code == 422
    assert alice.put(f"/api/friends/{ai['id']}/heartbeat", json={}).status_code == 422
    bob = register(client, "bob")
    assert bob.put(f"/api/friends/{ai['id']}/heartbeat", json={"mode": "on"}).status_code == 404


def test_a_new_friend_who_never_writes_is_reached_once_after_the_greeting(app, client, clock) -> None:
    alice = register(client, "alice")
    ai = alice.create_ai_user(timezone=SHANGHAI, greeting="你好呀，我是小梦")
    services = app.state.services
    pair, ai_user = services.ai_users.companion(alice.id, ai["id"])
    services.soul.set_relationship(pair, ai_user, "特别关心", None, "")
    assert next_due_or_none(alice, ai["id"]) is None  # nobody has said anything yet
    assert alice.post(f"/api/ai-users/{ai['id']}/greet").json()["message"]["content"] == "你好呀，我是小梦"
    assert next_due(alice, ai["id"]) == clock.now() + timedelta(minutes=20)
    clock.advance(minutes=20)
    services.heartbeat.sweep()
    app.state.runtime.bus.drain()
    messages, _ = services.repo.log.messages(pair, before=None, after=None, limit=10)
    kinds = [m.kind for m in messages]
    assert kinds == ["greeting", "heartbeat"]  # no model here: the offline line
    assert messages[-1].content.startswith(OFFLINE_MARK)
    assert services.heartbeat_states.get(pair).next_due is None  # once: then it waits for the person


def next_due_or_none(person: Person, ai_id: str) -> int | None:
    [friend] = [f for f in person.get("/api/friends").json()["friends"] if f["id"] == ai_id]
    return friend["next_heartbeat"]
