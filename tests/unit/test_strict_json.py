"""Strict JSON in and out (issue 35 §4): what Python's json reads and a browser's JSON.parse does not,
or what costs a server error, is refused naming where; what we write is always JSON."""

from __future__ import annotations

import json

import pytest

from dreamchat.domain import strict_json


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        (b'{"a": [1, {"b": NaN}]}', "a.1.b: NaN is not a JSON number"),
        (b'{"a": -Infinity}', "a: -Infinity is not a JSON number"),
        (b'{"a": 1e999}', "a: the number 1e999 is too large"),
        (b'{"t": 9223372036854775808}', "t: the integer 9223372036854775808 is too large"),
        (b'{"t": ' + b"9" * 5000 + b"}", "(5000 digits) is too large"),
        (b"[" * 65 + b"]" * 65, "nested more than 64 levels deep"),
        (b"[" * 200_000 + b"]" * 200_000, "nested more than 64 levels deep"),
        (b'{"name": "x\\ud800"}', "unpaired surrogate) at name"),
        (b'{"a": 1} {"b": 2}', "not valid JSON: Extra data"),
        (b"\xff{}", "not UTF-8 text (byte 0)"),
    ],
)
def test_what_is_not_strict_json_is_refused_naming_where(raw: bytes, says: str) -> None:
    with pytest.raises(strict_json.JsonProblem) as problem:
        strict_json.loads(raw)
    assert says in str(problem.value)


def test_standard_json_reads_as_pythons_json_reads_it() -> None:
    raw = '\ufeff{"a": [1, 2.5, -0, true, null, "海"], "t": 9223372036854775807, "deep": ' + "[" * 63 + "]" * 63 + "}"
    assert strict_json.loads(raw.encode()) == json.loads(raw.removeprefix("\ufeff"))


def test_what_is_written_is_json_a_browser_reads() -> None:
    written = strict_json.dumps({"r": float("nan"), "l": [float("inf"), 1.5], "s": "海 \ud800"})
    assert json.loads(written, parse_constant=lambda name: pytest.fail(name)) == {
        "r": None,
        "l": [None, 1.5],
        "s": "海 \ud800",
    }
    assert strict_json.dumps({"s": "海"}) == '{"s":"海"}'.encode()
