"""Facts that changed: a key point a later one replaced ("我住在北京" in March, "我搬到上海了" in June).

The old point is kept, as history, and marked on its entry (`LongTermIndex.superseded`): which
point, the reference of the key point that replaced it (`<long-term id>#<number>`, the id of its
retrieval unit) and when the new fact holds from. What holds now is found by following the
references to the end of their chain; a reference to a key point that is gone (its memory deleted,
the point edited away) holds nothing, so the old point is current again.

The extraction model sees the pair's related key points under short ids (`k1`, `k2`, ...) and names
the ones a new key point replaces; `accepted` keeps only what names a point it was shown and a key
point of the new memory. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from dreamchat.domain.models import LongTermIndex, Supersession

SHOWN_PREFIX = "k"
_REF = re.compile(r"^(?P<entry>.+)#(?P<number>\d{3,})$")
_MESSAGE = re.compile(r"^m(\d{16})[0-9a-f]{6}$")  # `ids.message_id`: the moment it was written


def point_ref(entry_id: str, number: int) -> str:
    """A key point's reference: the id of its retrieval unit."""
    return f"{entry_id}#{number:03d}"


def split_ref(ref: str) -> tuple[str, int] | None:
    """(entry id, point number) of a reference; None when it is not one."""
    found = _REF.match(ref)
    return (found["entry"], int(found["number"])) if found else None


@dataclass(frozen=True)
class RelatedPoint:
    """An existing key point of the pair, as the extraction model is shown it (`key`: `k1`, `k2`, ...)."""

    key: str
    ref: str
    text: str
    created_at: int


def shown(refs: Sequence[tuple[str, str, int]]) -> list[RelatedPoint]:
    """The points (reference, text, date) under their short ids, in order."""
    return [RelatedPoint(f"{SHOWN_PREFIX}{n}", ref, text, at) for n, (ref, text, at) in enumerate(refs, 1)]


@dataclass(frozen=True)
class Accepted:
    """The proposals that hold (each: the old point and the new memory's key point that replaces it)
    and how many were dropped (an id not shown, a key point the memory does not have, a repeat)."""

    kept: list[tuple[RelatedPoint, int]]
    dropped: int


def accepted(proposals: Iterable[tuple[str, int]], points: Sequence[RelatedPoint], key_points: int) -> Accepted:
    """The model's proposals (shown id, the new memory's key point number) that name a point it was
    shown and one of the new memory's `key_points`; anything else is dropped and counted, never trusted."""
    by_key = {p.key: p for p in points}
    kept: dict[str, tuple[RelatedPoint, int]] = {}
    dropped = 0
    for key, number in proposals:
        point = by_key.get(key.strip())
        if point is None or not 0 <= number < key_points or point.ref in kept:
            dropped += 1
            continue
        kept[point.ref] = (point, number)
    return Accepted(list(kept.values()), dropped)


def since(entry: LongTermIndex, number: int) -> int:
    """When a new key point holds from: the moment of the message it was drawn from, else its memory's date."""
    source = entry.sources[number] if number < len(entry.sources) else ""
    found = _MESSAGE.match(source)
    return int(found[1]) // 1_000_000 if found else entry.created_at


def superseding(entry: LongTermIndex, point: int, by: str, at: int) -> LongTermIndex:
    """The entry with its key point `point` replaced by the key point `by` from `at` on."""
    kept = [s for s in entry.superseded if s.point != point]
    marked = sorted([*kept, Supersession(point=point, superseded_by=by, at=at)], key=lambda s: s.point)
    return entry.model_copy(update={"superseded": marked})


def undo_problem(entry: LongTermIndex, points: Iterable[int]) -> str | None:
    """What is wrong with the person's undo of these key points (None: nothing): each must be a key
    point the entry has, whichever (an imported entry may hold more than an extraction writes);
    a point named twice is undone once."""
    missing = sorted(n for n in set(points) if not 0 <= n < len(entry.key_points))
    if missing:
        return f"the memory has no key point {missing[0]} (it has {len(entry.key_points)})"
    return None


