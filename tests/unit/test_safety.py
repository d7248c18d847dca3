"""The crisis lexicon against its labelled set, the normalisation, the crisis marker and the resource table."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from dreamchat.domain import safety
from dreamchat.domain.crisis_cues import crisis_seen
from dreamchat.domain.safety import (
    CRISIS_MARKER,
    DEFAULT_RESOURCES,
    PHRASES,
    CrisisResource,
    crisis_in,
    normalise,
    parse_resources,
    read_crisis_marker,
    resources_for,
    speaks_of_harm,
)

LABELLED = json.loads((Path(__file__).parent / "data" / "crisis_labelled.json").read_text(encoding="utf-8"))
# Written before the lexicon was read, then used to extend it. "crisis_not_recognised": statements words
# alone cannot tell from everyday ones (see the module docstring), kept on record, not asserted.
HELDOUT = json.loads((Path(__file__).parent / "data" / "crisis_heldout.json").read_text(encoding="utf-8"))
# Written after the lexicon was extended, to measure it out of sample; its errors are kept on record, not asserted.
FRESH = json.loads((Path(__file__).parent / "data" / "crisis_fresh.json").read_text(encoding="utf-8"))
FRESH_CRISIS = [t for t in FRESH["crisis"] if t not in FRESH["not_asserted"]["crisis_missed"]]
FRESH_BENIGN = [t for t in FRESH["benign"] if t not in FRESH["not_asserted"]["benign_fired"]]
# Written before the general rule, to measure it; its errors are kept on record, not asserted.
FRESH2 = json.loads((Path(__file__).parent / "data" / "crisis_fresh2.json").read_text(encoding="utf-8"))
FRESH2_CRISIS = [t for t in FRESH2["crisis"] if t not in FRESH2["not_asserted"]["crisis_missed"]]
FRESH2_BENIGN = [t for t in FRESH2["benign"] if t not in FRESH2["not_asserted"]["benign_fired"]]
# Written after the last change, to measure the lexicon and the general rule out of sample; errors on record only.
FRESH3 = json.loads((Path(__file__).parent / "data" / "crisis_fresh3.json").read_text(encoding="utf-8"))
FRESH3_CRISIS = [t for t in FRESH3["crisis"] if t not in FRESH3["not_asserted"]["crisis_missed"]]
FRESH3_BENIGN = [t for t in FRESH3["benign"] if t not in FRESH3["not_asserted"]["benign_fired"]]
# Written for issue 23's categories before changing the lexicon, then used to tune it (a development set, not a
# measurement); its errors are kept on record, not asserted.
FRESH4 = json.loads((Path(__file__).parent / "data" / "crisis_fresh4_dev.json").read_text(encoding="utf-8"))
FRESH4_CRISIS = [t for t in FRESH4["crisis"] if t not in FRESH4["not_asserted"]["crisis_missed"]]
FRESH4_BENIGN = [t for t in FRESH4["benign"] if t not in FRESH4["not_asserted"]["benign_fired"]]
CJK_RANGES = [(0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF)]


def test_the_labelled_set_is_large_enough_in_both_languages() -> None:
    for data, least in ((LABELLED, 60), (HELDOUT, 80), (FRESH, 30), (FRESH2, 60), (FRESH3, 40), (FRESH4, 40)):
        for label in ("crisis", "benign"):
            texts = data[label]
            assert len(texts) >= least
            assert any(t.isascii() for t in texts) and any(not t.isascii() for t in texts)


@pytest.mark.parametrize(
    "text", LABELLED["crisis"] + HELDOUT["crisis"] + FRESH_CRISIS + FRESH2_CRISIS + FRESH3_CRISIS + FRESH4_CRISIS
)
def test_a_crisis_statement_fires(text: str) -> None:
    assert crisis_in(text)


@pytest.mark.parametrize(
    "text", LABELLED["benign"] + HELDOUT["benign"] + FRESH_BENIGN + FRESH2_BENIGN + FRESH3_BENIGN + FRESH4_BENIGN
)
def test_an_everyday_use_does_not_fire(text: str) -> None:
    assert not crisis_in(text)


# The borderline decisions of the module docstring, kept as tests so changing one is a visible choice.
@pytest.mark.parametrize(
    "text",
    [
        "作业多到想死",
        "压力大到想死",
        "疼得想死",
        "考试又挂了，想死的心都有了",
        "没有奶茶我活不下去",
        "我看的电影里看到一半 我也想自杀",
        "看完这部剧我也想像女主一样去死",
        "他自杀了",
        "不想活了哈哈哈",
    ],
)
def test_pressure_pain_and_a_first_person_near_a_story_fire(text: str) -> None:
    assert crisis_in(text)


# Round 2: a role's act in a story is the role's even with 我 nearby; a joke's 不活了 or 已经死了 beside a laugh or
# after exertion is a figure of speech (a wish, 想死 or 不想活了, still fires: see above).
@pytest.mark.parametrize(
    "text",
    [
        "我看的电影里主角自杀了",
        "剧本杀里我演的角色最后上吊了",
        "我在话剧里演一个自杀的人",
        "作业没写完 我不活了哈哈哈",
        "跑完十公里 我宣布我已经死了",
        "my ex is dead to me",
        "想把书都捐了 断舍离",
    ],
)
def test_a_role_a_joke_and_a_tidy_up_are_quiet(text: str) -> None:
    assert not crisis_in(text)


@pytest.mark.parametrize(
    "text",
    ["累得想死", "困得想死", "热到想死", "无聊到想死", "尴尬得想死", "i'm not going to kill myself, don't worry"],
)
def test_bodily_hyperbole_and_a_plain_denial_do_not_fire(text: str) -> None:
    assert not crisis_in(text)


def test_a_denial_covers_only_its_own_clause() -> None:
    assert not crisis_in("我以前从来没有想过自杀")
    assert crisis_in("我以前从来没有想过自杀，现在每天都想自杀")
    assert crisis_in("I'm not suicidal, I just want to die")


def test_a_story_without_a_first_person_does_not_fire_but_the_persons_own_words_do() -> None:
    assert not crisis_in("新闻里说有人自杀了")
    assert crisis_in("新闻里说有人自杀了。我也想自杀")


def by_the_general_rule(text: str) -> bool:
    return any(speaks_of_harm(sentence) for sentence in safety._SENTENCE_BREAK.split(normalise(text)))


# Phrasings no family foresaw: the general rule catches them by construction (a word of death or self-harm,
# said of the person, not inside an idiom, not denied).
@pytest.mark.parametrize(
    "text",
    [
        "怎样才能不痛地死掉",
        "吃多少颗褪黑素会死",
        "我准备今晚结束自己",
        "遗言写在备忘录里了",
        "我想去另一个世界",
        "今天是我在这个世界上的最后一天",
        "没人会在乎我是死是活",
        "腿上又多了三道口子",
        "我站在窗台上",
        "如果我下周不在了，帮我照顾好它",
        "想从二十楼跳下去",
        "planning to jump off the overpass tonight",
        "what's the quickest way to die",
        "how deep do you have to cut",
        "I'm thinking about a bullet in my head",
        "I want to fall asleep tonight and never wake up",
        "I've got a plan and I'm going to go through with it",
        "i won't be around much longer",
        "死",
    ],
)
def test_the_general_rule_catches_a_phrasing_no_family_foresaw(text: str) -> None:
    assert crisis_in(text) and by_the_general_rule(text)


# The idioms of the brief: each holds a word of the rule's vocabulary, or none at all, and never means it.
@pytest.mark.parametrize(
    "text",
    [
        "想死你了",
        "想你想死了",
        "笑死我了",
        "累死了",
        "热死了",
        "气死我了",
        "饿死了",
        "困死了",
        "吓死我了",
        "烦死了",
        "尴尬死了",
        "美死了",
        "卷死了",
        "忙死了",
        "冻死了",
        "撑死了",
        "渴死了",
        "痒死了",
        "疼死了",
        "我死党",
        "死鬼",
        "这次死定了",
        "电脑死机了",
        "死线是周五",
        "跟这道题死磕",
        "他死活不肯",
        "我已经死心了",
        "死记硬背",
        "要死啊你",
        "别作死",
        "死宅一个",
        "死忠粉",
        "笑死人了",
        "杀青了",
        "秒杀",
        "杀价",
        "杀毒软件",
        "砍价",
        "割草",
        "股票割肉了",
        "很划算",
        "去划船",
        "划重点",
        "我又被boss杀了",
        "又死了一次，等复活",
        "you're killing it",
        "I killed it",
        "dying to see it",
        "to die for",
        "dead tired",
        "I'm dead 😂",
        "drop dead gorgeous",
        "the deadline is friday",
        "dead battery",
        "kill the lights",
        "kill the process",
        "cutting edge",
        "cut the cake",
        "I cut my hair",
        "bored to death",
        "my plant died",
        "最近在听《Suicide Season》",
    ],
)
def test_an_idiom_does_not_fire(text: str) -> None:
    assert not crisis_in(text)


@pytest.mark.parametrize(
    "text",
    [
        "我不想死",
        "I don't want to die",
        "我从来没想过自杀",
        "他跳楼了",
        "my brother died last year",
        "外公的遗言是好好读书",
        "新闻说一名男子从桥上跳下",
        "Romeo and Juliet both die at the end",
        "你是不是想死啊",
        "I have a plan for tonight",
    ],
)
def test_a_denial_someone_elses_death_or_a_threat_does_not_fire(text: str) -> None:
    assert not crisis_in(text)


def test_pain_as_a_degree_word_is_quiet_but_pain_before_wanting_to_die_fires() -> None:
    assert not crisis_in("疼死了") and crisis_in("疼得想死")
    assert crisis_in("期末考试我真的会死") and crisis_in("我就死给他看")


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
    assert normalise(raw) == normal


def test_disguises_are_read_only_as_whole_words() -> None:
    assert normalise("we drove 300 kms") == "we drove 300 kms"
    assert normalise("a zisha teapot") == "a zisha teapot"
    assert not crisis_in("skms and okms")


def test_no_phrase_of_the_lexicon_matches_a_single_chinese_character() -> None:
    for low, high in CJK_RANGES:
        for point in range(low, high + 1):
            character = normalise(chr(point))
            assert not any(phrase.pattern.search(character) for phrase in PHRASES), chr(point)


def test_each_phrase_is_written_in_its_own_script_so_the_screen_never_changes_a_verdict() -> None:
    """A Chinese phrase is searched only in a sentence holding a Chinese character, an English one only where
    there is a Latin letter: sound when every match of a phrase holds a character of its own script."""
    cjk = re.compile(f"[{safety._CJK}]")
    texts = [
        text
        for data in (LABELLED, HELDOUT, FRESH, FRESH2, FRESH3, FRESH4)
        for label in ("crisis", "benign")
        for text in data[label]
    ]
    for text in texts:
        for sentence in safety._SENTENCE_BREAK.split(normalise(text)):
            for phrase in PHRASES:
                for match in phrase.pattern.finditer(sentence):
                    own_script = re.compile("[a-z]") if phrase.english else cjk
                    assert own_script.search(match.group()), (phrase.pattern.pattern, sentence)
    assert sum(phrase.english for phrase in PHRASES) > 30 and sum(not phrase.english for phrase in PHRASES) > 50


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


def names(resources: list[CrisisResource]) -> list[str]:
    return [r.phone or r.url for r in resources]


def test_a_locale_gets_its_own_lines_then_the_generic_entry() -> None:
    assert names(resources_for("zh-CN", DEFAULT_RESOURCES)) == [
        "12356",
        "010-82951332",
        "400-161-9995",
        "110",
        "120",
        "https://findahelpline.com",
    ]
    assert names(resources_for("en-US", DEFAULT_RESOURCES)) == ["988", "911", "https://findahelpline.com"]


def test_the_locale_is_read_without_regard_to_case_or_separator() -> None:
    assert resources_for("zh_cn", DEFAULT_RESOURCES) == resources_for("zh-CN", DEFAULT_RESOURCES)


def test_a_locale_without_entries_falls_back_to_its_language_then_to_the_generic_entry() -> None:
    assert resources_for("zh-TW", DEFAULT_RESOURCES) == resources_for("zh-CN", DEFAULT_RESOURCES)
    assert resources_for("en", DEFAULT_RESOURCES) == resources_for("en-US", DEFAULT_RESOURCES)
    assert names(resources_for("de-DE", DEFAULT_RESOURCES)) == ["https://findahelpline.com"]
    assert names(resources_for("", DEFAULT_RESOURCES)) == ["https://findahelpline.com"]


def line(name: str, phone: str = "1") -> CrisisResource:
    return CrisisResource(name, phone, "", "24h", "test")


def test_the_closest_locale_of_the_language_wins_and_its_own_entries_come_first() -> None:
    table = {"zh-CN": (line("mainland"),), "zh-TW": (line("taiwan"),), "*": (line("local"),)}
    assert [r.name for r in resources_for("zh-Hant-TW", table)] == ["taiwan", "local"]
    assert [r.name for r in resources_for("zh-HK", table)] == ["mainland", "local"]


def test_a_resource_listed_twice_is_shown_once() -> None:
    table = {"en-US": (line("988"), line("988")), "*": (line("988"),)}
    assert resources_for("en-US", table) == [line("988")]


def test_every_default_number_says_where_it_was_checked() -> None:
    for resources in DEFAULT_RESOURCES.values():
        for resource in resources:
            assert resource.name and resource.hours and resource.source
            assert resource.phone or resource.url


def test_an_operators_table_is_read_into_resources() -> None:
    raw = {
        "zh-HK": [{"name": "撒玛利亚防止自杀会", "phone": "2389 2222", "source": "the operator, 2026-12"}],
        "*": [{"name": "local emergency number", "source": "generic", "hours": "24/7"}],
    }
    assert parse_resources(raw) == {
        "zh-HK": (CrisisResource("撒玛利亚防止自杀会", "2389 2222", "", "", "the operator, 2026-12"),),
        "*": (CrisisResource("local emergency number", "", "", "24/7", "generic"),),
    }


GENERIC = [{"name": "local", "source": "generic"}]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ([], "must be an object"),
        ({"en-US": [{"name": "988", "source": "x"}]}, 'need a "*" entry'),
        ({"english please": GENERIC, "*": GENERIC}, "is not a locale"),
        ({"en-US": [], "*": GENERIC}, "at least one resource"),
        ({"en-US": {"name": "988"}, "*": GENERIC}, "at least one resource"),
        ({"en-US": ["988"], "*": GENERIC}, "entry 1: must be an object"),
        ({"en-US": [{"name": "988", "phon": "988", "source": "x"}], "*": GENERIC}, "unknown field(s) phon"),
        ({"en-US": [{"name": "988", "phone": 988, "source": "x"}], "*": GENERIC}, "phone must be a string"),
        ({"en-US": [{"name": " ", "source": "x"}], "*": GENERIC}, "name must not be empty"),
        ({"en-US": [{"name": "988", "phone": "988"}], "*": GENERIC}, "source must not be empty"),
    ],
)
def test_a_malformed_table_is_refused_with_what_is_wrong(raw: object, message: str) -> None:
    with pytest.raises(ValueError) as refused:
        parse_resources(raw)  # type: ignore[arg-type]
    assert message in str(refused.value)


# Session 9's blind sets, judged by the whole check (`crisis_seen`: the lexicon or the cue classes). Their
# notes say what each measured and how far it is out of sample; their errors are on record, not asserted.
BLIND = [
    json.loads((Path(__file__).parent / "data" / f"crisis_fresh{n}_blind.json").read_text(encoding="utf-8"))
    for n in (4, 5, 6, 7)
]
BLIND_CRISIS = [t for d in BLIND for t in d["crisis"] if t not in d["not_asserted"]["crisis_missed"]]
BLIND_BENIGN = [t for d in BLIND for t in d["benign"] if t not in d["not_asserted"]["benign_fired"]]


def test_the_blind_sets_are_large_enough_in_both_languages() -> None:
    for data in BLIND:
        for label in ("crisis", "benign"):
            assert len(data[label]) >= 70
            assert any(t.isascii() for t in data[label]) and any(not t.isascii() for t in data[label])


@pytest.mark.parametrize("text", BLIND_CRISIS)
def test_a_blind_sets_crisis_line_is_seen(text: str) -> None:
    assert crisis_seen(text)


@pytest.mark.parametrize("text", BLIND_BENIGN)
def test_a_blind_sets_everyday_line_is_not(text: str) -> None:
    assert not crisis_seen(text)
