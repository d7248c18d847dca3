"""Recall of what a turn should call up: BM25 alone, dense alone and the shipped fusion, per data set.

Per data set, at equal memory count (Recall@5, @10, @20: the share of relevant memories among the
first k ranked) and at equal tokens (the ranked units shown as the context shows them, `render_units`,
while they fit the budget: DREAMCHAT_MEMORY_TOKENS, the whole memory block, and DREAMCHAT_TURN_MEMORY_TOKENS,
what one message calls up beyond the topic's memories; the share of relevant memories with a unit shown):

- `zh-dev`, `zh-blind`: `bench/data/recall_zh` (dev zh01-06, blind zh07-12). Each split's 42
  memories, imported as one pair's long-term entries (a `dreamchat.memory` document read by the
  import's own reader), are ranked for each test turn: a person's own memories among the other five
  persons' as distractors. A memory is relevant when the turn names it; it counts once.
- `locomo`: `../shared/data/locomo-dev.json`; per conversation, one long-term entry per session whose
  key points are its observation facts; each question of categories 1-4 ranks them; a memory here is
  one fact (unit), relevant when it is among the question's evidence.

BM25 alone and dense alone rank by the whole query text (the test turn's dialogue, or the question);
the fusion is `RecallService.find` with the query the context service builds (`recall_query`).

    .venv/bin/python bench/recall_fusion.py [--sets zh-dev zh-blind locomo] [--embedding local]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# E402 (the noqa below): these imports need the repo root on sys.path, which the lines above put there
from bench.embedding_cache import cached  # noqa: E402
from bench.locomo import DEFAULT_DATA, QA_CATEGORIES, load  # noqa: E402
from dreamchat.adapters.embeddings import build_embedder  # noqa: E402
from dreamchat.config import Settings  # noqa: E402
from dreamchat.domain.models import LongTermIndex, PairId  # noqa: E402
from dreamchat.domain.periods import named_period  # noqa: E402
from dreamchat.domain.recall_query import TurnQuery, turn_query  # noqa: E402
from dreamchat.domain.retrieval import Unit, UnitIndex, words  # noqa: E402
from dreamchat.domain.tokens import estimate_tokens  # noqa: E402
from dreamchat.llm.chat_context import render_units  # noqa: E402
from dreamchat.services.import_document import read_document  # noqa: E402
from dreamchat.services.recall import RecallService  # noqa: E402

ZH_DATA = ROOT / "bench" / "data" / "recall_zh"
SPLITS = {"zh-dev": [f"zh{n:02d}" for n in range(1, 7)], "zh-blind": [f"zh{n:02d}" for n in range(7, 13)]}
KS = (5, 10, 20)
PAIR = PairId(account_id="acc_bench", ai_user_id="ai_bench")
ZH_ZONE = "Asia/Shanghai"
METHODS = ("bm25", "dense", "fusion")


@dataclass(frozen=True)
class Case:
    """One test turn: its dialogue (role, text), oldest first, the last the person's; what it should call up."""

    dialogue: list[tuple[str, str]]
    relevant: frozenset[str]  # memory ids (parent ids) or, for a unit-level set, unit ids
    now: datetime
    zone: str


@dataclass
class Pool:
    """One pair's memories and the cases asked of them; `units` says whether a memory is a unit."""

    name: str
    entries: list[LongTermIndex]
    cases: list[Case]
    units: bool = False


@dataclass
class Tally:
    relevant: int = 0
    at_k: dict[int, int] = field(default_factory=lambda: dict.fromkeys(KS, 0))
    at_budget: dict[int, int] = field(default_factory=dict)  # per budget (tokens)
    shown: dict[int, int] = field(default_factory=dict)  # memories shown at the budget, summed over cases
    cases: int = 0

    def row(self, budgets: list[int]) -> str:
        cells = [f"{100 * self.at_k[k] / self.relevant:6.1f}%" for k in KS]
        for budget in budgets:
            cells.append(
                f" {100 * self.at_budget[budget] / self.relevant:6.1f}% {self.shown[budget] / self.cases:5.1f}"
            )
        return " ".join(cells)


# The data sets as pools


def zh_conversation(name: str, data: Path = ZH_DATA) -> dict:
    return json.loads((data / f"{name}.json").read_text(encoding="utf-8"))


