"""LLMMemoryModels: each step's prompt goes to its model key and comes back as its contract."""

from __future__ import annotations

import pytest

from dreamchat.llm.errors import LLMOutputError
from dreamchat.llm.gateway import OpenAIGateway
from dreamchat.llm.memory_models import LLMMemoryModels, coerce_compress
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.llm.conftest import NOW, MakeSettings
from tests.llm.samples import TRIP_TOPIC, conversations, core, mid

TRIP = conversations(TRIP_TOPIC)
TAGS = {"basic_emotion": "开心", "scene": "闲聊", "atmosphere": "轻松"}


@pytest.fixture
def models(make_settings: MakeSettings) -> LLMMemoryModels:
    """Models whose five keys have distinct model names, so routing shows in the requests."""
    settings = make_settings(
        deepseek_chat_model="chat-model",
        qwen_short_to_mid_model="compress-model",
        doubao_mid_to_long_model="extract-model",
        deepseek_core_memory_model="core-model",
    )
    return LLMMemoryModels(OpenAIGateway.from_settings(settings, sleep=lambda _: None))


def test_compress_asks_the_short_to_mid_model(fake_llm: FakeLLMServer, models: LLMMemoryModels) -> None:
    fake_llm.script("compress-model", Reply.json({"summary": "约好周六去舟山看海", "emotion_tags": TAGS}))
    output = models.compress(TRIP, NOW)
    assert output.summary == "约好周六去舟山看海"
    assert output.emotion_tags.model_dump() == TAGS
    assert "舟山" in fake_llm.requests[0].messages[-1]["content"]


def test_compress_maps_labels_the_model_keeps_inventing(fake_llm: FakeLLMServer, models: LLMMemoryModels) -> None:
    invented = {"basic_emotion": "兴奋", "scene": "聊天", "atmosphere": "热情"}
    fake_llm.script("compress-model", *[Reply.json({"summary": "去海边", "emotion_tags": invented})] * 2)
    output = models.compress(TRIP, NOW)
    assert output.emotion_tags.model_dump() == {"basic_emotion": "开心", "scene": "闲聊", "atmosphere": "热烈"}


def test_coerce_finds_tags_written_at_the_top_level() -> None:
    output = coerce_compress({"summary": " 去海边 ", "basic_emotion": "伤心", "scene": "求助"})
    assert (output.summary, output.emotion_tags.basic_emotion, output.emotion_tags.scene) == ("去海边", "失落", "求助")
    assert output.emotion_tags.atmosphere == "平和"


def test_extract_asks_the_mid_to_long_model_and_keeps_only_known_ids(
    fake_llm: FakeLLMServer, models: LLMMemoryModels
) -> None:
    memory = {"title": "周末出游", "key_points": ["去舟山"], "detail_content": "……"}
    memory["source_mid_ids"] = ["mid_1", "mid_x"]
    fake_llm.script("extract-model", Reply.json({"memories": [memory]}))
    output = models.extract([mid("mid_1", "约好周六去舟山")], NOW)
    assert [m.source_mid_ids for m in output.memories] == [["mid_1"]]


def test_extract_with_no_memories_for_a_batch_is_an_output_error(
    fake_llm: FakeLLMServer, models: LLMMemoryModels
) -> None:
    fake_llm.script("extract-model", Reply.json({"memories": []}))
    with pytest.raises(LLMOutputError):
        models.extract([mid("mid_1", "约好周六去舟山")], NOW)


def test_judge_core_asks_the_core_model(fake_llm: FakeLLMServer, models: LLMMemoryModels) -> None:
    judgment = {"create": True, "content": "对方极度恐高", "importance": 9, "category": "禁忌"}
    fake_llm.script("core-model", Reply.json(judgment))
    output = models.judge_core([("爬山", ["不敢上玻璃栈道"])], [core("喜欢被叫小名")], NOW)
    assert (output.create, output.importance, output.category) == (True, 9, "禁忌")


def test_a_core_judgment_that_creates_nothing_to_say_is_retried(
    fake_llm: FakeLLMServer, models: LLMMemoryModels
) -> None:
    empty = Reply.json({"create": True, "content": "", "importance": 9})
    fake_llm.script("core-model", empty, Reply.json({"create": False}))
    assert models.judge_core([("爬山", ["累"])], [], NOW).create is False


def test_reflect_keeps_the_current_self_soul_when_unchanged(fake_llm: FakeLLMServer, models: LLMMemoryModels) -> None:
    fake_llm.script("chat-model", Reply.json({"changed": False, "self_soul": ""}))
    output = models.reflect("小夏", "开朗", TRIP, "喜欢海", NOW)
    assert (output.changed, output.self_soul) == (False, "喜欢海")


def test_reflect_returns_a_new_self_soul(fake_llm: FakeLLMServer, models: LLMMemoryModels) -> None:
    fake_llm.script("chat-model", Reply.json({"changed": True, "self_soul": "我最近迷上了海鲜"}))
    assert models.reflect("小夏", "开朗", TRIP, "喜欢海", NOW).self_soul == "我最近迷上了海鲜"


def test_judge_relationship_asks_the_core_model(fake_llm: FakeLLMServer, models: LLMMemoryModels) -> None:
    fake_llm.script("core-model", Reply.json({"level": "关系较好", "reason": "聊得很开心"}))
    assert models.judge_relationship("一般", TRIP, NOW).level == "关系较好"
    assert "当前关系等级：一般" in fake_llm.requests[0].messages[-1]["content"]


def test_a_level_outside_the_five_is_an_output_error(fake_llm: FakeLLMServer, models: LLMMemoryModels) -> None:
    fake_llm.script("core-model", *[Reply.json({"level": "挚友", "reason": "?"})] * 2)
    with pytest.raises(LLMOutputError):
        models.judge_relationship("一般", TRIP, NOW)
