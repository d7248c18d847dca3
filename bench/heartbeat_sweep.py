"""How the heartbeat sweep scales: storage reads and time for N pairs of which D are due.

    .venv/bin/python bench/heartbeat_sweep.py                  # 100 000 pairs, 1 000 due, SQLite
    .venv/bin/python bench/heartbeat_sweep.py --pairs 20000 --due 1000 5000

The pairs' heartbeat items are written through the item-store port exactly as the service
writes them (sharded sparse due index); the sweep is the real HeartbeatService.sweep with a
queue that only counts. Reads = due-index queries (pages) and items returned.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from dreamchat import keys
from dreamchat.adapters.events import LocalEventBus
from dreamchat.adapters.runtime import ManualClock, SeededRandom
from dreamchat.adapters.sqlite_store import SqliteItemStore
from dreamchat.config import Settings
from dreamchat.domain.models import PairId
from dreamchat.ports import DUE_PK, DUE_SK, Put
from dreamchat.services.container import build_services
from dreamchat.services.heartbeat_state import HEARTBEAT_DUE, due_key
from dreamchat.wiring import Runtime

NOW = datetime(2026, 3, 15, 12, 0, tzinfo=UTC)


class CountingStore:
    """Counts what the sweep reads from the due index."""

    def __init__(self, inner: SqliteItemStore) -> None:
        self.inner = inner
        self.queries = 0
        self.items = 0

    def query_due(self, *args: Any, **kwargs: Any) -> Any:
        page = self.inner.query_due(*args, **kwargs)
        self.queries += 1
        self.items += len(page.items)
        return page

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class CountingQueue:
    def __init__(self) -> None:
        self.sent = 0

    def send(self, items: list[dict[str, Any]]) -> None:
        self.sent += len(items)


@dataclass
class Figures:
    pairs: int
    due: int
    queries: int
    items: int
    enqueued: int
    seconds: float


def populate(store: SqliteItemStore, pairs: int, due: int) -> None:
    """Heartbeat items: `due` pairs due within the last minutes, the rest due in the future."""
    batch: list[Put] = []
    for i in range(pairs):
        pair = PairId(account_id=f"acct{i:07d}", ai_user_id="ai_bench")
        at = NOW - timedelta(seconds=i % 600) if i < due else NOW + timedelta(minutes=1 + i % 10_000)
        item = {"pk": keys.pair_pk(pair), "sk": keys.HEARTBEAT_SK, "next_due": int(at.timestamp()),
                DUE_PK: keys.due_partition(HEARTBEAT_DUE, keys.shard(pair)),
                DUE_SK: f"{due_key(at)}#{keys.pair_pk(pair)}", "version": 1}
        batch.append(Put(item))
        if len(batch) == 25:
            store.transact(batch)
            batch = []
    if batch:
        store.transact(batch)


def measure(pairs: int, due: int, folder: Path) -> Figures:
    clock = ManualClock(NOW)
    sqlite = SqliteItemStore(folder / f"bench-{pairs}-{due}.db", clock)
    populate(sqlite, pairs, due)
    store, queue = CountingStore(sqlite), CountingQueue()
    settings = Settings(data_dir=folder, run_scheduler=False)
    runtime = Runtime(settings, store, None, LocalEventBus(), clock, SeededRandom(1), queue)  # type: ignore[arg-type]
    services = build_services(runtime)
    started = time.perf_counter()
    result = services.heartbeat.sweep()
    seconds = time.perf_counter() - started
    sqlite.close()
    return Figures(pairs, result.due, store.queries, store.items, queue.sent, seconds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--due", type=int, nargs="+", default=[1_000])
    args = parser.parse_args(argv)
    print("heartbeat sweep on SQLite (local adapter), 16 due-index shards")
    print(f"{'pairs':>9} {'due':>7} {'index queries':>14} {'items read':>11} {'enqueued':>9} {'sweep ms':>9}")
    with tempfile.TemporaryDirectory() as folder:
        for pairs in args.pairs:
            for due in args.due:
                f = measure(pairs, min(due, pairs), Path(folder))
                print(f"{f.pairs:>9} {f.due:>7} {f.queries:>14} {f.items:>11} {f.enqueued:>9} {f.seconds * 1000:>9.1f}")
    print("items read equal the due pairs; index queries are one per shard (one more per further 100 due in a shard):")
    print("neither grows with the pairs that are not due.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
