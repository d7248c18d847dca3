"""A real OpenAI-compatible HTTP server on 127.0.0.1 that the openai SDK talks to in tests.

Replies are scripted per model name (a queue each), with a default responder for the rest;
every request is recorded; faults (500, 429, slow, malformed JSON) are just scripted replies.
The usage a reply reports may carry the cached part of the prompt in each provider's shape
(`Reply.cached`): DeepSeek's top-level `prompt_cache_hit_tokens`/`prompt_cache_miss_tokens`,
or the OpenAI-style `prompt_tokens_details.cached_tokens` that DashScope and Ark send.
A reply may carry `reasoning_content` (DeepSeek's thinking mode); a model named in `thinking`
answers 400, as DeepSeek does, when a tool call of its comes back without its reasoning:

    with FakeLLMServer() as server:
        server.script("qwen-plus", Reply.error(500), Reply.text('{"summary": "..."}'))
        ... OpenAI(base_url=server.base_url, api_key="k") ...
        assert server.requests[0].body["model"] == "qwen-plus"
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
import zlib
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """What the server answers to one request."""

    content: str | None = "ok"
    tool_calls: tuple[tuple[str, str], ...] = ()
    prompt_tokens: int = 10
    completion_tokens: int = 5
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    delay: float = 0.0
    chunk_delay: float = 0.0
    raw_body: bytes | None = None
    error_fields: tuple[tuple[str, str | None], ...] = ()  # the error object's fields, for a 4xx/5xx
    vectors: tuple[tuple[float, ...], ...] | None = None  # an /embeddings answer; default: hashed words
    reasoning: str | None = None  # `reasoning_content` beside the answer
    cached_tokens: int = 0  # the part of the prompt the provider's cache served, reported as `usage_shape` says
    usage_shape: str = "plain"  # "plain" (no cache fields), "deepseek", "openai" or "openai-null" (details: null)

    @classmethod
    def embeddings(cls, *vectors: tuple[float, ...]) -> Reply:
        """An /embeddings answer with exactly these vectors (one per input, or not: a test's choice)."""
        return cls(vectors=tuple(vectors))

    @classmethod
    def text(
        cls, content: str, prompt_tokens: int = 10, completion_tokens: int = 5, reasoning: str | None = None
    ) -> Reply:
        """A plain assistant message (with a chain of thought, as a reasoning model answers)."""
        return cls(
            content=content, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, reasoning=reasoning
        )

    @classmethod
    def cached(
        cls, content: str, shape: str, *, prompt_tokens: int = 100, cached_tokens: int = 0, completion_tokens: int = 5
    ) -> Reply:
        """A plain message whose usage reports `cached_tokens` of the prompt as cached, in `shape`."""
        return cls(
            content=content,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cached_tokens=cached_tokens,
            usage_shape=shape,
        )

    @classmethod
    def json(cls, value: dict[str, Any]) -> Reply:
        """An assistant message whose content is `value` as JSON."""
        return cls(content=json.dumps(value, ensure_ascii=False))

    @classmethod
    def tools(cls, *calls: tuple[str, dict[str, Any] | str], reasoning: str | None = None) -> Reply:
        """Tool calls (name, arguments); string arguments are sent as they are, even if not JSON."""
        encoded = tuple(
            (name, args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)) for name, args in calls
        )
        return cls(content=None, tool_calls=encoded, reasoning=reasoning)

    @classmethod
    def error(cls, status: int = 500) -> Reply:
        """An HTTP error with an OpenAI-style error body."""
        return cls(status=status)

    @classmethod
    def bad_request(cls, message: str, code: str | None = None, param: str | None = None) -> Reply:
        """HTTP 400 with the error object a provider would send (`message`, `code`, `param`)."""
        fields = (("message", message), ("type", "invalid_request_error"), ("code", code), ("param", param))
        return cls(status=400, error_fields=fields)

    @classmethod
    def rate_limited(cls, retry_after: float = 0) -> Reply:
        """HTTP 429 with a Retry-After header."""
        return cls(status=429, headers=(("retry-after", str(retry_after)),))

    @classmethod
    def slow(cls, seconds: float, content: str = "too late") -> Reply:
        """A reply that only starts after `seconds`, to exceed the client's timeout."""
        return cls(content=content, delay=seconds)

    @classmethod
    def stalled_stream(cls, content: str, seconds: float) -> Reply:
        """A stream that pauses `seconds` after each chunk, to time out mid-stream."""
        return cls(content=content, chunk_delay=seconds)

    @classmethod
    def malformed(cls) -> Reply:
        """HTTP 200 with a body that is not JSON."""
        return cls(raw_body=b'{"id": "chatcmpl-broken", "choices": [')


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def model(self) -> str:
        """The model name the client asked for."""
        return str(self.body.get("model", ""))

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The chat messages sent."""
        return list(self.body.get("messages", []))

    @property
    def reasoning_sent_back(self) -> list[str]:
        """The `reasoning_content` of every assistant message the client sent back."""
        return [
            m["reasoning_content"] for m in self.messages if m.get("role") == "assistant" and "reasoning_content" in m
        ]


Responder = Callable[[dict[str, Any]], Reply]


@dataclass
class _Script:
    queues: dict[str, deque[Reply]] = field(default_factory=lambda: defaultdict(deque))
    requests: list[RecordedRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)


class FakeLLMServer:
    """Loopback OpenAI-compatible server; use as a context manager."""

    def __init__(self, default: Responder | None = None, thinking: tuple[str, ...] = ()) -> None:
        self.default: Responder = default or (lambda _body: Reply.text("ok"))
        self.thinking = frozenset(thinking)
        self._script = _Script()
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._http.daemon_threads = True
        # a slow handler must not hold up shutdown: it is woken by `stopping` and dropped
        self._http.block_on_close = False
        # a short poll interval: shutdown waits for the loop's next poll, once per test
        self._thread = threading.Thread(
            target=self._http.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-llm", daemon=True
        )

    def __enter__(self) -> FakeLLMServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._script.stopping.set()
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(timeout=5)

    @property
    def base_url(self) -> str:
        """The URL to give the SDK as base_url."""
        host, port = self._http.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, oldest first."""
        with self._script.lock:
            return list(self._script.requests)

    def requests_for(self, model: str) -> list[RecordedRequest]:
        """The requests that asked for `model`."""
        return [request for request in self.requests if request.model == model]

    def script(self, model: str, *replies: Reply) -> None:
        """Queue replies for requests naming `model`; once used up, the default responder answers."""
        with self._script.lock:
            self._script.queues[model].extend(replies)

    def _next_reply(self, request: RecordedRequest) -> Reply:
        with self._script.lock:
            self._script.requests.append(request)
            queue = self._script.queues.get(request.model)
            if queue:
                return queue.popleft()
        return self.default(request.body)


