"""Pages and their opaque cursors, shared by the item-store adapters, so a cursor means the same on each."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable

from dreamchat.errors import BadRequest
from dreamchat.ports import Item, ItemPage, KeyRange, StoreError

_HIGHEST = "\U0010ffff"


class BadCursor(StoreError, BadRequest):
    """The cursor was not produced by this store: the caller's mistake, so a 400."""


def encode(position: dict[str, str]) -> str:
    raw = json.dumps(position, separators=(",", ":"), ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode(cursor: str, fields: tuple[str, ...]) -> dict[str, str]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        position = json.loads(base64.urlsafe_b64decode(padded.encode()))
    except (binascii.Error, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise BadCursor("invalid cursor") from error
    if not isinstance(position, dict) or any(not isinstance(position.get(f), str) or not position[f] for f in fields):
        raise BadCursor("invalid cursor")
    return {f: position[f] for f in fields}


def page(items: list[Item], limit: int | None, position: Callable[[Item], dict[str, str]]) -> ItemPage:
    """The first `limit` of `items` (read one past the limit), with a cursor after the last when more follow."""
    more = limit is not None and len(items) > limit
    items = items[:limit] if limit is not None else items
    return ItemPage(items, encode(position(items[-1])) if more else None)


def bounds(key: KeyRange) -> tuple[str, str]:
    """The inclusive sort-key bounds of a key range, for stores that compare strings (SQLite, memory)."""
    if key.prefix is not None:
        return key.prefix, key.prefix + _HIGHEST
    return key.start or "", key.end if key.end is not None else _HIGHEST
