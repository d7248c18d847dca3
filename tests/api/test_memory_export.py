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
from dreamchat.domain import strict_json
from dreamchat.domain import vectors as vec
from dreamchat.domain.memory_export import FORMAT, MemoryDocument
from dreamchat.domain.models import PairId, ScheduledHeartbeat
from dreamchat.errors import Contended, Unavailable
from dreamchat.ports import MAX_TRANSACTION_ITEMS, Check, query_all
from dreamchat.services.container import Services
from tests.api.conftest import Person, register
from tests.conftest import memory_runtime
from tests.services.conftest import runtime  # noqa: F401 (the fixture, on every store)

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
        pair, ai_user, services.repo.relationship(pair), lambda s: s.model_copy(update={"scheduled": early})
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


@pytest.mark.every_store
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
    mids = services.repo.mid_terms(pair)
    assert all(m.extracted_to_long for m in mids)
    assert len(services.repo.long_index(pair)) == 2


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


# Issue 35: a replace that fails halfway, imports that break the pair, bounds the import skipped,
# JSON that is not JSON, the cost of an import, an imported crisis.


def small_pair(person: Person, clock) -> str:
    """A pair with every tier an attack can reach: a compressed and extracted topic, an open one."""
    ai_id = person.create_ai_user()["id"]
    say(person, ai_id, TOPIC_ONE, clock)
    assert person.post(f"/api/memory/{ai_id}/compress").status_code == 200
    assert person.post(f"/api/memory/{ai_id}/extract").json()["long_term"]
    clock.advance(hours=5)
    say(person, ai_id, NOW, clock)
    return ai_id


def raw_document(document: dict, path: str, value: str) -> bytes:
    """The document as JSON text with the field at `path` (dots, list indexes) written as `value`, verbatim."""
    marker = "__DREAMCHAT_RAW__"
    changed = json.loads(json.dumps(document))
    *parents, last = path.split(".")
    holder = changed
    for part in parents:
        holder = holder[int(part)] if part.isdigit() else holder[part]
    holder[int(last) if last.isdigit() else last] = marker
    return json.dumps(changed, ensure_ascii=False).replace(f'"{marker}"', value).encode()


def held(client: TestClient, person: Person, ai_id: str) -> tuple[list[dict], dict[str, bytes | None]]:
    """Every item of the pair exactly as stored, and every blob of it: what "as it was" means."""
    store, blobs = client.app.state.runtime.store, client.app.state.runtime.blobs  # type: ignore[attr-defined]
    pair = PairId(account_id=person.id, ai_user_id=ai_id)
    items = [item for pk in keys.pair_partitions(pair) for item in query_all(store, pk)]
    return items, {key: blobs.get(key) for key in blobs.list(keys.pair_blob_prefix(pair))}


WRITE_TIME = {  # documents that passed every check and then failed while written (500, the pair erased)
    "a NaN": ("mid_term.0.compression_ratio", "NaN", "mid_term.0.compression_ratio"),
    "an Infinity": ("relationship.current.heartbeat_hours", "Infinity", "relationship.current.heartbeat_hours"),
    "a time of 10^18": ("heartbeat.last_person_at", "1000000000000000000", "heartbeat.last_person_at"),
    "a time of 2^63": ("messages.0.timestamp", str(2**63), "messages.0.timestamp"),
    "a detail_file longer than a file name": (
        "long_term.0.index.detail_file",
        json.dumps("海" * 90 + ".json"),
        "detail_file",
    ),
    "a lone surrogate": ("messages.0.content", '"\\ud800"', "messages.0.content"),
}


@pytest.mark.every_store
@pytest.mark.parametrize("case", list(WRITE_TIME))
def test_a_document_that_would_fail_while_written_is_a_422_naming_the_field_and_replaces_nothing(
    client_on, clock, case
) -> None:
    path, value, named = WRITE_TIME[case]
    alice = register(client_on, "alice")
    ai_id = small_pair(alice, clock)
    body = raw_document(export(alice, ai_id), path, value)
    say(alice, ai_id, ["导入之前的最后一句"], clock)
    before = held(client_on, alice, ai_id)

    response = import_into(alice, ai_id, body, replace="true")

    assert response.status_code == 422, response.text
    assert named in response.json()["error"]["message"]
    assert held(client_on, alice, ai_id) == before


