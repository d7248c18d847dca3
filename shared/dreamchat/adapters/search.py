"""Web search for the `search_web` tool: SearXNG (self-hosted), Bocha (博查, a Chinese-language
index) or Tavily, chosen by DREAMCHAT_SEARCH_PROVIDER; or none.

Each adapter speaks its provider's documented API and returns the same trimmed results: a title,
the page's URL (the source the AI cites) and a snippet of at most `SNIPPET_CHARS` characters.
A provider that fails or answers something unreadable is `SearchUnavailable`, never a crash.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

import httpx

from dreamchat.budget import TOOL_SECONDS
from dreamchat.ports import SearchResult, SearchUnavailable

log = logging.getLogger(__name__)

SNIPPET_CHARS = 300
RESULT_TITLE_CHARS = 120
BOCHA_URL = "https://api.bochaai.com/v1/web-search"
TAVILY_URL = "https://api.tavily.com/search"


class NoSearch:
    configured = False

    def search(self, query: str, limit: int = 5) -> list[SearchResult]:
        raise SearchUnavailable("web search is not configured (set DREAMCHAT_SEARCH_PROVIDER and its URL or key)")


Ask = Callable[[httpx.Client, str, int], httpx.Response]
Read = Callable[[Any], Iterable[Any]]


class WebSearch:
    """One provider: how to ask it (`ask`) and where its results are in the answer (`read`)."""

    configured = True

    def __init__(
        self, name: str, ask: Ask, read: Read, fields: tuple[str, str, tuple[str, ...]], timeout: float = TOOL_SECONDS
    ) -> None:
        self.name = name
        self._ask = ask
        self._read = read
        self._fields = fields  # the title field, the URL field, the snippet fields in order of preference
        self._timeout = timeout

    def search(self, query: str, limit: int = 5) -> list[SearchResult]:
        try:
            with httpx.Client(timeout=self._timeout) as client:
                response = self._ask(client, query, limit)
                response.raise_for_status()
                found = list(self._read(response.json()))
        except (httpx.HTTPError, ValueError, TypeError, AttributeError, KeyError) as error:
            log.warning("search provider failed provider=%s error=%s", self.name, type(error).__name__)
            raise SearchUnavailable("the search provider did not answer") from error
        results = [r for r in (self._result(entry) for entry in found if isinstance(entry, dict)) if r]
        return results[:limit]

    def _result(self, entry: dict[str, Any]) -> SearchResult | None:
        title_field, url_field, snippet_fields = self._fields
        url = str(entry.get(url_field) or "")
        if not url.startswith(("http://", "https://")):
            return None  # a result that cannot be cited is left out
        snippet = next((str(entry[f]) for f in snippet_fields if entry.get(f)), "")
        return SearchResult(
            trim(str(entry.get(title_field) or ""), RESULT_TITLE_CHARS), url, trim(snippet, SNIPPET_CHARS)
        )


def trim(text: str, limit: int) -> str:
    """One line of at most `limit` characters, cut with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def searxng(url: str, api_key: str | None = None) -> WebSearch:
    """SearXNG's JSON API: GET <instance>/search?q=…&format=json (the instance must allow the json format)."""
    endpoint = url.rstrip("/") if url.rstrip("/").endswith("/search") else url.rstrip("/") + "/search"
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}

    def ask(client: httpx.Client, query: str, limit: int) -> httpx.Response:
        return client.get(endpoint, params={"q": query, "format": "json"}, headers=headers)

    return WebSearch("searxng", ask, lambda body: body["results"], ("title", "url", ("content",)))


def bocha(api_key: str, url: str | None = None) -> WebSearch:
    """Bocha (博查) Web Search API: POST /v1/web-search, results in data.webPages.value (Bing's shape)."""

    def ask(client: httpx.Client, query: str, limit: int) -> httpx.Response:
        body = {"query": query, "freshness": "noLimit", "summary": True, "count": limit}
        return client.post(url or BOCHA_URL, json=body, headers={"Authorization": f"Bearer {api_key}"})

    def read(body: Any) -> Iterable[Any]:
        return ((body.get("data") or {}).get("webPages") or {}).get("value") or []

    return WebSearch("bocha", ask, read, ("name", "url", ("summary", "snippet")))


def tavily(api_key: str, url: str | None = None) -> WebSearch:
    """Tavily Search API: POST /search, results in `results` with title, url, content."""

    def ask(client: httpx.Client, query: str, limit: int) -> httpx.Response:
        body = {"query": query, "max_results": limit, "search_depth": "basic"}
        return client.post(url or TAVILY_URL, json=body, headers={"Authorization": f"Bearer {api_key}"})

    return WebSearch("tavily", ask, lambda body: body["results"], ("title", "url", ("content",)))
