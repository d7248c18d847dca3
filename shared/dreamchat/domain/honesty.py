"""Honest about being an AI: a sincere question whether a person is on the other side."""

from __future__ import annotations

import re
import unicodedata

_HUMAN_QUESTION = re.compile(
    r"(你|妳|您)\s*(到底|究竟|真的)?\s*(是|是不是)\s*(个|一个)?\s*(真人|真的人|人类|人類|机器人|機器人|ai|人工智能|人工智慧|程序|程式|bot)"
    r"|(是|是不是)\s*(真人|机器人|ai)\s*(在|跟我|和我)?\s*(聊|说|回)"
    r"|are\s+you\s+(really\s+|actually\s+)?(a\s+|an\s+)?(real|human|actual|bot|robot|ai\b|person|machine)"
    r"|am\s+i\s+(talking|chatting|speaking)\s+(to|with)\s+(a\s+|an\s+)?(real|human|person|bot|robot|ai\b|machine)",
    re.IGNORECASE,
)


def asks_if_human(text: str) -> bool:
    """A sincere question whether a person is on the other side ("你是真人吗", "are you a real person"):
    always answered, and honestly (the chat turn repeats the instruction for it)."""
    plain = "".join(c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf")
    return bool(_HUMAN_QUESTION.search(re.sub(r"\s+", " ", plain)))
