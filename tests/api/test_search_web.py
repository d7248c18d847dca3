"""`search_web` against local fakes of each provider's real API: SearXNG, Bocha (博查), Tavily."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from dreamchat.adapters.search import SNIPPET_CHARS, NoSearch, SearchUnavailable, bocha, searxng, tavily
from dreamchat.api.app import create_app
from dreamchat.config import Settings
from dreamchat.wiring import build_runtime, build_search
from tests.api.conftest import register
from tests.api.test_chat_tools import call
from tests.fakes.fake_search import FakeSearch

PAGES = [
    ("杭州天气预报", "https://weather.example.cn/hangzhou", "明天晴，最高 18 度。"),
    ("西湖边的天气", "https://news.example.cn/a/1", "周末有小雨。"),
]


def ask_through_a_chat_turn(tmp_path, clock, rng, fake_llm, **search) -> list[dict]:
    settings = Settings(
        data_dir=tmp_path / "s", run_scheduler=False, llm_base_url=fake_llm.base_url, llm_api_key="test-key", **search
    )
    with TestClient(create_app(settings, build_runtime(settings, clock=clock, random=rng))) as client:
        person = register(client, "dora")
        ai = person.create_ai_user()
        return call(fake_llm, person, ai, "search_web", {"query": "杭州明天天气"})


def cited(pages: list[tuple[str, str, str]]) -> list[dict]:
    return [{"source": n, "title": title, "url": url, "snippet": text} for n, (title, url, text) in enumerate(pages, 1)]


def test_searxng_is_asked_for_json_and_its_results_are_cited(tmp_path, clock, rng, fake_llm) -> None:
    with FakeSearch("searxng", PAGES) as provider:
        results = ask_through_a_chat_turn(
            tmp_path, clock, rng, fake_llm, search_provider="searxng", search_url=provider.url
        )
    assert [(a.method, a.path, a.query) for a in provider.asked] == [
        ("GET", "/search", {"q": "杭州明天天气", "format": "json"})
    ]
    assert results[0]["results"] == cited(PAGES)
    assert "来源" in results[0]["note"]


def test_bocha_is_asked_with_its_key_and_its_summaries_are_used(tmp_path, clock, rng, fake_llm) -> None:
    with FakeSearch("bocha", PAGES) as provider:
        results = ask_through_a_chat_turn(
            tmp_path,
            clock,
            rng,
            fake_llm,
            search_provider="bocha",
            search_url=f"{provider.url}/v1/web-search",
            search_api_key="sk-bocha",
        )
    asked = provider.asked[0]
    assert (asked.method, asked.path, asked.headers["authorization"]) == ("POST", "/v1/web-search", "Bearer sk-bocha")
    assert asked.body == {"query": "杭州明天天气", "freshness": "noLimit", "summary": True, "count": 5}
    assert results[0]["results"] == cited(PAGES)  # the full summary, not the shorter snippet


def test_tavily_is_asked_with_its_key(tmp_path, clock, rng, fake_llm) -> None:
    with FakeSearch("tavily", PAGES) as provider:
        results = ask_through_a_chat_turn(
            tmp_path,
            clock,
            rng,
            fake_llm,
            search_provider="tavily",
            search_url=f"{provider.url}/search",
            search_api_key="tvly-key",
        )
    asked = provider.asked[0]
    assert (asked.method, asked.headers["authorization"]) == ("POST", "Bearer tvly-key")
    assert asked.body["query"] == "杭州明天天气" and asked.body["max_results"] == 5
    assert results[0]["results"] == cited(PAGES)


def test_a_hosted_provider_without_a_key_is_off() -> None:
    assert isinstance(build_search(Settings(search_provider="bocha")), NoSearch)
    assert isinstance(build_search(Settings(search_provider="searxng")), NoSearch)
    assert build_search(Settings(search_provider="bocha", search_api_key="k")).configured


def test_results_are_trimmed_and_uncitable_ones_left_out() -> None:
    pages = [
        ("标题" * 100, "https://a.example.cn/", "很长的内容\n" * 200),
        ("没有链接", "javascript:alert(1)", "x"),
        ("", "", "无"),
    ] + [(f"第{n}条", f"https://b.example.cn/{n}", "内容") for n in range(10)]
    with FakeSearch("searxng", pages) as provider:
        found = searxng(provider.url).search("长", 3)
    assert len(found) == 3
    assert [r.url for r in found] == ["https://a.example.cn/", "https://b.example.cn/0", "https://b.example.cn/1"]
    assert len(found[0].snippet) == SNIPPET_CHARS and found[0].snippet.endswith("…") and "\n" not in found[0].snippet
    assert len(found[0].title) <= 120


@pytest.mark.parametrize(
    "shape, adapter",
    [
        ("searxng", lambda url: searxng(url)),
        ("bocha", lambda url: bocha("k", url)),
        ("tavily", lambda url: tavily("k", url)),
    ],
)
@pytest.mark.parametrize(
    "fault",
    [{"status": 500}, {"status": 401}, {"raw": b"<html>busy</html>"}, {"raw": b"[1, 2]"}, {"raw": b'{"data": null}'}],
)
def test_a_failing_provider_is_unavailable_never_a_crash(shape, adapter, fault) -> None:
    with FakeSearch(shape, PAGES, **fault) as provider:
        try:
            found = adapter(provider.url).search("天气")
        except SearchUnavailable:
            return
    assert found == []  # an answer with no results in it is an empty search, not an error
