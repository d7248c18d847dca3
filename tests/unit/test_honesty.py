"""Claims to be human: each rule's own examples, both ways (generated from the records), and the
everyday words the honesty rule must leave alone."""

from __future__ import annotations

import pytest

from dreamchat.domain.honesty import HONEST, HUMAN_CLAIMS, claims_to_be_human, plain

CLAIMS = [(rule.name, text) for rule in HUMAN_CLAIMS for text in rule.claims]
NOT_CLAIMS = [(rule.name, text) for rule in HUMAN_CLAIMS for text in rule.not_claims]


@pytest.mark.parametrize(("rule", "text"), CLAIMS, ids=[f"{r}: {t}" for r, t in CLAIMS])
def test_each_rule_catches_its_claims(rule: str, text: str) -> None:
    found = next(r for r in HUMAN_CLAIMS if r.name == rule)
    assert found.pattern.search(plain(text)) and claims_to_be_human(text)


@pytest.mark.parametrize(("rule", "text"), NOT_CLAIMS, ids=[f"{r}: {t}" for r, t in NOT_CLAIMS])
def test_no_rule_fires_on_the_everyday_words_a_rule_must_leave_alone(rule: str, text: str) -> None:
    assert not claims_to_be_human(text)


@pytest.mark.parametrize("text", HONEST)
def test_an_ai_saying_what_it_is_or_asking_is_never_a_claim(text: str) -> None:
    assert not claims_to_be_human(text)


@pytest.mark.parametrize(
    "text",
    [
        "我是真人哦",  # the card of issue 35
        "嗨～我是真人哦，很高兴认识你",
        "我是\u200b真人",  # a zero-width space inside
        "我.是.真.人",
        "ＩＭ A REAL PERSON",  # full-width, upper case
        "I\u2019m not a bot, I swear",
        "我是真人不是AI",
    ],
)
def test_a_claim_is_caught_however_it_is_written(text: str) -> None:
    assert claims_to_be_human(text)


@pytest.mark.parametrize(
    "text",
    [
        "我是真人秀的粉丝",
        "a real person would never",
        "我不是真人",
        "*抬起头* 欢迎光临，你。今天想找什么书？",
        "I'm a real person? Of course not, I'm your AI friend.",
        "",
    ],
)
def test_everyday_greetings_are_not_claims(text: str) -> None:
    assert not claims_to_be_human(text)


def test_every_rule_holds_examples_both_ways() -> None:
    assert all(rule.claims and rule.not_claims for rule in HUMAN_CLAIMS)
