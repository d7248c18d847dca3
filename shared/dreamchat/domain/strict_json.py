"""Strict JSON, in and out: what every JSON body and upload is read with, and every JSON document and
response written with.

In: UTF-8 text (a byte-order mark allowed) holding standard JSON only: no NaN or Infinity, no number a
double cannot hold (1e999), no integer beyond 64 bits, nothing nested deeper than `MAX_DEPTH`, no
unpaired surrogate in a text. `JsonProblem` says what is wrong, as a clause the caller puts its subject
before ("the card is not valid JSON: ..."). Out: the same JSON, a number that is not finite (stored
before these rules) written as null, so a browser's `JSON.parse` reads every document we write.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

MAX_DEPTH = 64  # real documents stay under 10 (a card's lorebook, an export's heartbeat state)
_INT_DIGITS = 19  # 2**63 has 19 digits: a longer literal is refused before it is converted
_INT_LIMIT = 2**63


class JsonProblem(ValueError):
    """The text is not strict JSON; the message is a clause such as "is not valid JSON: ..."."""


def loads(raw: bytes | str) -> Any:
    """The JSON value in `raw`; JsonProblem when it is not strict JSON."""
    try:
        text = raw.decode("utf-8-sig") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as error:
        raise JsonProblem(f"is not UTF-8 text (byte {error.start})") from error
    try:
        value = json.loads(text, parse_constant=_no_constant, parse_float=_finite, parse_int=_bounded)
    except RecursionError as error:
        raise JsonProblem(f"is nested more than {MAX_DEPTH} levels deep") from error
    except json.JSONDecodeError as error:
        raise JsonProblem(f"is not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})") from error
    _check_tree(value)
    return value


def dumps(value: Any) -> bytes:
    """`value` as compact UTF-8 JSON; a number that is not finite is written as null, an unpaired
    surrogate as its escape."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:
        text = json.dumps(_finite_or_null(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # an unpaired surrogate, stored before these rules: written as its escape
        return json.dumps(_finite_or_null(value), separators=(",", ":"), allow_nan=False).encode("ascii")


class _Refused:
    """A number the parser met that strict JSON does not allow: reported with where it was."""

    def __init__(self, problem: str) -> None:
        self.problem = problem


def _check_tree(document: object) -> None:
    """Every value nested at most MAX_DEPTH deep, every number allowed, every text encodable; the
    first problem in the document's order names where it is (`messages.3.timestamp`)."""
    for value, depth, path in _walk(document):
        if depth >= MAX_DEPTH:  # the top value is level 1
            raise JsonProblem(f"is nested more than {MAX_DEPTH} levels deep")
        if isinstance(value, _Refused):
            raise JsonProblem(f"is not valid JSON: {_where(path)}: {value.problem}")
        if isinstance(value, str) and not _encodable(value):
            raise JsonProblem(f"holds invalid Unicode text (an unpaired surrogate) at {_where(path)}")


def _where(path: tuple[str, ...]) -> str:
    """A path as the 422s of request bodies name a field (`messages.3.timestamp`), each part cut short."""
    return ".".join(part if len(part) <= 40 else f"{part[:40]}…" for part in path)[:300] or "the top level"


def _walk(document: object) -> Iterator[tuple[object, int, tuple[str, ...]]]:
    """Every value (and key) with its depth and path, in the document's order."""
    stack: list[tuple[object, int, tuple[str, ...]]] = [(document, 0, ())]
    while stack:
        value, depth, path = stack.pop()
        yield value, depth, path
        if isinstance(value, dict):
            for key, child in reversed(value.items()):
                stack.append((child, depth + 1, (*path, key)))
                stack.append((key, depth + 1, path))
        elif isinstance(value, list):
            stack.extend((child, depth + 1, (*path, str(n))) for n, child in reversed(list(enumerate(value))))


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _finite_or_null(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite_or_null(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite_or_null(v) for v in value]
    return value


def _no_constant(name: str) -> _Refused:
    return _Refused(f"{name} is not a JSON number")


def _finite(text: str) -> float | _Refused:
    number = float(text)
    return number if math.isfinite(number) else _Refused(f"the number {text[:20]} is too large")


def _bounded(text: str) -> int | _Refused:
    if len(text.lstrip("-")) > _INT_DIGITS or not -_INT_LIMIT <= (number := int(text)) < _INT_LIMIT:
        shown = text if len(text) <= 24 else f"{text[:20]}… ({len(text)} digits)"
        return _Refused(f"the integer {shown} is too large (at most 64 bits)")
    return number
