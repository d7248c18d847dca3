"""The log as the memory of last resort (issue 39 part 3): which sentences become units, their bounds,
and how a query finds them."""

from __future__ import annotations

import pytest

from dreamchat.domain.log_units import (
    FACT_CUES,
    LOG_UNIT_CHARS,
    LOG_UNITS,
    LogUnit,
    carries_fact,
    covered,
    index_units,
    log_units,
    search_units,
    sentences,
)

CAT = "我养了一只叫团子的橘猫"


@pytest.mark.parametrize("cue", FACT_CUES, ids=lambda c: c.name)
def test_each_cue_finds_its_examples_and_leaves_its_counter_examples(cue) -> None:
    import re

    pattern = re.compile(cue.pattern, re.IGNORECASE)
    assert all(pattern.search(text) for text in cue.finds), cue.finds
    assert not any(pattern.search(text) for text in cue.misses), cue.misses
    assert all(carries_fact(text) for text in cue.finds)


@pytest.mark.parametrize(
    "said",
    [
        "嗯",
        "嗯嗯",
        "哈哈",
        "哈哈哈哈",
        "晚安",
        "ok",
        "OK!",
        "好的好的",
        "thank you",
        "haha lol",
        "我的猫叫什么？",
        "你喜欢猫吗",
    ],
)
def test_greetings_fillers_acknowledgements_and_questions_are_no_units(said) -> None:
    assert not carries_fact(said)
    assert log_units([("m1", 1, said)]) == []


def test_a_message_becomes_its_fact_sentences_only() -> None:
    units = log_units([("m1", 100, f"哈哈哈。{CAT}！晚安"), ("m2", 200, "I bought a new guitar. ok thanks")])
    assert units == [LogUnit("m2", 200, "I bought a new guitar."), LogUnit("m1", 100, f"{CAT}！")]
    assert sentences("今天好累。我住在杭州！你呢？") == ["今天好累。", "我住在杭州！", "你呢？"]


def test_units_are_bounded_newest_first_cut_and_said_once() -> None:
    long = "我的" + "很长" * 100
    messages = [(f"m{n:04d}", n, f"我今年{n}岁") for n in range(LOG_UNITS + 50)]
    units = log_units([*messages, ("z1", 10_000, long), ("z0", 9_999, long)])
    assert len(units) == LOG_UNITS
    assert units[0] == LogUnit("z1", 10_000, long[:LOG_UNIT_CHARS])  # the newest, once
    assert all(len(u.text) <= LOG_UNIT_CHARS for u in units)
    assert [u.timestamp for u in units[1:]] == sorted((u.timestamp for u in units[1:]), reverse=True)
    assert units[-1].text == f"我今年{LOG_UNITS + 50 - LOG_UNITS + 1}岁"


def test_a_question_worded_unlike_the_sentence_still_finds_it_by_its_characters() -> None:
    index = index_units(
        log_units([("m1", 1, CAT), ("m2", 2, "我住在杭州"), ("m3", 3, "我妈妈是医生"), ("m4", 4, "我喜欢爬山")])
    )
    assert [u.text for u in search_units(index, "我的猫叫什么")] == [CAT]
    assert [u.text for u in search_units(index, "团子最近好吗")] == [CAT]
    assert [u.text for u in search_units(index, "杭州下雪了")] == ["我住在杭州"]
    assert search_units(index, "你好呀，最近怎么样") == []  # small talk finds nothing
    assert search_units(index_units([]), "我的猫叫什么") == []


def test_a_unit_a_memory_already_says_is_covered() -> None:
    unit = LogUnit("m1", 1, CAT)
    assert covered(unit, ["对方养了一只叫团子的橘猫", "别的"])
    assert not covered(unit, ["对方养了一只橘猫"])
