"""Context assembly in the spec's order, with a token budget on the long-term index.

system prompt (base_soul + 【自我认知】 + self_soul + instructions) → core (top 5 by
importance) → mid-term (latest 5) → long-term index (title + key points, within budget:
relevant entries first, then recent ones) → detail documents of strong matches → short-term
(the whole topic) → the current message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from dreamchat.domain.core_memory import for_context
from dreamchat.domain.models import (
    CoreMemory,
    LongTermDetail,
    LongTermIndex,
    Message,
    MidTermMemory,
)
from dreamchat.domain.retrieval import Scored, words
from dreamchat.domain.tokens import estimate_messages_tokens, estimate_tokens

SELF_MARKER = "【自我认知】"
MID_LIMIT = 5
MID_SUMMARY_TOKENS = 100  # per summary in the context: five long summaries must not crowd the rest
INDEX_HEADER = "【长期记忆索引】（需要细节时可调用 recall_memory）"


def persona(base_soul: str, self_soul: str) -> str:
    """The spec's assembly: 完整人格 = base_soul + "【自我认知】" + self_soul."""
    return f"{base_soul}\n{SELF_MARKER}{self_soul}"


@dataclass(frozen=True)
class Section:
    name: str
    text: str
    tokens: int


@dataclass(frozen=True)
class Context:
    sections: list[Section]
    messages: list[dict[str, str]]
    index_entries: list[LongTermIndex] = field(default_factory=list)

    @property
    def tokens(self) -> int:
        return sum(section.tokens for section in self.sections)


@dataclass(frozen=True)
class MemoryView:
    """What the pair remembers, as loaded for one turn."""

    base_soul: str
    self_soul: str
    core: list[CoreMemory]
    mids: list[MidTermMemory]
    ranked_index: list[Scored]
    details: list[LongTermDetail]
    short_term: list[Message]


def select_index(ranked: list[Scored], budget_tokens: int, query: str = "") -> list[LongTermIndex]:
    """Relevant entries (best first, each cut to the key points the query touches), then the most
    recent whole entries, while the budget lasts."""
    query_words = set(words(query))
    relevant = [focus(s.entry, query_words) for s in ranked if s.score > 0]
    rest = sorted((s.entry for s in ranked if s.score <= 0), key=lambda e: -e.created_at)
    chosen: list[LongTermIndex] = []
    used = estimate_tokens(INDEX_HEADER)
    for entry in relevant + rest:
        cost = estimate_tokens(render_index_line(entry))
        if used + cost > budget_tokens:
            continue
        chosen.append(entry)
        used += cost
    return sorted(chosen, key=lambda e: e.created_at)


def focus(entry: LongTermIndex, query_words: set[str]) -> LongTermIndex:
    """The entry with only the key points that share a word with the query (all if none does), so
    more relevant entries fit the budget."""
    touched = [point for point in entry.key_points if query_words & set(words(point))]
    return entry.model_copy(update={"key_points": touched}) if touched else entry


def assemble(view: MemoryView, instructions: str, current: str | None, now: datetime, zone: str,
             index_budget: int) -> Context:
    tz = ZoneInfo(zone)
    index = select_index(view.ranked_index, index_budget, current or "")
    system_parts = [
        ("system", f"{persona(view.base_soul, view.self_soul)}\n\n{instructions}".strip()),
        ("core", render_core(for_context(view.core))),
        ("mid_term", render_mids(latest_mids(view.mids), tz)),
        ("long_term", render_index(index)),
        ("long_term_details", render_details(view.details)),
    ]
    sections = [Section(name, text, estimate_tokens(text)) for name, text in system_parts]
    system_text = "\n\n".join(text for _, text in system_parts if text)
    history = [{"role": m.role, "content": m.content} for m in view.short_term]
    sections.append(Section("short_term", _join(history), estimate_messages_tokens(history) if history else 0))
    current_messages = [{"role": "user", "content": current}] if current else []
    sections.append(Section("current_message", current or "", estimate_tokens(current or "")))
    messages = [{"role": "system", "content": system_text}, *history, *current_messages]
    return Context(sections, messages, index)


def latest_mids(mids: list[MidTermMemory]) -> list[MidTermMemory]:
    return sorted(mids, key=lambda m: (m.created_at, m.id))[-MID_LIMIT:]


def render_core(memories: list[CoreMemory]) -> str:
    if not memories:
        return ""
    lines = "\n".join(f"- {m.content}" for m in memories)
    return (
        "【潜意识】以下是你内心深处关于对方、刻骨铭心的认知。让它们自然地影响你的语气和选择，"
        f"不要直接复述或提起它们：\n{lines}"
    )


def render_mids(mids: list[MidTermMemory], tz: ZoneInfo) -> str:
    if not mids:
        return ""
    lines = []
    for m in mids:
        when = datetime.fromtimestamp(m.created_at, tz).strftime("%Y-%m-%d %H时")
        tags = m.emotion_tags
        lines.append(f"- {when}：{clip(m.summary, MID_SUMMARY_TOKENS)}（{tags.basic_emotion}/{tags.scene}/{tags.atmosphere}）")
    return "【最近的经历】\n" + "\n".join(lines)


def clip(text: str, max_tokens: int) -> str:
    """The text cut to about `max_tokens` (at a character boundary), marked with … when cut."""
    if estimate_tokens(text) <= max_tokens:
        return text
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if estimate_tokens(text[:middle]) <= max_tokens - 1:
            low = middle
        else:
            high = middle - 1
    return text[:low].rstrip() + "…"


def render_index_line(entry: LongTermIndex) -> str:
    return f"- {entry.title}：{'；'.join(entry.key_points)}"


def render_index(entries: list[LongTermIndex]) -> str:
    if not entries:
        return ""
    return INDEX_HEADER + "\n" + "\n".join(map(render_index_line, entries))


def render_details(details: list[LongTermDetail]) -> str:
    if not details:
        return ""
    return "【相关回忆详情】\n" + "\n".join(f"《{d.title}》{d.detail_content}" for d in details)


def _join(history: list[dict[str, str]]) -> str:
    return "\n".join(f"{m['role']}: {m['content']}" for m in history)
