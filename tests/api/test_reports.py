"""Reports (举报/投诉) through the API: what a person may report (404 for anything else), the open limit,
the operator's list, read and action (once, whoever races), the answer the person sees, the audit."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from dreamchat import keys
from dreamchat.config import Settings
from dreamchat.domain.moderation import OPEN_REPORTS_PER_PERSON, Escalation
from dreamchat.ports import Put
from dreamchat.services.storage.unit_of_work import Storage
from tests.api.conftest import OPERATORS, Person, register

REASON = "它一直在骂人，说很难听的话"
NOTE = "已核实，谢谢你的举报"


def say(person: Person, ai_id: str, content: str) -> str:
    """The id of a message the person saved in their chat with `ai_id`."""
    response = person.post(f"/api/ai-users/{ai_id}/save-message", json={"content": content})
    assert response.status_code == 201, response.text
    return response.json()["message"]["id"]


def report(person: Person, ai_id: str, message_id: str | None = None, reason: str = REASON) -> Any:
    kind = "ai_user" if message_id is None else "message"
    body = {"kind": kind, "ai_user_id": ai_id, "reason": reason}
    return person.post("/api/reports", json=body if message_id is None else {**body, "message_id": message_id})


def reported(person: Person, ai_id: str, message_id: str | None = None) -> dict:
    response = report(person, ai_id, message_id)
    assert response.status_code == 201, response.text
    return response.json()


@pytest.fixture
def settings(tmp_path) -> Settings:
    """The `client` fixture's settings, with tokens that outlive the days a report waits."""
    return Settings(
        data_dir=tmp_path / "data", run_scheduler=False, operators=OPERATORS, access_token_minutes=60 * 24 * 30
    )


def befriended(person: Person, ai: dict) -> str:
    assert person.post(f"/api/friends/{ai['id']}").status_code == 201
    return ai["id"]


@pytest.fixture
def public(alice) -> dict:
    return alice.create_ai_user(name="公开的", visibility="public")


@pytest.fixture
def friend(bob, public) -> dict:
    """Bob's AI friend (alice's public AI user)."""
    assert bob.post(f"/api/friends/{public['id']}").status_code == 201
    return public


def test_a_person_reports_a_public_ai_user_and_sees_it_open_with_its_deadline(bob, public) -> None:
    made = reported(bob, public["id"])
    assert made["status"] == "open" and made["kind"] == "ai_user" and made["reason"] == REASON
    assert made["respond_by"] == made["created_at"] + 72 * 3600
    assert made["action"] is None and made["note"] == "" and made["resolved_at"] is None
    assert bob.get("/api/reports").json() == {"reports": [made], "next_cursor": None}


def test_a_person_reports_a_message_in_their_own_chat(bob, friend) -> None:
    message_id = say(bob, friend["id"], "你刚才说的话让我很不舒服")
    made = reported(bob, friend["id"], message_id)
    assert made["kind"] == "message" and made["message_id"] == message_id


NOT_REPORTABLE = {
    "one's own AI user": lambda alice, bob, friend, private: report(alice, friend["id"]),
    "a private AI user of another account": lambda alice, bob, friend, private: report(bob, private["id"]),
    "an unknown AI user": lambda alice, bob, friend, private: report(bob, "ai_0000000000000000"),
    "a message of one's own AI user": lambda alice, bob, friend, private: report(
        alice, friend["id"], say(alice, friend["id"], "我自己的话")
    ),
    "a message of another pair": lambda alice, bob, friend, private: report(
        bob, friend["id"], say(alice, friend["id"], "主人的话")
    ),
    "a message of one's chat with another AI friend": lambda alice, bob, friend, private: report(
        bob, befriended(bob, alice.create_ai_user(name="另一个", visibility="public")), say(bob, friend["id"], "我的话")
    ),
    "an unknown message": lambda alice, bob, friend, private: report(bob, friend["id"], "m_does_not_exist"),
    "a message of a public AI user one is not friends with": lambda alice, bob, friend, private: report(
        register(bob.client, "carol"), friend["id"], say(bob, friend["id"], "我的话")
    ),
}