@pytest.mark.every_store
@pytest.mark.parametrize("fails", ["the store", "the blob store"])
def test_a_replace_that_fails_while_it_writes_leaves_the_pair_exactly_as_it_was(client_on, clock, fails) -> None:
    alice = register(client_on, "alice")
    ai_id = small_pair(alice, clock)
    document = export(alice, ai_id)
    say(alice, ai_id, ["导入之前的最后一句"], clock)
    before = held(client_on, alice, ai_id)
    stores = client_on.app.state.runtime  # type: ignore[attr-defined]
    transact, put = stores.store.transact, stores.blobs.put

    failed: list[bool] = []

    def store_fails(operations):  # once: the commit that writes the open topic's last message
        if not failed and any(getattr(o, "item", {}).get("content") == NOW[-1] for o in operations):
            failed.append(True)
            raise Unavailable("the table failed while the import wrote")
        transact(operations)

    def blobs_fail(key, data, content_type="application/json"):
        raise Unavailable("the bucket failed while the import wrote")

    if fails == "the store":
        stores.store.transact = store_fails
    else:
        stores.blobs.put = blobs_fail
    response = import_into(alice, ai_id, document, replace="true")
    stores.store.transact, stores.blobs.put = transact, put

    assert response.status_code == 503, response.text
    assert held(client_on, alice, ai_id) == before
    assert "导入之前的最后一句" in json.dumps(export(alice, ai_id), ensure_ascii=False)


@pytest.mark.parametrize("when", [-(10**15), 10**12], ids=["dated -10^15", "dated 10^12"])
def test_an_entry_dated_outside_the_products_range_is_refused_and_the_pair_keeps_working(client, clock, when) -> None:
    alice = register(client, "alice")
    ai_id = small_pair(alice, clock)
    document = export(alice, ai_id)
    document["long_term"][0]["index"]["created_at"] = when

    response = import_into(alice, ai_id, document, replace="true")

    assert response.status_code == 422 and "long_term.0.index.created_at" in response.json()["error"]["message"]
    assert alice.get(f"/api/memory/{ai_id}", params={"q": QUESTION}).status_code == 200
    events = alice.post(f"/api/ai-users/{ai_id}/chat", json={"content": "你还记得海边吗"}).text
    assert "event: done" in events and "event: error" not in events


OVER_THE_BOUNDS = {  # what the API refuses, and an import stored
    "a 1.8-million-character message": (
        lambda d: d["messages"][0].update(content="x" * 1_800_000),
        "messages.0.content",
    ),
    "a 1-million-character self_soul": (
        lambda d: d["self_soul"].update(self_soul="我" * 1_000_000),
        "self_soul.self_soul",
    ),
    "60,000 key points": (
        lambda d: d["long_term"][0]["index"].update(key_points=[f"{n}" for n in range(60_000)]),
        "long_term.0.index.key_points",
    ),
    "2,000 core memories": (
        lambda d: d.update(
            core=[
                {"id": f"core_{n}", "content": f"第{n}件事", "importance": 9, "created_at": 1_770_000_000}
                for n in range(2000)
            ]
        ),
        "core",
    ),
    "heartbeat_hours 0": (
        lambda d: d["relationship"]["current"].update(heartbeat_hours=0),
        "relationship.current.heartbeat_hours",
    ),
    "heartbeat_hours -5": (
        lambda d: d["relationship"]["current"].update(heartbeat_hours=-5),
        "relationship.current.heartbeat_hours",
    ),
}


@pytest.mark.parametrize("case", list(OVER_THE_BOUNDS))
def test_a_document_beyond_the_apis_bounds_is_a_422_naming_the_field_never_clipped(client, clock, case) -> None:
    change, named = OVER_THE_BOUNDS[case]
    alice = register(client, "alice")
    ai_id = small_pair(alice, clock)
    document = export(alice, ai_id)
    forget_and_befriend(alice, ai_id)
    change(document)

    response = import_into(alice, ai_id, document)

    assert response.status_code == 422, response.text
    assert response.json()["error"]["message"].startswith(named)
    assert export(alice, ai_id)["messages"] == [] and export(alice, ai_id)["core"] == []


