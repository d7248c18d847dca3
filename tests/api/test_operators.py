"""Operators: who they are (DREAMCHAT_OPERATORS), the 403 everyone else gets, and the audit log."""

from __future__ import annotations

import pytest

from dreamchat.config import Settings
from dreamchat.domain.models import Account


def test_an_operator_is_named_in_the_setting_and_everyone_else_gets_403(client, ops, alice):
    assert ops.get("/api/admin/me").json() == {"operator": True, "username": "ops"}
    assert alice.get("/api/admin/me").status_code == 403
    assert alice.get("/api/admin/audit").status_code == 403
    assert client.get("/api/admin/audit").status_code == 401


def test_the_setting_is_a_comma_separated_list():
    assert Settings(operators="ops, ops2").operators == ["ops", "ops2"]


def test_a_look_alike_of_an_operators_name_cannot_be_registered(client, ops):
    response = client.post("/api/auth/register", json={"username": "ＯＰＳ", "password": "correct-horse-battery"})
    assert response.status_code == 409


def test_the_audit_log_pages_newest_first_and_names_no_content(client, clock, ops):
    services = client.app.state.services
    operator = Account.model_validate(services.auth.account(ops.id).model_dump())
    for n in range(5):
        services.operators.record(operator, "report.resolve", target=f"r{n}", account_id="a1")
        clock.advance(seconds=1)
    first = ops.get("/api/admin/audit", params={"limit": 3}).json()
    assert [e["target"] for e in first["entries"]] == ["r4", "r3", "r2"]
    assert first["next_cursor"]
    second = ops.get("/api/admin/audit", params={"limit": 3, "cursor": first["next_cursor"]}).json()
    assert [e["target"] for e in second["entries"]] == ["r1", "r0"] and second["next_cursor"] is None
    assert set(first["entries"][0]) == {
        "id",
        "at",
        "operator_id",
        "operator",
        "action",
        "target",
        "account_id",
        "ai_user_id",
    }


@pytest.mark.parametrize("cursor", ["garbage", "eyJhZnRlciI6Ii4uLyJ9"])
def test_a_cursor_the_api_did_not_issue_is_a_422(ops, cursor):
    assert ops.get("/api/admin/audit", params={"cursor": cursor}).status_code == 422
