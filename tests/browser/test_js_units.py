"""The web client's pure modules, unit-tested in Chromium: each `test("…")` in `tests/browser/js/*.test.js` is one
test here. No server: the page is served from the files themselves (`/static/…` from the web folder, `/tests/…`
from `tests/browser/js`), on an origin of its own."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import watch

pytestmark = pytest.mark.browser

JS = Path(__file__).parent / "js"
WEB = Path(__file__).resolve().parents[2] / "shared" / "dreamchat" / "web"
ORIGIN = "http://units.dreamchat.test"
SUITES = sorted(path.name for path in JS.glob("*.test.js"))
PAGE = "<!doctype html><meta charset='utf-8'><title>DreamChat units</title>"
TEST_NAME = re.compile(r'^test\("((?:[^"\\]|\\.)+)"', re.MULTILINE)


def names(suite: str) -> list[str]:
    return TEST_NAME.findall((JS / suite).read_text(encoding="utf-8"))


CASES = [(suite, name) for suite in SUITES for name in names(suite)]


def serve(route: Any) -> None:
    path = route.request.url.removeprefix(ORIGIN).split("?")[0]
    folder, _, rest = path.lstrip("/").partition("/")
    root = {"static": WEB, "tests": JS}.get(folder)
    target = (root / rest).resolve() if root and rest else None
    if target is None or not target.is_relative_to(root) or not target.is_file():
        route.fulfill(status=200 if path == "/" else 404, content_type="text/html", body=PAGE if path == "/" else "")
        return
    route.fulfill(status=200, content_type="text/javascript; charset=utf-8", body=target.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def results(browser: Any) -> Iterator[dict[tuple[str, str], dict[str, Any]]]:
    """Every suite run once, each in a fresh page (a suite's tests register when its module loads)."""
    context = browser.new_context()
    errors: list[str] = []
    out: dict[tuple[str, str], dict[str, Any]] = {}
    try:
        for suite in SUITES:
            page = context.new_page()
            watch(page, errors)
            page.route(f"{ORIGIN}/**", serve)
            page.goto(f"{ORIGIN}/")
            ran = page.evaluate(
                """async (suite) => {
                    const { run } = await import('/tests/harness.js');
                    await import(`/tests/${suite}`);
                    return run();
                }""",
                suite,
            )
            out.update({(suite, result["name"]): result for result in ran})
            page.close()
        assert not errors, f"script errors in the page: {errors}"
        yield out
    finally:
        context.close()


@pytest.mark.parametrize(
    ("suite", "name"), CASES, ids=[f"{suite.removesuffix('.test.js')}: {name}" for suite, name in CASES]
)
def test_the_js_unit(results: dict[tuple[str, str], dict[str, Any]], suite: str, name: str) -> None:
    result = results.get((suite, name))
    assert result is not None, f"{suite} did not run {name!r}"
    assert result["ok"], result["error"]


def test_every_js_unit_is_collected_here(results: dict[tuple[str, str], dict[str, Any]]) -> None:
    assert SUITES, "no tests/browser/js/*.test.js"
    assert set(results) == set(CASES), "a test() whose name this file cannot read (one line, a plain string)"
