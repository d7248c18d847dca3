"""Context assembly in the spec's order, and the token budget on the long-term index."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from dreamchat.domain.context import (
    INDEX_HEADER,
    SELF_MARKER,
    clip,
    Context,
    MemoryView,
    assemble,
    persona,
    render_index_line,
    select_index,
)
from dreamchat.domain.models import (
    CoreMemory,
    EmotionTags,
    LongTermDetail,
    LongTermIndex,
    Message,
    MidTermMemory,
)
from dreamchat.domain.retrieval import Scored
from dreamchat.domain.tokens import estimate_tokens

SHANGHAI = "Asia/Shanghai"
NOW = datetime(2026, 3, 15, 4, 0, tzinfo=UTC)  # 12:00 in Shanghai
SPEC_ORDER = ["system", "core", "mid_term", "long_term", "long_term_details", "short_term", "current_message"]
TAGS = EmotionTags(basic_emotion="开心", scene="闲聊", atmosphere="轻松")


def days_ago(days: float) -> int:
    return int((NOW - timedelta(days=days)).timestamp())


def mid(number: int, days: float) -> MidTermMemory:
    return MidTermMemory(id=f"mid_{number}", topic_id=f"topic_{number}", summary=f"第{number}次聊天的总结",
                         emotion_tags=TAGS, message_count=4, created_at=days_ago(days), compression_ratio=0.8)


def index(number: int, title: str, days: float, points: list[str] | None = None) -> LongTermIndex:
    return LongTermIndex(id=f"long_{number}", title=title, key_points=points or [f"要点{number}"],
                         detail_file=f"long_term_details/{number}.json", created_at=days_ago(days))


def message(role: str, content: str, minutes_ago: int) -> Message:
    return Message(id=f"m{minutes_ago}", role=role, content=content,  # type: ignore[arg-type]
                   timestamp=int((NOW - timedelta(minutes=minutes_ago)).timestamp()), topic_id="topic_now")


def core(content: str, importance: int) -> CoreMemory:
    return CoreMemory(id=f"core_{content}", content=content, importance=importance, created_at=days_ago(30))


def full_view() -> MemoryView:
    return MemoryView(
        base_soul="你叫小梦，温柔、爱笑。",
        self_soul="最近变得更爱开玩笑了。",
        core=[core("他的妈妈去年去世了", 10), core("他对猫毛过敏", 8)],
        mids=[mid(1, 3), mid(2, 2)],
        ranked_index=[Scored(index(1, "杭州西湖旅行", 40), 2.5), Scored(index(2, "考研计划", 20), 0.0)],
        details=[LongTermDetail(title="杭州西湖旅行", detail_content="去年秋天一起聊过西湖的断桥。", source_mid_ids=["mid_0"])],
        short_term=[message("user", "早上好", 5), message("assistant", "早呀", 4)],
    )


def build(view: MemoryView | None = None, current: str | None = "你还记得西湖吗？", budget: int = 800) -> Context:
    return assemble(view or full_view(), "【系统指令】像朋友一样聊天。", current, NOW, SHANGHAI, budget)


def section(context: Context, name: str) -> str:
    return next(s.text for s in context.sections if s.name == name)


# --- persona ------------------------------------------------------------------------------


def test_the_persona_is_base_soul_then_the_self_marker_then_self_soul() -> None:
    assert persona("温柔", "更自信了") == "温柔\n【自我认知】更自信了"
    assert SELF_MARKER == "【自我认知】"


def test_the_system_section_is_the_persona_followed_by_the_instructions() -> None:
    system = section(build(), "system")
    assert system == "你叫小梦，温柔、爱笑。\n【自我认知】最近变得更爱开玩笑了。\n\n【系统指令】像朋友一样聊天。"


# --- order and shape ----------------------------------------------------------------------


def test_the_sections_come_in_the_specs_order() -> None:
    assert [s.name for s in build().sections] == SPEC_ORDER


def test_every_section_is_present_even_when_a_tier_is_empty() -> None:
    empty = MemoryView(base_soul="小梦", self_soul="", core=[], mids=[], ranked_index=[], details=[], short_term=[])
    context = build(empty, current=None)
    assert [s.name for s in context.sections] == SPEC_ORDER
    assert [s.tokens for s in context.sections][1:] == [0, 0, 0, 0, 0, 0]


def test_the_system_message_holds_the_memory_tiers_in_the_specs_order() -> None:
    system = build().messages[0]["content"]
    positions = [system.index(marker) for marker in ("你叫小梦", "【潜意识】", "【最近的经历】", "【长期记忆索引】", "【相关回忆详情】")]
    assert positions == sorted(positions)


def test_empty_tiers_leave_no_gaps_in_the_system_message() -> None:
    bare = MemoryView(base_soul="小梦", self_soul="", core=[], mids=[], ranked_index=[], details=[], short_term=[])
    assert build(bare).messages[0]["content"] == "小梦\n【自我认知】\n\n【系统指令】像朋友一样聊天。"


def test_the_messages_are_system_then_the_short_term_turns_then_the_current_message() -> None:
    messages = build().messages
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1:] == [{"role": "user", "content": "早上好"}, {"role": "assistant", "content": "早呀"},
                            {"role": "user", "content": "你还记得西湖吗？"}]


def test_without_a_current_message_the_context_ends_with_the_short_term_turns() -> None:
    context = build(current=None)
    assert context.messages[-1] == {"role": "assistant", "content": "早呀"}
    assert section(context, "current_message") == ""


def test_non_empty_sections_have_a_positive_token_estimate_and_the_total_is_their_sum() -> None:
    context = build()
    assert all(s.tokens > 0 for s in context.sections)
    assert context.tokens == sum(s.tokens for s in context.sections)


# --- the tiers ----------------------------------------------------------------------------


def test_core_memories_enter_as_guidance_to_act_on_not_to_recite() -> None:
    text = section(build(), "core")
    assert text.startswith("【潜意识】")
    assert "不要直接复述" in text
    assert text.index("他的妈妈去年去世了") < text.index("他对猫毛过敏")


def test_only_the_five_most_important_core_memories_enter() -> None:
    many = [core(f"事实{i}", i) for i in range(1, 8)]
    text = section(build(replace(full_view(), core=many)), "core")
    assert [f"事实{i}" in text for i in range(1, 8)] == [False, False, True, True, True, True, True]


def test_only_the_latest_five_mid_term_memories_enter_oldest_first() -> None:
    mids = [mid(number, days=10 - number) for number in (3, 1, 7, 5, 2, 6, 4)]
    text = section(build(replace(full_view(), mids=mids)), "mid_term")
    assert "第1次" not in text and "第2次" not in text
    assert [text.index(f"第{n}次") for n in (3, 4, 5, 6, 7)] == sorted(text.index(f"第{n}次") for n in (3, 4, 5, 6, 7))


def test_mid_term_memories_show_the_hour_in_the_pairs_time_zone_and_their_tags() -> None:
    text = section(build(), "mid_term")
    assert "2026-03-13 12时：第2次聊天的总结（开心/闲聊/轻松）" in text


def test_the_long_term_index_shows_titles_and_key_points_only() -> None:
    text = section(build(), "long_term")
    assert "- 杭州西湖旅行：要点1" in text
    assert "long_term_details/" not in text


def test_detail_documents_enter_with_their_title() -> None:
    assert "《杭州西湖旅行》去年秋天一起聊过西湖的断桥。" in section(build(), "long_term_details")


def test_the_index_entries_chosen_are_reported_with_the_context() -> None:
    assert [e.id for e in build().index_entries] == ["long_1", "long_2"]


# --- the long-term index budget -----------------------------------------------------------


HEADER = estimate_tokens(INDEX_HEADER)  # the section's heading counts against the budget too


def test_the_index_heading_counts_against_the_budget() -> None:
    entry = index(1, "西湖", days=1)
    assert select_index([Scored(entry, 1.0)], budget_tokens=cost(entry)) == []
    assert select_index([Scored(entry, 1.0)], budget_tokens=HEADER + cost(entry)) == [entry]


def test_a_long_mid_term_summary_is_clipped_in_the_context() -> None:
    assert clip("短摘要", 100) == "短摘要"
    clipped = clip("很长的摘要" * 100, 100)
    assert clipped.endswith("…") and estimate_tokens(clipped) <= 100


def cost(entry: LongTermIndex) -> int:
    return estimate_tokens(render_index_line(entry))


def test_relevant_entries_come_before_recent_ones_within_the_budget() -> None:
    relevant = index(1, "西湖", days=300)
    recent, older = index(2, "考研", days=1), index(3, "搬家", days=100)
    ranked = [Scored(relevant, 3.0), Scored(older, 0.0), Scored(recent, 0.0)]
    chosen = select_index(ranked, budget_tokens=HEADER + cost(relevant) + cost(recent))
    assert chosen == [relevant, recent]


def test_among_relevant_entries_the_better_match_wins_the_budget() -> None:
    best, good = index(1, "西湖", days=5), index(2, "断桥", days=1)
    chosen = select_index([Scored(best, 3.0), Scored(good, 1.0)], budget_tokens=HEADER + cost(best))
    assert chosen == [best]


def test_the_chosen_entries_are_shown_oldest_first() -> None:
    new, old = index(1, "新", days=1), index(2, "旧", days=50)
    assert select_index([Scored(new, 2.0), Scored(old, 1.0)], budget_tokens=1000) == [old, new]


def test_an_entry_too_big_for_what_is_left_is_skipped_but_smaller_ones_still_fit() -> None:
    big = index(1, "很长的标题", days=1, points=["要点" * 40])
    small = index(2, "短", days=2)
    chosen = select_index([Scored(big, 0.0), Scored(small, 0.0)], budget_tokens=HEADER + cost(small) + 1)
    assert chosen == [small]


def test_a_zero_budget_shows_no_index() -> None:
    assert select_index([Scored(index(1, "西湖", 1), 1.0)], budget_tokens=0) == []


def test_the_index_section_stays_bounded_however_long_the_relationship_lasts() -> None:
    def index_tokens(entries: int) -> int:
        ranked = [Scored(index(n, f"回忆{n}", days=n), 0.0) for n in range(entries)]
        view = MemoryView(base_soul="小梦", self_soul="", core=[], mids=[], ranked_index=ranked, details=[],
                          short_term=[])
        return next(s.tokens for s in build(view, budget=200).sections if s.name == "long_term")

    header = estimate_tokens("【长期记忆索引】（需要细节时可调用 recall_memory）")
    assert index_tokens(50) <= 200 + header
    assert index_tokens(2000) <= 200 + header
    assert abs(index_tokens(2000) - index_tokens(50)) <= 10


def test_a_relevant_entry_shows_only_the_key_points_the_message_touches() -> None:
    trip = index(1, "杭州旅行", days=3, points=["去了西湖", "吃了龙井虾仁", "住在湖边民宿"])
    chosen = select_index([Scored(trip, 2.0)], budget_tokens=1000, query="西湖好玩吗")
    assert [e.key_points for e in chosen] == [["去了西湖"]]


def test_an_entry_matched_by_its_title_alone_keeps_every_key_point() -> None:
    trip = index(1, "杭州旅行", days=3, points=["去了西湖", "吃了龙井虾仁"])
    chosen = select_index([Scored(trip, 2.0)], budget_tokens=1000, query="杭州")
    assert [e.key_points for e in chosen] == [["去了西湖", "吃了龙井虾仁"]]
