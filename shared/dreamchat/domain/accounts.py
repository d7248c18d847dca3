"""Rules for account names and passwords.

A name is kept as typed after NFKC (full-width ａｌｉｃｅ is alice); it is unique by its skeleton: the
name folded and each character that looks like a Latin letter (Cyrillic а, Greek ο, …, after the
Unicode confusables data of `confusable_homoglyphs`) read as that letter, so no one can register a
look-alike of an existing name and the look-alike logs into no one else's account.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from confusable_homoglyphs import confusables

from dreamchat.domain.text import name_problem

USERNAME_PATTERN = re.compile(r"^[\w.\-]{3,32}$")
MIN_PASSWORD = 8
MAX_PASSWORD = 128


def username_problem(name: str) -> str | None:
    if not USERNAME_PATTERN.fullmatch(name):
        return "username must be 3-32 letters, digits, '_', '.' or '-'"
    shows = name_problem(name)  # a letter can be blank: Hangul fillers are letters to `\w`
    return f"username: {shows}" if shows else None


def password_problem(password: str) -> str | None:
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        return f"password must be {MIN_PASSWORD}-{MAX_PASSWORD} characters"
    return None


def normal_username(name: str) -> str:
    """The name as stored and shown: NFKC, surrounding spaces dropped."""
    return unicodedata.normalize("NFKC", name).strip()


def username_skeleton(name: str) -> str:
    """What a name looks like: the key that makes look-alikes one name."""
    return "".join(_latin_look(ch) for ch in normal_username(name).casefold())


@cache
def _latin_look(ch: str) -> str:
    if ch.isascii():
        return ch
    found = confusables.is_confusable(ch, greedy=True, preferred_aliases=["latin"]) or []
    looks = [h["c"].casefold() for entry in found for h in entry["homoglyphs"] if h["c"].isascii() and h["c"].isalnum()]
    return looks[0] if looks else ch
