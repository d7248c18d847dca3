"""Web search for the `search_web` tool: a configurable HTTP provider, or none."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import httpx

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SearchResult:
    title: str
    url: str
    snippet: str


class SearchUnavailable(Exception):
    pass


class NoSearch:
    configured = False

    def search(self, query: str, limit: int = 5) -> list[SearchResult]:
        raise SearchUnavailable("web search is not configured (set DREAMCHAT_SEARCH_URL)")


class HttpSearch:
    """GET `<url>?q=<query>&limit=<n>` answering `{"results": [{"title", "url", "snippet"}]}`."""

    configured = True

    def __init__(self, url: str, api_key: str | None = None, timeout: float = 8.0) -> None:
        self._url = url
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout = timeout

    def search(self, query: str, limit: int = 5) -> list[SearchResult]:
        try:
            response = httpx.get(self._url, params={"q": query, "limit": limit}, headers=self._headers,
                                 timeout=self._timeout)
            response.raise_for_status()
            results = response.json().get("results", [])
        except (httpx.HTTPError, ValueError, AttributeError) as error:
            log.warning("search provider failed: %s", type(error).__name__)
            raise SearchUnavailable("the search provider did not answer") from error
        return [SearchResult(str(r.get("title", "")), str(r.get("url", "")), str(r.get("snippet", "")))
                for r in results[:limit] if isinstance(r, dict)]
