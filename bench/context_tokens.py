"""Context tokens per turn over months of conversation, and evidence recall, on LoCoMo.

Each LoCoMo session is replayed as one topic through the real memory services on local storage
(SQLite + a blob directory in a temp dir, a ManualClock set to the session's date, the local event
bus drained by hand): every turn is recorded, the topic ended and compressed, then extraction is
forced. A scripted `MemoryModels` stands in for the models: compression returns the session's
written summary, extraction one memory whose key points are the session's observation facts. So the
figures measure the memory system, not a model.

After each session, the tokens of the context for one turn (a fixed probe message) under:
  (a) whole history: the system prompt + every raw turn so far + the message;
  (b) the spec's layering: system + core + latest 5 mid-term + EVERY long-term index entry + short-term;
  (c) ours: `ContextService.context` (everything remembered within DREAMCHAT_MEMORY_TOKENS: the
      key points ranked for the message, dated, then recent summaries; detail documents of strong
      matches), with the embedding provider named in the output.
Then, for every question of categories 1-4 asked as the current message, whether its evidence facts
(the observation facts of its evidence dia_ids) are in the context of (b), of (c), and of
(b=) the spec's layering cut to the same token count as (c) (newest index entries that fit).

    .venv/bin/python bench/context_tokens.py [--limit N] [--sessions N] [--data PATH] [--memory-tokens N]
        [--embedding auto|local|api|none] [--memories scripted|offline]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# E402 (the noqa below): these imports need the repo root on sys.path, which the lines above put there
from bench.embedding_cache import cached  # noqa: E402
from bench.locomo import (  # noqa: E402
    DEFAULT_DATA,
    ENGLISH_STOP,
    QA_CATEGORIES,
    TURN_SECONDS,
    Dialogue,
    Session,
    answer_present,
    content_words,
    fact_present,
    load,
    sentences,
    share,
)
from dreamchat.adapters.embeddings import build_embedder  # noqa: E402
from dreamchat.adapters.runtime import ManualClock, SeededRandom  # noqa: E402
from dreamchat.config import Settings  # noqa: E402
from dreamchat.domain.core_memory import for_context  # noqa: E402
from dreamchat.domain.models import (  # noqa: E402
    AIUser,
    Conversation,
    CoreMemory,
    EmotionTags,
    MidTermMemory,
    PairId,
    RelationshipLevel,
)
from dreamchat.domain.tokens import estimate_messages_tokens, estimate_tokens  # noqa: E402
from dreamchat.llm.chat_context import (  # noqa: E402
    MEMORY_SECTIONS,
    Context,
    Section,
    latest_mids,
    persona,
    render_core,
    render_index,
    render_mids,
)
from dreamchat.llm.chat_prompts import chat_instructions  # noqa: E402
from dreamchat.llm.contracts import (  # noqa: E402
    CompressOutput,
    CoreJudgment,
    ExtractedMemory,
    ExtractOutput,
    RelationshipJudgment,
    SelfSoulReflection,
)
from dreamchat.llm.memory_models import FallbackMemoryModels, build_memory_models  # noqa: E402
from dreamchat.ports import Embedder  # noqa: E402
from dreamchat.services.container import Services, build_services  # noqa: E402
from dreamchat.wiring import build_runtime  # noqa: E402

PAIR = PairId(account_id="acc_bench", ai_user_id="ai_bench")
ZONE = "UTC"
PROBE = "Hey! It's been a few days. What's new with you?"
TAGS = EmotionTags(basic_emotion="愉悦", scene="闲聊", atmosphere="平和")
SPEC_BUDGET = 10**9  # the spec loads every index entry
# words every LoCoMo summary uses: never what a session is about
SUMMARY_FILLER = frozenset(
    "conversation mentioned talked told shared expressed discussed asked said also went feel felt "
    "other each share shares great good new pm am".split()
)


class ScriptedMemoryModels:
    """`MemoryModels` answered from the data set, so the replay measures the memory system, not a model."""

    def __init__(self, dialogue: Dialogue) -> None:
        self._by_turns = {tuple(t.text for t in s.turns): s for s in dialogue.sessions}
        self._by_summary = {summary_of(s): s for s in dialogue.sessions}
        names = {w for name in (dialogue.speaker_a, dialogue.speaker_b) for w in content_words(name)}
        self._ignore = names | SUMMARY_FILLER | ENGLISH_STOP
        self._document_frequency = Counter(w for s in dialogue.sessions for w in set(content_words(s.summary)))
        self._sessions = len(dialogue.sessions)

    def compress(self, conversations: list[Conversation], now: datetime) -> CompressOutput:
        """The session's written summary, with fixed valid emotion tags."""
        session = self._by_turns[tuple(c.content for c in conversations)]
        return CompressOutput(summary=summary_of(session), emotion_tags=TAGS)

    def extract(self, mids: list[MidTermMemory], now: datetime, related: object = ()) -> ExtractOutput:
        """One memory per mid-term memory: a keyword title, the session's facts, the summary as detail."""
        return ExtractOutput(memories=[self._memory(mid) for mid in mids])

    def judge_core(
        self, new_items: list[tuple[str, list[str]]], existing: list[CoreMemory], now: datetime
    ) -> CoreJudgment:
        return CoreJudgment(create=False)

    def reflect(
        self, ai_name: str, base_soul: str, recent: list[Conversation], current_self_soul: str, now: datetime
    ) -> SelfSoulReflection:
        return SelfSoulReflection(changed=False, self_soul=current_self_soul)

    def judge_relationship(
        self, current_level: RelationshipLevel, recent: list[Conversation], now: datetime
    ) -> RelationshipJudgment:
        return RelationshipJudgment(level=current_level)

    def _memory(self, mid: MidTermMemory) -> ExtractedMemory:
        session = self.session_of(mid.summary)
        key_points = [f.text for f in session.facts] or [mid.summary]
        return ExtractedMemory(
            title=self.title(mid.summary), key_points=key_points, detail_content=mid.summary, source_mid_ids=[mid.id]
        )

    def session_of(self, summary: str) -> Session:
        """The session a stored summary came from (a summary longer than its session's share was cut)."""
        found = self._by_summary.get(summary)
        return found or next(s for written, s in self._by_summary.items() if written.startswith(summary))

    def title(self, summary: str) -> str:
        """The summary's three most distinctive words (tf-idf over this conversation's summaries)."""
        counts = Counter(w for w in content_words(summary) if w not in self._ignore and not w.isdigit())
        weight = {w: n / (1 + self._document_frequency[w]) for w, n in counts.items()}
        top = sorted(weight, key=lambda w: (-weight[w], w))[:3]
        return ", ".join(top).capitalize()[:40] or summary[:20]


