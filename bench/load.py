"""Load on the real local server: concurrent people chatting at once, over HTTP on loopback.

    .venv/bin/python bench/load.py                        # 50 people for 60 s, instant model, then a 6 s model
    .venv/bin/python bench/load.py --people 20 --turns 10 --delays 0

Starts `python -m dreamchat.api.server` (SQLite + directory) with every model pointed at the fake
OpenAI-compatible server of the tests, answering at once or after `--delays` seconds, registers the
people, and has them all chat at once, each turn after the last, for `--seconds` (or `--turns`
each). Meanwhile `/api/health` is asked every 50 ms. Prints throughput, whole-turn latency
percentiles (request to the SSE `done`), refusals (503) and errors, `/api/health` latency while
the model is busy, and afterwards checks that every message of every turn is stored and counts
mid-term memories made of two messages or fewer (topic fragments). Traffic stays on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# E402 (the noqa below): these imports need the repo root on sys.path, which the lines above put there
from tests.fakes.fake_llm import FakeLLMServer, Reply  # noqa: E402
from tests.fakes.server import running_server  # noqa: E402

REPLY = "收到\n你呢？"


@dataclass
class Person:
    headers: dict[str, str]
    ai_id: str
    sent: int = 0  # messages the server acknowledged: the person's and the AI's
    turns: list[tuple[float, str]] = field(default_factory=list)  # (seconds, "ok" | "refused" | "error")


def sign_up(base: str, index: int) -> Person:
    account = httpx.post(f"{base}/api/auth/register", json={"username": f"load{index}", "password": "load-test-pw"})
    headers = {"Authorization": f"Bearer {account.json()['access_token']}"}
    ai = httpx.post(f"{base}/api/ai-users", json={"name": f"AI{index}", "base_soul": "温柔"}, headers=headers)
    return Person(headers, ai.json()["id"])


def chat(base: str, person: Person, until: float, turns: int | None) -> None:
    with httpx.Client(timeout=60) as client:
        turn = 0
        while (turn < turns) if turns is not None else (time.perf_counter() < until):
            started = time.perf_counter()
            response = client.post(
                f"{base}/api/ai-users/{person.ai_id}/chat",
                json={"content": f"第{turn}句：今天过得怎么样"},
                headers=person.headers,
            )
            seconds = time.perf_counter() - started
            if response.status_code == 503:
                person.turns.append((seconds, "refused"))
                time.sleep(float(response.headers.get("Retry-After", "1")))
                continue
            ok = response.status_code == 200 and "event: done" in response.text
            if response.status_code == 200:  # the person's message is stored, and each AI message sent
                person.sent += 1 + response.text.count("event: message")
            person.turns.append((seconds, "ok" if ok else "error"))
            turn += 1


def probe_health(base: str, stop: threading.Event, latencies: list[float]) -> None:
    with httpx.Client(timeout=30) as client:
        while not stop.is_set():
            started = time.perf_counter()
            client.get(f"{base}/api/health")
            latencies.append((time.perf_counter() - started) * 1000)
            stop.wait(0.05)


def stored(base: str, person: Person) -> int:
    count, before = 0, None
    while True:
        params = {"limit": 200, **({"before": before} if before else {})}
        page = httpx.get(f"{base}/api/ai-users/{person.ai_id}/messages", params=params, headers=person.headers).json()
        count += len(page["messages"])
        if not (before := page["next_cursor"]):
            return count


def mid_terms(base: str, person: Person) -> list[int]:
    files = httpx.get(f"{base}/api/memory/{person.ai_id}/files", headers=person.headers).json()
    return [m["message_count"] for m in files["mid_term"]]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, int(len(ordered) * share) - 1)] if ordered else 0.0


def run(args: argparse.Namespace, delay: float) -> bool:
    reply = (lambda body: Reply(content=REPLY, delay=delay)) if delay else (lambda body: Reply.text(REPLY))
    with FakeLLMServer(default=reply) as llm, tempfile.TemporaryDirectory() as data:
        env = {
            "DREAMCHAT_DATA_DIR": data,
            "DREAMCHAT_LLM_BASE_URL": llm.base_url,
            "DREAMCHAT_LLM_API_KEY": "load",
            "DREAMCHAT_LLM_MAX_RETRIES": "0",
            "DREAMCHAT_MESSAGES_PER_MINUTE": "100000",
            "DREAMCHAT_AUTH_REQUESTS_PER_MINUTE": "100000",
            "DREAMCHAT_MAX_DELAY_SECONDS": "0",
            # topics end under load (every ~7 turns) so that compression runs beside the chats
            "DREAMCHAT_TOPIC_MAX_MESSAGES": str(args.topic_messages),
        }
        with running_server(env) as base:
            people = [sign_up(base, i) for i in range(args.people)]
            stop, health = threading.Event(), []
            prober = threading.Thread(target=probe_health, args=(base, stop, health))
            prober.start()
            started = time.perf_counter()
            with ThreadPoolExecutor(max_workers=args.concurrency or args.people) as pool:
                list(pool.map(lambda p: chat(base, p, started + args.seconds, args.turns), people))
            elapsed = time.perf_counter() - started
            stop.set()
            prober.join()
            time.sleep(3)  # let the last compressions finish
            counts = [stored(base, person) for person in people]
            mids = [count for person in people for count in mid_terms(base, person)]
    return report(args, delay, people, counts, mids, health, elapsed)


def report(
    args: argparse.Namespace,
    delay: float,
    people: list[Person],
    counts: list[int],
    mids: list[int],
    health: list[float],
    elapsed: float,
) -> bool:
    turns = [t for person in people for t in person.turns]
    done = [seconds * 1000 for seconds, outcome in turns if outcome == "ok"]
    errors = sum(1 for _, outcome in turns if outcome == "error")
    refused = sum(1 for _, outcome in turns if outcome == "refused")
    lost = sum(max(0, person.sent - count) for person, count in zip(people, counts, strict=True))
    length = f"{args.turns} turns each" if args.turns is not None else f"{args.seconds:g} s"
    print(f"load: {len(people)} people at once for {length}, model answering in {delay:g} s, SQLite, one uvicorn")
    print(f"turns {len(done)}  refused (503) {refused}  errors {errors}  throughput {len(done) / elapsed:.1f} turns/s")
    print(
        f"turn latency ms: p50 {statistics.median(done or [0]):.1f}  p95 {percentile(done, 0.95):.1f}  "
        f"p99 {percentile(done, 0.99):.1f}  max {max(done or [0]):.1f}"
    )
    print(
        f"/api/health while chatting: {len(health)} requests, p50 {statistics.median(health or [0]):.1f} ms  "
        f"p99 {percentile(health, 0.99):.1f} ms  max {max(health or [0]):.1f} ms"
    )
    print(f"messages stored {sum(counts)} of {sum(p.sent for p in people)} acknowledged; lost {lost}")
    print(f"mid-term memories {len(mids)}; fragments (2 messages or fewer) {sum(1 for m in mids if m <= 2)}")
    return errors == 0 and lost == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--people", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--turns", type=int, default=None, help="turns per person instead of --seconds")
    parser.add_argument("--concurrency", type=int, default=None, help="people chatting at once (default: all)")
    parser.add_argument("--delays", default="0,6", help="model answer times to run, in seconds")
    parser.add_argument("--topic-messages", type=int, default=20, help="DREAMCHAT_TOPIC_MAX_MESSAGES of the server")
    args = parser.parse_args(argv)
    results = [run(args, float(delay)) for delay in args.delays.split(",")]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