@pytest.mark.parametrize("case", NOT_REPORTABLE, ids=list(NOT_REPORTABLE))
def test_what_a_person_may_not_report_is_a_404(alice, bob, friend, case) -> None:
    private = alice.create_ai_user(name="私密的")
    response = NOT_REPORTABLE[case](alice, bob, friend, private)
    assert response.status_code == 404, response.text
    assert response.json()["error"]["code"] == "not_found"
    assert bob.get("/api/reports").json()["reports"] == []


@pytest.mark.parametrize(
    "body",
    [
        {"kind": "message", "ai_user_id": "ai_x", "reason": REASON},  # which message?
        {"kind": "ai_user", "ai_user_id": "ai_x", "message_id": "m1", "reason": REASON},
        {"kind": "ai_user", "ai_user_id": "ai_x", "reason": ""},
        {"kind": "ai_user", "ai_user_id": "ai_x", "reason": "   "},
        {"kind": "ai_user", "ai_user_id": "ai_x", "reason": "字" * 501},
        {"kind": "character", "ai_user_id": "ai_x", "reason": REASON},
    ],
)
def test_a_report_without_what_it_needs_is_a_422(bob, body) -> None:
    assert bob.post("/api/reports", json=body).status_code == 422


def test_a_reason_of_500_characters_is_taken(bob, public) -> None:
    assert report(bob, public["id"], reason="字" * 500).status_code == 201


def test_twenty_open_reports_at_once_and_the_next_is_a_409_until_one_is_answered(clock, ops, bob, public) -> None:
    made = [reported(bob, public["id"]) for _ in range(OPEN_REPORTS_PER_PERSON)]
    refused = report(bob, public["id"])
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "conflict"
    assert ops.post(f"/api/admin/reports/{made[0]['id']}/resolve", json={"action": "dismiss"}).status_code == 200
    assert report(bob, public["id"]).status_code == 201


def test_the_person_sees_the_status_and_the_operators_answer(clock, ops, bob, public) -> None:
    made = reported(bob, public["id"])
    clock.advance(hours=1)
    resolved = ops.post(f"/api/admin/reports/{made['id']}/resolve", json={"action": "dismiss", "note": NOTE})
    assert resolved.status_code == 200, resolved.text
    mine = bob.get("/api/reports").json()["reports"]
    assert [(r["status"], r["action"], r["note"]) for r in mine] == [("dismissed", "dismiss", NOTE)]
    assert mine[0]["resolved_at"] == made["created_at"] + 3600
    assert "account_id" not in mine[0] and "resolved_by" not in mine[0]


def test_a_persons_list_is_their_own_newest_first_a_page_at_a_time(clock, alice, bob, public) -> None:
    carol = register(bob.client, "carol")
    ids = []
    for _ in range(3):
        ids.append(reported(bob, public["id"])["id"])
        clock.advance(seconds=1)
    reported(carol, public["id"])
    first = bob.get("/api/reports", params={"limit": 2}).json()
    assert [r["id"] for r in first["reports"]] == ids[:0:-1] and first["next_cursor"]
    second = bob.get("/api/reports", params={"limit": 2, "cursor": first["next_cursor"]}).json()
    assert [r["id"] for r in second["reports"]] == ids[:1] and second["next_cursor"] is None
    assert alice.get("/api/reports").json()["reports"] == []


ADMIN_ROUTES = [
    ("GET", "/api/admin/summary", None),
    ("GET", "/api/admin/reports", None),
    ("GET", "/api/admin/reports/{report}", None),
    ("POST", "/api/admin/reports/{report}/resolve", {"action": "takedown", "note": "x"}),
    ("POST", "/api/admin/ai-users/{ai}/restore", None),
]


@pytest.mark.parametrize(("method", "template", "body"), ADMIN_ROUTES, ids=[f"{m} {p}" for m, p, _ in ADMIN_ROUTES])
def test_the_operators_routes_are_403_to_everyone_else_and_401_without_a_token(
    client, alice, bob, public, method, template, body
) -> None:
    made = reported(bob, public["id"])
    path = template.format(report=made["id"], ai=public["id"])
    for person in (alice, bob):
        response = client.request(method, path, json=body, headers=person.headers)
        assert response.status_code == 403 and response.json()["error"]["code"] == "forbidden"
    assert client.request(method, path, json=body).status_code == 401
    assert bob.get("/api/reports").json()["reports"][0]["status"] == "open"
    assert alice.get(f"/api/ai-users/{public['id']}").json()["moderation"] is None