def undone(entry: LongTermIndex, points: Iterable[int]) -> LongTermIndex:
    """The entry with the supersession of these key points undone (they are current again)."""
    again = set(points)
    return entry.model_copy(update={"superseded": [s for s in entry.superseded if s.point not in again]})


def renumbered(before: Sequence[str], after: Sequence[str]) -> dict[int, int]:
    """Where each key point went when an entry's key points changed (a person's edit, a redone
    extraction): to the point with the same text (equal texts in their order); a point whose text
    is gone has no place."""
    free: dict[str, list[int]] = {}
    for number, text in enumerate(after):
        free.setdefault(text, []).append(number)
    return {number: free[text].pop(0) for number, text in enumerate(before) if free.get(text)}


def carried(before: LongTermIndex, key_points: Sequence[str]) -> list[Supersession]:
    """After a change of the key points, each supersession follows its point's text; a point
    rewritten or removed is no longer marked (the person said what holds)."""
    moved = renumbered(before.key_points, key_points)
    return sorted(
        (s.model_copy(update={"point": moved[s.point]}) for s in before.superseded if s.point in moved),
        key=lambda s: s.point,
    )


def repointed(entry: LongTermIndex, target: str, moved: dict[int, int]) -> LongTermIndex:
    """The entry with its marks that name a key point of the entry `target`, whose key points changed
    (`moved`: `renumbered`), following that point; a mark whose new point is gone is dropped (the old
    fact is current again: nothing says what replaced it)."""
    marks = []
    for mark in entry.superseded:
        found = split_ref(mark.superseded_by)
        if found is None or found[0] != target:
            marks.append(mark)
        elif found[1] in moved:
            marks.append(mark.model_copy(update={"superseded_by": point_ref(target, moved[found[1]])}))
    return entry.model_copy(update={"superseded": marks})


def marked_by(entries: Iterable[LongTermIndex], target: str) -> set[str]:
    """The key points (references) the entries hold marked superseded by a key point of `target`."""
    return {
        point_ref(e.id, s.point)
        for e in entries
        for s in e.superseded
        if (split_ref(s.superseded_by) or ("",))[0] == target
    }


def points_into(entry: LongTermIndex, target: str) -> bool:
    """Whether one of the entry's marks names a key point of the entry `target`."""
    return any((split_ref(s.superseded_by) or ("", 0))[0] == target for s in entry.superseded)


@dataclass(frozen=True)
class Now:
    """What holds now instead of a superseded key point: the current fact and since when."""

    text: str
    since: int


def replacements(entries: Sequence[LongTermIndex]) -> dict[str, Now]:
    """Per superseded key point (by reference), the fact that holds now, at the end of its chain (A
    replaced by B, B by C: both by C). A supersession whose new point is gone holds nothing; a cycle
    (only a crafted import makes one) leaves its points current."""
    texts = {point_ref(e.id, n): text for e in entries for n, text in enumerate(e.key_points)}
    direct = {
        point_ref(e.id, s.point): s
        for e in entries
        for s in e.superseded
        if s.point < len(e.key_points) and s.superseded_by in texts
    }
    found: dict[str, Now] = {}
    for ref, step in direct.items():
        seen = {ref}
        while step.superseded_by in direct and step.superseded_by not in seen:
            seen.add(step.superseded_by)
            step = direct[step.superseded_by]
        if step.superseded_by not in seen:
            found[ref] = Now(texts[step.superseded_by], step.at)
    return found


def past_of(entry: LongTermIndex, now: dict[str, Now]) -> list[tuple[str, Now]]:
    """The entry's superseded key points with what holds now instead, in point order."""
    refs = [(text, now.get(point_ref(entry.id, n))) for n, text in enumerate(entry.key_points)]
    return [(text, found) for text, found in refs if found is not None]
