"""The time a voice note or a photo adds to a chat turn, with instant fake models.

    .venv/bin/python bench/media_turn.py              # 30 turns of each kind
    .venv/bin/python bench/media_turn.py --turns 10

Through the app (TestClient, SQLite and a directory, as `make run` keeps them): a text turn is
`POST /chat {"content"}`; a voice turn is `POST /media` (a 10 s Opus voice note in WebM, as Chromium's
recorder makes it) then `POST /chat {"media_id"}`; a photo turn is `POST /media` (a photograph, 1600 px
on its longer side, as the web client sends it after shrinking it) then `POST /chat {"media_id"}`. The
chat model, `speech_to_text` and `vision` are servers on 127.0.0.1 that answer at once, so the figures
are our own work: checking the bytes, decoding and re-encoding the photo, storing it, the model calls'
HTTP round trips on loopback, and the longer message. Each turn's whole request, SSE read to its end.
Printed: p50 and p95 of each kind, and what the media adds to a text turn's p50.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "shared"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

# E402: these imports need the repo root on sys.path, which the lines above put there
from fastapi.testclient import TestClient  # noqa: E402
from PIL import Image  # noqa: E402

from bench.media_cost import sample_photos  # noqa: E402
from dreamchat.adapters.runtime import ManualClock, SeededRandom  # noqa: E402
from dreamchat.api.app import create_app  # noqa: E402
from dreamchat.config import Settings  # noqa: E402
from dreamchat.wiring import build_runtime  # noqa: E402
from tests.fakes.fake_llm import FakeLLMServer, Reply  # noqa: E402
from tests.fakes.fake_media import TRANSCRIPTIONS, VISION, FakeMediaServer  # noqa: E402

NOW = datetime(2026, 3, 15, 12, 0, tzinfo=UTC)
MEDIA = ROOT / "tests" / "data" / "media"


def phone_photo() -> bytes:
    """A photograph as the web client uploads it: shrunk to 1600 px, JPEG."""
    photos = sample_photos()
    picture = Image.open(photos[0]) if photos else Image.effect_mandelbrot((640, 427), (-2, -1, 1, 1), 100)
    picture = picture.convert("RGB").resize((1600, 1067), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    picture.save(out, "JPEG", quality=85)
    return out.getvalue()


def measure(turns: int) -> dict[str, list[float]]:
    voice, photo = (MEDIA / "voice.webm").read_bytes(), phone_photo()
    reply = Reply(content="听起来不错呀\n然后呢？")
    times: dict[str, list[float]] = {"text": [], "voice note": [], "photo": []}
    with (
        FakeLLMServer(default=lambda _body: reply) as chat,
        FakeMediaServer() as media,
        tempfile.TemporaryDirectory() as directory,
    ):
        roles: dict[str, Any] = {}
        for role in ("speech_to_text", "vision"):
            roles |= {f"{role}_base_url": media.base_url, f"{role}_api_key": "bench", f"{role}_model": "fake"}
        settings = Settings(
            data_dir=Path(directory),
            run_scheduler=False,
            llm_base_url=chat.base_url,
            llm_api_key="bench",
            reply_decision="model",
            messages_per_minute=10_000,
            model_calls_per_minute=10_000,
            media_uploads_per_minute=10_000,
            access_token_minutes=600,
            **roles,
        )
        clock = ManualClock(NOW)
        app = create_app(settings, build_runtime(settings, clock=clock, random=SeededRandom(7)))
        with TestClient(app) as client:
            made = client.post("/api/auth/register", json={"username": "bench", "password": "correct-horse-battery"})
            headers = {"Authorization": f"Bearer {made.json()['access_token']}"}
            ai_id = client.post("/api/ai-users", json={"name": "小梦"}, headers=headers).json()["id"]

            def turn(kind: str, n: int) -> None:
                began = time.perf_counter()
                body: dict[str, Any] = {"content": f"今天第{n}次想和你说说话"}
                if kind != "text":
                    data, name = (voice, "v.webm") if kind == "voice note" else (photo, "p.jpg")
                    kept = client.post(f"/api/ai-users/{ai_id}/media", files={"file": (name, data)}, headers=headers)
                    assert kept.status_code == 201, kept.text
                    body = {"media_id": kept.json()["media_id"]}
                answer = client.post(f"/api/ai-users/{ai_id}/chat", json=body, headers=headers)
                assert answer.status_code == 200 and "event: done" in answer.text, answer.text[-300:]
                times[kind].append(time.perf_counter() - began)
                clock.advance(minutes=1)

            for kind in times:  # warm every path once (imports, first decode), not counted
                turn(kind, 0)
                times[kind].clear()
            for n in range(1, turns + 1):
                for kind in times:  # interleaved, so a slow moment of the machine falls on every kind
                    turn(kind, n)
            heard = sum(r.path.endswith(TRANSCRIPTIONS) for r in media.requests)
            seen = sum(r.path.endswith(VISION) for r in media.requests)
            # every voice note heard and every photo seen by the fake roles (none left owed: a measured turn
            # that skipped the model would flatter the figure)
            assert heard == seen == turns + 1, (heard, seen)
    return times


def main(argv: list[str] | None = None, out: TextIO = sys.stdout) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=30, help="turns of each kind")
    args = parser.parse_args(argv)
    times = measure(args.turns)
    print(f"# Time per chat turn with instant fake models ({args.turns} of each, SQLite + directory)", file=out)
    print(f"{'kind':<12} {'p50 ms':>8} {'p95 ms':>8} {'added p50 ms':>13}", file=out)
    base = statistics.median(times["text"])
    for kind, seconds in times.items():
        p50 = statistics.median(seconds)
        p95 = statistics.quantiles(seconds, n=20)[-1] if len(seconds) >= 2 else seconds[0]
        added = "" if kind == "text" else f"{(p50 - base) * 1000:>13.1f}"
        print(f"{kind:<12} {p50 * 1000:>8.1f} {p95 * 1000:>8.1f} {added}", file=out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
