"""The offline provider: no network, deterministic, extractive, honest, and only ever spec labels."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from dreamchat.domain.emotions import LABELS
from dreamchat.domain.models import Role
from dreamchat.domain.quality import summary_budget
from dreamchat.llm.offline import OfflineMemoryModels, offline_reply
from tests.llm.conftest import NOW
from tests.llm.samples import EXAM_TOPIC, TRIP_TOPIC, conversations, core, mid

EXAM = conversations(EXAM_TOPIC)
OFFLINE = OfflineMemoryModels()


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Any attempt to open a connection fails the test."""

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the offline provider opened a connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    yield


def test_compression_keeps_at_most_thirty_percent_of_a_long_topic() -> None:
    summary = OFFLINE.compress(EXAM, NOW).summary
    original = sum(len(c.content) for c in EXAM)
    assert 1 - len(summary) / original >= 0.7


def test_compression_keeps_what_the_person_said_that_matters() -> None:
    summary = OFFLINE.compress(EXAM, NOW).summary
    assert "浙江大学" in summary and summary.startswith("用户：")


def test_compression_only_quotes_sentences_from_the_topic() -> None:
    summary = OFFLINE.compress(EXAM, NOW).summary
    quoted = summary.replace("用户：", "\n").replace("AI：", "\n")
    original = "".join(c.content for c in EXAM)
    for sentence in filter(None, (part.strip() for part in quoted.replace("。", "。\n").splitlines())):
        assert sentence in original


def test_compression_is_deterministic() -> None:
    assert OfflineMemoryModels().compress(EXAM, NOW) == OfflineMemoryModels().compress(EXAM, NOW)


def test_a_short_topic_keeps_what_the_person_said_and_is_never_longer_than_itself() -> None:
    short = conversations([("user", "你好"), ("assistant", "嗨~在呢")])
    summary = OFFLINE.compress(short, NOW).summary
    assert "你好" in summary
    assert len(summary) <= summary_budget(len("你好嗨~在呢")) == len("你好嗨~在呢")


def test_a_one_message_topic_is_never_cut_by_its_label() -> None:
    fact = "我上个月搬到上海了"
    summary = OFFLINE.compress(conversations([("user", fact)]), NOW).summary
    assert summary == fact  # no room for `用户：` within the topic's own length: the fact comes first


def test_one_long_sentence_is_cut_to_the_budget() -> None:
    ramble = conversations([("user", "我今天" + "走了很远的路去看望住在乡下的外婆" * 8)])
    summary = OFFLINE.compress(ramble, NOW).summary
    assert summary.endswith("…") and len(summary) <= 0.3 * len(ramble[0].content)


@pytest.mark.parametrize(
    "topic",
    [EXAM_TOPIC, TRIP_TOPIC, [("user", "呜呜呜我失恋了，好难过")], [("user", "!!!")], [("assistant", "在吗？")]],
)
def test_tags_are_always_spec_labels(topic: list[tuple[Role, str]]) -> None:
    tags = OFFLINE.compress(conversations(topic), NOW).emotion_tags
    assert tags.basic_emotion in LABELS["basic_emotion"]
    assert tags.scene in LABELS["scene"] and tags.atmosphere in LABELS["atmosphere"]


def test_a_sad_topic_is_tagged_sad() -> None:
    sad = conversations([("user", "呜呜我失恋了，好难过，好伤心")])
    assert OFFLINE.compress(sad, NOW).emotion_tags.basic_emotion == "失落"


def test_extraction_makes_one_memory_per_mid_term_with_its_id() -> None:
    mids = [mid("mid_1", OFFLINE.compress(EXAM, NOW).summary), mid("mid_2", "讨论周末去哪里玩，最终决定去舟山看海。")]
    memories = OFFLINE.extract(mids, NOW).memories
    assert [m.source_mid_ids for m in memories] == [["mid_1"], ["mid_2"]]
    assert all(0 < len(m.title) <= 20 and m.key_points for m in memories)
    assert "舟山" in memories[1].title
    assert memories[1].detail_content == "2026-03-15：讨论周末去哪里玩，最终决定去舟山看海。"


def test_extracted_key_points_keep_who_said_them() -> None:
    memory = OFFLINE.extract([mid("mid_1", OFFLINE.compress(EXAM, NOW).summary)], NOW).memories[0]
    assert all(point.startswith("用户：") for point in memory.key_points)
    assert all(len(point) <= 32 for point in memory.key_points)


def test_extraction_is_deterministic() -> None:
    mids = [mid("mid_1", "讨论周末去哪里玩，最终决定去舟山看海。")]
    assert OfflineMemoryModels().extract(mids, NOW) == OfflineMemoryModels().extract(mids, NOW)


def test_it_never_creates_a_core_memory() -> None:
    judgment = OFFLINE.judge_core([("重大变故", ["亲人离世", "非常难过"])], [core("极度恐高")], NOW)
    assert judgment.create is False


def test_it_never_changes_the_self_soul() -> None:
    reflection = OFFLINE.reflect("小夏", "开朗", EXAM, "喜欢海", NOW)
    assert (reflection.changed, reflection.self_soul) == (False, "喜欢海")


def test_it_keeps_the_relationship_level() -> None:
    judgment = OFFLINE.judge_relationship("关系冷淡", EXAM, NOW)
    assert judgment.level == "关系冷淡" and "离线" in judgment.reason


def test_the_offline_reply_says_so_in_one_short_message() -> None:
    reply = offline_reply("小夏")
    assert "小夏" in reply and "离线" in reply and "\n" not in reply and len(reply) < 100
