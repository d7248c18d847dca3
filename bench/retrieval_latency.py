"""Retrieval time per turn at 1 k and 20 k memory units in one pair (CPU; the query embedding excluded).

A pair's units (LoCoMo facts, repeated with a number to make them distinct) with random unit vectors
of the embedding's size; per turn: the hybrid search (BM25 + cosine, fused) and the budgeted context
plan, from units already read, with the prepared index warm (as in a warm Lambda or the local
server) and, separately, the first turn that prepares it. The query embedding is one API call per
turn, timed apart for the local model when it is installed.

    .venv/bin/python bench/retrieval_latency.py [--dims 1024] [--turns 50]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from zoneinfo import ZoneInfo

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# E402 (the noqa below): these imports need the repo root on sys.path, which the lines above put there
from bench.locomo import DEFAULT_DATA, load  # noqa: E402
from dreamchat.adapters.embeddings import LocalEmbedder, local_model_installed  # noqa: E402
from dreamchat.config import Settings  # noqa: E402
from dreamchat.domain import vectors as vec  # noqa: E402
from dreamchat.domain.log_units import LOG_MESSAGES, index_units, log_units, search_units  # noqa: E402
from dreamchat.domain.models import LongTermIndex, PairId  # noqa: E402
from dreamchat.llm.chat_context import MemoryView, plan_memory  # noqa: E402
from dreamchat.services.recall import RecallService  # noqa: E402

PAIR = PairId(account_id="acc_bench", ai_user_id="ai_bench")
BUDGET = 1700  # DREAMCHAT_MEMORY_TOKENS
POINTS = 10  # key points per memory


class FixedEmbedder:
    """Answers instantly with a fixed random vector: the embedding call is not what is timed."""

    kind = "api"

    def __init__(self, dims: int) -> None:
        self.name = f"api:bench@{dims}"
        self._vector = np.random.default_rng(1).normal(size=dims).astype(np.float32)

    def embed(self, texts, *, query: bool) -> np.ndarray:
        return np.tile(self._vector, (len(texts), 1))


def pair_memories(count: int, facts: list[str], dims: int, name: str):
    """`count` units: memories of POINTS key points each, with their stored int8 vectors."""
    rng = np.random.default_rng(7)
    entries, stored = [], {}
    for start in range(0, count, POINTS):
        points = [f"{facts[n % len(facts)]} ({n})" for n in range(start, min(start + POINTS, count))]
        entry = LongTermIndex(
            id=f"long_{start:07d}",
            title=f"memory {start // POINTS}",
            key_points=points,
            detail_file=f"{start}.json",
            created_at=1_600_000_000 + start * 600,
        )
        entries.append(entry)
        stored[entry.id] = vec.store(name, points, rng.normal(size=(len(points), dims)))
    return entries, stored


def turn(retriever: RecallService, entries, stored, question: str, budget: int, log=()) -> tuple[float, float]:
    """One turn's retrieval as `ContextService.context` runs it, from memories and log messages already
    read (the log's fact sentences cut, indexed and searched every turn, as the service does):
    (wall ms, CPU ms of this process)."""
    started, cpu = time.perf_counter(), time.process_time()
    search_units(index_units(log_units(list(log))), question)
    found = retriever.find(PAIR, entries, [], stored, question)
    plan_memory(MemoryView("", "", [], [], found.hits, found.units, [], []), budget, ZoneInfo("UTC"))
    return (time.perf_counter() - started) * 1000, (time.process_time() - cpu) * 1000


def p95(values: list[float]) -> float:
    return values[int(0.95 * (len(values) - 1))]


def main(argv: list[str] | None = None, out=None) -> int:
    out = out or sys.stdout
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--dims", type=int, default=1024, help="vector size (text-embedding-v4: 1024)")
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 20000])
    args = parser.parse_args(argv)
    dialogues = load(args.data)
    facts = [f.text for d in dialogues for s in d.sessions for f in s.facts]
    questions = [q.question for d in dialogues for q in d.questions][: args.turns]
    said = [t.text for d in dialogues[:1] for s in d.sessions for t in s.turns if t.role == "user"]
    log = [(f"m{n:05d}", 1_600_000_000 + n, text) for n, text in enumerate(said[-LOG_MESSAGES:])]
    print("# Retrieval latency per turn (bench/retrieval_latency.py)", file=out)
    print(
        f"vectors: {args.dims} dims, int8 in the item; {args.turns} turns (LoCoMo questions); memory budget {BUDGET}; "
        f"search + budget plan from units already read, and the log's units from {len(log)} of the person's "
        "messages already read (cut, indexed, searched), query embedding excluded",
        file=out,
    )
    print(
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (wall times grow with load; CPU times do not)",
        file=out,
    )
    print(
        f"{'units':>7} {'first turn ms':>13} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7} {'CPU p50 ms':>10} "
        f"{'CPU p95 ms':>10}",
        file=out,
    )
    for size in args.sizes:
        embedder = FixedEmbedder(args.dims)
        retriever = RecallService(embedder)
        entries, stored = pair_memories(size, facts, args.dims, embedder.name)
        first, _ = turn(retriever, entries, stored, questions[0], BUDGET, log)
        measured = [turn(retriever, entries, stored, q, BUDGET, log) for q in questions]
        wall, cpu = sorted(m[0] for m in measured), sorted(m[1] for m in measured)
        print(
            f"{size:>7} {first:>13.1f} {statistics.median(wall):>7.1f} {p95(wall):>7.1f} {wall[-1]:>7.1f} "
            f"{statistics.median(cpu):>10.1f} {p95(cpu):>10.1f}",
            file=out,
        )
    if local_model_installed() and Settings().embedding_provider != "none":
        local = LocalEmbedder()
        local.embed(["warm up"], query=True)
        times = []
        for q in questions[:20]:
            started = time.perf_counter()
            local.embed([q], query=True)
            times.append((time.perf_counter() - started) * 1000)
        print(
            f"query embedding, local model ({local.name}, one thread): p50 {statistics.median(times):.1f} ms", file=out
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
