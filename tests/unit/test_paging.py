"""Pages of a list and their cursors (dreamchat.services.paging): pure, no store."""

from __future__ import annotations

import base64
import json

import pytest

from dreamchat.errors import Invalid
from dreamchat.services.paging import cursor_after, key_of, page_of

KEYED = [(f"ai_{i:02d}", i) for i in range(5)]


def test_a_cursor_continues_after_the_key_it_names() -> None:
    first = page_of(KEYED, None, 2)
    assert first.items == [0, 1] and key_of(first.cursor) == "ai_01"
    second = page_of(KEYED, key_of(first.cursor), 2)
    last = page_of(KEYED, key_of(second.cursor), 2)
    assert (second.items, last.items, last.cursor) == ([2, 3], [4], None)


def test_a_list_that_fits_one_page_has_no_cursor() -> None:
    assert page_of(KEYED, None, 5).cursor is None and page_of([], None, 5).items == []


def test_a_cursor_past_the_end_is_an_empty_last_page() -> None:
    found = page_of(KEYED, "ai_99", 2)
    assert (found.items, found.cursor) == ([], None)


def test_no_cursor_is_the_first_page() -> None:
    assert key_of(None) is None


@pytest.mark.parametrize(
    "cursor",
    ["", "!!", "e30", "W10", cursor_after("ai_1")[:-2], cursor_after("a b"), cursor_after("x" * 65), "eyJhZnRlciI6MX0"],
)
def test_a_cursor_this_api_did_not_issue_is_invalid(cursor: str) -> None:
    with pytest.raises(Invalid):
        key_of(cursor)


def test_a_cursor_with_more_than_a_position_is_invalid() -> None:
    forged = base64.urlsafe_b64encode(json.dumps({"after": "ai_1", "account": "bob"}).encode()).decode()
    with pytest.raises(Invalid):
        key_of(forged)
