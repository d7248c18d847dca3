"""What counts as visible text: a message of only spaces or invisible characters is empty, and a
name that shows nothing names no one."""

from __future__ import annotations

import unicodedata

# Letters that render as nothing: Hangul fillers and the blank Braille pattern.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
# Unicode categories that never show on their own: format (zero-width space, word joiner,
# joiners, marks for direction, BOM), controls, separators and spaces.
_INVISIBLE = frozenset({"Cf", "Cc", "Zs", "Zl", "Zp"})
# Combining marks (accents, enclosing circles, variation selectors) draw on the character before
# them: a name of marks alone, or of marks behind a direction override, shows nothing to call it by.
_NOT_IN_A_NAME = _INVISIBLE | {"Mn", "Mc", "Me"}

INVISIBLE_NAME = "needs a visible character (control, format and combining characters alone show nothing)"


def is_blank(text: str) -> bool:
    """True when no character of `text` would be visible (zero-width, joiners, spaces, ...)."""
    return all(c in _BLANK_LETTERS or unicodedata.category(c) in _INVISIBLE for c in text)


def name_problem(name: str) -> str | None:
    """What is wrong with a name people are shown (an AI user's, a card's, an account's), None when
    nothing is: something visible must be left once control, format and combining characters,
    spaces and blank letters are taken away. The one rule for every way a name comes in."""
    if any(c not in _BLANK_LETTERS and unicodedata.category(c) not in _NOT_IN_A_NAME for c in name):
        return None
    return INVISIBLE_NAME