def zh_document(conversations: list[dict]) -> tuple[dict, dict[tuple[str, str], str]]:
    """A `dreamchat.memory` document holding the conversations' memories as long-term entries, and the
    entry id given to each (conversation, memory)."""
    longs, ids = [], {}
    for c, conversation in enumerate(conversations):
        for m, memory in enumerate(conversation["memories"]):
            day = datetime.fromisoformat(memory["date"]).replace(hour=20, tzinfo=ZoneInfo(ZH_ZONE))
            stamp = int(day.timestamp())
            entry_id = ids[(conversation["id"], memory["id"])] = f"long_{stamp:010d}_{c:04x}{m:04x}"
            basic, scene, atmosphere = memory["tags"]
            tags = {"basic_emotion": basic, "scene": scene, "atmosphere": atmosphere}
            index = {"id": entry_id, "title": memory["title"], "key_points": memory["points"], "created_at": stamp}
            index |= {"emotion_tags": tags}
            index |= {"detail_file": f"{day:%Y-%m-%d}_{entry_id}.json"}
            detail = {"title": memory["title"], "detail_content": memory["detail"], "emotion_tags": tags}
            longs.append({"index": index, "detail": detail | {"source_mid_ids": []}})
    document = {"format": "dreamchat.memory", "version": 1, "exported_at": 1_800_000_000}
    return document | {"ai_user": {"id": "ai_bench", "name": "小梦"}, "long_term": longs}, ids


def zh_pool(split: str, data: Path = ZH_DATA, names: list[str] | None = None) -> Pool:
    conversations = [zh_conversation(n, data) for n in names or SPLITS[split]]
    raw, ids = zh_document(conversations)
    document = read_document(json.dumps(raw, ensure_ascii=False).encode())
    cases = [
        Case(
            [(role, text) for role, text in turn["dialogue"]],
            frozenset(ids[(c["id"], m)] for m in turn["relevant"]),
            datetime.fromisoformat(c["now"]),
            ZH_ZONE,
        )
        for c in conversations
        for turn in c["turns"]
    ]
    return Pool(split, [e.index for e in document.long_term], cases)


def locomo_pools(path: Path, limit: int | None = None) -> Iterator[Pool]:
    """Per conversation: one entry per session (its facts as key points); its questions of categories 1-4."""
    for dialogue in load(path, limit=limit):
        entries, unit_of = [], {}
        for session in dialogue.sessions:
            stamp = int(session.started.timestamp())
            entry_id = f"long_{stamp:010d}_{session.number:08x}"
            points = [f.text for f in session.facts] or [session.summary or f"Session {session.number}"]
            for number, fact in enumerate(session.facts):
                unit_of[id(fact)] = f"{entry_id}#{number:03d}"
            entries.append(
                LongTermIndex(
                    id=entry_id,
                    title=f"Session {session.number}",
                    key_points=points,
                    detail_file=f"{entry_id}.json",
                    created_at=stamp,
                )
            )
        now = dialogue.sessions[-1].started + timedelta(days=1)
        cases = [
            Case([("user", q.question)], frozenset(unit_of[id(f)] for f in facts), now, "UTC")
            for q in dialogue.questions
            if q.category in QA_CATEGORIES and (facts := dialogue.evidence_facts(q))
        ]
        yield Pool(f"locomo {dialogue.sample_id}", entries, cases, units=True)


# The rankings


def query_of(dialogue: list[tuple[str, str]]) -> TurnQuery:
    """What the context service searches for the turn (`recall_query.turn_query`)."""
    *before, (_, message) = dialogue
    return turn_query(message, before)


def whole_text(dialogue: list[tuple[str, str]]) -> str:
    return "\n".join(text for _, text in dialogue)


class Ranker:
    """The three rankings of one pool's units, sharing the prepared index and its vectors."""

    def __init__(self, service: RecallService, pool: Pool) -> None:
        self.service = service
        self.pool = pool
        self.stored = {e.id: service.vectors(list(e.key_points)) for e in pool.entries}
        self.prepared = service.prepare(PAIR, pool.entries, [], self.stored)

    @property
    def index(self) -> UnitIndex:
        return self.prepared.index

    def rank(self, method: str, case: Case) -> list[Unit]:
        order = {"bm25": self._bm25, "dense": self._dense, "fusion": self._fusion}[method](case)
        return [self.index.units[i] for i in _complete(order, len(self.index.units))]

    def _bm25(self, case: Case) -> np.ndarray:
        query = words(whole_text(case.dialogue))
        if self.index.bm25 is None or not query:
            return np.array([], dtype=int)
        return np.argsort(-np.asarray(self.index.bm25.get_scores(query)), kind="stable")

    def _dense(self, case: Case) -> np.ndarray:
        vectors = self.service.embed([whole_text(case.dialogue)], query=True)
        if vectors is None or self.index.matrix is None:
            return np.array([], dtype=int)
        cosines = self.index.matrix @ vectors[0]
        order = np.argsort(-cosines, kind="stable")
        return order[self.index.has_vector[order]]

    def _fusion(self, case: Case) -> np.ndarray:
        query = query_of(case.dialogue)
        period = named_period(query.message, case.now, case.zone)
        found = self.service.find(
            PAIR, self.pool.entries, [], self.stored, query.message, query.recent, period, query.feeling
        )
        position = {u.id: n for n, u in enumerate(self.index.units)}
        return np.array([position[h.unit.id] for h in found.hits], dtype=int)