def summary_of(session: Session) -> str:
    return session.summary.strip() or f"Session {session.number}"


@dataclass(frozen=True)
class Options:
    memory_tokens: int | None = None
    embedding: str = "auto"
    memories: str = "scripted"
    embedder: Embedder | None = None  # shared by every replay (one model load; the on-disk cache)


@dataclass
class Point:
    """Context tokens for one turn after a session."""

    session: int
    date: str
    turns: int
    whole: int
    spec: int
    ours: int
    index_used: int
    index_total: int
    details: int
    sections: dict[str, int] = field(default_factory=dict)  # tokens of (c) by section


@dataclass
class Recall:
    """Evidence found per policy, pooled over questions."""

    questions: int = 0
    skipped: int = 0  # no observation fact among the evidence dia_ids
    found: Counter = field(default_factory=Counter)  # policy -> questions with every evidence fact
    facts: int = 0
    facts_found: Counter = field(default_factory=Counter)  # policy -> evidence facts found
    tokens: Counter = field(default_factory=Counter)  # policy -> summed context tokens
    by_category: Counter = field(default_factory=Counter)  # (category, policy) -> questions found
    per_category: Counter = field(default_factory=Counter)  # category -> questions
    answers: Counter = field(default_factory=Counter)  # (category, "ours" | "ceiling") -> answer in context

    def add(self, other: Recall) -> None:
        self.questions += other.questions
        self.skipped += other.skipped
        self.facts += other.facts
        for mine, theirs in (
            (self.found, other.found),
            (self.facts_found, other.facts_found),
            (self.tokens, other.tokens),
            (self.by_category, other.by_category),
            (self.per_category, other.per_category),
            (self.answers, other.answers),
        ):
            mine.update(theirs)


