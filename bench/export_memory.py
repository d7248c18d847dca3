"""Peak memory of a pair's memory export at 1 k and 10 k messages: the export streams its chat
history a page at a time, so the peak should not grow with the history.

A pair on SQLite (a file in a temporary directory) with N messages of about 60 characters, a few
memories of every tier; `ExportService.pair` is read to its end piece by piece (the pieces are
counted and dropped, as a response body sent to a client would be) under `tracemalloc`, started
after the pair was written, so only what the export allocates is measured. For comparison, the
peak of holding the same document whole (`json.loads` of the joined pieces).

    .venv/bin/python bench/export_memory.py [--sizes 1000 10000]
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import tempfile
import time
import tracemalloc
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "shared"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

# E402 (the noqa below): these imports need the repo root on sys.path, which the lines above put there
from dreamchat.adapters.blobs import DirectoryBlobStore  # noqa: E402
from dreamchat.adapters.runtime import ManualClock  # noqa: E402
from dreamchat.adapters.sqlite_store import SqliteItemStore  # noqa: E402
from dreamchat.config import Settings  # noqa: E402
from dreamchat.domain.ids import message_id  # noqa: E402
from dreamchat.domain.models import CoreMemory, Message, PairId  # noqa: E402
from dreamchat.services.ai_users import AIUserService  # noqa: E402
from dreamchat.services.export import PAGE_SIZE, ExportService  # noqa: E402
from dreamchat.services.friend_lists import FriendListService  # noqa: E402
from dreamchat.services.heartbeat_state import HeartbeatStateService  # noqa: E402
from dreamchat.services.memory_repo import MemoryRepository  # noqa: E402
from dreamchat.services.profile import ProfileService  # noqa: E402
from dreamchat.services.storage.unit_of_work import Storage  # noqa: E402

START = datetime(2026, 1, 1, tzinfo=UTC)
LINE = "今天下班路上看到一只橘猫在便利店门口晒太阳，想起你说过小时候也养过一只猫。"  # ~40 characters
BATCH = 12  # messages per commit (two items each would pass 25)


def fill(directory: Path, count: int) -> tuple[ExportService, PairId, SqliteItemStore]:
    clock = ManualClock(START)
    store = SqliteItemStore(directory / "items.db", clock)
    blobs = DirectoryBlobStore(directory / "blobs")
    storage, previous = Storage(store), None
    ai_users = AIUserService(storage, blobs, clock)
    ai_user = ai_users.create("acc_bench", {"name": "小梦"})
    pair = PairId(account_id="acc_bench", ai_user_id=ai_user.id)
    for start in range(0, count, BATCH):
        with storage.pair(pair) as uow:
            for n in range(start, min(start + BATCH, count)):
                at = START + timedelta(minutes=n)
                previous = message_id(at, (n % 997) / 997, previous)
                role = "user" if n % 2 == 0 else "assistant"
                text = f"{LINE}（第{n}条）"
                uow.messages.add(
                    Message(id=previous, role=role, content=text, timestamp=int(at.timestamp()), topic_id="topic_1"),
                    short_term=False,
                )
            uow.commit()
    with storage.pair(pair) as uow:
        uow.core.add(CoreMemory(id="core_1", content="喜欢橘猫", importance=9, created_at=int(START.timestamp())))
        uow.commit()
    settings = Settings(data_dir=directory, run_scheduler=False)
    export = ExportService(
        MemoryRepository(storage, blobs),
        ProfileService(storage),
        HeartbeatStateService(storage, clock, settings),
        ai_users,
        FriendListService(storage),
        clock,
    )
    return export, pair, store


def measure(count: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as directory:
        export, pair, store = fill(Path(directory), count)
        gc.collect()
        tracemalloc.start()
        began = time.perf_counter()
        size = 0
        for piece in export.pair(pair.account_id, pair.ai_user_id):
            size += len(piece)
        seconds = time.perf_counter() - began
        _, streamed = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        gc.collect()
        tracemalloc.start()
        whole = json.loads(b"".join(export.pair(pair.account_id, pair.ai_user_id)))
        _, held = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert len(whole["messages"]) == count
        store.close()
    return {"messages": count, "bytes": size, "streamed": streamed, "whole": held, "seconds": seconds}


def main(argv: list[str] | None = None, out=None) -> int:
    out = out or sys.stdout
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    args = parser.parse_args(argv)
    print("# Memory export: peak memory (bench/export_memory.py)", file=out)
    print(f"SQLite store; {PAGE_SIZE} messages a page; tracemalloc peak while the export is read to its end", file=out)
    print(f"{'messages':>9} {'document':>10} {'streamed peak':>14} {'held whole':>11} {'time':>7}", file=out)
    rows = [measure(n) for n in args.sizes]
    for r in rows:
        print(
            f"{r['messages']:>9} {r['bytes'] / 1e6:>8.2f}MB {r['streamed'] / 1e6:>12.2f}MB "
            f"{r['whole'] / 1e6:>9.2f}MB {r['seconds']:>6.2f}s",
            file=out,
        )
    if len(rows) > 1:
        first, last = rows[0], rows[-1]
        print(
            f"{last['messages'] // first['messages']}x the messages: the streamed peak x"
            f"{last['streamed'] / first['streamed']:.2f}, the document x{last['bytes'] / first['bytes']:.2f}",
            file=out,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
