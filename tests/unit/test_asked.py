"""Which messages are always answered: each cue's own examples, then the classifier as a whole."""

from __future__ import annotations

import pytest

from dreamchat.config import DEFAULT_FAREWELLS
from dreamchat.domain.asked import ASKING_CUES, always_answered, asks_a_question, is_boring, plain

MATCHES = [(cue.name, text) for cue in ASKING_CUES for text in cue.matches]
NOT_MATCHES = [(cue.name, text) for cue in ASKING_CUES for text in cue.not_matches]


@pytest.mark.parametrize(("cue", "text"), MATCHES, ids=[f"{c}: {t}" for c, t in MATCHES])
def test_each_cue_matches_its_examples(cue: str, text: str) -> None:
    found = next(c for c in ASKING_CUES if c.name == cue)
    assert found.pattern.search(plain(text)), text


@pytest.mark.parametrize(("cue", "text"), NOT_MATCHES, ids=[f"{c}: {t}" for c, t in NOT_MATCHES])
def test_each_cue_leaves_its_counter_examples_alone(cue: str, text: str) -> None:
    found = next(c for c in ASKING_CUES if c.name == cue)
    assert not found.pattern.search(plain(text)), text


def test_every_cue_has_examples_both_ways() -> None:
    assert all(cue.matches and cue.not_matches for cue in ASKING_CUES)


def kind(text: str, previous: str | None = None) -> str | None:
    return always_answered(text, previous, DEFAULT_FAREWELLS)


@pytest.mark.parametrize(
    "text",
    [
        "你最近在听什么歌？",
        "给我讲个故事",
        "can you sing me something",
        "你在干嘛呢",
        "在吗",
        "那你呢",
        "推荐一部电影吧",
    ],
)
def test_a_question_or_request_to_the_ai_is_always_answered(text: str) -> None:
    assert kind(text) == "question"


@pytest.mark.parametrize(
    "text", ["你还记得我家狗叫什么吗", "记不记得我说过我怕黑", "上次你说要推荐书给我", "do you remember my sister?"]
)
def test_a_message_that_names_a_memory_is_always_answered_as_memory(text: str) -> None:
    assert kind(text) == "memory"


@pytest.mark.parametrize("text", ["晚安", "我先睡了", "明天见～", "拜拜", "good night!", "ok bye"])
def test_a_goodnight_or_goodbye_is_always_answered(text: str) -> None:
    assert kind(text) == "farewell"


def test_a_reply_to_the_ais_own_question_is_an_answer() -> None:
    assert kind("周杰伦的晴天", previous="你最近在听什么呀？") == "answer"
    assert kind("the subway, it was packed", previous="How did you get to work?") == "answer"
    assert kind("王者荣耀", previous="我也喜欢打游戏\n你玩什么游戏呀？") == "answer"  # its last line asks


def test_a_reply_after_the_ais_statement_is_not_an_answer() -> None:
    assert kind("周杰伦的晴天", previous="我今天听了一天的歌。") is None
    assert kind("周杰伦的晴天", previous=None) is None


@pytest.mark.parametrize("text", ["嗯", "哈哈", "好吧", "ok", "哦", "嗯嗯嗯", "lol", "？"])
def test_a_bare_acknowledgement_is_never_always_answered_even_after_a_question(text: str) -> None:
    assert is_boring(text)
    assert kind(text) is None
    assert kind(text, previous="今天过得怎么样？") is None


@pytest.mark.parametrize(
    "text",
    [
        "你",
        "你真好",
        "我不知道为什么",
        "今天好累啊",
        "你什么都不懂",
        "上次考试没考好",
        "我还记得小时候的事",
        "I'm so tired",
    ],
)
def test_an_ordinary_statement_is_not_always_answered(text: str) -> None:
    assert kind(text) is None


def test_the_first_kind_in_order_is_the_reason() -> None:
    assert kind("晚安，你还记得明天叫我起床吗？") == "memory"
    assert kind("拜拜，你明天几点起？") == "farewell"
    assert kind("还行，你呢？", previous="今天怎么样？") == "question"


def test_an_ai_message_asks_when_it_ends_as_a_question() -> None:
    assert asks_a_question("今天过得怎么样？") and asks_a_question("你吃饭了吗") and asks_a_question("你今天忙什么")
    assert not asks_a_question("我今天很开心。") and not asks_a_question("")
