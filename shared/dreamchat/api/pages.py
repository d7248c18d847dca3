"""Paging of list routes whose body has no paging field: `limit` and `cursor` in the query, the next
page's cursor in the `X-Next-Cursor` header (absent on the last page)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Query, Response

from dreamchat.services.paging import DEFAULT_LIMIT, MAX_LIMIT

NEXT_CURSOR = "X-Next-Cursor"

Limit = Annotated[int, Query(ge=1, le=MAX_LIMIT, description=f"Entries per page (at most {MAX_LIMIT})")]
Cursor = Annotated[
    str | None, Query(min_length=1, max_length=512, description=f"The `{NEXT_CURSOR}` of the previous page")
]


def paged(description: str) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI 200 of a paged route, with its header."""
    header = {"description": "Where the next page starts; absent on the last page", "schema": {"type": "string"}}
    return {200: {"description": description, "headers": {NEXT_CURSOR: header}}}


def next_page(response: Response, cursor: str | None) -> None:
    if cursor is not None:
        response.headers[NEXT_CURSOR] = cursor


__all__ = ["DEFAULT_LIMIT", "NEXT_CURSOR", "Cursor", "Limit", "next_page", "paged"]
