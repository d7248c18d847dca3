"""Evidence recall with every tuned constant chosen leave-one-conversation-out, per conversation.

Each LoCoMo conversation is replayed once through the real services (`context_tokens.Replay`: local
storage, scripted memories, the embedding provider named), then every combination of the constants
in the grid is set and every question of categories 1-4 asked, scored by `context_tokens`'s rules
(a question counts when every evidence fact is in the context; answer-in-context likewise). For each
conversation, the combination with the best pooled evidence recall on the OTHER conversations (ties:
multi-hop, then answer-in-context, then the shipped value) is chosen and measured on it: the held-out
figures, pooled, are what the constants are worth on a conversation they were not chosen on. The
shipped defaults' figures are printed beside them, per conversation, with their spread.

    .venv/bin/python bench/recall_loo.py --embedding local [--grid NAME=V1,V2 ...] [--only ...] [--limit N]
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# E402: these imports need the repo root on sys.path, which the lines above put there
from bench.context_tokens import Options, Replay, memory_lines, select  # noqa: E402
from bench.embedding_cache import cached  # noqa: E402
from bench.locomo import (  # noqa: E402
    DEFAULT_DATA,
    QA_CATEGORIES,
    Dialogue,
    answer_present,
    content_words,
    fact_present,
    load,
    sentences,
)
from dreamchat.adapters.embeddings import build_embedder  # noqa: E402
from dreamchat.config import Settings  # noqa: E402
from dreamchat.domain import retrieval as retrieval_module  # noqa: E402
from dreamchat.llm import chat_context as context_module  # noqa: E402

MODULES = {"retrieval": retrieval_module, "context": context_module}
DAY = 86400
# Every constant the retrieval passes tuned, with the values tried (the shipped one among them).
GRID: dict[str, list[float]] = {
    "retrieval.WORDS_SHARE": [0.02, 0.03, 0.05],
    "retrieval.TIME_SHARE": [0.05, 0.1],
    "context.MID_SUMMARY_TOKENS": [40, 70, 100],
    "context.QUOTE_SHARE": [0.05, 0.1, 0.15],
    "context.UNSURE_SHARE": [0.5, 0.7, 0.9],
    "retrieval.PARENT_WEIGHT": [0.1, 0.3],
}
# PERIOD_SLACK (0, 2 or 7 days) was chosen in an earlier pass of this bench (7 days on 4 of 5 held-out
# conversations); `--grid retrieval.PERIOD_SLACK=0,172800,604800` puts it back in (3x the time).
MULTI_HOP = 1


@dataclass(frozen=True)
class Score:
    """Counts over questions: every evidence fact found, multi-hop ones, answer in the context, tokens."""

    questions: int = 0
    found: int = 0
    multi_hop: int = 0
    multi_hop_found: int = 0
    answers: int = 0
    tokens: int = 0

    def __add__(self, other: Score) -> Score:
        return Score(*(a + b for a, b in zip(self.row(), other.row(), strict=True)))

    def row(self) -> tuple[int, ...]:
        return (self.questions, self.found, self.multi_hop, self.multi_hop_found, self.answers, self.tokens)

    @property
    def recall(self) -> float:
        return self.found / self.questions if self.questions else 0.0

    @property
    def multi(self) -> float:
        return self.multi_hop_found / self.multi_hop if self.multi_hop else 0.0

    @property
    def answer(self) -> float:
        return self.answers / self.questions if self.questions else 0.0

    @property
    def per_question(self) -> float:
        return self.tokens / self.questions if self.questions else 0.0

    def key(self) -> tuple[float, float, float]:
        return (self.found / max(self.questions, 1), self.multi, self.answer)


def score(replay: Replay, dialogue: Dialogue) -> Score:
    """Every question of categories 1-4 with evidence facts, asked as the current message."""
    total = Score()
    for question in dialogue.questions:
        facts = dialogue.evidence_facts(question) if question.category in QA_CATEGORIES else []
        if not facts:
            continue
        context = replay.ours(question.question)
        lines = memory_lines(context)
        pools = [set(content_words(line)) for line in lines]
        found = all(fact_present(f.text, lines, pools) for f in facts)
        multi = question.category == MULTI_HOP
        answer = answer_present(question.answer, sentences(lines))
        total += Score(1, int(found), int(multi), int(multi and found), int(answer), context.tokens)
    return total


def apply(names: list[str], values: tuple[float, ...]) -> None:
    for name, value in zip(names, values, strict=True):
        module, attr = name.split(".")
        current = getattr(MODULES[module], attr)
        setattr(MODULES[module], attr, type(current)(value))


def shipped(names: list[str]) -> tuple[float, ...]:
    return tuple(getattr(MODULES[n.split(".")[0]], n.split(".")[1]) for n in names)


def spread(values: list[float]) -> str:
    low, high = min(values), max(values)
    sd = statistics.pstdev(values) if len(values) > 1 else 0.0
    return f"min {100 * low:.1f}%  max {100 * high:.1f}%  range {100 * (high - low):.1f}  sd {100 * sd:.1f}"


def table(title: str, rows: list[tuple[str, Score, str]], out) -> None:
    print(f"\n## {title}", file=out)
    print(
        f"{'conversation':>12} {'questions':>9} {'recall':>7} {'multi-hop':>9} {'answer':>7} {'tokens':>7}  chosen",
        file=out,
    )
    for name, s, note in rows:
        print(
            f"{name:>12} {s.questions:>9} {100 * s.recall:>6.1f}% {100 * s.multi:>8.1f}% {100 * s.answer:>6.1f}% "
            f"{s.per_question:>7.0f}  {note}",
            file=out,
        )
    pooled = sum((s for _, s, _ in rows), Score())
    print(
        f"{'all':>12} {pooled.questions:>9} {100 * pooled.recall:>6.1f}% {100 * pooled.multi:>8.1f}% "
        f"{100 * pooled.answer:>6.1f}% {pooled.per_question:>7.0f}",
        file=out,
    )
    for label, attr in (("recall", "recall"), ("multi-hop", "multi"), ("answer", "answer")):
        print(f"{'spread':>12} {label:>9}: {spread([getattr(s, attr) for _, s, _ in rows])}", file=out)


def parse_grid(overrides: list[str]) -> dict[str, list[float]]:
    grid = dict(GRID)
    for item in overrides:
        name, _, values = item.partition("=")
        if name.split(".")[0] not in MODULES or not hasattr(MODULES[name.split(".")[0]], name.split(".")[-1]):
            raise SystemExit(f"--grid: unknown constant {name}")
        grid[name] = [float(v) for v in values.split(",") if v]
        if not grid[name]:
            del grid[name]  # NAME= fixes the constant at its shipped value
    return grid


def main(argv: list[str] | None = None, out=None) -> int:
    out = out or sys.stdout
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=None, help="first N conversations")
    parser.add_argument("--sessions", type=int, default=None, help="first N sessions of each")
    parser.add_argument("--only", default=None, help="these conversations (sample ids, comma-separated)")
    parser.add_argument("--embedding", choices=["auto", "local", "api", "none"], default=None)
    parser.add_argument("--embedding-cache", default=None, help="embeddings cache file, or 'off'")
    parser.add_argument("--memory-tokens", type=int, default=None)
    parser.add_argument(
        "--grid", action="append", default=[], help="NAME=V1,V2 (e.g. retrieval.WORDS_SHARE=0.02,0.05); NAME= drops it"
    )
    args = parser.parse_args(argv)
    embedding = args.embedding or Settings(storage="local").embedding_provider
    embedder = cached(build_embedder(Settings(storage="local", embedding_provider=embedding)), args.embedding_cache)
    dialogues = select(load(args.data, limit=args.limit, sessions=args.sessions), args.only)
    grid = parse_grid(args.grid)
    names = list(grid)
    default = shipped(names)
    combos = list(itertools.product(*grid.values()))
    combos += [] if default in combos else [default]
    print("# Evidence recall, constants chosen leave-one-conversation-out (bench/recall_loo.py)", file=out)
    print(f"data: {args.data.name}, {len(dialogues)} conversations; embedding: {embedder.name or 'none'}", file=out)
    print(f"grid ({len(combos)} combinations): " + "; ".join(f"{n} {v}" for n, v in grid.items()), file=out)
    print("shipped: " + ", ".join(f"{n}={v}" for n, v in zip(names, default, strict=True)), file=out)
    started = time.perf_counter()
    scores: dict[tuple[float, ...], dict[str, Score]] = {c: {} for c in combos}
    with tempfile.TemporaryDirectory(prefix="dreamchat-loo-") as tmp:
        options = Options(args.memory_tokens, embedding, "scripted", embedder)
        replays = []
        try:
            for n, dialogue in enumerate(dialogues):
                replay = Replay(dialogue, Path(tmp) / str(n), options)
                replays.append(replay)
                for session in dialogue.sessions:
                    replay.play(session)
            print(f"replayed in {time.perf_counter() - started:.0f} s", file=out)
            for combo in combos:
                apply(names, combo)
                for replay, dialogue in zip(replays, dialogues, strict=True):
                    scores[combo][dialogue.sample_id] = score(replay, dialogue)
        finally:
            apply(names, default)
            for replay in replays:
                replay.close()
    ids = [d.sample_id for d in dialogues]
    ranked = sorted(combos, key=lambda c: sum((scores[c][i] for i in ids), Score()).key(), reverse=True)
    print("\n## Every combination on all conversations pooled (in-sample; best 10 and the shipped one)", file=out)
    for combo in [*ranked[:10], *([] if default in ranked[:10] else [default])]:
        pooled = sum((scores[combo][i] for i in ids), Score())
        label = ", ".join(f"{n.split('.')[1]}={v:g}" for n, v in zip(names, combo, strict=True))
        print(
            f"{100 * pooled.recall:5.1f}% multi-hop {100 * pooled.multi:5.1f}% answer {100 * pooled.answer:5.1f}% "
            f"tokens {pooled.per_question:5.0f}  {label}{'  (shipped)' if combo == default else ''}",
            file=out,
        )
    table("Shipped constants, per conversation", [(i, scores[default][i], "") for i in ids], out)
    rows, chosen = [], Counter()
    for held in ids:
        others = [i for i in ids if i != held] or ids

        def on_others(combo: tuple[float, ...], others: list[str] = others) -> tuple[float, ...]:
            pooled = sum((scores[combo][i] for i in others), Score())
            return (*pooled.key(), sum(a == b for a, b in zip(combo, default, strict=True)))

        best = max(combos, key=on_others)
        chosen.update(f"{n}={v:g}" for n, v in zip(names, best, strict=True))
        changed = ", ".join(f"{n.split('.')[1]}={v:g}" for n, v, d in zip(names, best, default, strict=True) if v != d)
        rows.append((held, scores[best][held], changed or "(the shipped values)"))
    table("Leave one conversation out: constants chosen on the others, measured on it", rows, out)
    best_all = max(combos, key=lambda c: (*sum((scores[c][i] for i in ids), Score()).key(),))
    print(
        "\nhow often each value was chosen: " + ", ".join(f"{k} {v}/{len(ids)}" for k, v in sorted(chosen.items())),
        file=out,
    )
    print(
        "best on all conversations together (in-sample, for comparison): "
        + ", ".join(f"{n}={v:g}" for n, v in zip(names, best_all, strict=True))
        + f" -> {100 * sum((scores[best_all][i] for i in ids), Score()).recall:.1f}%",
        file=out,
    )
    print(f"\nelapsed: {time.perf_counter() - started:.1f} s", file=out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