@dataclass
class Outcome:
    sample_id: str
    points: list[Point]
    recall: Recall
    seconds: float
    anchors: Counter = field(default_factory=Counter)


class Replay:
    """One conversation replayed through the services of a fresh local runtime."""

    def __init__(self, dialogue: Dialogue, data_dir: Path, options: Options) -> None:
        overrides = {"memory_tokens": options.memory_tokens} if options.memory_tokens else {}
        settings = Settings(
            storage="local", data_dir=data_dir, run_scheduler=False, embedding_provider=options.embedding, **overrides
        )
        self.dialogue = dialogue
        self.clock = ManualClock(dialogue.sessions[0].started)
        self.runtime = build_runtime(settings, clock=self.clock, random=SeededRandom(9))
        self.offline = options.memories == "offline"
        if self.offline:  # what runs without keys: extractive compression, keyword extraction
            models = build_memory_models(settings.model_copy(update={"llm_api_key": None}), None)
        else:
            scripted = ScriptedMemoryModels(dialogue)
            models = FallbackMemoryModels(scripted, scripted, attempts=1, sleep=lambda _: None)
        self.services: Services = build_services(self.runtime, memory_models=models, embedder=options.embedder)
        created = int(dialogue.sessions[0].started.timestamp())
        self.ai_user = AIUser(
            id=PAIR.ai_user_id,
            owner_id=PAIR.account_id,
            name=dialogue.speaker_b,
            base_soul=f"你是{dialogue.speaker_b}，{dialogue.speaker_a}的老朋友。",
            timezone=ZONE,
            created_at=created,
            updated_at=created,
        )
        self.history: list[dict[str, str]] = []
        self.dia_of: dict[str, str] = {}  # message id -> LoCoMo dia_id

    def close(self) -> None:
        self.runtime.close()

    def play(self, session: Session) -> None:
        """Record the session's turns as one topic, end it, compress it, then force extraction."""
        self.clock.set(session.started)
        topic = None
        for turn in session.turns:
            recorded = self.services.topics.record(PAIR, turn.role, turn.text)
            topic, self.dia_of[recorded.id] = recorded.topic_id, turn.dia_id
            self.history.append({"role": turn.role, "content": turn.text})
            self.clock.advance(seconds=TURN_SECONDS)
        assert topic is not None
        self.services.topics.end_topic(PAIR, topic)
        self.runtime.bus.drain()  # TopicEnded -> compress, on this thread
        if self.services.repo.mid_term(PAIR, topic) is None:
            raise RuntimeError(f"session {session.number}: compression stored no mid-term memory")
        if not self.services.extractor.extract(PAIR, ZONE, force=True).long_term and not self.offline:
            raise RuntimeError(f"session {session.number}: extraction stored no long-term memory")

    def instructions(self) -> str:
        return chat_instructions(self.ai_user.name, "一般")

    def ours(self, current: str) -> Context:
        return self.services.context.context(PAIR, self.ai_user, current, self.instructions())

    def spec(self, current: str, budget: int = SPEC_BUDGET) -> Context:
        """The spec's layering: no retrieval, no details, core, the latest 5 summaries, then whole index
        entries newest first within `budget`."""
        repo, tz = self.services.repo, ZoneInfo(ZONE)
        entries, chosen = sorted(repo.long_index(PAIR), key=lambda e: -e.created_at), []
        for entry in entries:
            if estimate_tokens(render_index(sorted([*chosen, entry], key=lambda e: e.created_at))) <= budget:
                chosen.append(entry)
        system = f"{persona(self.ai_user.base_soul, repo.self_soul(PAIR).self_soul)}\n\n{self.instructions()}"
        parts = [
            ("system", system),
            ("core", render_core(for_context(repo.core(PAIR)))),
            ("mid_term", render_mids(latest_mids(repo.mid_terms(PAIR)), tz)),
            ("long_term", render_index(sorted(chosen, key=lambda e: e.created_at))),
            ("long_term_details", ""),
            ("short_term", ""),
            ("current_message", current),
        ]
        return Context([Section(name, text, estimate_tokens(text)) for name, text in parts], [])

    def spec_at(self, current: str, tokens: int) -> Context:
        """The spec's layering with only as many (newest) index entries as fit in `tokens` in all."""
        without_index = self.spec(current, budget=0).tokens
        return self.spec(current, max(0, tokens - without_index))

    def whole(self, current: str, system_tokens: int) -> int:
        return system_tokens + estimate_messages_tokens(self.history) + estimate_tokens(current)

    def point(self, session: Session) -> Point:
        ours, spec = self.ours(PROBE), self.spec(PROBE)
        system = next(s.tokens for s in ours.sections if s.name == "system")
        details = next(s.text for s in ours.sections if s.name == "long_term_details")
        units = sum(len(e.key_points) for e in self.services.repo.long_index(PAIR))
        return Point(
            session.number,
            session.started.strftime("%Y-%m-%d"),
            len(self.history),
            self.whole(PROBE, system),
            spec.tokens,
            ours.tokens,
            len(ours.units),
            units,
            details.count("《"),
            {s.name: s.tokens for s in ours.sections},
        )

    def anchors(self) -> Counter:
        """How the key points were anchored to their messages: `points`, `anchored` (to some message) and
        `right` (to one of the turns LoCoMo cites for that fact). Scripted memories only: their key
        points are LoCoMo's facts."""
        cited = {f.text: set(f.dia_ids) for s in self.dialogue.sessions for f in s.facts}
        counts: Counter = Counter()
        for entry in self.services.repo.long_index(PAIR):
            for point, source in zip(entry.key_points, entry.sources or [""] * len(entry.key_points), strict=False):
                counts["points"] += 1
                counts["anchored"] += bool(source)
                counts["right"] += self.dia_of.get(source, "") in cited.get(point, set())
        return counts

    def recall(self) -> Recall:
        recall = Recall()
        for question in self.dialogue.questions:
            if question.category not in QA_CATEGORIES:
                continue
            facts = self.dialogue.evidence_facts(question)
            if not facts:
                recall.skipped += 1
                continue
            recall.questions += 1
            recall.facts += len(facts)
            recall.per_category[question.category] += 1
            ours = self.ours(question.question)
            turns = self.dialogue.evidence_turns(question)
            pools = sentences([t.text for t in turns], [self.dialogue.date_of(t.dia_id) for t in turns])
            evidence = [set().union(*pools)] if pools else []  # the ceiling: all the evidence, as one text
            recall.answers[(question.category, "ceiling")] += answer_present(question.answer, evidence)
            recall.answers[(question.category, "ours")] += answer_present(
                question.answer, sentences(memory_lines(ours))
            )
            contexts = {
                "spec": self.spec(question.question),
                "ours": ours,
                "spec=": self.spec_at(question.question, ours.tokens),
            }
            for policy, context in contexts.items():
                lines = memory_lines(context)
                pools = [set(content_words(line)) for line in lines]
                present = sum(fact_present(f.text, lines, pools) for f in facts)
                recall.tokens[policy] += context.tokens
                recall.facts_found[policy] += present
                if present == len(facts):
                    recall.found[policy] += 1
                    recall.by_category[(question.category, policy)] += 1
        return recall


