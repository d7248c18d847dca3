"""Every relative link in README.md and docs/*.md resolves inside the repository.

A clean clone holds everything its documents link to: a link to a file must name one that exists, a link
with an anchor (`path#anchor` or `#anchor`) must name a heading of that file by GitHub's slug rules, and
no link may leave the repository through `..`.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_SRC = re.compile(r"<(?:img|a)\b[^>]*?\b(?:src|href)=\"([^\"]+)\"", re.IGNORECASE)
HTML_ANCHOR = re.compile(r"<a\b[^>]*?\b(?:id|name)=\"([^\"]+)\"", re.IGNORECASE)
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$", re.MULTILINE)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def prose(text: str) -> str:
    """The text without fenced code blocks and code spans, where a bracket is not a link."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its rendered text lower-cased, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link shows its text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "")
    text = re.sub(r"(\*\*|__|\*|_)(\S(?:.*?\S)?)\1", r"\2", text)  # emphasis markers
    kept = (c for c in text.lower() if c in " -" or unicodedata.category(c)[0] in "LNM" or c == "_")
    return "".join(kept).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every anchor a document offers: its headings' slugs (a repeated one numbered -1, -2, …) and HTML ids."""
    found: set[str] = set(HTML_ANCHOR.findall(text))
    seen: dict[str, int] = {}
    for match in HEADING.finditer(FENCE.sub("", text)):
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(text: str) -> list[str]:
    """Every link target of a document's prose: markdown links and pictures, HTML src and href."""
    body = prose(text)
    return LINK.findall(body) + HTML_SRC.findall(body)


def problem(document: Path, target: str) -> str | None:
    """Why a link of `document` does not resolve inside the repository, or None when it does."""
    if SCHEME.match(target) or target.startswith("//"):
        return None  # a web address: not ours to check offline
    path_part, _, anchor = target.partition("#")
    path = (document.parent / path_part).resolve() if path_part else document
    if not path.is_relative_to(ROOT.resolve()):
        return "leaves the repository"
    if not path.exists():
        return "no such file"
    if anchor and path.suffix == ".md" and anchor not in anchors(path.read_text(encoding="utf-8")):
        return f"no heading #{anchor}"
    return None


def test_github_slugs_follow_its_rules() -> None:
    assert slug("How the memory and the heartbeat behave") == "how-the-memory-and-the-heartbeat-behave"
    assert slug("Offline mode (no key)") == "offline-mode-no-key"
    assert slug("Reports, takedowns and staff (issue 37)") == "reports-takedowns-and-staff-issue-37"
    assert slug("The `deepseek_chat` key: *chat*") == "the-deepseek_chat-key-chat"
    assert slug("关系等级：回复率与心跳") == "关系等级回复率与心跳"
    assert slug("A [link](x.md) heading") == "a-link-heading"
    assert anchors("# A\n## A\n```\n# not a heading\n```\n") == {"a", "a-1"}


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    page = ROOT / "docs" / "settings.md"
    text = "[ok](../README.md) `[code](nowhere.md)` [gone](nowhere.md) [out](../../x.md) [far](#no-such-heading)"
    found = {target: problem(page, target) for target in links(text)}
    assert found == {
        "../README.md": None,
        "nowhere.md": "no such file",
        "../../x.md": "leaves the repository",
        "#no-such-heading": "no heading #no-such-heading",
    }


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves_inside_the_repository(document: Path) -> None:
    text = document.read_text(encoding="utf-8")
    assert {target: why for target in links(text) if (why := problem(document, target))} == {}


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_nothing_points_outside_the_repository(document: Path) -> None:
    """Not even as a path in code: a clean clone has no `../shared`."""
    assert "../shared" not in document.read_text(encoding="utf-8")


def test_the_readme_links_every_page_of_docs() -> None:
    readme = links((ROOT / "README.md").read_text(encoding="utf-8"))
    pages = {f"docs/{page.name}" for page in DOCUMENTS[1:]}
    assert pages - {target.partition("#")[0] for target in readme} == set()
