"""Load on the real local server: concurrent people chatting at once, over HTTP on loopback.

    .venv/bin/python bench/load.py                      # 20 people × 10 turns, 10 at a time
    .venv/bin/python bench/load.py --people 50 --turns 5 --concurrency 25

Starts `python -m dreamchat.api.server` (SQLite + directory) with its chat model pointed at the
fake OpenAI-compatible server of the tests (instant replies), registers the people, and has them
chat concurrently. Prints throughput, latency percentiles of whole turns (request to the SSE
`done` event), errors, and checks afterwards that every message of every turn is stored.
Traffic stays on 127.0.0.1, bounded in count.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.fakes.fake_llm import FakeLLMServer, Reply  # noqa: E402
from tests.fakes.server import running_server  # noqa: E402


def sign_up(base: str, index: int) -> tuple[dict[str, str], str]:
    account = httpx.post(f"{base}/api/auth/register", json={"username": f"load{index}", "password": "load-test-pw"})
    headers = {"Authorization": f"Bearer {account.json()['access_token']}"}
    ai = httpx.post(f"{base}/api/ai-users", json={"name": f"AI{index}", "base_soul": "温柔"}, headers=headers)
    return headers, ai.json()["id"]


def chat(base: str, person: tuple[dict[str, str], str], turns: int) -> list[tuple[float, bool]]:
    headers, ai_id = person
    results = []
    with httpx.Client(timeout=30) as client:
        for turn in range(turns):
            started = time.perf_counter()
            response = client.post(f"{base}/api/ai-users/{ai_id}/chat", json={"content": f"第{turn}句：今天过得怎么样"},
                                   headers=headers)
            ok = response.status_code == 200 and "event: done" in response.text
            results.append((time.perf_counter() - started, ok))
    return results


def stored(base: str, person: tuple[dict[str, str], str]) -> int:
    headers, ai_id = person
    return len(httpx.get(f"{base}/api/ai-users/{ai_id}/messages", params={"limit": 200}, headers=headers)
               .json()["messages"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--people", type=int, default=20)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--concurrency", type=int, default=10)
    args = parser.parse_args(argv)
    with FakeLLMServer(default=lambda body: Reply.text("收到\n你呢？")) as llm, tempfile.TemporaryDirectory() as data:
        env = {"DREAMCHAT_DATA_DIR": data, "DREAMCHAT_LLM_BASE_URL": llm.base_url, "DREAMCHAT_LLM_API_KEY": "load",
               "DREAMCHAT_LLM_MAX_RETRIES": "0", "DREAMCHAT_MESSAGES_PER_MINUTE": "100000",
               "DREAMCHAT_AUTH_REQUESTS_PER_MINUTE": "100000"}
        with running_server(env) as base:
            people = [sign_up(base, i) for i in range(args.people)]
            started = time.perf_counter()
            with ThreadPoolExecutor(max_workers=args.concurrency) as pool:
                results = [r for batch in pool.map(lambda p: chat(base, p, args.turns), people) for r in batch]
            elapsed = time.perf_counter() - started
            counts = [stored(base, person) for person in people]
    latencies = sorted(seconds * 1000 for seconds, _ in results)
    errors = sum(1 for _, ok in results if not ok)
    expected = args.turns * 3  # the person's message and two AI messages per turn
    print(f"load: {args.people} people × {args.turns} turns, {args.concurrency} at a time, SQLite, instant model")
    print(f"turns {len(results)}  errors {errors}  throughput {len(results) / elapsed:.1f} turns/s")
    print(f"turn latency ms: p50 {statistics.median(latencies):.1f}  "
          f"p95 {latencies[int(len(latencies) * 0.95) - 1]:.1f}  p99 {latencies[int(len(latencies) * 0.99) - 1]:.1f}  "
          f"max {latencies[-1]:.1f}")
    lost = sum(max(0, expected - count) for count in counts)
    print(f"messages stored {sum(counts)} of {expected * args.people} expected; lost {lost}")
    return 0 if errors == 0 and lost == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