def memory_lines(context: Context) -> list[str]:
    """The remembered part of a context, line by line (the system prompt and the question left out)."""
    return [line for s in context.sections if s.name in MEMORY_SECTIONS for line in s.text.split("\n") if line]


def run(dialogue: Dialogue, options: Options, out) -> Outcome:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="dreamchat-bench-") as tmp:
        replay = Replay(dialogue, Path(tmp), options)
        try:
            print(
                f"\n## {dialogue.sample_id}: {dialogue.speaker_a} (user) and {dialogue.speaker_b} (assistant), "
                f"{len(dialogue.sessions)} sessions",
                file=out,
            )
            print(
                f"{'session':>7} {'date':>10} {'turns':>5} {'(a) whole':>9} {'(b) spec':>8} {'(c) ours':>8} "
                f"{'c/a':>6} {'c/b':>6} {'index in c':>10} {'details':>7}",
                file=out,
            )
            points = []
            for session in dialogue.sessions:
                replay.play(session)
                p = replay.point(session)
                points.append(p)
                print(
                    f"{p.session:>7} {p.date:>10} {p.turns:>5} {p.whole:>9} {p.spec:>8} {p.ours:>8} "
                    f"{share(p.ours, p.whole):>6} {share(p.ours, p.spec):>6} "
                    f"{f'{p.index_used}/{p.index_total}':>10} {p.details:>7}",
                    file=out,
                )
            print(
                "(c) after the last session, tokens by section: "
                + ", ".join(f"{name} {tokens}" for name, tokens in points[-1].sections.items()),
                file=out,
            )
            recall, anchors = replay.recall(), replay.anchors()
        finally:
            replay.close()
    return Outcome(dialogue.sample_id, points, recall, time.perf_counter() - started, anchors)