MALFORMED = {
    "nested 200,000 deep": (b'{"format": "dreamchat.memory", "x": ' + b"[" * 200_000 + b"]" * 200_000 + b"}", "nested"),
    "a 5,000-digit integer": (b'{"format": "dreamchat.memory", "version": ' + b"9" * 5000 + b"}", "too large"),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_malformed_upload_is_refused_before_any_work(alice, case) -> None:
    body, says = MALFORMED[case]
    ai_id = alice.create_ai_user()["id"]
    response = import_into(alice, ai_id, body)
    assert response.status_code in (400, 422), response.text
    assert says in response.json()["error"]["message"]


@pytest.mark.parametrize("runtime", ["memory", "sqlite"], indirect=True)  # DynamoDB stores no NaN at all
def test_an_export_of_a_pair_that_holds_a_nan_from_before_is_strict_json(client_on, clock) -> None:
    alice = register(client_on, "alice")
    ai_id = small_pair(alice, clock)
    store = client_on.app.state.runtime.store  # type: ignore[attr-defined]
    pair = PairId(account_id=alice.id, ai_user_id=ai_id)
    mid = next(i for i in query_all(store, keys.pair_pk(pair)) if i["sk"].startswith(keys.MID_PREFIX))
    store.put({**mid, "compression_ratio": float("nan")})  # as an import stored it before these checks

    for path in (f"/api/memory/{ai_id}/export", "/api/auth/user/export", f"/api/memory/{ai_id}/files"):
        response = alice.get(path)
        assert response.status_code == 200, response.text
        strict_json.loads(response.content)  # what a browser's JSON.parse reads: no NaN


def test_imports_and_account_exports_have_a_budget_per_account(tmp_path, clock, rng) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        run_scheduler=False,
        memory_imports_per_hour=2,
        account_exports_per_hour=1,
        **LONG_LOGIN,
    )
    with TestClient(create_app(settings, memory_runtime(settings, clock, rng))) as client:
        alice, bob = register(client, "alice"), register(client, "bob")
        ai_id = small_pair(alice, clock)
        document = export(alice, ai_id)
        assert [import_into(alice, ai_id, document, replace="true").status_code for _ in range(3)] == [200, 200, 429]
        assert alice.get("/api/auth/user/export").status_code == 200
        refused = alice.get("/api/auth/user/export")
        assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
        assert bob.get("/api/auth/user/export").status_code == 200  # per account
        clock.advance(hours=1)
        assert import_into(alice, ai_id, document, replace="true").status_code == 200


CRISIS = "我真的不想活了"


@pytest.mark.parametrize(("words", "safety"), [(CRISIS, "crisis"), ("最近真的好累，撑不下去了", "distress")])
def test_an_imported_open_topic_holding_a_crisis_is_protected_like_a_live_one(client, clock, words, safety) -> None:
    alice = register(client, "alice")
    ai_id = small_pair(alice, clock)
    document = export(alice, ai_id)
    forget_and_befriend(alice, ai_id)
    opened = document["short_term"][0]
    cry = {
        **opened,
        "id": opened["id"][:-1] + "f",
        "content": words,
        "timestamp": opened["timestamp"] + 1,
        "safety": None,
    }
    document["short_term"].append(cry)
    document["messages"].append(cry)

    assert import_into(alice, ai_id, document).status_code == 200

    stored = export(alice, ai_id)
    assert [m["safety"] for m in stored["short_term"] if m["content"] == words] == [safety]
    assert [m["safety"] for m in stored["messages"] if m["content"] == words] == [safety]
    services = services_of(alice)
    pair, _ = services.ai_users.companion(alice.id, ai_id)
    assert services.chat.protected(pair, "嗯")  # the next message of the topic is never refused nor left silent
