"""Storage of photos and voice notes per active person-month, and what S3 charges for it, at a stated mix.

    .venv/bin/python bench/media_cost.py
    .venv/bin/python bench/media_cost.py --messages-a-day 30 --voice-share 0.05 --photo-share 0.02

What is measured and what is assumed:
- a photo's kept size is MEASURED: real photographs (the two JPEGs scikit-learn ships, or `--photos`) go
  through the server's own pipeline (`dreamchat.adapters.media_files.inspect`: upright, ≤ 1600 px,
  re-encoded without metadata); their bytes per pixel are scaled to a phone photo kept at 1600 × 1200
  (a phone's 4:3 picture shrunk to the server's limit). Small photos re-encode at more bytes per pixel
  than large ones, so this leans high.
- a person's voice note is ASSUMED to be recorded at the web client's bitrate (`--voice-kbps`: the
  `audioBitsPerSecond` the client asks MediaRecorder for, `VOICE_BITS_PER_SECOND` in web/lib/recorder.js) and `--voice-seconds` long on average; the server
  keeps it as sent (no re-encoding).
- an AI voice reply is ASSUMED to be MP3 at `--tts-kbps` (the provider decides; OpenAI's speech endpoint
  does not state its MP3 bitrate) and as long as its text read at `--tts-chars-per-second`.
- the mix (messages a day, the shares that are voice notes or photos, the share of AI replies spoken) is
  stated by the flags; nothing here is observed use.
- S3 prices are those of docs/deploy.md's cost model (us-east-1 Standard): storage, PUT and GET; each
  medium is written once, and read `--reads` times (the person scrolling back).

Printed: bytes per item, bytes and S3 cost added per person-month, and the storage cost after a year of
such months (media are kept until the person erases them; the lifecycle expires only unclaimed uploads).
"""

from __future__ import annotations

import argparse
import functools
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "shared"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from dreamchat.adapters.media_files import inspect  # noqa: E402
from dreamchat.domain.media import IMAGE_MAX_SIDE  # noqa: E402

S3_GB_MONTH = 0.023  # USD per GB-month, S3 Standard, us-east-1 (docs/deploy.md)
S3_PUT = 0.005 / 1000  # USD per PUT
S3_GET = 0.0004 / 1000  # USD per GET
KEPT_PIXELS = IMAGE_MAX_SIDE * IMAGE_MAX_SIDE * 3 // 4  # a 4:3 phone photo shrunk to the server's limit
GB = 1024**3


def sample_photos() -> list[Path]:
    """Real photographs on this machine: the two scikit-learn ships (a dev dependency)."""
    try:
        import sklearn
    except ImportError:
        return []
    images = Path(sklearn.__file__).parent / "datasets" / "images"
    return sorted(images.glob("*.jpg"))


@dataclass(frozen=True)
class Sizes:
    photo: float  # bytes kept per photo
    voice_note: float  # bytes per person's voice note
    voice_reply: float  # bytes per AI voice reply


def photo_bytes(photos: list[Path]) -> tuple[float, list[tuple[str, int, int, float]]]:
    """Bytes kept for a 1600 × 1200 photo, from the bytes per pixel the pipeline kept the samples at."""
    rows, per_pixel = [], []
    for photo in photos:
        kept = inspect(photo.read_bytes())
        assert kept.width and kept.height, photo
        bpp = len(kept.data) / (kept.width * kept.height)
        per_pixel.append(bpp)
        rows.append((photo.name, kept.width, kept.height, bpp))
    if not per_pixel:
        raise SystemExit("no sample photos: pass --photos a.jpg b.jpg (or install the dev extras)")
    return KEPT_PIXELS * sum(per_pixel) / len(per_pixel), rows