def growth(points: list[Point], policy: str) -> float | None:
    """Relative change from the fifth session to the last (None with fewer than six sessions)."""
    if len(points) < 6:
        return None
    fifth, last = getattr(points[4], policy), getattr(points[-1], policy)
    return last / fifth - 1 if fifth else None


def percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:+.1f}%"


def report(outcomes: list[Outcome], out) -> None:
    print("\n## Summary: tokens for one turn after the last session", file=out)
    print(
        f"{'conversation':>12} {'(a) whole':>9} {'(b) spec':>8} {'(c) ours':>8} {'b vs a':>7} {'c vs a':>7} "
        f"{'growth a 5->last':>16} {'growth b':>9} {'growth c':>9}",
        file=out,
    )
    totals = Counter()
    for o in outcomes:
        last = o.points[-1]
        totals.update({"whole": last.whole, "spec": last.spec, "ours": last.ours})
        print(
            f"{o.sample_id:>12} {last.whole:>9} {last.spec:>8} {last.ours:>8} "
            f"{percent(last.spec / last.whole - 1):>7} {percent(last.ours / last.whole - 1):>7} "
            f"{percent(growth(o.points, 'whole')):>16} {percent(growth(o.points, 'spec')):>9} "
            f"{percent(growth(o.points, 'ours')):>9}",
            file=out,
        )
    worst = {
        p: max((g for o in outcomes if (g := growth(o.points, p)) is not None), default=None)
        for p in ("whole", "spec", "ours")
    }
    print(
        f"{'all (sum)':>12} {totals['whole']:>9} {totals['spec']:>8} {totals['ours']:>8} "
        f"{percent(totals['spec'] / totals['whole'] - 1):>7} {percent(totals['ours'] / totals['whole'] - 1):>7} "
        f"{percent(worst['whole']):>16} {percent(worst['spec']):>9} {percent(worst['ours']):>9}  (growth: worst)",
        file=out,
    )
    recall_report(outcomes, out)
    anchors = sum((o.anchors for o in outcomes), Counter())
    print(
        f"\nkey points anchored to the message they came from (shown as 当时的原话 for the best hits): "
        f"{share(anchors['anchored'], anchors['points'])} of {anchors['points']}; to a turn LoCoMo cites for that "
        f"fact: {share(anchors['right'], anchors['points'])} (scripted memories only: their points are LoCoMo's facts)",
        file=out,
    )
    targets(outcomes, out)


