"""Local fakes of the web search providers, answering in each one's documented response shape:
SearXNG (GET /search?q=…&format=json), Bocha (POST /v1/web-search, Bing's shape under
data.webPages.value) and Tavily (POST /search, `results`). Every request is recorded."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

# (title, url, text) of each page the fake "finds"
Page = tuple[str, str, str]


def searxng_body(query: str, pages: list[Page]) -> dict[str, Any]:
    results = [
        {
            "url": url,
            "title": title,
            "content": text,
            "engine": "bing",
            "engines": ["bing"],
            "parsed_url": ["https", urlparse(url).netloc, urlparse(url).path, "", "", ""],
            "template": "default.html",
            "positions": [n],
            "score": 1.0 / n,
            "category": "general",
        }
        for n, (title, url, text) in enumerate(pages, 1)
    ]
    return {
        "query": query,
        "number_of_results": len(results),
        "results": results,
        "answers": [],
        "corrections": [],
        "infoboxes": [],
        "suggestions": [],
        "unresponsive_engines": [],
    }


def bocha_body(query: str, pages: list[Page]) -> dict[str, Any]:
    value = [
        {
            "id": f"https://api.bochaai.com/v1/#WebPages.{n}",
            "name": title,
            "url": url,
            "displayUrl": url,
            "snippet": text[:40],
            "summary": text,
            "siteName": urlparse(url).netloc,
            "siteIcon": "",
            "datePublished": "2026-03-14T08:00:00+08:00",
            "dateLastCrawled": "2026-03-14T08:00:00Z",
            "cachedPageUrl": None,
            "language": None,
            "isFamilyFriendly": None,
            "isNavigational": None,
        }
        for n, (title, url, text) in enumerate(pages)
    ]
    return {
        "code": 200,
        "log_id": "fake",
        "msg": None,
        "data": {
            "_type": "SearchResponse",
            "queryContext": {"originalQuery": query},
            "webPages": {
                "webSearchUrl": "",
                "totalEstimatedMatches": len(value),
                "value": value,
                "someResultsRemoved": True,
            },
            "images": None,
            "videos": None,
        },
    }


def tavily_body(query: str, pages: list[Page]) -> dict[str, Any]:
    results = [
        {"title": title, "url": url, "content": text, "score": 0.9, "raw_content": None} for title, url, text in pages
    ]
    return {
        "query": query,
        "follow_up_questions": None,
        "answer": None,
        "images": [],
        "results": results,
        "response_time": 0.5,
    }


@dataclass
class Asked:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: dict[str, Any] | None


@dataclass
class FakeSearch:
    """A provider on 127.0.0.1 answering `pages` (or `status`, or `raw` bytes) in `shape`."""

    shape: str  # "searxng" | "bocha" | "tavily"
    pages: list[Page] = field(default_factory=list)
    status: int = 200
    raw: bytes | None = None
    asked: list[Asked] = field(default_factory=list)

    def __enter__(self) -> FakeSearch:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def answer(self, query: str) -> bytes:
        if self.raw is not None:
            return self.raw
        body = {"searxng": searxng_body, "bocha": bocha_body, "tavily": tavily_body}[self.shape](query, self.pages)
        return json.dumps(body, ensure_ascii=False).encode()


def _handler(fake: FakeSearch) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the base class's name
            self._answer(None)

        def do_POST(self) -> None:  # noqa: N802 - the base class's name
            length = int(self.headers.get("content-length", "0"))
            self._answer(json.loads(self.rfile.read(length) or b"{}"))

        def _answer(self, body: dict[str, Any] | None) -> None:
            parsed = urlparse(self.path)
            query = {k: v[0] for k, v in parse_qs(parsed.query).items()}
            fake.asked.append(
                Asked(self.command, parsed.path, query, {k.lower(): v for k, v in self.headers.items()}, body)
            )
            data = fake.answer(query.get("q") or (body or {}).get("query", ""))
            self.send_response(fake.status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    return Handler
