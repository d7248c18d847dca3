"""Opaque pagination cursors shared by the item-store adapters, so a cursor means the same on each."""

from __future__ import annotations

import base64
import binascii
import json

from dreamchat.errors import BadRequest
from dreamchat.ports import StoreError


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
