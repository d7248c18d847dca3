"""Starts the real local server as a subprocess, as `make run` does, and calls it over HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.fakes.server import running_server


@pytest.fixture
def server(tmp_path) -> Iterator[str]:
    with running_server({"DREAMCHAT_DATA_DIR": str(tmp_path / "data")}) as base:
        yield base


@pytest.mark.e2e
def test_the_real_server_answers_health(server: str) -> None:
    response = httpx.get(f"{server}/api/health", timeout=5)
    assert response.status_code == 200
    # the suite runs without an embedding model (tests/conftest.py): retrieval is BM25 alone, and says so
    assert response.json() == {
        "status": "ok",
        "storage": "local",
        "llm": "offline",
        "retrieval": "BM25 alone (no embedding model)",
        "embedding_model": "none",
        "usage": {},  # no model configured: this process has called none
    }


@pytest.mark.e2e
def test_the_real_server_serves_the_web_client_and_json_errors(server: str) -> None:
    assert "text/html" in httpx.get(f"{server}/", timeout=5).headers["content-type"]
    missing = httpx.get(f"{server}/api/nowhere", timeout=5)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
