"""Tolerant extraction of one JSON object from a model's text: fences, prose around it, think blocks."""

from __future__ import annotations

import json
import re
from typing import Any

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def extract_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object found in `text`, or None when there is none."""
    text = _THINK.sub("", text)
    for candidate in [*_FENCE.findall(text), text]:
        found = _first_object(candidate)
        if found is not None:
            return found
    return None


def _first_object(text: str) -> dict[str, Any] | None:
    for start in (i for i, char in enumerate(text) if char == "{"):
        end = _balanced_end(text, start)
        if end is None:
            continue
        try:
            value = json.loads(text[start : end + 1])
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    return None


def _balanced_end(text: str, start: int) -> int | None:
    """Index of the brace closing the one at `start`; braces inside strings do not count."""
    depth, in_string, escaped = 0, False, False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index
    return None
