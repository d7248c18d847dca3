"""Which character cards make their character the person's partner (`dreamchat.domain.romance`): tests made
from the rules' own examples, both sides, and the card import that sets `romance` by them."""

from __future__ import annotations

import pytest

from dreamchat.domain.cards import import_card, parse_card
from dreamchat.domain.romance import ROMANCE_RULES, plain, romantic

CATCHES = [(rule.name, text) for rule in ROMANCE_RULES for text in rule.romantic]
LEAVES = [(rule.name, rule.where, text) for rule in ROMANCE_RULES for text in rule.everyday]


def read_as(where: str, text: str) -> bool:
    return romantic([text], []) if where == "tag" else romantic([], [text])


@pytest.mark.parametrize(("rule", "text"), CATCHES, ids=[f"{r}: {t}" for r, t in CATCHES])
def test_each_rule_catches_its_examples(rule: str, text: str) -> None:
    found = next(r for r in ROMANCE_RULES if r.name == rule)
    assert found.pattern.search(plain(text).lstrip("#")) and read_as(found.where, text)


@pytest.mark.parametrize(("rule", "where", "text"), LEAVES, ids=[f"{r}: {t}" for r, _, t in LEAVES])
def test_no_rule_fires_on_the_everyday_words_a_rule_must_leave_alone(rule: str, where: str, text: str) -> None:
    assert not read_as(where, text)


def test_every_rule_has_examples_of_both_sides() -> None:
    assert all(rule.romantic and rule.everyday for rule in ROMANCE_RULES)


def card(**data: object) -> dict:
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": {"name": "小雪", **data}}


@pytest.mark.parametrize(
    "data",
    [
        {"tags": ["恋爱", "校园"]},
        {"tags": ["NSFW"]},
        {"description": "{{char}}是{{user}}的女朋友，温柔体贴。"},
        {"scenario": "You and {{char}} have been dating for a year; she is your girlfriend."},
        {"first_mes": "老公，你回来啦～"},
    ],
)
def test_a_card_that_makes_its_character_a_partner_is_imported_with_romance(data: dict) -> None:
    assert import_card(parse_card(card(**data))).romance is True


@pytest.mark.parametrize(
    "data",
    [
        {"tags": ["朋友", "治愈", "学习伴侣"], "description": "{{char}}是{{user}}的同桌，成绩很好。"},
        {"tags": ["fantasy", "mentor"], "description": "{{char}} is your best friend and partner in crime."},
        {},
    ],
)
def test_an_everyday_card_is_imported_without_romance(data: dict) -> None:
    assert import_card(parse_card(card(**data))).romance is False


def test_our_own_export_of_a_romance_ai_user_keeps_it() -> None:
    data = {"extensions": {"dreamchat": {"version": 1, "romance": True}}}
    assert import_card(parse_card(card(**data))).romance is True
