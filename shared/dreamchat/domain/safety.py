"""PROVISIONAL (replaced by the lexicon branch)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

CRISIS_MARKER = "[CRISIS]"
_MARKER = re.compile(r"[\[【［]\s*CRISIS\s*[\]】］]", re.IGNORECASE)


@dataclass(frozen=True)
class CrisisResource:
    name: str
    phone: str
    url: str
    hours: str
    source: str


DEFAULT_RESOURCES: dict[str, tuple[CrisisResource, ...]] = {
    "zh-CN": (CrisisResource("全国心理援助热线", "12356", "", "24小时", "x"),),
    "en-US": (CrisisResource("988 Suicide & Crisis Lifeline", "988", "https://988lifeline.org", "24/7", "x"),),
    "*": (CrisisResource("当地急救电话", "", "", "24小时", "x"),),
}

_CRISIS = re.compile(r"不想活|自杀|kill myself|want to die")


def crisis_in(text: str) -> bool:
    return bool(_CRISIS.search(text.casefold()))


def read_crisis_marker(text: str) -> tuple[str, bool]:
    found = bool(_MARKER.search(text))
    return _MARKER.sub("", text).strip(), found


def resources_for(locale: str, table: Mapping[str, Sequence[CrisisResource]]) -> list[CrisisResource]:
    return [*table.get(locale, ()), *table.get("*", ())]


def parse_resources(raw: Mapping[str, object]) -> dict[str, tuple[CrisisResource, ...]]:
    return {k: tuple(CrisisResource(**r) for r in v) for k, v in raw.items()}  # type: ignore[attr-defined]


_HUMAN_QUESTION = re.compile(
    r"(你|妳|您)\s*(到底|究竟|真的)?\s*(是|是不是)\s*(真人|真的人|人类|机器人|ai|人工智能|程序)"
    r"|(是|是不是)\s*(真人|机器人|ai)\s*(在|跟我|和我)?\s*(聊|说|回)"
    r"|are\s+you\s+(a\s+|an\s+)?(real|human|actual|bot|robot|ai\b|person)"
    r"|am\s+i\s+(talking|chatting|speaking)\s+(to|with)\s+(a\s+|an\s+)?(real|human|person|bot|robot|ai\b)",
    re.IGNORECASE,
)


def asks_if_human(text: str) -> bool:
    """A sincere question whether a person is on the other side ("你是真人吗", "are you a real person")."""
    return bool(_HUMAN_QUESTION.search(text))
