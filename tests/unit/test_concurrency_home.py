"""Concurrency has one home, as a test: versions, store conditions, transactions and the due index's
attributes are spelled only in the unit of work and its repositories (`dreamchat.services.storage`)
and in `dreamchat.keys`. A service that writes over a version it read by hand fails here.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

from tests.unit.test_layers import SHARED, layer

HOME = ("dreamchat", "services", "storage")

# What only the unit of work may spell: version arithmetic, the legacy upgrade, a transaction, the due index.
SPELLED = {
    "a version": re.compile(r"""["']version["']|\bput_versioned\b|\bexpected_version\b|\.version\b|\bversion\s*[+-]"""),
    "the legacy upgrade": re.compile(r"\bif_unversioned\b"),
    "a transaction": re.compile(r"\btransact\("),
    "the due index": re.compile(r"\bDUE_(PK|SK)\b"),
}


def code_of(source: str) -> str:
    """The source with comments and prose (docstrings, messages) blanked: what it does, not what it says."""
    lines = source.splitlines(keepends=True)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        prose = token.type == tokenize.STRING and re.search(r"\s", token.string)
        if token.type == tokenize.COMMENT or prose:
            (row, col), (end_row, end_col) = token.start, token.end
            for number in range(row, end_row + 1):
                line = lines[number - 1]
                start, stop = (col if number == row else 0), (end_col if number == end_row else len(line.rstrip("\n")))
                lines[number - 1] = line[:start] + " " * (stop - start) + line[stop:]
    return "".join(lines)


def spelled(source: str) -> list[str]:
    code = code_of(source)
    return sorted(what for what, pattern in SPELLED.items() if pattern.search(code))


def service_modules() -> list[Path]:
    home = SHARED.joinpath(*HOME)
    return [path for path in layer("services") if not path.is_relative_to(home)]


def test_the_services_outside_the_unit_of_work_spell_no_version_condition_transaction_or_due_index():
    found = {path.name: what for path in service_modules() if (what := spelled(path.read_text(encoding="utf-8")))}
    assert found == {}


def test_the_unit_of_work_is_where_they_are_spelled():
    home = [path for path in layer(*HOME[1:]) if path.name != "__init__.py"]
    assert set().union(*(spelled(path.read_text(encoding="utf-8")) for path in home)) == set(SPELLED)


@pytest.mark.parametrize(
    ("source", "what"),
    [
        ('store.put_versioned(item, found["version"])', ["a version"]),
        ("Put({**found, 'version': 1}, if_unversioned=True)", ["a version", "the legacy upgrade"]),
        ("self.repo.store.transact(operations)", ["a transaction"]),
        ("fields[DUE_SK] = keys.due_sort(when, pk)", ["the due index"]),
        ("version = claim.version + 1", ["a version"]),
    ],
)
def test_a_hand_written_version_condition_or_transaction_is_found(source, what):
    assert spelled(source) == what


def test_prose_about_versions_is_not_code():
    source = (
        '"""Written over the version read."""\nx = 1  # transact( once, DUE_SK\nraise Conflict("the version changed")\n'
    )
    assert spelled(source) == []
