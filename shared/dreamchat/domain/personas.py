"""What an AI user shows people, whichever way it comes in (created or changed through the API,
imported from a character card): a name with something visible in it, and a greeting that keeps the
honesty rule. The greeting is the one line of an AI user that reaches a person without the model, so
it is held to the rule the chat prompt gives the model: it never claims to be human."""

from __future__ import annotations

from collections.abc import Mapping

from dreamchat.domain.honesty import claims_to_be_human
from dreamchat.domain.text import name_problem

GREETING_CLAIMS_HUMAN = (
    "claims to be human: an AI user may speak in any character's voice, but never says it is a person"
)


def field_problem(field: str, value: object) -> str | None:
    """What is wrong with one field of an AI user as it is saved (None: nothing)."""
    if field == "name" and isinstance(value, str):
        return name_problem(value)
    if field == "greeting" and isinstance(value, str) and claims_to_be_human(value):
        return GREETING_CLAIMS_HUMAN
    return None


def first_problem(fields: Mapping[str, object]) -> tuple[str, str] | None:
    """The first field (in order) that breaks a rule, and what is wrong with it; None when none does."""
    return next(((name, found) for name, value in fields.items() if (found := field_problem(name, value))), None)


def opening(greeting: str) -> str | None:
    """The message a new chat opens with: None without a greeting, or for one saved before the
    honesty rule that claims to be human (it is never sent)."""
    text = greeting.strip()
    return text if text and not claims_to_be_human(text) else None
