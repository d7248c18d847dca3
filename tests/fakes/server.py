"""The real local server as a subprocess, as `make run` starts it (e2e and browser tests)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def running_server(env: dict[str, str]) -> Iterator[str]:
    """`python -m dreamchat.api.server` on a free port with `env` added; yields its base URL."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "dreamchat.api.server", "--port", str(port)],
                               env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(base, process)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=10)


def _wait_until_up(base: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited: {process.stderr.read().decode()[-2000:] if process.stderr else ''}")
        try:
            httpx.get(f"{base}/api/health", timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise RuntimeError("server did not start within 30 s")
