"""The prompt order before issue 27, kept for `model_cost.py --ordering` only (never used by the product).

One system message: persona + 关于对方 + instructions with the clock and the reply guidance, then the
memories ranked for the current message (the latest summaries competing with its units for the
budget), then the history, then the person's message as stored. `installed()` swaps it into
`ContextService.context` for the length of a `with` block, so the same replay measures both orders.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import datetime
from zoneinfo import ZoneInfo

from dreamchat.domain.core_memory import for_context
from dreamchat.domain.models import AIUser, PairId
from dreamchat.domain.tokens import clip, estimate_messages_tokens, estimate_tokens
from dreamchat.llm.chat_context import (
    MID_LIMIT,
    QUOTE_SHARE,
    UNSURE_SHARE,
    Context,
    MemoryView,
    Plan,
    Section,
    _fitting,
    _IndexBudget,
    _join,
    _quoted,
    local_time,
    persona,
    render_about,
    render_core,
    render_details,
    render_mids,
    render_units,
)
from dreamchat.services.context import ContextService
from dreamchat.services.memory_repo import PairSnapshot

NEW_FIRST_LINE = "【这一轮的提示】是系统写的，不是对方的话。"


def legacy_plan(view: MemoryView, budget: int, tz: ZoneInfo, recent_budget: int | None = None) -> Plan:
    """Core first; then, when the message is about something remembered, the units ranked for it,
    best first, within `budget`; else the latest summary, then the best ranked units (a match by
    meaning alone) for UNSURE_SHARE of what is left, within `recent_budget` (small talk needs less);
    then the recent summaries, latest first, and the newest units; then detail documents, while
    they fit. A message about something remembered also gets the words said behind its best
    matches (`view.quotes`), within QUOTE_SHARE of the budget, before any unit."""
    about = any(hit.relevant for hit in view.hits)
    budget = budget if about or recent_budget is None else min(budget, recent_budget)
    core = clip(render_core(for_context(view.core)), budget // 3)
    left = budget - estimate_tokens(core)
    quotes = _quoted(view.quotes, int(QUOTE_SHARE * budget), tz) if about else []
    left -= estimate_tokens(render_details([], quotes, tz))
    recent = sorted(view.mids, key=lambda m: (m.created_at, m.id))[::-1][:MID_LIMIT]
    # the latest summary comes first for small talk; a message about something remembered gets its
    # units first, and the summaries (the latest first) compete for what is left
    first = recent[:1] if not about else []
    mids = first if first and estimate_tokens(render_mids(first, tz)) <= left else []
    index = _IndexBudget(left - estimate_tokens(render_mids(mids, tz)), tz)
    keep = 0 if about else index.left * (1 - UNSURE_SHARE)
    for hit in view.hits:
        if not index.add(hit.unit) or index.left <= keep:
            break
    for m in (m for m in recent if m not in mids):
        cost = estimate_tokens(render_mids([*mids, m], tz)) - estimate_tokens(render_mids(mids, tz))
        if index.take(cost):
            mids.append(m)
    for unit in view.units:
        if not index.add(unit):
            break
    units = index.chosen()
    spent = estimate_tokens(core) + estimate_tokens(render_mids(mids, tz)) + estimate_tokens(render_units(units, tz))
    details = _fitting(view.details, quotes, budget - spent, tz)
    return Plan(core, sorted(mids, key=lambda m: (m.created_at, m.id)), units, details, quotes)


def legacy_assemble(
    view: MemoryView,
    instructions: str,
    current: str | None,
    now: datetime,
    zone: str,
    budget: int,
    recent_budget: int | None = None,
) -> Context:
    """The context of one turn; its remembered sections never exceed `budget` tokens (nor
    `recent_budget` when the message is about nothing remembered)."""
    tz = ZoneInfo(zone)
    plan = legacy_plan(view, budget, tz, recent_budget)
    system_parts = [
        (
            "system",
            "\n\n".join(
                p for p in (persona(view.base_soul, view.self_soul), render_about(view.about_person), instructions) if p
            ).strip(),
        ),
        ("core", plan.core),
        ("mid_term", render_mids(plan.mids, tz)),
        ("long_term", render_units(plan.units, tz)),
        ("long_term_details", render_details(plan.details, plan.quotes, tz)),
    ]
    sections = [Section(name, text, estimate_tokens(text)) for name, text in system_parts]
    system_text = "\n\n".join(text for _, text in system_parts if text)
    history = [{"role": m.role, "content": m.content} for m in view.short_term]
    sections.append(Section("short_term", _join(history), estimate_messages_tokens(history) if history else 0))
    current_messages = [{"role": "user", "content": current}] if current else []
    sections.append(Section("current_message", current or "", estimate_tokens(current or "")))
    messages = [{"role": "system", "content": system_text}, *history, *current_messages]
    return Context(sections, messages, plan.units)


def legacy_context(
    self: ContextService,
    pair: PairId,
    ai_user: AIUser,
    current: str | None,
    instructions: str,
    exclude_message: str | None = None,
    snapshot: PairSnapshot | None = None,
    guidance: str = "",
) -> Context:
    """`ContextService.context` as it was: ranked for the current message, the clock and the
    guidance in the system message."""
    snapshot = snapshot or self.repo.snapshot(pair)
    short_term = [m for m in self.repo.short_term(pair) if m.id != exclude_message]
    recent = "\n".join(m.content for m in short_term[-2:])
    found = self._find(pair, snapshot, current or "", None, recent)  # the old order named no period
    now = self._clock.now()
    old = instructions.replace(NEW_FIRST_LINE, f"现在是 {local_time(now, ai_user.timezone)}。")
    old = f"{old}\n{guidance}".strip()
    view = MemoryView(
        ai_user.base_soul,
        snapshot.self_soul.self_soul,
        snapshot.core,
        snapshot.mids,
        found.hits,
        found.units,
        self._details(pair, current or "", found.hits, snapshot.long_index, ZoneInfo(ai_user.timezone)),
        short_term,
        self._profiles.about_me(pair.account_id),
        self._quotes(pair, current or "", found.hits),
    )
    settings = self._settings
    return legacy_assemble(
        view, old, current, now, ai_user.timezone, settings.memory_tokens, settings.recent_memory_tokens
    )


@contextlib.contextmanager
def installed() -> Iterator[None]:
    """The previous order in every ContextBuilder while the block runs."""
    saved = ContextService.context
    ContextService.context = legacy_context  # type: ignore[method-assign]
    try:
        yield
    finally:
        ContextService.context = saved  # type: ignore[method-assign]
