"""The time a voice reply adds to a chat turn, with an instant chat model and an instant voice: what we add
(the MP3 measured, its bytes and record kept, the record carried by the message) beside the same turn in text.

    .venv/bin/python bench/voice_reply_overhead.py               # 200 turns each way on SQLite + a directory
    .venv/bin/python bench/voice_reply_overhead.py --turns 50

The turn is the real ChatService on the pair of bench/turn_overhead.py (5 core, 30 mid-term and 120 long-term
memories); the voice is an in-process stand-in answering at once with a 3.1 s MP3 of 12 KB (the tests' file).
A provider's own time to speak comes on top (it is the model's, not ours).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a file (`.venv/bin/python bench/...`), not only with -m
    sys.path.insert(0, str(ROOT))

# E402 (the noqa below): these imports need the repo root on sys.path, which the lines above put there
from bench.turn_overhead import LINES, NOW, InstantModel, local_runtime, seed  # noqa: E402
from dreamchat.adapters.media_files import mp3_seconds  # noqa: E402
from dreamchat.adapters.runtime import ManualClock  # noqa: E402
from dreamchat.budget import Deadline  # noqa: E402
from dreamchat.services.container import build_services  # noqa: E402
from dreamchat.services.limits import unlimited  # noqa: E402
from dreamchat.services.storage.unit_of_work import Storage  # noqa: E402
from dreamchat.services.voice import VoiceService  # noqa: E402

VOICE = (ROOT / "tests" / "data" / "media" / "voice.mp3").read_bytes()


class InstantVoice:
    """Speaks every text at once, as the same MP3."""

    def configured(self, role: str) -> bool:
        return True

    def speak(self, text: str, voice: str, *, deadline: Deadline | None = None) -> bytes:
        return VOICE


def run_turns(folder: Path, turns: int, voice_replies: str) -> tuple[list[float], Counter[str], int]:
    counter: Counter[str] = Counter()
    clock = ManualClock(NOW)
    runtime = local_runtime(folder)(clock, counter)
    services = build_services(runtime, gateway=InstantModel())  # type: ignore[arg-type]
    voice = VoiceService(
        *(InstantVoice(), Storage(runtime.store), runtime.blobs, clock, runtime.random),
        unlimited,
        mp3_seconds,
        minor=lambda account_id: False,
        default_voice="alloy",
    )
    services.chat.speaker = dataclasses.replace(services.chat.speaker, voice=voice)
    fields = {"name": "小梦", "base_soul": "温柔的朋友", "voice_replies": voice_replies}
    ai_user = services.ai_users.create("bench-account", fields)
    pair = services.ai_users.pair("bench-account", ai_user.id)
    seed(services, "bench-account", ai_user.id)
    counter.clear()
    timings, spoken = [], 0
    for i in range(turns):
        clock.advance(seconds=30)
        started = time.perf_counter()
        person = services.chat.accept(pair, ai_user, f"{LINES[i % 5]}，你觉得呢？")
        events = list(services.chat.respond(pair, ai_user, person))
        timings.append((time.perf_counter() - started) * 1000)
        assert events[-1].__class__.__name__ == "Done"
        spoken += sum(1 for e in events if getattr(getattr(e, "message", None), "media_id", None))
    return timings, counter, spoken


def report(name: str, timings: list[float], counter: Counter[str], turns: int, spoken: int) -> float:
    ordered = sorted(timings)
    p50, p95 = statistics.median(timings), ordered[max(0, int(len(ordered) * 0.95) - 1)]
    writes = sum(v for k, v in counter.items() if k.startswith("store.") and k.split(".")[1] in ("put", "transact"))
    blob_writes = counter["blobs.put"]
    print(f"{name:<16} {p50:>8.2f} {p95:>8.2f} {writes / turns:>12.1f} {blob_writes / turns:>11.1f} {spoken:>7}")
    return p50


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args(argv)
    print(f"chat turn with an instant model, {args.turns} turns each, SQLite + a directory")
    print(f"{'replies':<16} {'p50 ms':>8} {'p95 ms':>8} {'store writes':>12} {'blob writes':>11} {'spoken':>7}")
    medians = {}
    for mode in ("never", "always"):
        with tempfile.TemporaryDirectory() as folder:
            timings, counter, spoken = run_turns(Path(folder), args.turns, mode)
        medians[mode] = report(f"voice {mode}", timings, counter, args.turns, spoken)
    print(f"a voice reply adds {medians['always'] - medians['never']:.2f} ms at p50 (the provider's time not counted)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
