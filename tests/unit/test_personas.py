"""What an AI user shows people: a name that shows something (the one rule for every name), and a
greeting that never claims to be human."""

from __future__ import annotations

import pytest

from dreamchat.domain.personas import GREETING_CLAIMS_HUMAN, field_problem, first_problem, opening
from dreamchat.domain.text import INVISIBLE_NAME, name_problem

RLO = "\u202e"


@pytest.mark.parametrize(
    "name",
    [
        RLO + "\u0301\u0302\u0303",  # a right-to-left override and combining marks (issue 35)
        "\u0301" * 5,  # marks alone
        "\u20dd\u20de",  # enclosing marks
        "\ufe0f\ufe0e",  # variation selectors
        "\u200b\u200d\u2060",  # zero-width space, joiner, word joiner
        "\u3164\u3164",  # Hangul fillers
        "\u2800",  # the blank Braille pattern
        "\u0007\u001b",  # controls
        " \u3000 ",  # spaces
        RLO + "\U000e0041\U000e0042",  # tag characters
        "",
    ],
)
def test_a_name_that_shows_nothing_is_refused(name: str) -> None:
    assert name_problem(name) == INVISIBLE_NAME


@pytest.mark.parametrize("name", ["小梦", "Zoë", "e\u0301", RLO + "林雾", "🌙", "ㅎ", "a\u200bb", "ก่"])
def test_a_name_with_something_visible_is_kept(name: str) -> None:
    assert name_problem(name) is None


def test_only_the_name_and_the_greeting_have_rules_here() -> None:
    assert field_problem("name", "\u0301") == INVISIBLE_NAME
    assert field_problem("greeting", "我是真人哦") == GREETING_CLAIMS_HUMAN
    assert field_problem("base_soul", "我是真人哦") is None  # the persona reaches the model, which the prompt holds
    assert field_problem("greeting", "欢迎光临") is None


def test_the_first_field_that_breaks_a_rule_is_named() -> None:
    assert first_problem({"name": "小梦", "greeting": "我是真人哦"}) == ("greeting", GREETING_CLAIMS_HUMAN)
    assert first_problem({"name": "小梦", "greeting": "你好呀"}) is None


def test_a_greeting_that_claims_to_be_human_never_opens_a_chat() -> None:
    assert opening("  你好呀～  ") == "你好呀～"
    assert opening("我是真人哦") is None
    assert opening("   ") is None
