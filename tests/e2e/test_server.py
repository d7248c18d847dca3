"""Starts the real local server as a subprocess, as `make run` does, and calls it over HTTP."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def server(tmp_path) -> Iterator[str]:
    port = free_port()
    env = {**os.environ, "DREAMCHAT_DATA_DIR": str(tmp_path / "data")}
    process = subprocess.Popen(
        [sys.executable, "-m", "dreamchat.api.server", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, process)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=10)


def wait_until_up(base: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited: {process.stderr.read().decode()[-2000:]}")
        try:
            httpx.get(f"{base}/api/health", timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.2)
    raise RuntimeError("server did not start")


@pytest.mark.e2e
def test_the_real_server_answers_health(server: str) -> None:
    response = httpx.get(f"{server}/api/health", timeout=5)
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "storage": "local", "llm": "offline"}
