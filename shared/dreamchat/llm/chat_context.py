"""The chat prompt's context: what changes least first, so a provider's prefix cache serves it.

The stable part, in the spec's order: the system message (base_soul + 【自我认知】 + self_soul +
关于对方 + instructions, no clock) → core (top 5 by importance) → mid-term (the latest five
summaries; one whose topic gave a fact that later changed ends with what changed) → long-term
memories recalled for the topic (key points, each dated, grouped by their memory) → details and quotes of strong matches; then short-term (the whole topic, append-only).
The memories of the stable part are ranked for the topic's opening (its first OPENING_MESSAGES
messages from the person), so from the topic's fourth message on they are byte-identical turn to
turn. Only the current user message changes: a per-turn block (`render_turn`: the local time, what
this message recalls beyond the stable part, the reply guidance) then the person's words; it is
never stored, the history holds the person's text.

Budgets: core, the latest summaries, the topic's units, details and quotes share `budget` (core
first; a summary whose topic the chosen units already stand for is not shown twice; `plan_memory`),
`recent_budget` for small talk; the per-turn block's memories have their own `turn_budget`
(`plan_turn`).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from dreamchat.domain.cards import person_named
from dreamchat.domain.core_memory import for_context
from dreamchat.domain.models import (
    CoreMemory,
    LongTermDetail,
    LongTermIndex,
    Message,
    MidTermMemory,
)
from dreamchat.domain.moderation import STAFF_NAME
from dreamchat.domain.quotes import Quote
from dreamchat.domain.retrieval import Hit, Unit
from dreamchat.domain.supersession import Now
from dreamchat.domain.tokens import clip, estimate_messages_tokens, estimate_tokens

SELF_MARKER = "【自我认知】"
STAFF_MARK = f"【{STAFF_NAME}】"  # an operator's message in the history: the person's side, never the AI's words
MID_LIMIT = 5
MID_SUMMARY_TOKENS = 70  # per summary in the context: five long summaries must not crowd the rest
INDEX_HEADER = "【长期记忆索引】（需要细节时可调用 recall_memory）"
EARLIER_HEADER = "【想起的更早经历】"  # recalled summaries not yet extracted: mid-term, not the long-term index
MEMORY_SECTIONS = ("core", "mid_term", "long_term", "long_term_details", "turn_memory")
OPENING_MESSAGES = 3  # the person's first messages of a topic: what the stable memories are recalled for
WEEKDAYS = "一二三四五六日"
# When the message shares no rare word with any memory (small talk, or a question worded unlike
# the memories: "instruments" for "playing the violin"), the units ranked by meaning fill this
# share of what is left, and recency the rest. (This, QUOTE_SHARE and MID_SUMMARY_TOKENS are
# chosen leave-one-conversation-out on LoCoMo: bench/recall_loo.py, bench/RESULTS.md.)
UNSURE_SHARE = 0.9
# What was said behind the best matches (`quotes`) takes at most this share of the budget.
QUOTE_SHARE = 0.05
# The person's own sentences from the log that no memory holds (`said`, the memory of last resort)
# take at most this share more, in the same 【当时的原话】 section.
SAID_SHARE = 0.05
INDEX_LINE_CHARS = 50  # the spec's 约 50 字/条: one memory's line of the index (date and key points), cut to fit
POINTS_HEADER = "【相关记忆要点】"  # the memories the topic is about, their key points whole (not index lines)
# The first hits ranked for the topic show their memory's key points whole (under POINTS_HEADER) even when
# no word marks them relevant: a question worded unlike its memory is still about it (bench/RESULTS.md,
# "Issue 39: index lines": relevant hits alone 87.6 %, with the first 10 89.5 %, LoCoMo evidence recall).
WHOLE_HITS = 10


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
    units: list[Unit] = field(default_factory=list)
    about: bool = False  # the topic is about something remembered (it got the larger budget)

    @property
    def tokens(self) -> int:
        return sum(section.tokens for section in self.sections)

    @property
    def memory_tokens(self) -> int:
        """Tokens of the remembered sections (core, mid-term, long-term, details): what the budget bounds."""
        return sum(section.tokens for section in self.sections if section.name in MEMORY_SECTIONS)

    @property
    def budgeted_tokens(self) -> int:
        """Tokens of the remembered sections the memory budget bounds: all but the per-turn block's."""
        return sum(s.tokens for s in self.sections if s.name in MEMORY_SECTIONS and s.name != "turn_memory")

    @property
    def long_term_ids(self) -> list[str]:
        """The long-term memories in the context (a recalled summary is mid-term: not one of them)."""
        return list(dict.fromkeys(u.parent_id for u in self.units if not is_summary(u)))


