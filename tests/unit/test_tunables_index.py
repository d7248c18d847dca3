"""docs/architecture.md's index of tunables, as a test: every constant that tunes behaviour and every
setting is listed with its one home, and a second home or an unlisted constant fails here.

The index is the table under "## Every tunable and its one home": a row per file, its first cell the
file, its second the names defined there (settings, `DREAMCHAT_<FIELD>`, in the row of config.py).
What counts as a tunable: a module-level UPPER_CASE name (public or private) in shared/dreamchat
bound to a number, a string, a tuple, a numeric expression or a `timedelta`, except (`excluded`):
- the storage keys, prefixes and due-index kinds of `shared/dreamchat/keys.py` (the storage layout,
  tabled under "Storage keys");
- words: a string with a space or a CJK character is text someone reads (prompts live in llm/);
- a private string: a piece of a regular expression (`_CJK`, `_ZH_SUBJECT`);
- a route's path (a string starting with "/").
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest

from dreamchat.config import Settings

ROOT = Path(__file__).resolve().parents[2]
DREAMCHAT = ROOT / "shared" / "dreamchat"
DOC = ROOT / "docs" / "architecture.md"
HEADING = "## Every tunable and its one home"
CONFIG = "shared/dreamchat/config.py"
KEYS = "shared/dreamchat/keys.py"

UPPER = re.compile(r"^_?[A-Z][A-Z0-9_]*$")
WORDS = re.compile(r"[\s\u3000-\u9fff\uff00-\uffef]")
SPAN = re.compile(r"`([^`]+)`")

# Names a tunable may share with another while a change renames them apart (none today).
STILL_SHARED: set[str] = set()


def assignments(source: str) -> list[tuple[str, ast.expr]]:
    """The module-level UPPER_CASE names a source binds, with their values."""
    found = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        for target in targets:
            names = target.elts if isinstance(target, ast.Tuple) else [target]
            found += [(n.id, value) for n in names if isinstance(n, ast.Name) and UPPER.match(n.id)]
    return found


def tunable(name: str, value: ast.expr) -> bool:
    """Whether a value tunes behaviour (see the module's docstring for what does not)."""
    if isinstance(value, ast.Constant):
        if isinstance(value.value, str):
            return not (WORDS.search(value.value) or name.startswith("_") or value.value.startswith("/"))
        return isinstance(value.value, int | float)
    if isinstance(value, ast.Call):
        return isinstance(value.func, ast.Name) and value.func.id == "timedelta"
    return isinstance(value, ast.Tuple | ast.BinOp)


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@cache
def definitions() -> dict[str, set[str]]:
    """Every module-level UPPER_CASE name in shared/dreamchat, and the files that define it."""
    found: dict[str, set[str]] = defaultdict(set)
    for path in sorted(DREAMCHAT.rglob("*.py")):
        for name, _ in assignments(path.read_text(encoding="utf-8")):
            found[name].add(relative(path))
    return found


@cache
def tunables() -> dict[str, str]:
    """Each tunable constant and its file."""
    found = {}
    for path in sorted(DREAMCHAT.rglob("*.py")):
        if relative(path) != KEYS:
            source = path.read_text(encoding="utf-8")
            found |= {name: relative(path) for name, value in assignments(source) if tunable(name, value)}
    return found


def index(text: str) -> dict[str, str]:
    """The index's names, each with the file its row names."""
    section = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    listed: dict[str, str] = {}
    for line in section.splitlines():
        cells = line.split("|")
        if len(cells) < 4 or not SPAN.search(cells[1]):
            continue
        home = SPAN.search(cells[1]).group(1)  # type: ignore[union-attr]
        for name in SPAN.findall(cells[2]):
            assert name not in listed, f"{name} is listed twice"
            listed[name] = home
    return listed


@cache
def listed() -> dict[str, str]:
    return index(DOC.read_text(encoding="utf-8"))


def test_the_index_lists_something_in_every_layer():
    homes = set(listed().values())
    assert CONFIG in homes and len(listed()) > 200
    assert {home.split("/")[2] for home in homes} >= {"domain", "llm", "services", "adapters", "api"}


def test_every_listed_constant_is_defined_in_its_file_and_nowhere_else():
    wrong = {
        name: (home, sorted(definitions().get(name, ())))
        for name, home in listed().items()
        if not name.startswith("DREAMCHAT_") and definitions().get(name) != {home}
    }
    assert wrong == {}


def test_every_listed_setting_is_a_setting_of_config():
    settings = {name: home for name, home in listed().items() if name.startswith("DREAMCHAT_")}
    assert set(settings.values()) == {CONFIG}
    assert [n for n in settings if n.removeprefix("DREAMCHAT_").lower() not in Settings.model_fields] == []


def test_every_tunable_and_every_setting_is_listed():
    constants = {name: home for name, home in tunables().items() if name not in STILL_SHARED}
    assert {name: home for name, home in constants.items() if listed().get(name) != home} == {}
    settings = {f"DREAMCHAT_{field.upper()}" for field in Settings.model_fields}
    assert sorted(settings - listed().keys()) == []


def test_a_tunable_has_one_name_in_the_whole_library():
    shared = {name: sorted(definitions()[name]) for name in tunables() if len(definitions()[name]) > 1}
    assert shared.keys() == STILL_SHARED & definitions().keys()


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("LIMIT = 5\n_PRIVATE = 0.5\nWAIT = timedelta(hours=1)\nSIZE = 4 * 1024\nPAIR = (1, 2)\n", True),
        ('MODEL = "text-embedding-v4"\n', True),
        ('NOTICE = "记得休息"\nHEADER = "a header with spaces"\n_PIECE = r"[a-z]"\nPATH = "/api/x"\n', False),
        ('PATTERN = re.compile("x")\nTABLE = {"a": 1}\n', False),
    ],
)
def test_what_counts_as_a_tunable(source: str, found: bool) -> None:
    assert all(tunable(name, value) is found for name, value in assignments(source))


def test_a_row_lists_its_names_under_its_file():
    text = f"{HEADING}\n\n| File | Tunables |\n|---|---|\n| `a/b.py` | `X` (why), `Y` |\n\n## Next\n| `c.py` | `Z` |\n"
    assert index(text) == {"X": "a/b.py", "Y": "a/b.py"}
