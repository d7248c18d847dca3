"""What counts as visible text: a message of only spaces or invisible characters is empty."""

from __future__ import annotations

import unicodedata

# Letters that render as nothing: Hangul fillers and the blank Braille pattern.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
# Unicode categories that never show on their own: format (zero-width space, word joiner,
# joiners, marks for direction, BOM), controls, separators and spaces.
_INVISIBLE = frozenset({"Cf", "Cc", "Zs", "Zl", "Zp"})


def is_blank(text: str) -> bool:
    """True when no character of `text` would be visible (zero-width, joiners, spaces, ...)."""
    return all(c in _BLANK_LETTERS or unicodedata.category(c) in _INVISIBLE for c in text)
