"""The reply decision's rates over a labelled mix of the person's messages, per relationship level.

    .venv/bin/python bench/reply_rates.py

The mix (bench/data/reply_mix/mix.tsv, ~200 Chinese and English messages written for this bench, each
labelled with its kind and, where the AI spoke just before, the AI's message) is read by the domain's
classifier (`dreamchat.domain.asked.always_answered`) and drawn many times per level with a seeded random,
in daytime with no mood, as the chat turn draws (`dreamchat.domain.reply.decide_reply`). Printed: how the
classifier reads each labelled kind, the share of the mix always answered beside the domain's
`ALWAYS_ANSWERED_SHARE`, and per level the spec's rate, the rate applied to the rest, the measured overall
reply rate and the answered share of each kind (each always-answered kind must be 100 % at every level but
决裂).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path
from typing import TextIO

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "shared"))

from dreamchat.config import DEFAULT_FAREWELLS  # noqa: E402
from dreamchat.domain.asked import always_answered  # noqa: E402
from dreamchat.domain.relationship import ORDER, reply_rate  # noqa: E402
from dreamchat.domain.reply import ALWAYS_ANSWERED_SHARE, decide_reply, rest_rate  # noqa: E402

MIX = ROOT / "bench" / "data" / "reply_mix" / "mix.tsv"
KINDS = ("question", "memory", "farewell", "answer", "other")
DAYTIME = 14


def load_mix(path: Path = MIX) -> list[tuple[str, str, str | None]]:
    """(kind, the person's message, the AI's message just before it or None), in the file's order."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        kind, text, previous = (line.split("\t") + ["", ""])[:3]
        if kind not in KINDS:
            raise ValueError(f"unknown kind {kind!r} in {path.name}: {line!r}")
        rows.append((kind, text, previous or None))
    return rows


def main(argv: list[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=500, help="draws of each message per level (%(default)s)")
    parser.add_argument("--seed", type=int, default=40, help="the seeded random (%(default)s)")
    args = parser.parse_args(argv)
    mix = load_mix()
    reasons = [always_answered(text, previous, DEFAULT_FAREWELLS) for _, text, previous in mix]

    print(
        f"mix: {len(mix)} messages ({MIX.relative_to(ROOT)}), {args.rounds} draws each per level, seed {args.seed}",
        file=out,
    )
    print("\n## How the classifier reads each labelled kind", file=out)
    read = Counter((kind, reason or "other") for (kind, _, _), reason in zip(mix, reasons, strict=True))
    print(f"{'labelled':<10}" + "".join(f"{k:>10}" for k in KINDS), file=out)
    for kind in KINDS:
        print(f"{kind:<10}" + "".join(f"{read[kind, k]:>10}" for k in KINDS), file=out)
    for (kind, text, _), reason in zip(mix, reasons, strict=True):
        if (reason or "other") != kind:
            print(f"  read differently: {kind} -> {reason or 'other'}: {text}", file=out)
    share = sum(r is not None for r in reasons) / len(mix)
    print(f"\nalways answered over the mix: {share:.3f} (ALWAYS_ANSWERED_SHARE = {ALWAYS_ANSWERED_SHARE})", file=out)

    print("\n## Reply rate per level (daytime, no mood)", file=out)
    print(f"{'level':<8}{'spec':>7}{'rest':>7}{'measured':>10}" + "".join(f"{k:>10}" for k in KINDS), file=out)
    rng = random.Random(args.seed)
    for level in reversed(ORDER):
        answered: Counter[str] = Counter()
        for _ in range(args.rounds):
            for (kind, text, _), reason in zip(mix, reasons, strict=True):
                answered[kind] += decide_reply(level, None, DAYTIME, text, rng.random(), asked=reason).inclined
        labelled = Counter(kind for kind, _, _ in mix)
        overall = sum(answered.values()) / (len(mix) * args.rounds)
        shares = "".join(f"{100 * answered[k] / (labelled[k] * args.rounds):>9.1f}%" for k in KINDS)
        spec, rest = reply_rate(level), rest_rate(level)
        print(f"{level:\u3000<4}{100 * spec:>6.0f}%{100 * rest:>6.1f}%{100 * overall:>9.1f}%{shares}", file=out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