def targets(outcomes: list[Outcome], out) -> None:
    """The issue's targets, read off the figures above."""
    print("\n## Targets", file=out)
    shares = {o.sample_id: o.points[-1].ours / o.points[-1].whole for o in outcomes}
    missed = [f"{name} {100 * v:.1f}%" for name, v in shares.items() if v > 0.10]
    print(
        f"(c) <= 10% of (a) after the last session: {len(shares) - len(missed)}/{len(shares)} conversations"
        + (f" (missed: {', '.join(missed)})" if missed else ""),
        file=out,
    )
    grown = {o.sample_id: growth(o.points, "ours") for o in outcomes}
    known = {k: v for k, v in grown.items() if v is not None}
    over = [f"{name} {percent(v)}" for name, v in known.items() if v >= 0.20]
    print(
        f"(c) grows < 20% from session 5 to the last: {len(known) - len(over)}/{len(known)} conversations"
        + (f" (missed: {', '.join(over)})" if over else "")
        + ("" if known else " (needs six sessions or more)"),
        file=out,
    )
    total = Recall()
    for o in outcomes:
        total.add(o.recall)
    q = total.questions or 1
    found, tokens = (
        {p: total.found[p] / q for p in ("spec", "ours", "spec=")},
        {p: total.tokens[p] / q for p in ("spec", "ours", "spec=")},
    )
    print(
        f"evidence recall (c) >= (b) at the same or lower tokens: (c) {100 * found['ours']:.1f}% at "
        f"{tokens['ours']:.0f} tokens/question; (b) {100 * found['spec']:.1f}% at {tokens['spec']:.0f} "
        f"({'met' if found['ours'] >= found['spec'] else 'not met'} against the whole spec layering); "
        f"(b=) {100 * found['spec=']:.1f}% at {tokens['spec=']:.0f} "
        f"({'met' if found['ours'] >= found['spec='] else 'not met'} at the same token cost)",
        file=out,
    )


def recall_report(outcomes: list[Outcome], out) -> None:
    print("\n## Evidence recall, questions of categories 1-4 asked after the last session", file=out)
    print(
        "A question counts when every evidence fact is in the context; a fact is in it when its text appears "
        "verbatim, or >= 80% of its distinct content words (jieba search words, English function words "
        "left out) appear in one line of the remembered sections (one index entry, mid-term summary or "
        "detail). (b=) is the spec's layering with only the newest index entries that fit in (c)'s tokens.",
        file=out,
    )
    print(
        f"{'conversation':>12} {'questions':>9} {'skipped':>7} {'(b) spec':>8} {'(c) ours':>8} {'(b=) spec':>9} "
        f"{'facts b':>7} {'facts c':>7} {'facts b=':>8} {'tokens b':>8} {'tokens c':>8} {'tokens b=':>9}",
        file=out,
    )
    total = Recall()
    for o in outcomes:
        recall_row(o.sample_id, o.recall, out)
        total.add(o.recall)
    recall_row("all", total, out)
    print("\nBy category (all conversations): share of questions with every evidence fact in the context", file=out)
    print("(b) is 100% by construction: it holds every index entry whole, and the facts are the key points.", file=out)
    print(
        f"{'category':>16} {'questions':>9} {'(b) spec':>8} {'(c) ours':>8} {'(b=) spec':>9} {'answer c':>8} "
        f"{'ceiling':>8}",
        file=out,
    )
    for category, name in [*QA_CATEGORIES.items(), (0, "all 1-4")]:
        n = total.per_category[category] if category else total.questions
        cells = [
            share(sum(total.by_category[(c, p)] for c in QA_CATEGORIES if c == category or not category), n)
            for p in ("spec", "ours", "spec=")
        ]
        answers = [
            share(sum(total.answers[(c, p)] for c in QA_CATEGORIES if c == category or not category), n)
            for p in ("ours", "ceiling")
        ]
        label = f"{category} {name}" if category else name
        print(f"{label:>16} {n:>9} {cells[0]:>8} {cells[1]:>8} {cells[2]:>9} {answers[0]:>8} {answers[1]:>8}", file=out)
    print(
        "answer c: the gold answer is in (c) when >= 60% of its distinct content words are in one sentence of "
        "the remembered sections (a dated line's date belongs to each of its sentences; ISO dates are read as "
        "'8 May 2023'); ceiling: the same words found anywhere in the raw evidence turns, each with its session's date.",
        file=out,
    )


