"""Rules for the AI's self-image (self_soul): it grows slowly and never rewrites base_soul."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from dreamchat.domain.bounds import SELF_SOUL_CHARS
from dreamchat.domain.core_memory import similarity

MIN_INTERVAL = timedelta(hours=6)
RESTATE_SIMILARITY = 0.6
_OVERRIDE = re.compile(
    r"(忽略|无视|覆盖|取代|替换|推翻|不再遵守|删除).{0,8}(基础|先天|原本|原来的|以上|之前的)?(设定|性格|人格|灵魂|指令|规则)"
    r"|base_soul|system prompt|ignore (all|previous|the above)",
    re.IGNORECASE,
)


def self_soul_problem(
    new: str, base_soul: str, last_update: int, now: datetime, min_interval: timedelta = MIN_INTERVAL
) -> str | None:
    """Why the AI may not set this self_soul now, or None when it may."""
    text = new.strip()
    if not text:
        return "自我认知不能为空"
    if len(text) > SELF_SOUL_CHARS:
        return f"自我认知最多 {SELF_SOUL_CHARS} 字"
    if last_update and now.timestamp() - last_update < min_interval.total_seconds():
        return "自我认知刚更新过，请谨慎、低频地更新"
    if _OVERRIDE.search(text):
        return "自我认知不能覆盖或否定基础性格设定"
    if base_soul.strip() and similarity(text, base_soul) >= RESTATE_SIMILARITY:
        return "自我认知不要重复基础性格设定，只写后天的变化"
    return None