def _handler_for(server: FakeLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_ChatHandler):
        fake = server

    return Handler


class _ChatHandler(BaseHTTPRequestHandler):
    fake: FakeLLMServer
    paths = ("/v1/chat/completions", "/chat/completions", "/v1/embeddings", "/embeddings")

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        """Keep test output clean."""

    def do_POST(self) -> None:
        """Answer one chat completion request as scripted."""
        if self.path not in self.paths:
            self._send_json(404, {"error": {"message": "not found", "type": "invalid_request_error"}})
            return
        length = int(self.headers.get("content-length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        request = RecordedRequest(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        reply = self.fake._next_reply(request)
        if request.model in self.fake.thinking and _lost_reasoning(request):
            reply = Reply.bad_request("The reasoning_content in the thinking mode must be passed back to the API.")
        if reply.delay and self.fake._script.stopping.wait(reply.delay):
            return
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up (its timeout)
            self._answer(reply, body)

    def _answer(self, reply: Reply, body: dict[str, Any]) -> None:
        if reply.status != 200:
            fields = dict(reply.error_fields) or {
                "message": f"scripted {reply.status}",
                "type": "server_error",
                "code": None,
            }
            error = {"error": fields}
            self._send_json(reply.status, error, reply.headers)
        elif reply.raw_body is not None:
            self._send_bytes(200, reply.raw_body, "application/json")
        elif self.path.endswith("/embeddings"):
            self._send_json(200, _embeddings(reply, body))
        elif body.get("stream"):
            self._send_stream(reply, body)
        else:
            self._send_json(200, _completion(reply, body))

    def _send_json(self, status: int, value: dict[str, Any], headers: tuple[tuple[str, str], ...] = ()) -> None:
        self._send_bytes(status, json.dumps(value, ensure_ascii=False).encode(), "application/json", headers)

    def _send_bytes(
        self, status: int, data: bytes, content_type: str, headers: tuple[tuple[str, str], ...] = ()
    ) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_stream(self, reply: Reply, body: dict[str, Any]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        for chunk in _stream_chunks(reply, body):
            self.wfile.write(f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode())
            self.wfile.flush()
            if reply.chunk_delay and self.fake._script.stopping.wait(reply.chunk_delay):
                return
        self.wfile.write(b"data: [DONE]\n\n")


def _lost_reasoning(request: RecordedRequest) -> bool:
    """An assistant tool call sent back without its reasoning (DeepSeek answers 400)."""
    return any(
        m.get("role") == "assistant" and m.get("tool_calls") and not m.get("reasoning_content")
        for m in request.messages
    )


def _completion(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.reasoning is not None:
        message["reasoning_content"] = reply.reasoning
    if reply.tool_calls:
        message["tool_calls"] = [_tool_call(index, name, args) for index, (name, args) in enumerate(reply.tool_calls)]
    return {
        **_envelope(body, "chat.completion"),
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if reply.tool_calls else "stop"}],
        "usage": _usage(reply),
    }


def _stream_chunks(reply: Reply, body: dict[str, Any]) -> list[dict[str, Any]]:
    text = reply.content or ""
    pieces = [text[i : i + 3] for i in range(0, len(text), 3)]
    thought = [{"reasoning_content": reply.reasoning}] if reply.reasoning else []
    deltas = [{"role": "assistant", "content": ""}, *thought] + [{"content": piece} for piece in pieces]
    envelope = _envelope(body, "chat.completion.chunk")
    chunks = [{**envelope, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas]
    chunks.append({**envelope, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    if (body.get("stream_options") or {}).get("include_usage"):
        chunks.append({**envelope, "choices": [], "usage": _usage(reply)})
    return chunks


EMBEDDING_DIMS = 64


def hashed_vector(text: str) -> list[float]:
    """A deterministic bag-of-words vector: texts sharing words point the same way (a stand-in for meaning)."""
    vector = [0.0] * EMBEDDING_DIMS
    for word in re.findall(r"[\u4e00-\u9fff]|[a-z0-9]+", text.casefold()):
        vector[zlib.crc32(word.encode()) % EMBEDDING_DIMS] += 1.0
    return vector if any(vector) else [1.0] + [0.0] * (EMBEDDING_DIMS - 1)


def _embeddings(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    inputs = body.get("input", [])
    inputs = [inputs] if isinstance(inputs, str) else inputs
    vectors = [list(v) for v in reply.vectors] if reply.vectors is not None else [hashed_vector(t) for t in inputs]
    return {
        "object": "list",
        "model": body.get("model", ""),
        "data": [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)],
        "usage": {"prompt_tokens": 1, "total_tokens": 1},
    }


def _tool_call(index: int, name: str, arguments: str) -> dict[str, Any]:
    return {"id": f"call_{index}", "type": "function", "function": {"name": name, "arguments": arguments}}


def _envelope(body: dict[str, Any], kind: str) -> dict[str, Any]:
    return {"id": "chatcmpl-fake", "object": kind, "created": int(time.time()), "model": body.get("model", "")}


def _usage(reply: Reply) -> dict[str, Any]:
    total = reply.prompt_tokens + reply.completion_tokens
    usage: dict[str, Any] = {
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "total_tokens": total,
    }
    if reply.usage_shape == "deepseek":
        usage["prompt_cache_hit_tokens"] = reply.cached_tokens
        usage["prompt_cache_miss_tokens"] = reply.prompt_tokens - reply.cached_tokens
    elif reply.usage_shape == "openai":
        usage["prompt_tokens_details"] = {"cached_tokens": reply.cached_tokens}
    elif reply.usage_shape == "openai-null":
        usage["prompt_tokens_details"] = None
    return usage
