"""The prompts: values in, readable Chinese messages out, each stating its exact JSON format."""

from __future__ import annotations

import pytest

from dreamchat.llm import prompts
from tests.llm.conftest import NOW
from tests.llm.samples import EXAM_TOPIC, conversations, core, mid

TRIP = conversations([("user", "周末去海边吧"), ("assistant", "好呀，周六出发！")])


def everything(messages: list[dict[str, str]]) -> str:
    return "\n".join(message["content"] for message in messages)


ALL_PROMPTS = {
    "compress": lambda: prompts.compress_prompt(TRIP, NOW),
    "extract": lambda: prompts.extract_prompt([mid("mid_1", "讨论周末去海边")], NOW),
    "core": lambda: prompts.core_judgment_prompt([("周末出游", ["去海边"])], [core("极度恐高")], NOW),
    "soul": lambda: prompts.self_soul_prompt("小夏", "开朗的大学生", TRIP, "喜欢海", NOW),
    "relationship": lambda: prompts.relationship_prompt("一般", TRIP, NOW),
}


@pytest.mark.parametrize("name", list(ALL_PROMPTS))
def test_every_prompt_states_the_current_time_and_asks_for_json_only(name: str) -> None:
    text = everything(ALL_PROMPTS[name]())
    assert "2026-03-15 14:03（星期日）" in text
    assert "只输出一个 JSON 对象" in text


@pytest.mark.parametrize(
    ("name", "keys"),
    [
        ("compress", ['"summary"', '"emotion_tags"', '"basic_emotion"', '"scene"', '"atmosphere"']),
        ("extract", ['"memories"', '"title"', '"key_points"', '"detail_content"', '"source_mid_ids"']),
        ("core", ['"create"', '"content"', '"importance"', '"category"']),
        ("soul", ['"changed"', '"self_soul"']),
        ("relationship", ['"level"', '"reason"']),
    ],
)
def test_every_prompt_shows_its_contracts_keys(name: str, keys: list[str]) -> None:
    text = everything(ALL_PROMPTS[name]())
    assert all(key in text for key in keys)


def test_the_compress_prompt_lists_the_spec_labels_and_the_dialogue_with_times() -> None:
    text = everything(prompts.compress_prompt(TRIP, NOW))
    assert "开心、愉悦、失落、严肃、关心、好奇" in text and "闲聊、讨论、求助" in text and "轻松、平和、热烈" in text
    assert "[2026-03-15 14:03] 用户：周末去海边吧" in text


def test_the_compress_budget_is_thirty_percent_of_a_long_topic() -> None:
    topic = conversations(EXAM_TOPIC)
    chars = sum(len(c.content) for c in topic)
    assert f"不超过 {int(chars * 0.3)} 个字" in everything(prompts.compress_prompt(topic, NOW))


def test_the_extract_prompt_gives_each_mid_term_id_at_hour_precision() -> None:
    text = everything(prompts.extract_prompt([mid("mid_1", "讨论周末去海边"), mid("mid_2", "聊考研")], NOW))
    assert "id: mid_1" in text and "id: mid_2" in text and "2026-03-15 14时" in text


def test_the_core_prompt_shows_new_items_and_existing_core_memories() -> None:
    text = everything(prompts.core_judgment_prompt([("周末出游", ["去海边", "周六出发"])], [core("极度恐高")], NOW))
    assert "1. 周末出游：去海边；周六出发" in text and "极度恐高" in text and "≥ 8" in text


def test_the_core_prompt_says_when_there_is_no_core_memory_yet() -> None:
    assert "（暂无）" in everything(prompts.core_judgment_prompt([("周末出游", ["去海边"])], [], NOW))


def test_the_self_soul_prompt_keeps_the_specs_sections_in_order_its_fixed_rules_first() -> None:
    system, user = (m["content"] for m in prompts.self_soul_prompt("小夏", "开朗的大学生", TRIP, "喜欢海", NOW))
    # the spec's 更新要求 and 输出格式 are the same for every pair: they come first (issue 27)
    assert system.index("【更新要求】") < system.index("6. 保持与基础性格设定不冲突") < system.index("【输出格式】")
    sections = [
        "你是小夏，现在请你反思一下自己的性格、偏好和特点。",
        "【基础性格设定】\n开朗的大学生",
        "【最近的对话记录】",
        "【当前的自我认知】\n喜欢海",
    ]
    positions = [user.index(section) for section in sections]
    assert positions == sorted(positions)
    assert "小夏：好呀，周六出发！" in user


OTHER_PAIR = conversations([("user", "明天要考试了"), ("assistant", "加油！")])
OTHER_PROMPTS = {
    "compress": lambda: prompts.compress_prompt(conversations(EXAM_TOPIC), NOW.replace(hour=9)),
    "extract": lambda: prompts.extract_prompt([mid("mid_9", "聊考研")], NOW.replace(hour=9)),
    "core": lambda: prompts.core_judgment_prompt([("考研", ["在准备"])], [], NOW.replace(hour=9)),
    "soul": lambda: prompts.self_soul_prompt("阿青", "安静的画家", OTHER_PAIR, "", NOW.replace(hour=9)),
    "relationship": lambda: prompts.relationship_prompt("决裂", OTHER_PAIR, NOW.replace(hour=9)),
}


@pytest.mark.parametrize("name", list(ALL_PROMPTS))
def test_every_background_prompt_opens_with_the_same_instructions_for_every_pair(name: str) -> None:
    one, other = ALL_PROMPTS[name](), OTHER_PROMPTS[name]()
    assert one[0] == other[0] and one[0]["role"] == "system"  # the shared prefix a provider can cache
    assert one[-1] != other[-1] and one[-1]["role"] == "user"  # the pair's material, last


def test_the_relationship_prompt_names_the_current_level_and_all_five() -> None:
    text = everything(prompts.relationship_prompt("关系冷淡", TRIP, NOW))
    assert "当前关系等级：关系冷淡" in text
    assert all(level in text for level in ["特别关心", "关系较好", "一般", "关系冷淡", "决裂"])


def test_the_quality_judgments_open_with_the_same_instructions_for_every_pair() -> None:
    one = prompts.completeness_prompt(TRIP, "去海边", NOW), prompts.accuracy_prompt(["去海边"], [("出游", ["海边"])])
    other = (
        prompts.completeness_prompt(OTHER_PAIR, "考试", NOW),
        prompts.accuracy_prompt(["考试"], [("考试", ["明天"])]),
    )
    for mine, theirs in zip(one, other, strict=True):
        assert mine[0] == theirs[0] and mine[-1] != theirs[-1]