@dataclass(frozen=True)
class MemoryView:
    """What the pair remembers, as loaded for one turn: `hits` ranked for the message, `units` all of
    them, newest first."""

    base_soul: str
    self_soul: str
    core: list[CoreMemory]
    mids: list[MidTermMemory]
    hits: list[Hit]
    units: list[Unit]
    details: list[LongTermDetail]
    short_term: list[Message]
    about_person: str = ""  # the person's own 关于我, written once for every AI friend
    quotes: list[Quote] = field(default_factory=list)  # what was said behind the best hits, best first
    turn: TurnRecall | None = None  # ranked for the current message, when it is not the topic's opening
    nickname: str | None = None  # what the person wants to be called: `{{user}}` and the name line
    said: list[Quote] = field(default_factory=list)  # the person's own sentences from the log no memory holds


@dataclass(frozen=True)
class TurnRecall:
    """What one message (not the topic's opening) calls up: hits ranked for it, best first, the
    detail documents it names outright and what was said behind its best hits."""

    hits: list[Hit]
    details: list[LongTermDetail] = field(default_factory=list)
    quotes: list[Quote] = field(default_factory=list)
    said: list[Quote] = field(default_factory=list)  # the log's sentences about it no memory holds


@dataclass(frozen=True)
class Plan:
    """The remembered part of one context, within its budget."""

    core: str
    mids: list[MidTermMemory]
    units: list[Unit]
    details: list[LongTermDetail]
    quotes: list[Quote] = field(default_factory=list)
    notes: dict[str, str] = field(default_factory=dict)  # per summary shown, what changed since (`changed_since`)
    full: frozenset[str] = frozenset()  # the memories (parent ids) shown with their key points whole