def recall_row(name: str, r: Recall, out) -> None:
    q = r.questions
    mean = {p: round(r.tokens[p] / q) if q else 0 for p in ("spec", "ours", "spec=")}
    print(
        f"{name:>12} {q:>9} {r.skipped:>7} {share(r.found['spec'], q):>8} {share(r.found['ours'], q):>8} "
        f"{share(r.found['spec='], q):>9} {share(r.facts_found['spec'], r.facts):>7} "
        f"{share(r.facts_found['ours'], r.facts):>7} {share(r.facts_found['spec='], r.facts):>8} "
        f"{mean['spec']:>8} {mean['ours']:>8} {mean['spec=']:>9}",
        file=out,
    )


def select(dialogues: list[Dialogue], only: str | None) -> list[Dialogue]:
    """The conversations named in `only` (comma-separated sample ids), or all."""
    if not only:
        return dialogues
    names = {name.strip() for name in only.split(",")}
    chosen = [d for d in dialogues if d.sample_id in names]
    if len(chosen) != len(names):
        raise SystemExit(f"--only: unknown conversation(s) {sorted(names - {d.sample_id for d in chosen})}")
    return chosen


def main(argv: list[str] | None = None, out=None) -> int:
    out = out or sys.stdout
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="LoCoMo JSON (default: %(default)s)")
    parser.add_argument("--limit", type=int, default=None, help="first N conversations")
    parser.add_argument("--sessions", type=int, default=None, help="first N sessions of each")
    parser.add_argument(
        "--memory-tokens", type=int, default=None, help="override DREAMCHAT_MEMORY_TOKENS (default: the setting)"
    )
    parser.add_argument(
        "--embedding",
        choices=["auto", "local", "api", "none"],
        default=None,
        help="DREAMCHAT_EMBEDDING_PROVIDER for the replay (default: the environment's, else auto)",
    )
    parser.add_argument("--only", default=None, help="these conversations (sample ids, comma-separated)")
    parser.add_argument(
        "--embedding-cache",
        default=None,
        help="embeddings cache file, or 'off' (default: DREAMCHAT_BENCH_CACHE, else ~/.cache/dreamchat-bench)",
    )
    parser.add_argument(
        "--memories",
        choices=["scripted", "offline"],
        default="scripted",
        help="scripted: LoCoMo's summaries and facts as the models' output (measures retrieval); "
        "offline: the offline provider's memories (what runs without keys)",
    )
    args = parser.parse_args(argv)
    args.embedding = args.embedding or Settings(storage="local").embedding_provider
    embedder = cached(
        build_embedder(Settings(storage="local", embedding_provider=args.embedding)), args.embedding_cache
    )
    options = Options(args.memory_tokens, args.embedding, args.memories, embedder)
    dialogues = select(load(args.data, limit=args.limit, sessions=args.sessions), args.only)
    budget = args.memory_tokens or Settings(storage="local").memory_tokens
    print("# Context tokens per turn (bench/context_tokens.py)", file=out)
    print(
        f"data: {args.data.name}, {len(dialogues)} conversations; memory budget of (c): {budget} tokens "
        f"(core + mid-term + long-term + details; bounded by construction); probe message: {PROBE!r}; "
        f"tokens by dreamchat.domain.tokens",
        file=out,
    )
    print(
        f"embedding provider: {embedder.name or 'none'} (retrieval: {embedder.kind}); memories: {args.memories}",
        file=out,
    )
    started = time.perf_counter()
    outcomes = [run(d, options, out) for d in dialogues]
    report(outcomes, out)
    print(f"\nelapsed: {time.perf_counter() - started:.1f} s", file=out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
