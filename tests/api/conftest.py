from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from fastapi.testclient import TestClient

from dreamchat.api.app import create_app
from dreamchat.config import Settings
from tests.conftest import memory_runtime

OPERATORS = ["ops", "ops2"]  # the operators of the `client` fixture's app


@dataclass
class Person:
    """A registered account seen through the API."""

    client: TestClient
    username: str
    access_token: str
    refresh_token: str
    id: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.access_token}"}

    def get(self, path: str, **kwargs):
        return self.client.get(path, headers=self.headers, **kwargs)

    def post(self, path: str, **kwargs):
        return self.client.post(path, headers=self.headers, **kwargs)

    def put(self, path: str, **kwargs):
        return self.client.put(path, headers=self.headers, **kwargs)

    def delete(self, path: str, **kwargs):
        return self.client.delete(path, headers=self.headers, **kwargs)

    def create_ai_user(self, **fields) -> dict:
        response = self.post("/api/ai-users", json={"name": "小梦", "base_soul": "温柔体贴的朋友", **fields})
        assert response.status_code == 201, response.text
        return response.json()


@pytest.fixture
def settings(tmp_path) -> Settings:
    # without the starter characters: each test sees only the AI users it makes (tests/api/test_discover.py seeds them)
    return Settings(data_dir=tmp_path / "data", run_scheduler=False, operators=OPERATORS, starters=False)


@pytest.fixture
def client(settings, clock, rng) -> Iterator[TestClient]:
    """The offline app on the memory store (tests that need SQLite build theirs with `build_runtime`)."""
    app = create_app(settings, memory_runtime(settings, clock, rng))
    with TestClient(app) as test_client:
        yield test_client


def register(client: TestClient, username: str, password: str = "correct-horse-battery") -> Person:
    response = client.post("/api/auth/register", json={"username": username, "password": password})
    assert response.status_code == 201, response.text
    body = response.json()
    return Person(client, username, body["access_token"], body["refresh_token"], body["user"]["id"])


@pytest.fixture
def alice(client) -> Person:
    return register(client, "alice")


@pytest.fixture
def bob(client) -> Person:
    return register(client, "bob")


@pytest.fixture
def ops(client) -> Person:
    """An operator (named in DREAMCHAT_OPERATORS)."""
    return register(client, "ops")


@pytest.fixture
def app(tmp_path, clock, rng, fake_llm):
    """The app with the fake OpenAI-compatible server as every model, on the memory store."""
    settings = Settings(
        data_dir=tmp_path / "data",
        run_scheduler=False,
        llm_base_url=fake_llm.base_url,
        llm_api_key="test-key",
        llm_timeout_seconds=2,
        llm_max_retries=0,
        max_delay_seconds=30,
        access_token_minutes=60 * 24 * 365,
        operators=OPERATORS,
    )
    return create_app(settings, memory_runtime(settings, clock, rng))


@pytest.fixture
def person(app) -> Iterator[Person]:
    with TestClient(app) as client:
        yield register(client, "alice")


@pytest.fixture
def ai(person) -> dict:
    return person.create_ai_user(name="小梦")
