"""Rules for account names and passwords."""

from __future__ import annotations

import re

USERNAME_PATTERN = re.compile(r"^[\w.\-]{3,32}$")
MIN_PASSWORD = 8
MAX_PASSWORD = 128


def username_problem(name: str) -> str | None:
    if not USERNAME_PATTERN.fullmatch(name):
        return "username must be 3-32 letters, digits, '_', '.' or '-'"
    return None


def password_problem(password: str) -> str | None:
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        return f"password must be {MIN_PASSWORD}-{MAX_PASSWORD} characters"
    return None
