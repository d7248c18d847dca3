"""Core-memory admission, enforced in code rather than trusted to the model.

A candidate is admitted only if the model wants it, rates it at least 8 of 10, the pair has
fewer than 2 judged core memories this calendar month (in the pair's time zone), and nothing
similar is already there. Entries that record a relationship change (source "relationship")
and entries the person writes (source "person") do not count against the monthly cap: the
cap limits what the AI decides to remember, not what happens to it or what it is told.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from dreamchat.domain.models import CoreMemory

MIN_IMPORTANCE = 8
MONTHLY_CAP = 2
DUPLICATE_SIMILARITY = 0.6
CONTEXT_LIMIT = 5


@dataclass(frozen=True)
class Candidate:
    create: bool
    content: str
    importance: int


def admission_problem(candidate: Candidate, existing: list[CoreMemory], now: datetime, zone: str) -> str | None:
    """Why the candidate may not enter core memory, or None when it may."""
    if not candidate.create or not candidate.content.strip():
        return "the model chose not to create one"
    if candidate.importance < MIN_IMPORTANCE:
        return f"importance {candidate.importance} is below {MIN_IMPORTANCE}"
    if judged_this_month(existing, now, zone) >= MONTHLY_CAP:
        return f"already {MONTHLY_CAP} core memories this month"
    if any(similarity(candidate.content, memory.content) >= DUPLICATE_SIMILARITY for memory in existing):
        return "a similar core memory exists"
    return None


def judged_this_month(existing: list[CoreMemory], now: datetime, zone: str) -> int:
    tz = ZoneInfo(zone)
    month = now.astimezone(tz).strftime("%Y-%m")
    return sum(
        1
        for memory in existing
        if memory.source == "ai" and datetime.fromtimestamp(memory.created_at, tz).strftime("%Y-%m") == month
    )


def similarity(a: str, b: str) -> float:
    """Jaccard similarity of character bigrams: works for Chinese without a tokenizer."""
    grams_a, grams_b = _bigrams(a), _bigrams(b)
    if not grams_a or not grams_b:
        return 1.0 if a.strip() == b.strip() else 0.0
    return len(grams_a & grams_b) / len(grams_a | grams_b)


def _bigrams(text: str) -> set[str]:
    letters = "".join(ch for ch in text.casefold() if ch.isalnum())
    return {letters[i : i + 2] for i in range(len(letters) - 1)} or ({letters} if letters else set())


def for_context(memories: list[CoreMemory]) -> list[CoreMemory]:
    """The top five by importance, the most recent first among equals."""
    return sorted(memories, key=lambda m: (-m.importance, -m.created_at))[:CONTEXT_LIMIT]
