"""How the heartbeat sweep scales, and what the sized workers get through.

    .venv/bin/python bench/heartbeat_sweep.py                  # 1 000 000 pairs, 10 000 due, SQLite
    .venv/bin/python bench/heartbeat_sweep.py --pairs 20000 --due 1000 5000

The pairs' heartbeat items are written through the item-store port exactly as the service
writes them (sharded sparse due index); the sweep is the real HeartbeatService.sweep with a
queue that only counts. Reads = due-index queries (pages) and items returned; each due pair is
also leased (a versioned write that also checks the pair's tombstone, so a two-item
transaction). DynamoDB units follow on-demand rules for these items (GSI reads are eventually
consistent: 0.5 RRU per 4 KB a query; a transaction's writes and checks 2 WRU per 1 KB each, the
GSI copy 1 WRU per 1 KB).

Workers: real heartbeat runs on SQLite with an instant model give our own time per run; a
worker's time per heartbeat is that plus the model's (infra/settings.py HEARTBEAT_SECONDS), and
the sized concurrency (infra/settings.py, from the expected pairs) gives the throughput.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a file (`.venv/bin/python bench/...`), not only with -m
    sys.path.insert(0, str(ROOT))

# E402 (the noqa below): these imports need the repo root on sys.path, which the lines above put there
from bench.capacity_units import item_bytes  # noqa: E402
from bench.turn_overhead import InstantModel  # noqa: E402
from dreamchat import keys  # noqa: E402
from dreamchat.adapters.blobs import DirectoryBlobStore  # noqa: E402
from dreamchat.adapters.dynamo_store import _encode  # noqa: E402
from dreamchat.adapters.events import LocalEventBus  # noqa: E402
from dreamchat.adapters.runtime import ManualClock, SeededRandom  # noqa: E402
from dreamchat.adapters.sqlite_store import SqliteItemStore  # noqa: E402
from dreamchat.config import Settings  # noqa: E402
from dreamchat.domain.heartbeat import person_wrote  # noqa: E402
from dreamchat.domain.models import PairId  # noqa: E402
from dreamchat.events import HeartbeatDue  # noqa: E402
from dreamchat.ports import DUE_PK, DUE_SK, Operation, Put  # noqa: E402
from dreamchat.services.container import build_services  # noqa: E402
from dreamchat.wiring import Runtime  # noqa: E402

NOW = datetime(2026, 3, 15, 12, 0, tzinfo=UTC)


class CountingStore:
    """Counts what the sweep reads from the due index and the leases it writes, with their DynamoDB units."""

    def __init__(self, inner: SqliteItemStore) -> None:
        self.inner = inner
        self.queries = 0
        self.items = 0
        self.rru = 0.0
        self.leases = 0
        self.wru = 0

    def query_due(self, *args: Any, **kwargs: Any) -> Any:
        page = self.inner.query_due(*args, **kwargs)
        self.queries += 1
        self.items += len(page.items)
        self.rru += 0.5 * max(1, math.ceil(sum(dynamo_bytes(i) for i in page.items) / 4096))
        return page

    def transact(self, operations: Sequence[Operation]) -> None:
        """The store's writes arrive here (the tombstone guard turns each into a transaction)."""
        factor = 1 if len(operations) == 1 else 2  # a transaction costs twice a single write
        for operation in operations:
            if isinstance(operation, Put):
                self.leases += operation.item.get("sk") == keys.HEARTBEAT_SK and operation.expected_version is not None
                kilobytes = max(1, math.ceil(dynamo_bytes(operation.item) / 1024))
                self.wru += factor * kilobytes + (kilobytes if DUE_PK in operation.item else 0)
            else:
                self.wru += factor
        self.inner.transact(operations)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def dynamo_bytes(item: dict[str, Any]) -> int:
    return item_bytes(_encode(item))


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
    rru: float
    leases: int
    wru: int
    enqueued: int
    seconds: float


def populate(store: SqliteItemStore, pairs: int, due: int) -> None:
    """Heartbeat items: `due` pairs due within the last minutes, the rest due in the future."""
    batch: list[Put] = []
    for i in range(pairs):
        pair = PairId(account_id=f"acct{i:07d}", ai_user_id="ai_bench")
        at = NOW - timedelta(seconds=i % 600) if i < due else NOW + timedelta(minutes=1 + i % 10_000)
        item = {
            "pk": keys.pair_pk(pair),
            "sk": keys.HEARTBEAT_SK,
            "next_due": int(at.timestamp()),
            "last_person_at": int((NOW - timedelta(days=1)).timestamp()),
            DUE_PK: keys.due_partition(keys.HEARTBEAT_DUE_KIND, keys.shard(pair)),
            DUE_SK: keys.due_sort(keys.due_time(at), keys.pair_pk(pair)),
            "version": 1,
        }
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
    again = services.heartbeat.sweep()
    assert again.due == 0, "a second sweep must find every due pair leased"
    sqlite.close()
    return Figures(
        pairs, result.due, store.queries, store.items, store.rru, store.leases, store.wru, queue.sent, seconds
    )