def main(argv: list[str] | None = None, out: TextIO = sys.stdout) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--photos", nargs="*", type=Path, help="photographs to measure (default: scikit-learn's)")
    parser.add_argument("--messages-a-day", type=float, default=30.0, help="the person's messages a day")
    parser.add_argument("--voice-share", type=float, default=0.05, help="share of the person's messages that are voice")
    parser.add_argument("--photo-share", type=float, default=0.02, help="share that are photos")
    parser.add_argument("--voice-seconds", type=float, default=12.0, help="average voice note length")
    parser.add_argument("--voice-kbps", type=float, default=32.0, help="the web client's recording bitrate")
    parser.add_argument("--replies-a-day", type=float, default=30.0, help="the AI's reply messages a day")
    parser.add_argument("--spoken-share", type=float, default=0.10, help="share of AI replies that are voice notes")
    parser.add_argument("--tts-kbps", type=float, default=64.0, help="the speech role's MP3 bitrate (assumed)")
    parser.add_argument("--reply-chars", type=float, default=40.0, help="characters of a spoken reply")
    parser.add_argument("--tts-chars-per-second", type=float, default=4.5, help="Chinese read aloud")
    parser.add_argument("--reads", type=float, default=2.0, help="times each medium is fetched")
    args = parser.parse_args(argv)
    say = functools.partial(print, file=out)

    photo, rows = photo_bytes(args.photos or sample_photos())
    sizes = Sizes(
        photo=photo,
        voice_note=args.voice_seconds * args.voice_kbps * 1000 / 8,
        voice_reply=args.reply_chars / args.tts_chars_per_second * args.tts_kbps * 1000 / 8,
    )
    days = 30
    counts = {
        "photos": args.messages_a_day * args.photo_share * days,
        "voice notes": args.messages_a_day * args.voice_share * days,
        "AI voice replies": args.replies_a_day * args.spoken_share * days,
    }
    each = {"photos": sizes.photo, "voice notes": sizes.voice_note, "AI voice replies": sizes.voice_reply}

    say("photos measured through the server's pipeline (bytes per pixel as kept):")
    for name, width, height, bpp in rows:
        say(f"  {name}: kept {width}×{height}, {bpp:.3f} B/px")
    say(
        f"  → a photo kept at {IMAGE_MAX_SIDE}×{KEPT_PIXELS // IMAGE_MAX_SIDE}: {sizes.photo / 1024:.0f} KB (measured rate)"
    )
    say(
        f"voice note: {args.voice_seconds:.0f} s at {args.voice_kbps:.0f} kbps = {sizes.voice_note / 1024:.0f} KB (assumed)"
    )
    say(
        f"AI voice reply: {args.reply_chars:.0f} chars ≈ {args.reply_chars / args.tts_chars_per_second:.1f} s "
        f"at {args.tts_kbps:.0f} kbps = {sizes.voice_reply / 1024:.0f} KB (assumed)"
    )
    say()
    say(
        f"mix per active person-month ({days} days): {args.messages_a_day:.0f} messages a day, "
        f"{args.photo_share:.0%} photos, {args.voice_share:.0%} voice; {args.spoken_share:.0%} of "
        f"{args.replies_a_day:.0f} AI replies a day spoken"
    )
    say("| medium | items / month | bytes each | MB / month |")
    say("|---|---|---|---|")
    total_bytes = total_items = 0.0
    for name, count in counts.items():
        added = count * each[name]
        total_bytes += added
        total_items += count
        say(f"| {name} | {count:.0f} | {each[name] / 1024:.0f} KB | {added / 1024**2:.1f} |")
    say(f"| all | {total_items:.0f} | | {total_bytes / 1024**2:.1f} |")
    requests = total_items * S3_PUT + total_items * args.reads * S3_GET
    first_month = total_bytes / GB * S3_GB_MONTH
    year = sum(month * total_bytes / GB * S3_GB_MONTH for month in range(1, 13))
    say()
    say(f"S3 per active person-month: storage of that month's media ${first_month:.5f}, requests ${requests:.5f}")
    say(
        f"after 12 such months, storage ${12 * total_bytes / GB * S3_GB_MONTH:.5f} a month "
        f"({12 * total_bytes / 1024**2:.0f} MB kept); the first year's storage and requests ${year + 12 * requests:.4f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
