"""The memory export and import (issue 29 items 3-4): round trips on every store, what an export
never holds, what an import refuses, and an import that fails halfway leaving nothing."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from dreamchat import keys
from dreamchat.api.app import create_app
from dreamchat.config import Settings
from dreamchat.domain import vectors as vec
from dreamchat.domain.memory_export import FORMAT, MemoryDocument
from dreamchat.domain.models import PairId, ScheduledHeartbeat
from dreamchat.errors import Contended
from dreamchat.ports import MAX_TRANSACTION_ITEMS, Check
from dreamchat.services.container import Services
from tests.api.conftest import Person, register
from tests.conftest import memory_runtime
from tests.services.conftest import on_every_store, runtime  # noqa: F401 (the fixture, on every store)

TOPIC_ONE = ["这周六我们去海边看日出吧", "我要带上我的相机，拍海上的日出", "就这么定了，拜拜"]
TOPIC_TWO = ["其实我极度恐高，坐缆车都会发抖", "小时候在山上被困过一次"]
NOW = ["我一直想成为一名作家", "最近在写第一部小说，关于灯塔看守人"]
QUESTION = "你还记得我们去海边看日出的约定吗"


LONG_LOGIN = {"access_token_minutes": 60 * 24 * 365}  # the clock moves on by hours


@pytest.fixture
def client_on(runtime) -> Iterator[TestClient]:  # noqa: F811 (the fixture imported above)
    """The offline app on each store."""
    settings = runtime.settings.model_copy(update=LONG_LOGIN)
    with TestClient(create_app(settings, dataclasses.replace(runtime, settings=settings))) as client:
        yield client


@pytest.fixture
def client(tmp_path, clock, rng) -> Iterator[TestClient]:
    """The offline app on the memory store."""
    settings = Settings(data_dir=tmp_path / "data", run_scheduler=False, **LONG_LOGIN)
    with TestClient(create_app(settings, memory_runtime(settings, clock, rng))) as client:
        yield client


def services_of(person: Person) -> Services:
    return person.client.app.state.services  # type: ignore[attr-defined]


def say(person: Person, ai_id: str, lines: list[str], clock) -> None:
    for line in lines:
        assert person.post(f"/api/ai-users/{ai_id}/save-message", json={"content": line}).status_code == 201
        clock.advance(minutes=2)


def fill(person: Person, ai_id: str, clock) -> None:
    """Every tier: two compressed topics (one extracted), an open one, a core memory, a relationship
    change, a self_soul and a scheduled heartbeat."""
    say(person, ai_id, TOPIC_ONE, clock)
    assert person.post(f"/api/memory/{ai_id}/compress").status_code == 200
    assert person.post(f"/api/memory/{ai_id}/extract").json()["long_term"]
    clock.advance(hours=5)
    say(person, ai_id, TOPIC_TWO, clock)
    assert person.post(f"/api/memory/{ai_id}/compress").status_code == 200
    clock.advance(hours=5)
    say(person, ai_id, NOW, clock)
    core = {"content": "喜欢被叫小名阿星", "importance": 9, "category": "称呼"}
    assert person.put(f"/api/memory/{ai_id}/core", json=core).status_code == 200
    services = services_of(person)
    pair, ai_user = services.ai_users.companion(person.id, ai_id)
    services.soul.set_relationship(pair, ai_user, "关系较好", None, "一起计划了看日出")
    assert services.soul.update_self_soul(pair, ai_user, "我喜欢陪阿星聊写作", rate_limited=False) is None
    early = [ScheduledHeartbeat(hour=7, minute=30, message_template="早安")]
    services.heartbeat_states.change(
        pair, ai_user, services.memory.repo.relationship(pair), lambda s: s.model_copy(update={"scheduled": early})
    )


def export(person: Person, ai_id: str) -> dict:
    response = person.get(f"/api/memory/{ai_id}/export")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    assert "attachment" in response.headers["content-disposition"]
    return response.json()


def import_into(person: Person, ai_id: str, document: dict | bytes, **params):
    body = document if isinstance(document, bytes) else json.dumps(document, ensure_ascii=False).encode()
    headers = {**person.headers, "Content-Type": "application/json"}
    return person.client.post(f"/api/ai-users/{ai_id}/memory/import", content=body, headers=headers, params=params)


def sections(person: Person, ai_id: str) -> list[tuple[str, str]]:
    context = person.get(f"/api/memory/{ai_id}", params={"q": QUESTION}).json()
    return [(s["name"], s["text"]) for s in context["sections"]]


def without_ids(files: dict) -> dict:
    """The memory view with every id and reference left out: what was remembered, not under which name."""
    drop = {"id", "topic_id", "message_ids", "first_message_id", "last_message_id", "sources"}

    def clean(value):
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if k not in drop}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return clean(files)


def forget_and_befriend(person: Person, ai_id: str) -> None:
    assert person.delete(f"/api/friends/{ai_id}", params={"forget": "true"}).status_code == 200
    assert person.post(f"/api/friends/{ai_id}").status_code in (200, 201)
    assert person.get(f"/api/memory/{ai_id}/files").json()["mid_term"] == []


@on_every_store
def test_a_round_trip_gives_the_same_remembered_sections(client_on, clock) -> None:
    alice = register(client_on, "alice")
    ai_id = alice.create_ai_user(name="小梦")["id"]
    fill(alice, ai_id, clock)
    before_sections, before_files = sections(alice, ai_id), alice.get(f"/api/memory/{ai_id}/files").json()
    before_log = alice.get(f"/api/ai-users/{ai_id}/messages").json()["messages"]
    document = export(alice, ai_id)
    assert MemoryDocument.model_validate(document).format == FORMAT
    assert {name for name, _ in before_sections} >= {"core", "mid_term", "long_term", "short_term"}

    forget_and_befriend(alice, ai_id)
    response = import_into(alice, ai_id, document)

    assert response.status_code == 200, response.text
    imported = response.json()["imported"]
    assert imported["messages"] == len(TOPIC_ONE + TOPIC_TWO + NOW)
    embedded = bool(services_of(alice).vectors.retriever.embedder.name)  # BM25 alone keeps no vectors
    assert imported["vectors"] == (len(document["mid_term"]) + len(document["long_term"]) if embedded else 0)
    assert sections(alice, ai_id) == before_sections
    after_files = alice.get(f"/api/memory/{ai_id}/files").json()
    assert without_ids(after_files) == without_ids(before_files)
    after_log = alice.get(f"/api/ai-users/{ai_id}/messages").json()["messages"]
    assert [(m["content"], m["timestamp"]) for m in after_log] == [(m["content"], m["timestamp"]) for m in before_log]
    assert {m["id"] for m in after_log}.isdisjoint(m["id"] for m in before_log)  # ids re-issued
    assert export(alice, ai_id)["heartbeat"]["scheduled"] == document["heartbeat"]["scheduled"]


def test_the_imported_pair_goes_on_extracting_and_beating(client, clock) -> None:
    alice = register(client, "alice")
    ai_id = alice.create_ai_user()["id"]
    fill(alice, ai_id, clock)
    document = export(alice, ai_id)
    forget_and_befriend(alice, ai_id)
    assert import_into(alice, ai_id, document).status_code == 200
    services = services_of(alice)
    pair = PairId(account_id=alice.id, ai_user_id=ai_id)

    state = services.heartbeat_states.get(pair)
    assert state.next_due is not None and [s.hour for s in state.scheduled] == [7]
    clock.advance(hours=services.runtime.settings.extract_after_hours + 1)
    assert services.extraction.sweep().pairs == 1  # the un-extracted mid-term memory is due again
    services.runtime.bus.drain()
    mids = services.memory.repo.mid_terms(pair)
    assert all(m.extracted_to_long for m in mids)
    assert len(services.memory.repo.long_index(pair)) == 2


def test_an_export_holds_no_other_pair_no_secret_and_no_vector(client, clock) -> None:
    alice, bob = register(client, "alice"), register(client, "bob")
    shared = alice.create_ai_user(name="公开的小梦", visibility="public")["id"]
    fill(alice, shared, clock)
    assert bob.post(f"/api/friends/{shared}").status_code in (200, 201)
    say(bob, shared, ["鲍勃的秘密：我养了一只叫土豆的猫"], clock)
    own = bob.create_ai_user(name="鲍勃的朋友")["id"]
    say(bob, own, ["鲍勃的另一个秘密"], clock)
    store = client.app.state.runtime.store  # type: ignore[attr-defined]
    stored = store.get(*keys.account(bob.id))

    text = bob.get(f"/api/memory/{shared}/export").text
    whole = bob.get("/api/auth/user/export").text

    for leaked in ("海边", "阿星", alice.id, "correct-horse-battery", stored["password_hash"]):
        assert leaked not in text and leaked not in whole
    for secret in (bob.access_token, bob.refresh_token, "password", "current_jti", vec.FIELD):
        assert secret not in text and secret not in whole
    assert "土豆" in text and "鲍勃的另一个秘密" in whole
    account = json.loads(whole)
    assert account["account"] == {"id": bob.id, "username": "bob", "created_at": account["account"]["created_at"]}
    assert sorted(f["name"] for f in account["friends"]) == ["公开的小梦", "鲍勃的朋友"]
    assert all(MemoryDocument.model_validate(f["memory"]) for f in account["friends"])


def test_an_export_of_anothers_ai_user_is_a_404(client) -> None:
    alice, bob = register(client, "alice"), register(client, "bob")
    ai_id = alice.create_ai_user()["id"]
    alice.post(f"/api/ai-users/{ai_id}/save-message", json={"content": "只属于爱丽丝的话"})
    response = bob.get(f"/api/memory/{ai_id}/export")
    assert response.status_code == 404 and "只属于爱丽丝的话" not in response.text
    document = export(alice, ai_id)
    assert import_into(bob, ai_id, document).status_code == 404


def test_an_import_into_a_pair_with_memories_needs_replace(client, clock) -> None:
    alice = register(client, "alice")
    ai_id = alice.create_ai_user()["id"]
    fill(alice, ai_id, clock)
    document = export(alice, ai_id)
    say(alice, ai_id, ["导入之前说的话"], clock)

    refused = import_into(alice, ai_id, document)
    assert refused.status_code == 409 and "replace=true" in refused.json()["error"]["message"]
    assert "导入之前说的话" in json.dumps(export(alice, ai_id), ensure_ascii=False)

    assert import_into(alice, ai_id, document, replace="true").status_code == 200
    replaced = export(alice, ai_id)
    assert "导入之前说的话" not in json.dumps(replaced, ensure_ascii=False)
    assert len(replaced["messages"]) == len(document["messages"])


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda d: d | {"version": 2}, "version"),
        (lambda d: d | {"format": "something.else"}, "format"),
        (lambda d: d | {"mid_term": [{"summary": "缺字段"}]}, "mid_term.0"),
        (lambda d: d | {"messages": d["messages"] + d["messages"][:1]}, "appears twice"),
        (lambda d: d | {"surprise": 1}, "surprise"),
        (
            lambda d: {
                **d,
                "long_term": [
                    {**d["long_term"][0], "index": {**d["long_term"][0]["index"], "detail_file": "../../x.json"}}
                ],
            },
            "detail_file",
        ),
    ],
    ids=["newer version", "not an export", "missing fields", "a duplicate id", "an unknown field", "a path"],
)
def test_a_wrong_document_is_a_422_that_says_where_and_stores_nothing(client, clock, change, says) -> None:
    alice = register(client, "alice")
    ai_id = alice.create_ai_user()["id"]
    fill(alice, ai_id, clock)
    document = export(alice, ai_id)
    forget_and_befriend(alice, ai_id)

    response = import_into(alice, ai_id, change(document))

    assert response.status_code == 422, response.text
    assert says in response.json()["error"]["message"]
    assert export(alice, ai_id)["messages"] == []


@pytest.mark.parametrize("body", [b"", b"not json", b"[1, 2]"], ids=["empty", "not JSON", "not an object"])
def test_an_upload_that_is_no_document_is_a_422(alice, body) -> None:
    ai_id = alice.create_ai_user()["id"]
    assert import_into(alice, ai_id, body).status_code == 422


def test_an_upload_over_the_limit_is_a_413(alice) -> None:
    ai_id = alice.create_ai_user()["id"]
    response = import_into(alice, ai_id, b" " * (4 * 1024 * 1024 + 1))
    assert response.status_code == 413


def test_an_import_that_fails_halfway_leaves_nothing_behind(client, clock) -> None:
    alice = register(client, "alice")
    ai_id = alice.create_ai_user()["id"]
    fill(alice, ai_id, clock)
    say(alice, ai_id, [f"第{i}句" for i in range(3 * MAX_TRANSACTION_ITEMS)], clock)
    document = export(alice, ai_id)
    forget_and_befriend(alice, ai_id)
    store = client.app.state.runtime.store  # type: ignore[attr-defined]
    commits = {"n": 0}
    transact = store.transact

    def fails_on_the_third(operations):
        assert len([o for o in operations if not isinstance(o, Check)]) <= MAX_TRANSACTION_ITEMS
        commits["n"] += 1
        if commits["n"] == 3:
            raise Contended("the store failed halfway")
        transact(operations)

    store.transact = fails_on_the_third
    response = import_into(alice, ai_id, document)
    store.transact = transact

    assert response.status_code == 409
    pair = PairId(account_id=alice.id, ai_user_id=ai_id)
    blobs = client.app.state.runtime.blobs  # type: ignore[attr-defined]
    assert all(not store.query(pk).items for pk in keys.pair_partitions(pair))
    assert blobs.list(keys.pair_blob_prefix(pair)) == []
    assert import_into(alice, ai_id, document).status_code == 200  # and the pair takes the import after


def test_a_pair_with_nothing_but_its_greeting_takes_an_import_and_is_not_greeted_again(client, clock) -> None:
    alice = register(client, "alice")
    source = alice.create_ai_user()["id"]
    fill(alice, source, clock)
    document = export(alice, source)
    ai_id = alice.create_ai_user(name="新朋友", greeting="你好呀，初次见面")["id"]
    assert alice.post(f"/api/ai-users/{ai_id}/greet").json()["message"]["content"] == "你好呀，初次见面"

    assert import_into(alice, ai_id, document).status_code == 200

    log = alice.get(f"/api/ai-users/{ai_id}/messages").json()["messages"]
    assert [m["content"] for m in log] == [m["content"] for m in document["messages"]]
    assert alice.post(f"/api/ai-users/{ai_id}/greet").json()["message"] is None
    assert export(alice, source)["messages"] == document["messages"]  # the source pair is untouched
