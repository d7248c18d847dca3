"""A CJK-aware token estimate for context budgets: no tokenizer, just a conservative count."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache

# ideographs, kana, hangul and full-width forms: each is about one token in the providers' tokenizers
_CJK = re.compile(
    "[\u3000-\u303f\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\U00020000-\U0002ffff]"
)
_WORD = re.compile(r"[^\W_]+|[^\w\s]|_+")
CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD = 4
REPLY_OVERHEAD = 3


@lru_cache(maxsize=32768)
def estimate_tokens(text: str) -> int:
    """About one token per CJK character and one per four characters of any other word (at least one).
    Cached: a pair's memories are measured again on every turn."""
    cjk = len(_CJK.findall(text))
    rest = _CJK.sub(" ", text)
    return cjk + sum(max(1, (len(word) + 2) // CHARS_PER_TOKEN) for word in _WORD.findall(rest))


def estimate_messages_tokens(messages: Iterable[Mapping[str, object]]) -> int:
    """Tokens of chat messages, with the per-message framing the chat formats add."""
    total = REPLY_OVERHEAD
    for message in messages:
        total += MESSAGE_OVERHEAD + sum(estimate_tokens(text) for text in _texts(message))
    return total


def _texts(message: Mapping[str, object]) -> list[str]:
    texts = [value for key in ("content", "name") if isinstance(value := message.get(key), str)]
    calls = message.get("tool_calls")
    for call in calls if isinstance(calls, list) else []:
        function = call.get("function") if isinstance(call, Mapping) else None
        if isinstance(function, Mapping):
            texts += [str(function.get("name", "")), str(function.get("arguments", ""))]
    return texts


def clip(text: str, max_tokens: int) -> str:
    """The text cut to about `max_tokens` (at a character boundary), marked with … when cut."""
    if estimate_tokens(text) <= max_tokens:
        return text
    if max_tokens < 2:
        return ""
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if estimate_tokens(text[:middle]) <= max_tokens - 1:
            low = middle
        else:
            high = middle - 1
    return text[:low].rstrip() + "…"
