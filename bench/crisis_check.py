"""The crisis check on every labelled set, and its time per message.

    .venv/bin/python bench/crisis_check.py

For each set in tests/unit/data/crisis_*.json: how many crisis lines fire and how many everyday lines
stay quiet, for the lexicon alone (`safety.crisis_in`) and the whole check (`crisis_cues.crisis_seen`);
each set's note says whether it is development data or was written blind (out of sample). Then the time
of one check over 200 characters (everyday text, and text with a death word in nearly every clause),
the best of five repeats.
"""

from __future__ import annotations

import argparse
import json
import sys
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "shared"))

from dreamchat.domain.crisis_cues import crisis_seen, signals_crisis  # noqa: E402
from dreamchat.domain.safety import crisis_in  # noqa: E402

DATA = ROOT / "tests" / "unit" / "data"
TEXTS = {
    "everyday, mixed": ("今天上班好累 老板又让我改方案 晚上回家吃了火锅 then watched a movie with friends lol " * 4)[
        :200
    ],
    "death words, zh": ("累死了 笑死我了 这部剧男主最后死了 跑完步我已经死了哈哈 我不活了哈哈哈 手机又死机了 " * 4)[
        :200
    ],
}


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args(argv)
    print(f"{'set':<24} {'lexicon: crisis':>16} {'quiet':>9}   {'whole check: crisis':>20} {'quiet':>9}")
    for path in sorted(DATA.glob("crisis_*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        crisis, benign = data["crisis"], data["benign"]
        cells = []
        for check in (crisis_in, crisis_seen):
            fired = sum(map(check, crisis))
            quiet = sum(not check(t) for t in benign)
            cells.append((f"{fired}/{len(crisis)}", f"{quiet}/{len(benign)}"))
        print(f"{path.stem:<24} {cells[0][0]:>16} {cells[0][1]:>9}   {cells[1][0]:>20} {cells[1][1]:>9}")
    print()
    print(f"{'200 characters':<18} {'crisis_in':>10} {'signals_crisis':>15} {'crisis_seen':>12}  (ms)")
    for name, text in TEXTS.items():
        times = [
            min(timeit.repeat(lambda c=c, t=text: c(t), number=200, repeat=5)) / 200 * 1000
            for c in (crisis_in, signals_crisis, crisis_seen)
        ]
        print(f"{name:<18} {times[0]:>10.2f} {times[1]:>15.2f} {times[2]:>12.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