def test_the_operator_lists_open_reports_oldest_first_and_overdue_past_the_deadline(clock, ops, bob, public) -> None:
    ids = []
    for _ in range(3):
        ids.append(reported(bob, public["id"])["id"])
        clock.advance(hours=1)
    first = ops.get("/api/admin/reports", params={"status": "open", "limit": 2}).json()
    assert [r["id"] for r in first["reports"]] == ids[:2]
    assert first["reports"][0]["account_id"] == bob.id and first["reports"][0]["overdue"] is False
    second = ops.get("/api/admin/reports", params={"limit": 2, "cursor": first["next_cursor"]}).json()
    assert [r["id"] for r in second["reports"]] == ids[2:] and second["next_cursor"] is None

    clock.advance(hours=71)  # the first two are past their 72 hours, the last is not
    listed = ops.get("/api/admin/reports").json()["reports"]
    assert [r["overdue"] for r in listed] == [True, True, False]
    ops.post(f"/api/admin/reports/{ids[0]}/resolve", json={"action": "dismiss"})
    dismissed = ops.get("/api/admin/reports", params={"status": "dismissed"}).json()["reports"]
    assert [(r["id"], r["overdue"]) for r in dismissed] == [(ids[0], False)]
    assert ops.get("/api/admin/reports", params={"status": "closed"}).status_code == 422


def test_the_operator_reads_a_reported_message_and_the_ten_before_it(clock, ops, alice, bob, friend) -> None:
    said = []
    for n in range(15):
        said.append(say(bob, friend["id"], f"第{n}句"))
        clock.advance(seconds=1)
    made = reported(bob, friend["id"], said[12])
    detail = ops.get(f"/api/admin/reports/{made['id']}").json()
    assert [m["content"] for m in detail["messages"]] == [f"第{n}句" for n in range(2, 13)]
    assert detail["ai_user"] == {
        "id": friend["id"],
        "name": "公开的",
        "owner_id": alice.id,
        "visibility": "public",
        "moderation": None,
    }
    assert detail["account_id"] == bob.id and detail["status"] == "open" and detail["reason"] == REASON


def test_a_report_of_an_ai_user_shows_no_messages_and_an_unknown_report_is_a_404(ops, alice, bob, friend) -> None:
    say(bob, friend["id"], "不该被看到的话")
    made = reported(bob, friend["id"])
    detail = ops.get(f"/api/admin/reports/{made['id']}").json()
    assert detail["messages"] == [] and detail["ai_user"]["owner_id"] == alice.id
    assert ops.get("/api/admin/reports/rep_unknown").status_code == 404
    assert ops.post("/api/admin/reports/rep_unknown/resolve", json={"action": "dismiss"}).status_code == 404


def test_acting_on_a_report_twice_is_a_409(ops, bob, public) -> None:
    made = reported(bob, public["id"])
    assert ops.post(f"/api/admin/reports/{made['id']}/resolve", json={"action": "dismiss"}).status_code == 200
    for action in ("dismiss", "takedown"):
        again = ops.post(f"/api/admin/reports/{made['id']}/resolve", json={"action": action, "note": "再来"})
        assert again.status_code == 409 and again.json()["error"]["code"] == "conflict"
    assert bob.get("/api/reports").json()["reports"][0]["note"] == ""
    assert bob.get(f"/api/ai-users/{public['id']}").status_code == 200  # the takedown never happened


def at_once(report_id: str, *acting: tuple[Person, str]) -> dict[str, int]:
    """Each operator acts on the report at the same moment, from their own thread: their statuses."""
    barrier = threading.Barrier(len(acting))
    answers: dict[str, int] = {}

    def act(operator: Person, action: str) -> None:
        barrier.wait()
        path = f"/api/admin/reports/{report_id}/resolve"
        answers[action] = operator.post(path, json={"action": action, "note": action}).status_code

    threads = [threading.Thread(target=act, args=pair) for pair in acting]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_of_two_operators_resolving_at_once_exactly_one_wins(client, ops, bob, public) -> None:
    ops2 = register(client, "ops2")
    for _ in range(5):
        made = reported(bob, public["id"])
        answers = at_once(made["id"], (ops, "dismiss"), (ops2, "takedown"))
        assert sorted(answers.values()) == [200, 409]
        winner = next(action for action, status in answers.items() if status == 200)
        mine = next(r for r in bob.get("/api/reports").json()["reports"] if r["id"] == made["id"])
        assert (mine["action"], mine["note"]) == (winner, winner)
        if winner == "takedown":
            return


