"""The token estimate: about one per CJK character, one per four characters of other words."""

from __future__ import annotations

from dreamchat.domain.tokens import estimate_messages_tokens, estimate_tokens


def test_each_chinese_character_and_mark_counts_as_one() -> None:
    assert estimate_tokens("周末去海边吧。") == 7


def test_kana_and_hangul_count_like_ideographs() -> None:
    assert estimate_tokens("こんにちは") == 5
    assert estimate_tokens("안녕하세요") == 5


def test_english_counts_by_word_length() -> None:
    assert estimate_tokens("hello world") == 2
    assert estimate_tokens("internationalization") == 5


def test_mixed_text_adds_both() -> None:
    assert estimate_tokens("我用 Python 写代码") == 5 + 2


def test_empty_text_is_free() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("   ") == 0


def test_chinese_costs_more_per_character_than_english() -> None:
    assert estimate_tokens("我" * 100) > estimate_tokens("a" * 100)


def test_messages_add_framing_per_message() -> None:
    messages = [{"role": "system", "content": "你好"}, {"role": "user", "content": "你好"}]
    assert estimate_messages_tokens(messages) == 3 + 2 * (4 + 2)


def test_tool_calls_count_their_name_and_arguments() -> None:
    call = {"function": {"name": "search_web", "arguments": '{"query": "天气"}'}}
    with_call = estimate_messages_tokens([{"role": "assistant", "content": None, "tool_calls": [call]}])
    assert with_call > estimate_messages_tokens([{"role": "assistant", "content": None}])