def plan_memory(view: MemoryView, budget: int, tz: ZoneInfo, recent_budget: int | None = None) -> Plan:
    """Core first; then the latest MID_LIMIT summaries, then the units ranked for the message, best
    first, then the newest units, all within `budget`: a summary whose topic the chosen units already
    stand for (`covers`) is left out and its tokens go to more units. A message about nothing
    remembered gets `recent_budget` (small talk needs less) and its ranked units (a match by meaning
    alone) only UNSURE_SHARE of what the summaries leave. Then detail documents, while they fit. A
    message about something remembered also gets the words said behind its best matches
    (`view.quotes`), within QUOTE_SHARE of the budget, then the person's sentences from the log no
    memory holds (`view.said`: the memory of last resort), within SAID_SHARE more, before any unit."""
    about = any(hit.relevant for hit in view.hits) or bool(view.said)
    budget = budget if about or recent_budget is None else min(budget, recent_budget)
    core = clip(render_core(for_context(view.core)), budget // 3)
    left = budget - estimate_tokens(core)
    quotes = _quoted(view.quotes, int(QUOTE_SHARE * budget), tz) if about else []
    quotes = _quoted(view.said, int((QUOTE_SHARE + SAID_SHARE) * budget), tz, quotes)
    left -= estimate_tokens(render_details([], quotes, tz))
    recent = sorted(view.mids, key=lambda m: (m.created_at, m.id))[::-1][:MID_LIMIT]
    notes = changed_since(recent, view.units, tz)
    mids, units, full = _fill(view, recent, left, 1.0 if about else UNSURE_SHARE, tz, notes)
    spent = (
        estimate_tokens(core)
        + estimate_tokens(render_units(units, tz, full))
        + estimate_tokens(render_mids(mids, tz, notes))
    )
    details = _fitting(view.details, quotes, budget - spent, tz)
    return Plan(core, sorted(mids, key=lambda m: (m.created_at, m.id)), units, details, quotes, notes, full)


def _fill(
    view: MemoryView, recent: list[MidTermMemory], tokens: int, share: float, tz: ZoneInfo, notes: dict[str, str]
) -> tuple[list[MidTermMemory], list[Unit], frozenset[str]]:
    """The latest summaries (as many as fit, latest first), then the ranked units for `share` of what
    is left, then the newest units; a summary the chosen units cover is dropped and the units fill
    again (with more room they only grow, so what covered a summary still does). The memories of
    relevant hits and of the first WHOLE_HITS hits show their key points whole; the rest only their
    index line."""
    mids: list[MidTermMemory] = []
    for m in recent:
        if estimate_tokens(render_mids([*mids, m], tz, notes)) <= tokens:
            mids.append(m)
    while True:
        index = _IndexBudget(tokens - estimate_tokens(render_mids(mids, tz, notes)), tz)
        keep = index.left * (1 - share)
        for rank, hit in enumerate(view.hits):
            if not index.add(hit.unit, full=hit.relevant or rank < WHOLE_HITS) or index.left <= keep:
                break
        for unit in view.units:
            if not index.add(unit):
                break
        units = index.chosen()
        kept = [m for m in mids if not covers(units, m)]
        if len(kept) == len(mids):
            return mids, units, index.full(units)
        mids = kept


def changed_since(mids: list[MidTermMemory], units: list[Unit], tz: ZoneInfo) -> dict[str, str]:
    """Per summary, a note of the facts of its topic that later changed (`（此后有变：…）`), so a
    summary dated as it was said never presents an old fact as current. A key point is of the topic
    when it was drawn from one of its messages, or (not anchored to a message, or the summary stored
    before its messages were known) when its memory is dated at the summary. Changes only when an
    extraction or an edit marks a fact; nothing for summaries whose facts all still hold."""
    past = [u for u in units if u.replaced_by]
    notes: dict[str, str] = {}
    for mid in mids if past else []:
        now = dict.fromkeys((u.replaced_by, u.replaced_at) for u in past if _of_topic(u, mid))
        if now:
            said = "；".join(f"{_day(at, tz)}起：{text}" for text, at in sorted(now, key=lambda n: n[1]))
            notes[mid.id] = f"{CHANGED_MARK}{clip(said, MID_SUMMARY_TOKENS)}）"
    return notes


def _of_topic(unit: Unit, mid: MidTermMemory) -> bool:
    first, last = mid.first_message_id, mid.last_message_id
    if first is not None and last is not None and unit.source:
        return first <= unit.source <= last
    return unit.created_at == mid.created_at


CHANGED_MARK = "（此后有变："


def _day(moment: int, tz: ZoneInfo) -> str:
    local = datetime.fromtimestamp(moment, tz)
    return f"{local.year}年{local.month}月{local.day}日"


def covers(units: list[Unit], mid: MidTermMemory) -> bool:
    """Whether the units stand for the summary's topic: one of them is the summary itself (not yet
    extracted) or was drawn from a message of its topic (ids sort by time)."""
    first, last = mid.first_message_id, mid.last_message_id
    return any(
        u.parent_id == mid.id or (first is not None and last is not None and u.source and first <= u.source <= last)
        for u in units
    )


def plan_turn(turn: TurnRecall | None, shown: Plan, budget: int, tz: ZoneInfo) -> Plan:
    """What the current message recalls beyond the stable part, within `budget`: the words said
    behind its best hits (a third of it at most), its relevant units, best first, then the detail
    documents it names. Nothing for a message about nothing remembered."""
    if turn is None or budget <= 0 or not (any(hit.relevant for hit in turn.hits) or turn.said):
        return Plan("", [], [], [])
    seen = {u.id for u in shown.units}
    quoted = {q.message_id for q in shown.quotes}
    quotes = _quoted([q for q in turn.quotes if q.message_id not in quoted], budget // 3, tz)
    quotes = _quoted([q for q in turn.said if q.message_id not in quoted], budget // 3, tz, quotes)
    index = _IndexBudget(budget - estimate_tokens(render_details([], quotes, tz)), tz, TURN_MEMORY_HEADER)
    for hit in (h for h in turn.hits if h.relevant and h.unit.id not in seen):
        if not index.add(hit.unit, full=True):
            break
    units = index.chosen()
    full = index.full(units)
    titles = {d.title for d in shown.details}
    fresh = [d for d in turn.details if d.title not in titles]
    details = _fitting(fresh, quotes, budget - estimate_tokens(render_units(units, tz, full, TURN_MEMORY_HEADER)), tz)
    return Plan("", [], units, details, quotes, full=full)


def _quoted(quotes: list[Quote], tokens: int, tz: ZoneInfo, chosen: list[Quote] | None = None) -> list[Quote]:
    """The quotes, best first, after those `chosen` already, while their one section fits in `tokens`."""
    chosen = list(chosen or [])
    for quote in quotes:
        if any(q.message_id == quote.message_id and q.text == quote.text for q in chosen):
            continue
        if estimate_tokens(render_details([], [*chosen, quote], tz)) <= tokens:
            chosen.append(quote)
    return chosen


class _IndexBudget:
    """Units chosen for the long-term section while its tokens last (the section is re-rendered
    to check, so the estimate of a line never lets it run over). A memory added `full` (a relevant
    hit's) shows its key points whole; any other, its index line of at most INDEX_LINE_CHARS."""

    MISSES = 64  # give up filling after this many units in a row did not fit

    def __init__(self, tokens: int, tz: ZoneInfo, points_header: str = POINTS_HEADER) -> None:
        self._tokens = tokens
        self._header = points_header
        self._left = tokens
        self._others = 0  # tokens taken by other sections (the summaries that share this budget)
        self._tz = tz
        self._units: dict[str, Unit] = {}
        self._groups: dict[str, list[Unit]] = {}  # per memory, its units chosen, best first
        self._full: set[str] = set()  # the memories shown whole
        self._misses = 0

    @property
    def left(self) -> int:
        return self._left

    def take(self, tokens: int, *, other: bool = True) -> bool:
        if tokens > self._left:
            return False
        self._left -= tokens
        self._others += tokens if other else 0
        return True

    def add(self, unit: Unit, *, full: bool = False) -> bool:
        """False once filling should stop (the budget is spent)."""
        if unit.id in self._units:
            return True
        group = self._groups.get(unit.parent_id, [])
        was = unit.parent_id in self._full
        whole = full or was
        before = memory_line(group, self._tz, was) if group else ""
        after = memory_line([*group, unit], self._tz, whole)
        if group and after == before:  # the memory's line is full (INDEX_LINE_CHARS): nothing would show
            return True
        cost = estimate_tokens(after) + 1 - (estimate_tokens(before) + 1 if group else 0)
        if whole and not self._full:
            cost += estimate_tokens(self._header) + 1
        if not whole and len(self._full) == len(self._groups):  # the first index line
            cost += estimate_tokens(INDEX_HEADER) + 1
        if self.take(cost, other=False):
            self._units[unit.id] = unit
            self._groups[unit.parent_id] = [*group, unit]
            self._full |= {unit.parent_id} if whole else set()
            self._misses = 0
        else:
            self._misses += 1
        return self._misses < self.MISSES and self._left > 0

    def chosen(self) -> list[Unit]:
        """The units added, the last ones dropped if the rendered section runs over after all."""
        units = list(self._units.values())
        limit = self._tokens - self._others
        while units and estimate_tokens(render_units(units, self._tz, self._full, self._header)) > limit:
            units.pop()
        return units

    def full(self, units: list[Unit]) -> frozenset[str]:
        """The memories among `units` shown with their key points whole."""
        return frozenset(u.parent_id for u in units if u.parent_id in self._full)


def _fitting(details: list[LongTermDetail], quotes: list[Quote], tokens: int, tz: ZoneInfo) -> list[LongTermDetail]:
    chosen: list[LongTermDetail] = []
    for detail in details:
        if estimate_tokens(render_details([*chosen, detail], quotes, tz)) <= tokens:
            chosen.append(detail)
    return chosen


def assemble(
    view: MemoryView,
    instructions: str,
    current: str | None,
    now: datetime,
    zone: str,
    budget: int,
    recent_budget: int | None = None,
    *,
    turn_budget: int = 0,
    guidance: str = "",
) -> Context:
    """The context of one turn: the stable part (system message, short-term) then the current
    message, inside it the per-turn block. The stable part's remembered sections never exceed
    `budget` tokens (nor `recent_budget` when the topic is about nothing remembered) plus the latest
    summaries; the per-turn block's, `turn_budget`."""
    tz = ZoneInfo(zone)
    plan = plan_memory(view, budget, tz, recent_budget)
    extra = plan_turn(view.turn, plan, turn_budget, tz)
    system_parts = [
        (
            "system",
            "\n\n".join(
                p
                for p in (
                    persona(person_named(view.base_soul, view.nickname), view.self_soul),
                    render_name(view.nickname),
                    render_about(view.about_person),
                    instructions,
                )
                if p
            ).strip(),
        ),
        ("core", plan.core),
        # a summary not yet extracted, recalled as a unit, stays under the mid-term heading (issue 40: the
        # memory view filed it under 长期记忆索引)
        (
            "mid_term",
            _join_parts(render_mids(plan.mids, tz, plan.notes), render_summary_units(plan.units, tz, plan.full)),
        ),
        ("long_term", render_units([u for u in plan.units if not is_summary(u)], tz, plan.full)),
        ("long_term_details", render_details(plan.details, plan.quotes, tz)),
    ]
    sections = [Section(name, text, estimate_tokens(text)) for name, text in system_parts]
    system_text = "\n\n".join(text for _, text in system_parts if text)
    history = [history_message(m) for m in view.short_term]
    sections.append(Section("short_term", _join(history), estimate_messages_tokens(history) if history else 0))
    remembered = render_turn_memory(extra, tz)
    block = render_turn(local_time(now, zone), remembered, guidance) if current else ""
    sections.append(Section("turn", block, estimate_tokens(block) - estimate_tokens(remembered)))
    sections.append(Section("turn_memory", remembered, estimate_tokens(remembered)))
    sections.append(Section("current_message", current or "", estimate_tokens(current or "")))
    current_messages = [{"role": "user", "content": f"{block}\n{current}"}] if current else []
    messages = [{"role": "system", "content": system_text}, *history, *current_messages]
    about = any(hit.relevant for hit in view.hits)
    return Context(sections, messages, [*plan.units, *extra.units], about)


def history_message(message: Message) -> dict[str, str]:
    """A message of the topic as the model reads it: an operator's words (staff) come as a user turn marked
    as staff's, so the AI never takes them for its own nor for the person's."""
    if message.role == "staff":
        return {"role": "user", "content": f"{STAFF_MARK}{message.content}"}
    return {"role": message.role, "content": message.content}


def topic_opening(short_term: list[Message], current: str | None) -> str:
    """The person's first OPENING_MESSAGES messages of the topic (the current one while it is one of
    them): what the stable memories are recalled for."""
    said = [m.content for m in short_term if m.role == "user"]
    return "\n".join([*said, *([current] if current else [])][:OPENING_MESSAGES])


def local_time(now: datetime, zone: str) -> str:
    local = now.astimezone(ZoneInfo(zone))
    return f"{local:%Y-%m-%d %H:%M} 星期{WEEKDAYS[local.weekday()]}"


TURN_HEADER = "【这一轮的提示】"  # what it is, the fixed instructions say once
TURN_MESSAGE = "【对方的消息】"


def render_turn(clock: str, remembered: str, guidance: str) -> str:
    """The per-turn block that opens the current user message: the time, what this message recalls,
    the reply guidance; the person's words follow it under TURN_MESSAGE."""
    parts = [TURN_HEADER, f"现在是 {clock}。", remembered, guidance.strip(), TURN_MESSAGE]
    return "\n".join(p for p in parts if p)


def render_turn_memory(plan: Plan, tz: ZoneInfo) -> str:
    if not (plan.units or plan.details or plan.quotes):
        return ""
    parts = [
        render_units(plan.units, tz, plan.full, TURN_MEMORY_HEADER),
        render_details(plan.details, plan.quotes, tz),
    ]
    return "\n".join(p for p in parts if p)


TURN_MEMORY_HEADER = "【这条消息让你想起的】"


def latest_mids(mids: list[MidTermMemory]) -> list[MidTermMemory]:
    return sorted(mids, key=lambda m: (m.created_at, m.id))[-MID_LIMIT:]


def render_name(nickname: str | None) -> str:
    """The person's name line: what they asked every AI friend to call them (nothing when they did not say)."""
    return f"【称呼】对方希望你叫TA「{nickname}」。" if nickname else ""


def render_about(about: str) -> str:
    """The person's 关于我 in their own words: quoted, so its "我" is read as the person, not the AI."""
    about = about.strip()
    if not about:
        return ""
    return f"【关于对方】对方写给你的自我介绍（其中的“我”指对方，这是你对对方已经知道的事）：「{about}」"


def render_core(memories: list[CoreMemory]) -> str:
    if not memories:
        return ""
    lines = "\n".join(_core_line(m) for m in memories)
    return (
        "【潜意识】以下是你内心深处关于对方、刻骨铭心的认知。让它们自然地影响你的语气和选择，"
        f"不要直接复述或提起它们：\n{lines}"
    )


def _core_line(memory: CoreMemory) -> str:
    # The person writes their own memories in the first person ("我对芒果过敏"): said as written,
    # under "你内心深处", that "我" would read as the AI, so it is quoted as the person's words.
    if memory.source == "person":
        return f"- 对方亲口告诉你（其中的“我”指对方）：「{memory.content}」"
    return f"- {memory.content}"


def render_mids(mids: list[MidTermMemory], tz: ZoneInfo, notes: dict[str, str] | None = None) -> str:
    """The latest summaries, each dated as it was said; one whose facts later changed ends with what
    changed (`notes`, from `changed_since`)."""
    if not mids:
        return ""
    lines = []
    for m in mids:
        when = datetime.fromtimestamp(m.created_at, tz).strftime("%Y-%m-%d %H时")
        tags = m.emotion_tags
        note = (notes or {}).get(m.id, "")
        lines.append(
            f"- {when}：{clip(m.summary, MID_SUMMARY_TOKENS)}（{tags.basic_emotion}/{tags.scene}/{tags.atmosphere}）{note}"
        )
    return "【最近的经历】\n" + "\n".join(lines)


def when(moment: int, precision: str, tz: ZoneInfo) -> str:
    """A date at its stored precision: `2023-05-08 14时`, `2023-05-08` or `2023-05`."""
    formats = {"hour": "%Y-%m-%d %H时", "day": "%Y-%m-%d", "month": "%Y-%m"}
    return datetime.fromtimestamp(moment, tz).strftime(formats.get(precision, "%Y-%m-%d"))


def _group_head(unit: Unit, tz: ZoneInfo) -> str:
    date = when(unit.created_at, unit.precision, tz)
    return f"- {date} "


def is_summary(unit: Unit) -> bool:
    """A unit standing for a whole mid-term summary (services/recall.py `units_of`), not a long-term point."""
    return unit.parent_id.startswith("mid_")


def render_summary_units(units: list[Unit], tz: ZoneInfo, full: Collection[str] = ()) -> str:
    """The recalled summaries among `units`, under a mid-term heading of their own."""
    text = render_units([u for u in units if is_summary(u)], tz, full)
    return text.replace(INDEX_HEADER, EARLIER_HEADER, 1)


def _join_parts(*parts: str) -> str:
    return "\n".join(p for p in parts if p)


def render_units(
    units: list[Unit], tz: ZoneInfo, full: Collection[str] = (), points_header: str = POINTS_HEADER
) -> str:
    """The index: one line per memory, oldest first, its date and chosen key points cut at
    INDEX_LINE_CHARS (`index_line`, the spec's 约 50 字/条); then, under `points_header`, the memories
    in `full` (those the topic or message is about) with their chosen key points whole, best first
    (`point_line`): an index line would cut off the very facts that were asked about. (The memory's
    title is left out: the key points say what it names, and its tokens went to more units.)"""
    if not units:
        return ""
    groups: dict[str, list[Unit]] = {}
    for unit in units:
        groups.setdefault(unit.parent_id, []).append(unit)
    ordered = sorted(groups.values(), key=lambda g: (g[0].created_at, g[0].parent_id))
    brief = [index_line(g, tz) for g in ordered if g[0].parent_id not in full]
    whole = [point_line(g, tz) for g in ordered if g[0].parent_id in full]
    parts = [INDEX_HEADER, *brief] if brief else []
    parts += [points_header, *whole] if whole else []
    return "\n".join(parts)


def memory_line(group: list[Unit], tz: ZoneInfo, full: bool) -> str:
    return point_line(group, tz) if full else index_line(group, tz)


def point_line(group: list[Unit], tz: ZoneInfo) -> str:
    """One memory with its key points whole: `- date point；point`."""
    return _group_head(group[0], tz) + "；".join(unit_text(u, tz) for u in group)


def index_line(group: list[Unit], tz: ZoneInfo) -> str:
    """One memory's index line: `- date point；point`, at most INDEX_LINE_CHARS 字 (the spec's
    约 50 字/条, counted by `zi`), its end cut and marked with … when the points say more."""
    line = point_line(group, tz)
    marks = list(_ZI.finditer(line))
    return line if len(marks) <= INDEX_LINE_CHARS else line[: marks[INDEX_LINE_CHARS - 1].start()] + "…"


_ZI = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)*|\S")


def zi(text: str) -> int:
    """Its length in 字 as a Chinese word count reads mixed text: a Chinese character, a punctuation
    mark or symbol, or a whole English word or number, one each; spaces none. (An English word carries
    about what a Chinese character does: 50 Latin letters would hold half a fact.)"""
    return len(_ZI.findall(text))


def unit_text(unit: Unit, tz: ZoneInfo) -> str:
    """A unit as the index shows it: a key point a later one replaced is said as past, with what holds now."""
    if not unit.replaced_by:
        return unit.text
    return as_past(unit.text, unit.replaced_by, datetime.fromtimestamp(unit.replaced_at, tz))


def as_past(old: str, new: str, since: datetime) -> str:
    """A superseded fact said as past, with what holds now: `以前：…；2026年6月12日起：…`."""
    return f"以前：{old}；{since.year}年{since.month}月{since.day}日起：{new}"


def said_as_past(past: list[tuple[str, Now]], tz: ZoneInfo) -> list[str]:
    """Each superseded key point said as past, with what replaced it and since when."""
    return [as_past(old, now.text, datetime.fromtimestamp(now.since, tz)) for old, now in past]


def with_changes(detail: LongTermDetail, past: list[tuple[str, Now]], tz: ZoneInfo) -> LongTermDetail:
    """The detail document opening with the facts of it that later changed, said as past."""
    if not past:
        return detail
    said = "；".join(said_as_past(past, tz))
    return detail.model_copy(update={"detail_content": f"（后来有变化——{said}）{detail.detail_content}"})


def render_index_line(entry: LongTermIndex) -> str:
    return f"- {entry.title}：{'；'.join(entry.key_points)}"


def render_index(entries: list[LongTermIndex]) -> str:
    if not entries:
        return ""
    return INDEX_HEADER + "\n" + "\n".join(map(render_index_line, entries))


def render_quote(quote: Quote, tz: ZoneInfo) -> str:
    """`2023-07-06 对方：「…」`: when, who (the person is 对方, the AI 你) and the words."""
    who = {"user": "对方", "assistant": "你", "staff": STAFF_NAME}.get(quote.role, quote.role)
    return f"{when(quote.timestamp, 'day', tz)} {who}：「{quote.text}」"


def render_details(details: list[LongTermDetail], quotes: list[Quote], tz: ZoneInfo) -> str:
    """What was said behind the best matches (dated, by who said it), then the detail documents."""
    parts = []
    if quotes:
        parts.append("【当时的原话】\n" + "\n".join(f"- {render_quote(q, tz)}" for q in quotes))
    if details:
        parts.append("【相关回忆详情】\n" + "\n".join(f"《{d.title}》{d.detail_content}" for d in details))
    return "\n".join(parts)


def _join(history: list[dict[str, str]]) -> str:
    return "\n".join(f"{m['role']}: {m['content']}" for m in history)
