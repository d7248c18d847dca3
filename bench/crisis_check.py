"""The crisis check on every labelled set, layer by layer, and its time per message.

    .venv/bin/python bench/crisis_check.py

For each set in tests/data/crisis/crisis_*.json and over all of them: the share of crisis lines each layer
recognises and of everyday lines it fires on, for the lexicon alone, the classifier alone, "help lines"
(either layer says crisis: what shows the help card) and "never silent" (the distress verdict: the turn is
answered at every level). The gate (`crisis_gate_blind.json`, written blind and never trained or tuned on)
comes first; the others are training data of the classifier, so its figures there are in sample. The chat
model's `[CRISIS]` judgment, the third layer, needs a model and is not measured here. Then the time of each
layer per message over every labelled line, p50 and p95 (one core, the weights loaded).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "shared"))

from dreamchat.crisis_data import crisis_check  # noqa: E402

DATA = ROOT / "tests" / "data" / "crisis"
GATE = "crisis_gate_blind.json"


def _share(hits: int, total: int) -> str:
    return f"{hits}/{total} ({100 * hits / total:.0f}%)" if total else "-"


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args(argv)
    check = crisis_check()
    lexicon, classifier = check.lexicon, check.classifier
    crisis_bar = classifier.heads["crisis"].threshold

    layers = {
        "lexicon": lambda t: lexicon.family_of(t) is not None,
        "classifier": lambda t: classifier.scores(lexicon.normalise(t))["crisis"] >= crisis_bar,
        "help lines": lambda t: check.judge(t).crisis,
        "never silent": lambda t: check.judge(t).distress,
    }
    paths = sorted(DATA.glob("crisis_*.json"), key=lambda p: (p.name != GATE, p.name))
    totals = {name: [0, 0, 0, 0] for name in layers}
    print(f"{'set':<28} {'layer':<13} {'crisis lines seen':>18} {'everyday lines fired':>22}")
    for path in paths:
        data = json.loads(path.read_text(encoding="utf-8"))
        crisis, everyday = data.get("crisis", []), data.get("benign", [])
        for name, fires in layers.items():
            seen, fired = sum(map(fires, crisis)), sum(map(fires, everyday))
            print(f"{path.stem:<28} {name:<13} {_share(seen, len(crisis)):>18} {_share(fired, len(everyday)):>22}")
            if path.name != GATE:
                totals[name] = [
                    totals[name][0] + seen,
                    totals[name][1] + len(crisis),
                    totals[name][2] + fired,
                    totals[name][3] + len(everyday),
                ]
        if "distress" in data:
            sad = data["distress"]
            print(
                f"{'':<28} {'(sad lines)':<13} {'help lines':>18} {_share(sum(map(layers['help lines'], sad)), len(sad)):>22}"
            )
    for name, (seen, n, fired, m) in totals.items():
        print(f"{'all but the gate':<28} {name:<13} {_share(seen, n):>18} {_share(fired, m):>22}")

    texts = [
        t for p in paths for k in ("crisis", "benign") for t in json.loads(p.read_text(encoding="utf-8")).get(k, [])
    ]
    timed = {
        "lexicon": lambda t: lexicon.family_of(t),
        "classifier": lambda t: classifier.scores(lexicon.normalise(t)),
        "whole check": check.judge,
    }
    print(f"\ntime per message over {len(texts)} labelled lines (ms)")
    for name, run in timed.items():
        times = []
        for text in texts:
            start = time.perf_counter()
            run(text)
            times.append((time.perf_counter() - start) * 1000)
        times.sort()
        print(f"  {name:<12} p50 {times[len(times) // 2]:.3f}  p95 {times[int(len(times) * 0.95)]:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
