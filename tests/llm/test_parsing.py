"""Finding the one JSON object in what a model wrote."""

from __future__ import annotations

from dreamchat.llm.parsing import extract_json_object


def test_a_bare_object_is_parsed() -> None:
    assert extract_json_object('{"a": 1}') == {"a": 1}


def test_a_fenced_object_is_parsed() -> None:
    assert extract_json_object('```json\n{"a": [1, 2]}\n```') == {"a": [1, 2]}


def test_prose_around_the_object_is_ignored() -> None:
    assert extract_json_object('好的！结果是 {"summary": "去海边"} 以上。') == {"summary": "去海边"}


def test_braces_and_quotes_inside_strings_do_not_end_the_object() -> None:
    text = '说明 {"s": "a } b \\" { c", "n": {"x": 1}} 完'
    assert extract_json_object(text) == {"s": 'a } b " { c', "n": {"x": 1}}


def test_a_think_block_is_skipped() -> None:
    assert extract_json_object('<think>试试 {"wrong": true}</think>{"right": true}') == {"right": True}


def test_an_unparseable_brace_is_skipped_for_the_next_object() -> None:
    assert extract_json_object('格式 {大概这样} 然后 {"ok": 1}') == {"ok": 1}


def test_the_first_of_several_objects_wins() -> None:
    assert extract_json_object('{"a": 1} {"b": 2}') == {"a": 1}


def test_no_object_gives_none() -> None:
    assert extract_json_object("我不知道") is None
    assert extract_json_object("[1, 2]") is None
    assert extract_json_object('{"unclosed": 1') is None
