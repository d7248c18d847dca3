"""Presence: which chat one of the person's devices shows right now."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Seen:
    device: str
    ai_user_id: str | None  # None: the chat list
