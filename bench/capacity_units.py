"""DynamoDB read and write units per chat turn, compression, extraction and heartbeat, on the
real services over DynamoDB (moto), for the cost model in docs/deploy.md.

    .venv/bin/python bench/capacity_units.py              # 40 turns, then one of each background step
    .venv/bin/python bench/capacity_units.py --turns 10

Every DynamoDB call goes through a meter that charges it as on-demand DynamoDB does: a
strongly consistent read 1 RRU per 4 KB (eventually consistent and GSI reads half), at least
one unit per call; a write 1 WRU per 1 KB, plus the same again when the item carries the
sparse `due` index's attributes (the GSI copy); a transaction twice that. Item sizes follow
DynamoDB's rules (names + values). The pair carries a realistic memory (bench/turn_overhead.py).
Powertools idempotency records are not in these steps: 2 WRU per background record (docs).
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a file (`.venv/bin/python bench/...`), not only with -m
    sys.path.insert(0, str(ROOT))

# E402 (the noqa below): these imports need the repo root on sys.path, which the lines above put there
import boto3  # noqa: E402
from moto import mock_aws  # noqa: E402

from bench.turn_overhead import NOW, InstantModel, seed  # noqa: E402
from dreamchat.adapters.blobs import S3BlobStore  # noqa: E402
from dreamchat.adapters.dynamo_store import DynamoItemStore, create_table  # noqa: E402
from dreamchat.adapters.events import LocalEventBus  # noqa: E402
from dreamchat.adapters.runtime import ManualClock, SeededRandom  # noqa: E402
from dreamchat.config import Settings  # noqa: E402
from dreamchat.domain.heartbeat import person_wrote  # noqa: E402
from dreamchat.events import ExtractionDue, HeartbeatDue  # noqa: E402
from dreamchat.ports import DUE_PK  # noqa: E402
from dreamchat.services.container import Services, build_services  # noqa: E402
from dreamchat.wiring import Runtime  # noqa: E402

LINES = ["今天去公园散步了，你呢", "晚饭吃了火锅，好辣", "最近在学吉他，手好疼", "周末想去看电影", "工作有点忙"]


def value_bytes(value: dict[str, Any]) -> int:
    """The size of one DynamoDB JSON value, by DynamoDB's item-size rules."""
    ((kind, inner),) = value.items()
    if kind == "S":
        return len(inner.encode())
    if kind == "N":
        return math.ceil(len(inner.lstrip("-").replace(".", "")) / 2) + 1
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "L":
        return 3 + sum(1 + value_bytes(v) for v in inner)
    if kind == "M":
        return 3 + sum(1 + len(k.encode()) + value_bytes(v) for k, v in inner.items())
    return len(inner)


def item_bytes(item: dict[str, Any]) -> int:
    return sum(len(name.encode()) + value_bytes(value) for name, value in item.items())


@dataclass
class Meter:
    """Wraps the boto3 DynamoDB client; counts read and write units and calls."""

    client: Any
    rru: float = 0.0
    wru: float = 0.0
    calls: Counter[str] = field(default_factory=Counter)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)

    def get_item(self, **request: Any) -> Any:
        response = self.client.get_item(**request)
        self._read("GetItem", [response.get("Item", {})], request.get("ConsistentRead", False))
        return response

    def query(self, **request: Any) -> Any:
        response = self.client.query(**request)
        consistent = request.get("ConsistentRead", False) and "IndexName" not in request
        self._read("Query", response.get("Items", []), consistent)
        return response

    def put_item(self, **request: Any) -> Any:
        self._write("PutItem", request["Item"], 1)
        return self.client.put_item(**request)

    def delete_item(self, **request: Any) -> Any:
        self.calls["DeleteItem"] += 1
        self.wru += 1
        return self.client.delete_item(**request)

    def transact_write_items(self, **request: Any) -> Any:
        for entry in request["TransactItems"]:
            ((kind, body),) = entry.items()
            self._write("TransactWriteItems item", body.get("Item", body.get("Key", {})), 2)
        self.calls["TransactWriteItems"] += 1
        return self.client.transact_write_items(**request)

    def _read(self, call: str, items: list[dict[str, Any]], consistent: bool) -> None:
        units = max(1, math.ceil(sum(item_bytes(i) for i in items) / 4096))
        self.rru += units * (1 if consistent else 0.5)
        self.calls[call] += 1

    def _write(self, call: str, item: dict[str, Any], factor: int) -> None:
        units = max(1, math.ceil(item_bytes(item) / 1024))
        indexed = units if DUE_PK in item else 0  # the sparse GSI holds a copy of the item
        self.wru += units * factor + indexed
        self.calls[call] += 1

    def take(self) -> tuple[float, float, Counter[str]]:
        figures = (self.rru, self.wru, self.calls)
        self.rru, self.wru, self.calls = 0.0, 0.0, Counter()
        return figures


