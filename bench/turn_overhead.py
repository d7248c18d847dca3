"""Server-side time per chat turn with an instant model, and storage operations per turn.

    .venv/bin/python bench/turn_overhead.py              # 200 turns on SQLite, 100 on DynamoDB/S3 (moto)
    .venv/bin/python bench/turn_overhead.py --turns 50

A turn is the real ChatService: store the person's message, update the heartbeat plan,
assemble the context (souls, core, mid-term, long-term index with retrieval, short-term),
call the model, split and store the reply, detect the topic's end. The model is an
in-process stand-in that answers at once, so the figures are our own overhead. The pair
carries a realistic memory: 5 core, 30 mid-term and 120 long-term memories.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import boto3
from moto import mock_aws

from dreamchat import keys
from dreamchat.adapters.blobs import DirectoryBlobStore, S3BlobStore
from dreamchat.adapters.dynamo_store import DynamoItemStore, create_table
from dreamchat.adapters.events import LocalEventBus, LocalWorkQueue
from dreamchat.adapters.runtime import ManualClock, SeededRandom
from dreamchat.adapters.sqlite_store import SqliteItemStore
from dreamchat.config import Settings
from dreamchat.domain.models import CoreMemory, EmotionTags, LongTermDetail, LongTermIndex, Message, MidTermMemory
from dreamchat.llm.port import Completion, TokenUsage
from dreamchat.ports import Put
from dreamchat.services.container import build_services
from dreamchat.services.storage.session import item
from dreamchat.wiring import Runtime

NOW = datetime(2026, 3, 15, 12, 0, tzinfo=UTC)
TAGS = EmotionTags(basic_emotion="开心", scene="闲聊", atmosphere="轻松")
LINES = ["今天去公园散步了", "晚饭吃了火锅", "最近在学吉他", "周末想去看电影", "工作有点忙"]


class InstantModel:
    """Answers every chat call at once with two lines."""

    def configured(self, key: str) -> bool:
        return True

    def complete(self, key: str, messages: list[dict[str, Any]], **_: Any) -> Completion:
        return Completion("听起来不错呀\n然后呢？", TokenUsage(0, 0))


class Counting:
    """Counts calls to every method of the wrapped store."""

    def __init__(self, inner: Any, counter: Counter[str], prefix: str) -> None:
        self._inner, self._counter, self._prefix = inner, counter, prefix

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._inner, name)
        if not callable(attribute):
            return attribute

        def counted(*args: Any, **kwargs: Any) -> Any:
            self._counter[f"{self._prefix}.{name}"] += 1
            return attribute(*args, **kwargs)

        return counted


def seed(services: Any, account: str, ai_user_id: str) -> None:
    """A pair some months into the relationship."""
    pair = services.ai_users.pair(account, ai_user_id)
    repo, pk = services.repo, keys.pair_pk(pair)
    cores = [
        CoreMemory(id=f"core_{i}", content=f"重要的事{i}", importance=8 + i % 3, created_at=1_700_000_000 + i)
        for i in range(5)
    ]
    puts = [Put(item((pk, keys.core(c.id)), c.model_dump()), if_absent=True) for c in cores]
    for i in range(30):
        mid = MidTermMemory(
            id=f"mid_{i:04d}",
            topic_id=f"topic_{i:04d}",
            summary=f"聊了{LINES[i % 5]}，很开心",
            emotion_tags=TAGS,
            message_count=10,
            created_at=1_700_000_000 + i * 3600,
            compression_ratio=0.8,
            extracted_to_long=True,
        )
        puts.append(Put(item((pk, keys.mid_term(mid.topic_id)), {**mid.model_dump(), "version": 1})))
    for i in range(120):
        said = Message(
            id=f"m{(1_700_000_000 + i * 86400) * 1_000_000:016d}000000",
            role="user",
            content=f"{LINES[i % 5]}，说来话长。",
            timestamp=1_700_000_000 + i * 86400,
            topic_id=f"topic_{i % 30:04d}",
        )
        puts.append(Put(item((keys.messages_pk(pair), said.id), said.model_dump())))  # the log keeps what was said
        entry = LongTermIndex(
            id=f"long_{i:04d}",
            title=f"{LINES[i % 5][:4]}{i}",
            key_points=[LINES[i % 5], f"第{i}次"],
            detail_file=f"2026-01-01_entry{i}.json",
            created_at=1_700_000_000 + i * 86400,
            sources=[said.id, ""],  # each key point anchored to its message, as extraction does
        )
        puts.append(
            Put(item((pk, keys.long_term(entry.id)), {**entry.model_dump(), "core_judged": True, "version": 1}))
        )
        repo.put_detail(
            pair,
            f"{keys.pair_blob_prefix(pair)}long_term_details/{entry.detail_file}",
            LongTermDetail(title=entry.title, detail_content=LINES[i % 5], source_mid_ids=[]),
        )
    for start in range(0, len(puts), 25):
        services.runtime.store.transact(puts[start : start + 25])


def run_turns(
    make_runtime: Callable[[ManualClock, Counter[str]], Runtime], turns: int
) -> tuple[list[float], Counter[str]]:
    counter: Counter[str] = Counter()
    clock = ManualClock(NOW)
    runtime = make_runtime(clock, counter)
    services = build_services(runtime, gateway=InstantModel())  # type: ignore[arg-type]
    ai_user = services.ai_users.create("bench-account", {"name": "小梦", "base_soul": "温柔的朋友"})
    pair = services.ai_users.pair("bench-account", ai_user.id)
    seed(services, "bench-account", ai_user.id)
    counter.clear()
    timings = []
    for i in range(turns):
        clock.advance(seconds=30)
        started = time.perf_counter()
        person = services.chat.accept(pair, ai_user, f"{LINES[i % 5]}，你觉得呢？")
        events = list(services.chat.respond(pair, ai_user, person))
        timings.append((time.perf_counter() - started) * 1000)
        assert events[-1].__class__.__name__ == "Done"
    return timings, counter


def local_runtime(folder: Path) -> Callable[[ManualClock, Counter[str]], Runtime]:
    def make(clock: ManualClock, counter: Counter[str]) -> Runtime:
        store = Counting(SqliteItemStore(folder / "bench.db", clock), counter, "store")
        blobs = Counting(DirectoryBlobStore(folder / "blobs"), counter, "blobs")
        bus = LocalEventBus()
        settings = Settings(data_dir=folder, run_scheduler=False)
        return Runtime(settings, store, blobs, bus, clock, SeededRandom(3), LocalWorkQueue(bus))  # type: ignore[arg-type]

    return make


def aws_runtime(folder: Path) -> Callable[[ManualClock, Counter[str]], Runtime]:
    def make(clock: ManualClock, counter: Counter[str]) -> Runtime:
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        create_table(dynamodb, "bench")
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="bench")
        store = Counting(DynamoItemStore(dynamodb, "bench", clock), counter, "store")
        blobs = Counting(S3BlobStore(s3, "bench"), counter, "blobs")
        bus = LocalEventBus()
        settings = Settings(data_dir=folder, run_scheduler=False)
        return Runtime(settings, store, blobs, bus, clock, SeededRandom(3), LocalWorkQueue(bus))  # type: ignore[arg-type]

    return make


def report(name: str, timings: list[float], counter: Counter[str], turns: int) -> None:
    ordered = sorted(timings)
    p95 = ordered[max(0, int(len(ordered) * 0.95) - 1)]
    reads = sum(v for k, v in counter.items() if k.split(".")[1] in ("get", "query", "query_due"))
    writes = sum(
        v for k, v in counter.items() if k.startswith("store.") and k.split(".")[1] not in ("get", "query", "query_due")
    )
    blob_reads = counter["blobs.get"]
    print(
        f"{name:<22} {statistics.median(timings):>8.2f} {p95:>8.2f} {reads / turns:>10.1f} {writes / turns:>10.1f} "
        f"{blob_reads / turns:>10.1f}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--aws-turns", type=int, default=100)
    args = parser.parse_args(argv)
    print("chat turn overhead (model time excluded), per turn")
    print(f"{'storage':<22} {'p50 ms':>8} {'p95 ms':>8} {'item reads':>10} {'item writes':>10} {'blob reads':>10}")
    with tempfile.TemporaryDirectory() as folder:
        timings, counter = run_turns(local_runtime(Path(folder)), args.turns)
        report("SQLite + directory", timings, counter, args.turns)
    with tempfile.TemporaryDirectory() as folder, mock_aws():
        timings, counter = run_turns(aws_runtime(Path(folder)), args.aws_turns)
        report("DynamoDB + S3 (moto)", timings, counter, args.aws_turns)
    print("moto runs in-process: its times show our code and the SDK, not DynamoDB's network latency.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
