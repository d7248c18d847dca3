"""A bounded schemathesis run over the whole OpenAPI, authenticated, with real ids.

Every operation is fuzzed with valid and invalid input; the run fails on any 5xx and on any
status code the route does not declare (issue 15.1 and 15.13). Most cases name the real AI
user, so the routes get past "not found" and into the services. The operators' routes
(`/api/admin/…`) are fuzzed once more as an operator, with a real report, escalation and
accounts, so they get past 403 too.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import content_type_conformance, status_code_conformance

from dreamchat.api.app import create_app
from dreamchat.api.limits import MAX_BODY_BYTES
from dreamchat.config import Settings
from dreamchat.wiring import build_runtime
from tests.api.conftest import OPERATORS, Person, register

EXAMPLES = 12
# These end the session they are called with; each case gets an account of its own.
SESSION_ENDING = {("POST", "/api/auth/logout"), ("DELETE", "/api/auth/user")}


@dataclass
class World:
    """A real account with a real AI user, restored whenever a case deleted them."""

    client: TestClient
    person: Person
    ai_user_id: str
    accounts: int = 0

    def ai_user(self) -> str:
        if self.person.get(f"/api/ai-users/{self.ai_user_id}").status_code != 200:
            self.ai_user_id = self.person.create_ai_user(visibility="public")["id"]
        self.person.post(f"/api/friends/{self.ai_user_id}")
        return self.ai_user_id

    def throwaway(self) -> Person:
        self.accounts += 1
        return register(self.client, f"throwaway{self.accounts}")


@pytest.fixture
def fuzz_app(tmp_path, clock, rng) -> FastAPI:
    # Limits high enough that the fuzzer is not simply told "429" for most of the run.
    settings = Settings(
        data_dir=tmp_path / "data",
        run_scheduler=False,
        messages_per_minute=10_000,
        auth_requests_per_minute=10_000,
        access_token_minutes=60 * 24,
        operators=OPERATORS,
    )
    return create_app(settings, build_runtime(settings, clock=clock, random=rng))


@pytest.fixture
def world(fuzz_app) -> World:
    client = TestClient(fuzz_app)
    person = register(client, "fuzzer")
    return World(client, person, person.create_ai_user(visibility="public")["id"])


def test_the_api_never_answers_5xx_or_an_undeclared_status(fuzz_app, world: World) -> None:
    operations = _operations(fuzz_app)
    assert len(operations) > 25
    _fuzz(operations, lambda case: _check_one(case, world))


@dataclass
class Moderated:
    """What an operator acts on: a real report (of a public AI user) and escalation, and accounts to open:
    an everyday one, the operator's own and another operator's."""

    operator: Person
    report_id: str
    escalation_id: str
    ai_user_id: str
    account_ids: tuple[str, ...]

    def real(self, name: str, case) -> str | None:
        """The real id for a path parameter, or None to keep the fuzzer's."""
        if name == "account_id":
            return self.account_ids[zlib.crc32(repr(getattr(case, "body", None)).encode()) % len(self.account_ids)]
        return {"report_id": self.report_id, "escalation_id": self.escalation_id, "ai_user_id": self.ai_user_id}.get(
            name
        )


@pytest.fixture
def moderated(fuzz_app, world: World) -> Moderated:
    owner, operator, other = (
        register(world.client, "owner"),
        register(world.client, "ops"),
        register(world.client, "ops2"),
    )
    reported = owner.create_ai_user(visibility="public")["id"]
    made = world.person.post("/api/reports", json={"kind": "ai_user", "ai_user_id": reported, "reason": "不合适"})
    assert made.status_code == 201, made.text
    crisis = world.person.post(f"/api/ai-users/{world.ai_user()}/save-message", json={"content": "我今晚就准备自杀"})
    assert crisis.status_code == 201, crisis.text
    [escalation] = operator.get("/api/admin/escalations").json()["escalations"]
    accounts = (owner.id, operator.id, other.id)
    return Moderated(operator, made.json()["id"], escalation["id"], reported, accounts)


def test_the_operators_routes_as_an_operator_never_answer_5xx_or_an_undeclared_status(
    fuzz_app, moderated: Moderated
) -> None:
    operations = [o for o in _operations(fuzz_app) if o.path.startswith("/api/admin")]
    assert len(operations) >= 15
    _fuzz(operations, lambda case: _check_as_operator(case, moderated))


def test_the_operators_routes_declare_what_an_oversized_or_mislabelled_body_gets(
    fuzz_app, moderated: Moderated
) -> None:
    """What the fuzzer seldom makes: a body over the size limit (413) and a Content-Length that is no number
    (400), answered before the route, so each route that takes a body must declare both."""
    undeclared = []
    for path, methods in fuzz_app.openapi()["paths"].items():
        for method, spec in methods.items():
            if not path.startswith("/api/admin") or "requestBody" not in spec:
                continue
            url = re.sub(r"\{(\w+)\}", lambda m: moderated.real(m[1], None) or "x", path)
            headers = {**moderated.operator.headers, "Content-Type": "application/json"}
            big = moderated.operator.client.request(method, url, content=b" " * (MAX_BODY_BYTES + 1), headers=headers)
            odd = moderated.operator.client.request(
                method, url, content=b"{}", headers={**headers, "Content-Length": "x"}
            )
            undeclared += [
                f"{method.upper()} {path}: {r.status_code}"
                for r in (big, odd)
                if str(r.status_code) not in spec["responses"]
            ]
    assert undeclared == []


def _operations(app: FastAPI) -> list:
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    return [result.ok() for result in schema.get_all_operations()]


def _fuzz(operations: list, check) -> None:
    failures = []
    for operation in operations:
        cases = st.one_of(
            operation.as_strategy(GenerationMode.POSITIVE), operation.as_strategy(GenerationMode.NEGATIVE)
        )

        @given(case=cases)
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        def fuzz(case) -> None:
            check(case)

        try:
            fuzz()
        except (Exception, BaseExceptionGroup) as failure:  # every operation's failures are reported together
            failures.append(f"{operation.label}: {failure}")
    assert not failures, "\n\n".join(failures)


def _check_one(case, world: World) -> None:
    caller = world.throwaway() if (case.method.upper(), case.path) in SESSION_ENDING else world.person
    if "user_id" in (case.path_parameters or {}) and _mostly(case):
        case.path_parameters["user_id"] = world.ai_user()
    case.call_and_validate(
        headers=caller.headers, checks=[not_a_server_error, status_code_conformance, content_type_conformance]
    )


def _check_as_operator(case, moderated: Moderated) -> None:
    if _mostly(case):
        for name in case.path_parameters or {}:
            if (real := moderated.real(name, case)) is not None:
                case.path_parameters[name] = real
    case.call_and_validate(
        headers=moderated.operator.headers,
        checks=[not_a_server_error, status_code_conformance, content_type_conformance],
    )


def _mostly(case) -> bool:
    """Three cases in four use the real AI user; the rest keep the fuzzer's id."""
    return zlib.crc32(repr(case.path_parameters).encode()) % 4 != 0
