"""The crisis lexicon as data: every family's own examples, generated into tests, and the normaliser."""

from __future__ import annotations

import re

import pytest

from dreamchat.crisis_data import lexicon
from dreamchat.domain.crisis import CRISIS_MARKER, read_crisis_marker

LEXICON = lexicon()
FIRES = [(f.name, text) for f in LEXICON.families for text in f.fires]
QUIET = [(f.name, text) for f in LEXICON.families for text in f.quiet]
CJK_RANGES = [(0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF)]


def test_every_family_has_examples_both_ways() -> None:
    assert len(LEXICON.families) >= 10
    for family in LEXICON.families:
        assert len(family.fires) >= 2 and len(family.quiet) >= 2, family.name
    assert len({f.name for f in LEXICON.families}) == len(LEXICON.families)


@pytest.mark.parametrize(("family", "text"), FIRES)
def test_a_familys_crisis_example_fires(family: str, text: str) -> None:
    assert LEXICON.family_of(text) is not None, (family, text)


@pytest.mark.parametrize(("family", "text"), QUIET)
def test_a_familys_everyday_example_stays_quiet(family: str, text: str) -> None:
    assert LEXICON.family_of(text) is None, (family, text, LEXICON.family_of(text))


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        ("我 不 想 活 了", "我不想活了"),
        ("我想自\u200b杀", "我想自杀"),
        ("自.杀", "自杀"),
        ("我想自殺", "我想自杀"),
        ("活著沒有意義", "活着没有意义"),
        ("我想 zi sha", "我想自杀"),
        ("zisha", "自杀"),
        ("zi4 sha1", "自杀"),
        ("想zi杀", "想自杀"),
        ("想紫砂", "想自杀"),
        ("I WANT TO DIE", "i want to die"),
        ("ｋｉｌｌ ｍｙｓｅｌｆ", "kill myself"),
        ("k!ll myself", "kill myself"),
        ("k i l l myself", "kill myself"),
        ("unalive myself", "kill myself"),
        ("kms", "kill myself"),
        ("i'm s*icidal", "i'm suicidal"),
        ("I\u2019m", "i'm"),
    ],
)
def test_normalisation_reads_through_spacing_variants_and_disguises(raw: str, normal: str) -> None:
    assert LEXICON.normalise(raw) == normal


def test_disguises_are_read_only_as_whole_words() -> None:
    assert LEXICON.normalise("we drove 300 kms") == "we drove 300 kms"
    assert LEXICON.normalise("a zisha teapot") == "a zisha teapot"
    assert LEXICON.normalise("这个紫砂壶") == "这个紫砂壶"
    assert LEXICON.family_of("skms and okms") is None


def test_no_family_matches_a_single_chinese_character() -> None:
    characters = [LEXICON.normalise(chr(p)) for low, high in CJK_RANGES for p in range(low, high + 1)]
    for family in LEXICON.families:
        assert not any(family.pattern.search(c) for c in characters), family.name


def test_an_english_family_matches_only_whole_words() -> None:
    assert LEXICON.family_of("skill myself") is None  # "kill myself" inside a longer word
    assert all(f.pattern.pattern.startswith("(?<![a-z])") for f in LEXICON.families if f.english)


@pytest.mark.parametrize(
    ("reply", "cleaned"),
    [
        (f"{CRISIS_MARKER}我在，我一直都在。", "我在，我一直都在。"),
        ("我在。[crisis]", "我在。"),
        ("[ Crisis ] 我在", " 我在"),
        ("【CRISIS】我在", "我在"),
        ("［ＣＲＩＳＩＳ］我在", "我在"),
    ],
)
def test_the_crisis_marker_is_read_and_removed_in_any_case_spacing_or_bracket(reply: str, cleaned: str) -> None:
    assert read_crisis_marker(reply) == (cleaned, True)


def test_a_reply_without_the_marker_is_left_alone() -> None:
    assert read_crisis_marker("今天的危机(crisis)过去了") == ("今天的危机(crisis)过去了", False)


def test_a_malformed_record_is_refused_naming_it() -> None:
    from dreamchat.domain.crisis import Lexicon

    base = {"normalise": {"traditional": "", "simplified": "", "disguises": []}}
    with pytest.raises(ValueError, match="'empty'"):
        Lexicon.from_records({**base, "family": [{"name": "empty"}]})
    with pytest.raises(re.error):
        Lexicon.from_records({**base, "family": [{"name": "bad", "pattern": "(unclosed"}]})
