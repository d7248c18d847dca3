"""Pages of a list route: an opaque cursor that names the last key the caller was shown.

A cursor only says where to continue inside the caller's own list (the account comes from the
token, never from the cursor), so a forged or foreign one can reach nothing the caller could not
list anyway; one this API did not issue is a 422."""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass

from dreamchat.errors import Invalid

DEFAULT_LIMIT = 100
MAX_LIMIT = 200
_KEY = re.compile(r"^[\w-]{1,64}$")  # the ids lists are ordered by (AI user ids: ai_<hex>)


@dataclass(frozen=True)
class Page[T]:
    items: list[T]
    cursor: str | None  # where the next page starts; None on the last


def cursor_after(key: str) -> str:
    raw = json.dumps({"after": key}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def key_of(cursor: str | None) -> str | None:
    """The key a cursor continues after; None for the first page."""
    if cursor is None:
        return None
    try:
        position = json.loads(base64.urlsafe_b64decode((cursor + "=" * (-len(cursor) % 4)).encode()))
    except (binascii.Error, UnicodeDecodeError, ValueError) as error:
        raise Invalid("cursor: not one this API issued") from error
    key = position.get("after") if isinstance(position, dict) else None
    if not isinstance(key, str) or not _KEY.match(key) or len(position) != 1:
        raise Invalid("cursor: not one this API issued")
    return key


def page_of[T](keyed: list[tuple[str, T]], after: str | None, limit: int) -> Page[T]:
    """The `limit` entries after the key `after` of a list sorted by key."""
    rest = [(key, entry) for key, entry in keyed if after is None or key > after]
    shown = rest[:limit]
    return Page([entry for _, entry in shown], cursor_after(shown[-1][0]) if len(rest) > limit else None)