class WriteBefore:
    """The store, with `action` run once just before the first write of the item `key`."""

    def __init__(self, inner: Any, key: tuple[str, str], action: Any) -> None:
        self._inner, self._key, self._action = inner, key, action

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def _before(self, items: list[dict[str, Any]]) -> None:
        if self._action is not None and any((i["pk"], i["sk"]) == self._key for i in items):
            action, self._action = self._action, None
            action()

    def put_versioned(self, item: dict[str, Any], expected_version: int | None) -> int:
        self._before([item])
        return self._inner.put_versioned(item, expected_version)

    def transact(self, operations: list[Any]) -> None:
        self._before([op.item for op in operations if isinstance(op, Put)])
        self._inner.transact(operations)


def test_an_operator_who_read_a_report_open_loses_to_one_who_acted_meanwhile(client, ops, bob, public) -> None:
    made = reported(bob, public["id"])
    ops2 = register(client, "ops2")
    reports = client.app.state.services.reports
    real = reports._storage
    path = f"/api/admin/reports/{made['id']}/resolve"
    meanwhile = []

    def other_operator() -> None:
        reports._storage = real  # the other operator's request goes straight through
        meanwhile.append(ops2.post(path, json={"action": "takedown", "note": "先到"}).status_code)

    reports._storage = Storage(WriteBefore(real.store, keys.report(made["id"]), other_operator))
    try:
        late = ops.post(path, json={"action": "dismiss", "note": "后到"})
    finally:
        reports._storage = real
    assert meanwhile == [200] and late.status_code == 409
    mine = bob.get("/api/reports").json()["reports"][0]
    assert (mine["status"], mine["note"]) == ("resolved", "先到")


def test_the_summary_counts_open_reports_and_open_escalations(client, ops, bob, public) -> None:
    assert ops.get("/api/admin/summary").json() == {
        "open_reports": 0,
        "open_escalations": 0,
        "ratings_up": 0,
        "ratings_down": 0,
    }
    made = [reported(bob, public["id"]) for _ in range(3)]
    storage = Storage(client.app.state.services.runtime.store)
    with storage.begin() as uow:
        uow.escalations.add(Escalation(id="esc_1", account_id=bob.id, ai_user_id=public["id"], opened_at=1))
        uow.commit()
    ops.post(f"/api/admin/reports/{made[0]['id']}/resolve", json={"action": "dismiss"})
    assert ops.get("/api/admin/summary").json() == {
        "open_reports": 2,
        "open_escalations": 1,
        "ratings_up": 0,
        "ratings_down": 0,
    }


def test_every_operator_action_is_audited_with_ids_and_no_words(clock, ops, alice, bob, friend) -> None:
    message_id = say(bob, friend["id"], "这句话被举报了")
    made = reported(bob, friend["id"], message_id)
    assert ops.get(f"/api/admin/reports/{made['id']}").status_code == 200
    clock.advance(seconds=1)
    resolved = ops.post(f"/api/admin/reports/{made['id']}/resolve", json={"action": "takedown", "note": NOTE})
    assert resolved.status_code == 200
    clock.advance(seconds=1)
    assert ops.post(f"/api/admin/ai-users/{friend['id']}/restore").status_code == 200
    log = ops.get("/api/admin/audit")
    entries = log.json()["entries"]
    assert [(e["action"], e["target"]) for e in entries] == [
        ("ai_user.restore", friend["id"]),
        ("report.resolve", made["id"]),
        ("report.read", made["id"]),
    ]
    assert all(e["operator"] == "ops" for e in entries)
    assert [(e["account_id"], e["ai_user_id"]) for e in entries] == [(alice.id, None)] + [(bob.id, friend["id"])] * 2
    for words in (REASON, NOTE, "这句话被举报了"):
        assert words not in log.text
