"""Time of a memory import per 100 long-term entries, and the embeddings calls it makes.

A document of N long-term entries (three key points each, a detail document each), N/4 mid-term
memories and 2N messages is imported with `POST /api/ai-users/{id}/memory/import?replace=true`
through the app (TestClient) on SQLite and a directory, with the embeddings API as the `embedding`
role: a loopback OpenAI-compatible server that answers each call after `--latency-ms` (a nearby
provider; DashScope's text-embedding-v4 takes 10 texts a call, `--batch`). Printed per size: the
request's time, per 100 entries, the embeddings calls the request made, the memories it gave
vectors and those it left owed (then made by the healing the extraction sweep runs, timed apart).

    .venv/bin/python bench/import_memory.py [--sizes 100 400] [--latency-ms 50] [--batch 10]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "shared"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

# E402 (the noqa below): these imports need the repo root on sys.path, which the lines above put there
from fastapi.testclient import TestClient  # noqa: E402

from dreamchat.adapters.runtime import ManualClock, SeededRandom  # noqa: E402
from dreamchat.api.app import create_app  # noqa: E402
from dreamchat.config import Settings  # noqa: E402
from dreamchat.domain.ids import message_id  # noqa: E402
from dreamchat.domain.models import PairId  # noqa: E402
from dreamchat.wiring import build_runtime  # noqa: E402
from tests.fakes.fake_llm import FakeLLMServer, Reply  # noqa: E402

NOW = datetime(2026, 3, 15, 12, 0, tzinfo=UTC)
TAGS = {"basic_emotion": "开心", "scene": "闲聊", "atmosphere": "轻松"}
POINTS = ["周末和朋友去爬了香山，看到了满山的红叶", "下山的时候在路边吃了一碗热乎乎的豆腐脑", "约好明年秋天再一起去"]


def document(entries: int) -> dict[str, Any]:
    """A memory export with `entries` long-term entries, a quarter as many mid-term memories, 2 × entries messages."""
    start = NOW - timedelta(days=entries + 1)
    messages, previous = [], None
    for n in range(2 * entries):
        at = start + timedelta(hours=12 * n)
        previous = message_id(at, (n % 997) / 997, previous)
        topic = f"topic_{int(at.timestamp()) // 86400:010d}_000000"
        role = "user" if n % 2 == 0 else "assistant"
        messages.append(
            {"id": previous, "role": role, "content": f"第{n}句：{POINTS[n % 3]}", "timestamp": int(at.timestamp())}
            | {"topic_id": topic}
        )
    longs = [_long(n, start + timedelta(days=n)) for n in range(entries)]
    mids = [_mid(n, start + timedelta(days=4 * n)) for n in range(entries // 4)]
    return {
        "format": "dreamchat.memory",
        "version": 1,
        "exported_at": int(NOW.timestamp()),
        "ai_user": {"id": "ai_bench", "name": "小梦"},
        "mid_term": mids,
        "long_term": longs,
        "messages": messages,
    }


def _long(n: int, at: datetime) -> dict[str, Any]:
    stamp = int(at.timestamp())
    points = [f"{p}（第{n}次）" for p in POINTS]
    index = {"id": f"long_{stamp:010d}_{n:08x}", "title": f"爬山{n}", "key_points": points}
    index |= {"detail_file": f"{at:%Y-%m-%d}_爬山{n}.json", "created_at": stamp}
    detail = {"title": f"爬山{n}", "detail_content": "。".join(points), "emotion_tags": TAGS, "source_mid_ids": []}
    return {"index": index, "detail": detail}


def _mid(n: int, at: datetime) -> dict[str, Any]:
    stamp = int(at.timestamp())
    summary = f"聊了第{n}次爬山：{POINTS[0]}，{POINTS[1]}"
    mid = {"id": f"mid_{stamp:010d}_{n:06x}", "topic_id": f"topic_mid_{n}", "summary": summary, "emotion_tags": TAGS}
    return mid | {"message_count": 4, "extracted_to_long": True, "created_at": stamp, "compression_ratio": 0.4}


def measure(entries: int, latency_ms: float, batch: int) -> dict[str, float]:
    upload = json.dumps(document(entries), ensure_ascii=False).encode()
    reply = Reply(delay=latency_ms / 1000)
    with FakeLLMServer(default=lambda _body: reply) as fake, tempfile.TemporaryDirectory() as directory:
        settings = Settings(
            data_dir=Path(directory),
            run_scheduler=False,
            embedding_provider="api",
            embedding_base_url=fake.base_url,
            embedding_api_key="bench",
            embedding_batch=batch,
            embedding_timeout_seconds=30,
            access_token_minutes=600,
        )
        clock = ManualClock(NOW)
        app = create_app(settings, build_runtime(settings, clock=clock, random=SeededRandom(7)))
        with TestClient(app) as client:
            made = client.post("/api/auth/register", json={"username": "bench", "password": "correct-horse-battery"})
            token, account = made.json()["access_token"], made.json()["user"]["id"]
            headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
            ai_id = client.post("/api/ai-users", json={"name": "小梦"}, headers=headers).json()["id"]
            began = time.perf_counter()
            answer = client.post(
                f"/api/ai-users/{ai_id}/memory/import", content=upload, headers=headers, params={"replace": "true"}
            )
            seconds = time.perf_counter() - began
            assert answer.status_code == 200, answer.text
            imported = answer.json()["imported"]
            calls = len(fake.requests)
            services = app.state.services
            clock.advance(hours=1)
            began = time.perf_counter()
            services.healing.heal(PairId(account_id=account, ai_user_id=ai_id), force=True)
            healed = time.perf_counter() - began
            later = len(fake.requests) - calls
    return {
        "entries": entries,
        "seconds": seconds,
        "per_100": seconds * 100 / entries,
        "calls": calls,
        "vectors": imported["vectors"],
        "owed": imported.get("vectors_owed", 0),
        "healed": healed,
        "later_calls": later,
    }


def main(argv: list[str] | None = None, out=None) -> int:
    out = out or sys.stdout
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 400])
    parser.add_argument("--latency-ms", type=float, default=50.0, help="each embeddings call's time")
    parser.add_argument("--batch", type=int, default=10, help="texts per embeddings call (DREAMCHAT_EMBEDDING_BATCH)")
    args = parser.parse_args(argv)
    print("# Memory import: time per 100 long-term entries (bench/import_memory.py)", file=out)
    print(
        f"SQLite + directory; embeddings API on loopback, {args.latency_ms:.0f} ms a call, {args.batch} texts a call",
        file=out,
    )
    header = f"{'entries':>8} {'request':>8} {'per 100':>8} {'calls':>6} {'vectors':>8} {'owed':>5} {'healing':>8}"
    print(header + f" {'calls':>6}", file=out)
    for entries in args.sizes:
        r = measure(entries, args.latency_ms, args.batch)
        print(
            f"{r['entries']:>8} {r['seconds']:>7.2f}s {r['per_100']:>7.2f}s {r['calls']:>6} {r['vectors']:>8}"
            f" {r['owed']:>5} {r['healed']:>7.2f}s {r['later_calls']:>6}",
            file=out,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
