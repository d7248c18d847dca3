"""The real local server as a subprocess, as `make run` starts it (e2e and browser tests)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

import httpx


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def running_server(env: dict[str, str]) -> Iterator[str]:
    """`python -m dreamchat.api.server` on a free port with `env` added; yields its base URL."""
    port = free_port()
    # The log goes to a file: a pipe nobody reads would block the server once it filled up.
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "dreamchat.api.server", "--port", str(port)],
            env={**os.environ, **env},
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            _wait_until_up(base, process, log)
            yield base
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:  # background work still draining: stop it
                process.kill()
                process.wait(timeout=10)


def _wait_until_up(base: str, process: subprocess.Popen[bytes], log: IO[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"server exited: {log.read().decode()[-2000:]}")
        try:
            httpx.get(f"{base}/api/health", timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise RuntimeError("server did not start within 30 s")
