"""A real server on 127.0.0.1 speaking the media roles' part of the OpenAI protocol, for tests:
`/audio/transcriptions` (multipart in, `{"text"}` out), `/audio/speech` (JSON in, audio bytes out) and
`/chat/completions` with an `image_url` part (the vision role). Replies are scripted per path (a queue
each, then the default); every request is recorded; faults are scripted replies (a status, a delay).

    with FakeMediaServer() as server:
        server.script("/audio/transcriptions", MediaReply(body={"text": "今天好累"}))
        ... OpenAI(base_url=server.base_url, api_key="k") ...
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

VOICE = (Path(__file__).resolve().parents[1] / "data" / "media" / "voice.mp3").read_bytes()
TRANSCRIPTIONS, SPEECH, VISION = "/audio/transcriptions", "/audio/speech", "/chat/completions"


@dataclass(frozen=True)
class MediaReply:
    """One answer: a JSON body, or raw bytes (speech), after a delay, with a status."""

    body: dict[str, Any] | None = None
    raw: bytes | None = None
    status: int = 200
    delay: float = 0.0
    reset: bool = False  # the connection is reset halfway through the body
    drip: float = 0.0  # seconds between the body's 4 KB pieces (a body that trickles in)

    @classmethod
    def seen(cls, description: str, concern: str | None = None) -> MediaReply:
        content = json.dumps({"description": description, "concern": concern}, ensure_ascii=False)
        return cls(body=_completion(content))

    @classmethod
    def error(cls, status: int = 500) -> MediaReply:
        return cls(body={"error": {"message": "scripted failure", "type": "server_error"}}, status=status)


def _completion(content: str) -> dict[str, Any]:
    return {
        "id": "fake",
        "object": "chat.completion",
        "created": 0,
        "model": "vision",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


DEFAULTS = {
    TRANSCRIPTIONS: MediaReply(body={"text": "今天下班路上看到一只橘猫"}),
    SPEECH: MediaReply(raw=VOICE),
    VISION: MediaReply.seen("一只橘猫趴在窗台上晒太阳。"),
}


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> dict[str, Any]:
        return dict(json.loads(self.body))


@dataclass
class FakeMediaServer:
    scripts: dict[str, deque[MediaReply]] = field(default_factory=lambda: defaultdict(deque))
    requests: list[Recorded] = field(default_factory=list)

    def __post_init__(self) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                path = "/" + self.path.split("/v1/", 1)[-1].split("?")[0]
                server.requests.append(Recorded(path, dict(self.headers), body))
                queue = server.scripts[path]
                reply = queue.popleft() if queue else DEFAULTS.get(path, MediaReply.error(404))
                time.sleep(reply.delay)
                payload = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up (its timeout)
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "audio/mpeg" if reply.raw is not None else "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    if reply.reset:
                        self.wfile.write(payload[: len(payload) // 2])
                        self.wfile.flush()
                        linger = struct.pack("ii", 1, 0)  # closing with a zero linger sends RST, not FIN
                        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
                        self.close_connection = True
                        return
                    for start in range(0, len(payload), 4096 if reply.drip else len(payload) or 1):
                        self.wfile.write(payload[start : start + 4096 if reply.drip else len(payload)])
                        self.wfile.flush()
                        time.sleep(reply.drip)

            def log_message(self, *args: Any) -> None:
                pass

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._http.daemon_threads = True
        self._thread = threading.Thread(target=self._http.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    def __enter__(self) -> FakeMediaServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.shutdown()
        self._http.server_close()

    @property
    def base_url(self) -> str:
        host, port = self._http.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def script(self, path: str, *replies: MediaReply) -> None:
        self.scripts[path].extend(replies)

    def requests_to(self, path: str) -> list[Recorded]:
        return [r for r in self.requests if r.path == path]