def _complete(order: np.ndarray, size: int) -> list[int]:
    """The ranked units, then every unit the ranking left out, in index order (ties broken alike)."""
    seen = dict.fromkeys(int(i) for i in order)
    return [*seen, *(i for i in range(size) if i not in seen)]


def memories(units: list[Unit], per_unit: bool) -> list[str]:
    """The ranked memories: each unit, or each parent at its first unit."""
    return [u.id for u in units] if per_unit else list(dict.fromkeys(u.parent_id for u in units))


def within(units: list[Unit], budget: int, tz: ZoneInfo) -> list[Unit]:
    """The best units whose rendered lines fit the budget (as the index block shows them)."""
    shown: list[Unit] = []
    for unit in units:
        if estimate_tokens(render_units([*shown, unit], tz)) > budget:
            break
        shown.append(unit)
    return shown


def measure(ranker: Ranker, method: str, budgets: list[int], tally: Tally) -> None:
    for case in ranker.pool.cases:
        ranked = ranker.rank(method, case)
        order = memories(ranked, ranker.pool.units)
        tally.relevant += len(case.relevant)
        tally.cases += 1
        for k in KS:
            tally.at_k[k] += len(case.relevant & set(order[:k]))
        for budget in budgets:
            listed = set(memories(within(ranked, budget, ZoneInfo(case.zone)), ranker.pool.units))
            tally.at_budget[budget] = tally.at_budget.get(budget, 0) + len(case.relevant & listed)
            tally.shown[budget] = tally.shown.get(budget, 0) + len(listed)


def report(name: str, tallies: dict[str, Tally], budgets: list[int], out) -> None:
    first = next(iter(tallies.values()))
    print(f"\n## {name}: {first.cases} turns, {first.relevant} relevant memories", file=out)
    heads = "".join(f" {f'@{b} tok':>8} {'shown':>5}" for b in budgets)
    print(f"{'method':>8} {'R@5':>7} {'R@10':>7} {'R@20':>7}{heads}", file=out)
    for method, tally in tallies.items():
        print(f"{method:>8} {tally.row(budgets)}", file=out)


def pools(sets: list[str], data: Path, zh_data: Path, limit: int | None) -> Iterator[tuple[str, list[Pool]]]:
    for name in sets:
        if name == "locomo":
            yield name, list(locomo_pools(data, limit))
        else:
            yield name, [zh_pool(name, zh_data)]


def main(argv: list[str] | None = None, out=None, make_service: Callable[[], RecallService] | None = None) -> int:
    out = out or sys.stdout
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", nargs="+", default=["zh-dev", "zh-blind", "locomo"])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the LoCoMo file")
    parser.add_argument("--zh-data", type=Path, default=ZH_DATA)
    parser.add_argument("--limit", type=int, default=None, help="first N LoCoMo conversations")
    parser.add_argument("--embedding", choices=["auto", "local", "api", "none"], default="local")
    parser.add_argument("--embedding-cache", default=None, help="embeddings cache file, or 'off'")
    parser.add_argument("--memory-tokens", type=int, default=None, help="DREAMCHAT_MEMORY_TOKENS")
    parser.add_argument("--turn-tokens", type=int, default=None, help="DREAMCHAT_TURN_MEMORY_TOKENS")
    args = parser.parse_args(argv)
    settings = Settings(storage="local", embedding_provider=args.embedding)
    budgets = [args.memory_tokens or settings.memory_tokens, args.turn_tokens or settings.turn_memory_tokens]
    if make_service is None:
        embedder = cached(build_embedder(settings), args.embedding_cache)
        service = RecallService(embedder, settings.embedding_batch)
    else:
        service = make_service()
    print("# Recall: BM25 alone, dense alone, the shipped fusion (bench/recall_fusion.py)", file=out)
    print(f"embedding: {service.embedder.name or 'none'}; budgets {budgets[0]} and {budgets[1]} tokens", file=out)
    for name, found in pools(args.sets, args.data, args.zh_data, args.limit):
        tallies = {m: Tally() for m in METHODS}
        for pool in found:
            ranker = Ranker(service, pool)
            for method in METHODS:
                measure(ranker, method, budgets, tallies[method])
        report(name, tallies, budgets, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