def worker_seconds(folder: Path, runs: int) -> float:
    """Our own time per heartbeat run (instant model), median over `runs` real due pairs."""
    clock = ManualClock(NOW)
    store = SqliteItemStore(folder / "workers.db", clock)
    bus = LocalEventBus()
    settings = Settings(data_dir=folder, run_scheduler=False, heartbeat_quiet_minutes=0)
    queue = Captured()
    runtime = Runtime(settings, store, DirectoryBlobStore(folder / "blobs"), bus, clock, SeededRandom(1), queue)
    services = build_services(runtime, gateway=InstantModel())  # type: ignore[arg-type]
    for i in range(runs):
        ai_user = services.ai_users.create(f"acct{i}", {"name": f"AI{i}"})
        pair = services.ai_users.pair(f"acct{i}", ai_user.id)
        relationship = services.repo.relationship(pair)
        services.heartbeat_states.change(
            pair, ai_user, relationship, lambda s: person_wrote(s, NOW - timedelta(days=4))
        )
    services.heartbeat.sweep()
    timings = []
    for work in queue.items:
        started = time.perf_counter()
        assert services.heartbeat.run(HeartbeatDue.from_detail(work)).status == "sent"
        timings.append(time.perf_counter() - started)
    store.close()
    return statistics.median(timings)


class Captured:
    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def send(self, items: list[dict[str, Any]]) -> None:
        self.items += items


def report_workers(own: float, due: int) -> None:
    os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")  # aws_cdk's banner says nothing here
    from infra.settings import DEFAULTS, HEARTBEAT_SECONDS, HEARTBEATS_PER_PAIR_PER_DAY, worker_concurrency

    each = HEARTBEAT_SECONDS + own
    print(
        f"\nheartbeat workers: our own time per run {own * 1000:.1f} ms (SQLite, instant model); "
        f"with the model's {HEARTBEAT_SECONDS} s: {each:.2f} s per heartbeat"
    )
    print(
        f"{'active pairs':>13} {'concurrency':>12} {'heartbeats/min':>15} {'per day':>11} {'due/day':>11} "
        f"{'10k due drained':>16}"
    )
    sizes = [("dev", DEFAULTS["dev"].active_pairs), ("prod", DEFAULTS["prod"].active_pairs), ("1 M", 1_000_000)]
    for _, pairs in sizes:
        concurrency = worker_concurrency(pairs, HEARTBEATS_PER_PAIR_PER_DAY, HEARTBEAT_SECONDS)
        per_minute = concurrency * 60 / each
        print(
            f"{pairs:>13,} {concurrency:>12} {per_minute:>15,.0f} {per_minute * 1440:>11,.0f} "
            f"{pairs * HEARTBEATS_PER_PAIR_PER_DAY:>11,} {due / per_minute:>14.1f} m"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, nargs="+", default=[1_000_000])
    parser.add_argument("--due", type=int, nargs="+", default=[10_000])
    parser.add_argument("--worker-runs", type=int, default=50)
    args = parser.parse_args(argv)
    print("heartbeat sweep on SQLite (local adapter), 16 due-index shards; DynamoDB units for the same items")
    print(
        f"{'pairs':>9} {'due':>7} {'queries':>8} {'items read':>11} {'GSI RRU':>8} {'leases':>7} {'lease WRU':>10} "
        f"{'enqueued':>9} {'sweep ms':>9}"
    )
    with tempfile.TemporaryDirectory() as folder:
        for pairs in args.pairs:
            for due in args.due:
                f = measure(pairs, min(due, pairs), Path(folder))
                print(
                    f"{f.pairs:>9} {f.due:>7} {f.queries:>8} {f.items:>11} {f.rru:>8.1f} {f.leases:>7} {f.wru:>10} "
                    f"{f.enqueued:>9} {f.seconds * 1000:>9.1f}"
                )
        print("items read equal the due pairs; queries are one per shard plus one per further 100 due in a shard;")
        print("neither grows with the pairs that are not due. A second sweep right after enqueues nothing (leased).")
        report_workers(worker_seconds(Path(folder), args.worker_runs), max(args.due))
    return 0


if __name__ == "__main__":
    sys.exit(main())
