"""Core memory: what may enter it, what reaches the context, enforced in code rather than trusted to the model.

Every core entry has a source, and each source has its own rules (this table is the one place they are
stated; docs/memory.md and docs/architecture.md point here):

| source         | written by                          | importance      | monthly cap            | duplicate check             |
|----------------|-------------------------------------|-----------------|------------------------|-----------------------------|
| "ai"           | the core judgment (`admission_problem`) | ≥ MIN_IMPORTANCE | MONTHLY_CAP per calendar month in the pair's zone, counting only "ai" entries | refused when similar (≥ DUPLICATE_SIMILARITY) to any current entry of any source (`judged_against`: not the relationship history) |
| "person"       | the person, through the API         | theirs (1-10)   | none (at most 50 added per pair, services/memory_edit.py) | none: the person decides |
| "relationship" | a level change (services/soul.py)   | 8               | none: it records what happened, not what the AI chose | none: one current entry, written over |

Whatever the source, a pair holds at most `bounds.CORE_MEMORIES` current entries (an import too).

The relationship is ONE current entry per pair (id RELATIONSHIP_ID, written over in place on every level
change); every change is also kept as a history entry (source "relationship", any other id: `core_rel_<time>_…`,
the only kind a store held before). History never reaches the context nor the core judgment; the person sees it in the memory
view and the export (`relationship.history`). A store without the current entry (written before it existed,
or the person deleted it) lets its newest change stand for it (`split`).

The context (`for_context`) takes the CONTEXT_LIMIT most important of the entries that are not relationship
entries (the most recent first among equals), then the current relationship entry as one line besides them:
level changes cannot push "极度恐高" out, and the level is always said once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from dreamchat.domain.bounds import CORE_MEMORIES
from dreamchat.domain.models import CoreMemory, RelationshipLevel

MIN_IMPORTANCE = 8
MONTHLY_CAP = 2
DUPLICATE_SIMILARITY = 0.6
CONTEXT_LIMIT = 5
RELATIONSHIP_ID = "core_rel_current"  # the pair's current relationship entry (a pair's ids are its own)


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
    if len(existing) >= CORE_MEMORIES:
        return f"the pair already holds {CORE_MEMORIES} core memories"
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


@dataclass(frozen=True)
class CoreParts:
    """A pair's core entries as the rules see them."""

    current: list[CoreMemory]  # everything but the relationship history (the person's core list)
    relationship: CoreMemory | None  # the current relationship entry (or the newest change standing for it)
    history: list[CoreMemory]  # every relationship change, oldest first


def split(memories: list[CoreMemory]) -> CoreParts:
    """The entries that compete for the context, the current relationship entry, and its history."""
    history = sorted(
        (m for m in memories if m.source == "relationship" and m.id != RELATIONSHIP_ID),
        key=lambda m: (m.created_at, m.id),
    )
    current = [m for m in memories if m.source != "relationship" or m.id == RELATIONSHIP_ID]
    entry = next((m for m in current if m.id == RELATIONSHIP_ID), None)
    return CoreParts(current, entry or (history[-1] if history else None), history)


def judged_against(memories: list[CoreMemory]) -> list[CoreMemory]:
    """What the core judgment sees and a candidate is compared with: the current entries (the
    relationship's current entry, or the newest change standing for it), never its history."""
    parts = split(memories)
    rest = [m for m in parts.current if m.source != "relationship"]
    return rest + ([parts.relationship] if parts.relationship else [])


def for_context(memories: list[CoreMemory]) -> list[CoreMemory]:
    """The top five by importance of the entries other than the relationship's (the most recent first
    among equals), then the current relationship entry: history never enters."""
    parts = split(memories)
    rest = [m for m in parts.current if m.source != "relationship"]
    top = sorted(rest, key=lambda m: (-m.importance, -m.created_at))[:CONTEXT_LIMIT]
    return top + ([parts.relationship] if parts.relationship else [])


def relationship_entry(old: RelationshipLevel, new: RelationshipLevel, reason: str, at: int) -> CoreMemory:
    """The pair's one current relationship entry after a change from `old` to `new` at `at`."""
    content = f"你们现在的关系是「{new}」（此前是「{old}」）" + (f"：{reason.strip()[:200]}" if reason.strip() else "")
    return CoreMemory(
        id=RELATIONSHIP_ID, content=content, importance=8, category="关系", created_at=at, source="relationship"
    )


def relationship_change(
    entry_id: str, old: RelationshipLevel, new: RelationshipLevel, reason: str, at: int
) -> CoreMemory:
    """One change kept in the relationship's history (never in the context)."""
    content = f"关系等级从「{old}」变为「{new}」" + (f"：{reason.strip()[:200]}" if reason.strip() else "")
    return CoreMemory(id=entry_id, content=content, importance=8, category="关系", created_at=at, source="relationship")