def build(folder: Path) -> tuple[Services, Meter, ManualClock]:
    clock = ManualClock(NOW)
    dynamodb = boto3.client("dynamodb", region_name="us-east-1")
    create_table(dynamodb, "bench")
    s3 = boto3.client("s3", region_name="us-east-1")
    s3.create_bucket(Bucket="bench")
    meter = Meter(dynamodb)
    settings = Settings(data_dir=folder, run_scheduler=False, heartbeat_quiet_minutes=0)
    runtime = Runtime(
        settings,
        DynamoItemStore(meter, "bench", clock),
        S3BlobStore(s3, "bench"),
        LocalEventBus(),
        clock,
        SeededRandom(3),
        queue=Captured(),
        extract_queue=Captured(),
    )
    return build_services(runtime, gateway=InstantModel()), meter, clock  # type: ignore[arg-type]


class Captured:
    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def send(self, items: list[dict[str, Any]]) -> None:
        self.items += items


def measure(turns: int) -> list[tuple[str, float, float, Counter[str]]]:
    rows = []
    with tempfile.TemporaryDirectory() as folder, mock_aws():
        services, meter, clock = build(Path(folder))
        ai_user = services.ai_users.create("bench-account", {"name": "小梦", "base_soul": "温柔的朋友"})
        pair = services.ai_users.pair("bench-account", ai_user.id)
        seed(services, "bench-account", ai_user.id)
        while services.vectors.refresh(pair):  # seeded as written before embeddings: steady state has vectors
            pass
        meter.take()
        for i in range(turns):
            clock.advance(seconds=30)
            person = services.chat.accept(pair, ai_user, LINES[i % 5])
            list(services.chat.respond(pair, ai_user, person))
        rru, wru, calls = meter.take()
        rows.append(("chat turn", rru / turns, wru / turns, Counter({k: v / turns for k, v in calls.items()})))
        topic = services.repo.topic_state(pair).topic_id
        services.topics.end_topic(pair, topic)
        meter.take()
        services.compression.compress(pair, topic)
        rows.append(("compression", *meter.take()))
        clock.advance(hours=25)
        services.extraction.sweep()
        rows.append(("extraction sweep, per pair", *meter.take()))
        [work] = services.extraction._queue.items  # noqa: SLF001 - the captured work item
        services.extraction.run(ExtractionDue.from_detail(work))
        rows.append(("extraction worker, per pair", *meter.take()))
        services.heartbeat_states.change(
            pair,
            ai_user,
            services.repo.relationship(pair),
            lambda s: person_wrote(s, clock.now() - timedelta(days=4)),
        )
        meter.take()
        services.heartbeat.sweep()
        rows.append(("heartbeat sweep, per due pair", *meter.take()))
        [due] = services.heartbeat._queue.items  # noqa: SLF001 - the captured work item
        outcome = services.heartbeat.run(HeartbeatDue.from_detail(due))
        assert outcome.status == "sent", outcome
        rows.append(("heartbeat worker, per run", *meter.take()))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=40)
    args = parser.parse_args(argv)
    print("DynamoDB units (on-demand rules) per step, on the real services over moto")
    print(f"{'step':<30} {'RRU':>7} {'WRU':>7}  calls")
    for name, rru, wru, calls in measure(args.turns):
        shown = ", ".join(f"{k} {v:.1f}".replace(".0", "") for k, v in sorted(calls.items()))
        print(f"{name:<30} {rru:>7.1f} {wru:>7.1f}  {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
