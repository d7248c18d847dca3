"""Context assembly in the spec's order, and the one token budget on everything remembered."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from dreamchat.domain.models import (
    CoreMemory,
    EmotionTags,
    LongTermDetail,
    LongTermIndex,
    Message,
    MidTermMemory,
    Supersession,
)
from dreamchat.domain.quotes import Quote
from dreamchat.domain.retrieval import Hit, Unit
from dreamchat.domain.tokens import clip, estimate_tokens
from dreamchat.llm.chat_context import (
    CHANGED_MARK,
    QUOTE_SHARE,
    SELF_MARKER,
    TURN_HEADER,
    TURN_MESSAGE,
    Context,
    MemoryView,
    TurnRecall,
    assemble,
    changed_since,
    persona,
    render_mids,
)
from dreamchat.services.recall import units_of

SHANGHAI = "Asia/Shanghai"
NOW = datetime(2026, 3, 15, 4, 0, tzinfo=UTC)  # 12:00 in Shanghai
SPEC_ORDER = [
    "system",
    "core",
    "mid_term",
    "long_term",
    "long_term_details",
    "short_term",
    "turn",
    "turn_memory",
    "current_message",
]
TAGS = EmotionTags(basic_emotion="开心", scene="闲聊", atmosphere="轻松")


def days_ago(days: float) -> int:
    return int((NOW - timedelta(days=days)).timestamp())


def mid(number: int, days: float) -> MidTermMemory:
    return MidTermMemory(
        id=f"mid_{number}",
        topic_id=f"topic_{number}",
        summary=f"第{number}次聊天的总结",
        emotion_tags=TAGS,
        message_count=4,
        created_at=days_ago(days),
        compression_ratio=0.8,
    )


def index(number: int, title: str, days: float, points: list[str] | None = None) -> LongTermIndex:
    return LongTermIndex(
        id=f"long_{number}",
        title=title,
        key_points=points or [f"要点{number}"],
        detail_file=f"long_term_details/{number}.json",
        created_at=days_ago(days),
    )


def message(role: str, content: str, minutes_ago: int) -> Message:
    return Message(
        id=f"m{minutes_ago}",
        role=role,
        content=content,  # type: ignore[arg-type]
        timestamp=int((NOW - timedelta(minutes=minutes_ago)).timestamp()),
        topic_id="topic_now",
    )


def core(content: str, importance: int) -> CoreMemory:
    return CoreMemory(id=f"core_{content}", content=content, importance=importance, created_at=days_ago(30))


def view_of(entries: list[LongTermIndex], relevant: list[str] | None = None, **fields) -> MemoryView:
    """A view whose hits are the units of the named entries, relevant, in that order."""
    units = sorted(units_of(entries, []), key=lambda u: -u.created_at)  # newest first, as the service gives them
    hits = [Hit(u, 1.0, True) for name in (relevant or []) for u in units if u.parent_id == name]
    values = {
        "base_soul": "小梦",
        "self_soul": "",
        "core": [],
        "mids": [],
        "hits": hits,
        "units": units,
        "details": [],
        "short_term": [],
    }
    return MemoryView(**(values | fields))


def full_view() -> MemoryView:
    entries = [index(1, "杭州西湖旅行", 40), index(2, "考研计划", 20)]
    return MemoryView(
        base_soul="你叫小梦，温柔、爱笑。",
        self_soul="最近变得更爱开玩笑了。",
        core=[core("他的妈妈去年去世了", 10), core("他对猫毛过敏", 8)],
        mids=[mid(1, 3), mid(2, 2)],
        hits=[Hit(u, 1.0, True) for u in units_of(entries[:1], [])],
        units=sorted(units_of(entries, []), key=lambda u: -u.created_at),
        details=[
            LongTermDetail(
                title="杭州西湖旅行", detail_content="去年秋天一起聊过西湖的断桥。", source_mid_ids=["mid_0"]
            )
        ],
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
    empty = view_of([])
    context = build(empty, current=None)
    assert [s.name for s in context.sections] == SPEC_ORDER
    assert [s.tokens for s in context.sections][1:] == [0] * (len(SPEC_ORDER) - 1)


def test_the_system_message_holds_the_memory_tiers_in_the_specs_order() -> None:
    system = build().messages[0]["content"]
    positions = [
        system.index(marker)
        for marker in ("你叫小梦", "【潜意识】", "【最近的经历】", "【长期记忆索引】", "【相关回忆详情】")
    ]
    assert positions == sorted(positions)


def test_empty_tiers_leave_no_gaps_in_the_system_message() -> None:
    bare = view_of([])
    assert build(bare).messages[0]["content"] == "小梦\n【自我认知】\n\n【系统指令】像朋友一样聊天。"


def test_the_messages_are_system_then_the_short_term_turns_then_the_current_message() -> None:
    messages = build().messages
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1:3] == [{"role": "user", "content": "早上好"}, {"role": "assistant", "content": "早呀"}]
    # the current message: the per-turn block (time, guidance) then the person's words, last
    assert messages[3]["content"].startswith(TURN_HEADER)
    assert messages[3]["content"].endswith(f"{TURN_MESSAGE}\n你还记得西湖吗？")
    assert "现在是 2026-03-15 12:00 星期日" in messages[3]["content"]


def test_without_a_current_message_the_context_ends_with_the_short_term_turns() -> None:
    context = build(current=None)
    assert context.messages[-1] == {"role": "assistant", "content": "早呀"}
    assert section(context, "current_message") == ""


def test_non_empty_sections_have_a_positive_token_estimate_and_the_total_is_their_sum() -> None:
    context = build()
    assert all(s.tokens > 0 for s in context.sections if s.text)
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


def test_long_term_key_points_show_their_date_not_their_memorys_title() -> None:
    text = section(build(), "long_term")
    assert "- 2026-02-03 要点1" in text and "《杭州西湖旅行》" not in text
    assert "long_term_details/" not in text


def test_dates_are_shown_at_their_stored_precision() -> None:
    monthly = index(1, "暑假", 40).model_copy(update={"time_precision": "month"})
    assert "- 2026-02 " in section(build(view_of([monthly], ["long_1"])), "long_term")


def test_detail_documents_enter_with_their_title() -> None:
    assert "《杭州西湖旅行》去年秋天一起聊过西湖的断桥。" in section(build(), "long_term_details")


def test_the_memories_chosen_are_reported_with_the_context() -> None:
    assert build().long_term_ids == ["long_1", "long_2"]


def test_a_long_mid_term_summary_is_clipped_in_the_context() -> None:
    assert clip("短摘要", 100) == "短摘要"
    clipped = clip("很长的摘要" * 100, 100)
    assert clipped.endswith("…") and estimate_tokens(clipped) <= 100


# --- the memory budget ---------------------------------------------------------------------


def test_the_latest_summaries_take_their_share_of_the_budget_before_the_relevant_units() -> None:
    old = index(1, "西湖", days=300, points=["去了西湖"])
    new = index(2, "考研", days=1, points=["在准备考研"])
    mids = [mid(n, days=10 - n) for n in range(1, 6)]
    view = view_of([old, new], ["long_1"], mids=mids)
    summaries = estimate_tokens(section(build(view_of([], mids=mids)), "mid_term"))
    unit = estimate_tokens(section(build(view_of([old], ["long_1"])), "long_term"))
    tight = build(view, budget=summaries + unit + 4)
    # the spec's 最近 5 个摘要 are part of the budget; the relevant unit fills what is left
    assert all(f"第{n}次" in section(tight, "mid_term") for n in range(1, 6))
    assert "去了西湖" in section(tight, "long_term") and "考研" not in section(tight, "long_term")
    assert tight.budgeted_tokens <= summaries + unit + 4
    alone = build(view, budget=summaries)
    assert section(alone, "long_term") == "" and "第5次" in section(alone, "mid_term")


def test_a_summary_the_shown_units_stand_for_is_not_spent_twice() -> None:
    def topic(number: int, days: float) -> MidTermMemory:
        return mid(number, days).model_copy(
            update={"first_message_id": f"m{number}0000", "last_message_id": f"m{number}9999"}
        )

    mids = [topic(n, days=10 - n) for n in range(1, 6)]
    # the key point of memory 1 was drawn from a message of topic 3
    entry = index(1, "西湖", days=6, points=["去了西湖"]).model_copy(update={"sources": ["m30500"]})
    context = build(view_of([entry], ["long_1"], mids=mids), budget=2000)
    shown = section(context, "mid_term")
    assert "去了西湖" in section(context, "long_term")
    assert "第3次" not in shown and all(f"第{n}次" in shown for n in (1, 2, 4, 5))
    # a summary not yet extracted is itself a unit: shown once, as the unit
    pending = mids[4]
    units = units_of([], [pending])
    twice = build(view_of([], mids=mids, hits=[Hit(units[0], 1.0, True)], units=units), budget=2000)
    # ... under the mid-term heading, never the long-term one (issue 40)
    assert "第5次" not in section(twice, "long_term") and section(twice, "mid_term").count("第5次") == 1


def topic_of(number: int, days: float, summary: str) -> MidTermMemory:
    return mid(number, days).model_copy(
        update={"summary": summary, "first_message_id": f"m{number}0000", "last_message_id": f"m{number}9999"}
    )


def moved() -> tuple[list[MidTermMemory], list[LongTermIndex]]:
    """Topic 1 said 住在北京 (its key point anchored to its message), topic 2 搬到上海 (which replaced
    it), topic 3 a hot pot: three of the latest summaries."""
    mids = [topic_of(1, 3, "对方说自己住在北京"), topic_of(2, 2, "对方说搬到上海了"), topic_of(3, 1, "吃了火锅")]
    since = int(datetime(2026, 6, 12, 4, tzinfo=UTC).timestamp())
    old = index(1, "住处", days=3, points=["住在北京", "喜欢猫"]).model_copy(
        update={
            "sources": ["m10001", "m10002"],
            "superseded": [Supersession(point=0, superseded_by="long_2#000", at=since)],
        }
    )
    new = index(2, "搬家", days=2, points=["搬到上海了"]).model_copy(update={"sources": ["m20001"]})
    return mids, [old, new]


def summaries(mids: list[MidTermMemory], entries: list[LongTermIndex]) -> list[str]:
    """The latest summaries as rendered, with what changed since each (from all the pair's units)."""
    tz = ZoneInfo(SHANGHAI)
    return render_mids(mids, tz, changed_since(mids, units_of(entries, []), tz)).splitlines()[1:]


def test_a_summary_whose_fact_later_changed_says_what_changed_and_the_others_stay_as_they_were() -> None:
    mids, entries = moved()
    lines = summaries(mids, entries)
    assert lines[0].endswith(f"北京（开心/闲聊/轻松）{CHANGED_MARK}2026年6月12日起：搬到上海了）")
    assert CHANGED_MARK not in lines[1] + lines[2]


def test_a_summary_shown_on_its_own_says_what_changed_within_the_budget() -> None:
    mids, entries = moved()
    # a message about something else fills the long-term section: the summaries stand on their own
    other = index(9, "猫", days=200, points=["团子很乖" * 20])
    need = estimate_tokens(section(build(view_of([other], ["long_9"]), budget=2000), "long_term"))
    budget = estimate_tokens("\n".join(["【最近的经历】", *summaries(mids, entries)])) + need + 4
    context = build(view_of([*entries, other], ["long_9"], mids=mids), budget=budget)
    assert "北京" not in section(context, "long_term") and "团子" in section(context, "long_term")
    assert f"北京（开心/闲聊/轻松）{CHANGED_MARK}" in section(context, "mid_term")
    assert context.budgeted_tokens <= budget
    for tight in range(10, budget + 40, 7):  # the notes are counted with the summaries, whatever the budget
        shown = build(view_of([*entries, other], ["long_9"], mids=mids), budget=tight)
        assert shown.budgeted_tokens <= tight


def test_a_key_point_without_its_message_belongs_to_the_summary_its_memory_is_dated_at() -> None:
    mids, (old, new) = moved()
    unanchored = old.model_copy(update={"sources": [], "created_at": mids[0].created_at})
    lines = summaries(mids, [unanchored, new])
    assert CHANGED_MARK in lines[0] and CHANGED_MARK not in lines[1] + lines[2]
    # anchored to another topic's message: that topic's summary is the one that says it changed
    lines = summaries(mids, [old.model_copy(update={"sources": ["m30005", ""]}), new])
    assert CHANGED_MARK in lines[2] and CHANGED_MARK not in lines[0] + lines[1]


def test_an_undone_or_dangling_supersession_leaves_every_summary_as_it_was() -> None:
    mids, (old, new) = moved()
    for entries in ([old.model_copy(update={"superseded": []}), new], [old]):  # undone; the new memory deleted
        assert CHANGED_MARK not in "".join(summaries(mids, entries))


def test_small_talk_gets_the_latest_summary_first() -> None:
    old = index(1, "西湖", days=300, points=["去了西湖"])
    need = estimate_tokens(section(build(view_of([], mids=[mid(5, days=1)])), "mid_term")) + 4
    small_talk = build(view_of([old], mids=[mid(5, days=1)]), budget=need)
    assert "第5次" in section(small_talk, "mid_term") and section(small_talk, "long_term") == ""


def test_with_nothing_relevant_recent_summaries_and_the_newest_units_fill_the_budget() -> None:
    entries = [index(n, f"回忆{n}", days=n, points=[f"第{n}件事"]) for n in range(1, 40)]
    context = build(view_of(entries, mids=[mid(n, days=10 - n) for n in range(1, 8)]), budget=300)
    assert all(f"第{n}次" in section(context, "mid_term") for n in (3, 4, 5, 6, 7))
    assert "第1件事" in section(context, "long_term") and "第39件事" not in section(context, "long_term")


def test_the_better_ranked_unit_wins_the_budget() -> None:
    best, good = index(1, "西湖", days=5, points=["断桥很美"]), index(2, "灵隐寺", days=1, points=["寺里人很多"])
    view = view_of([best, good], ["long_1", "long_2"])
    context = build(view, budget=estimate_tokens(section(build(view_of([best], ["long_1"])), "long_term")) + 8)
    assert section(context, "long_term").count("- ") == 1 and "断桥很美" in section(context, "long_term")


def test_units_are_shown_oldest_memory_first() -> None:
    new, old = index(1, "新", days=1, points=["新事"]), index(2, "旧", days=50, points=["旧事"])
    text = section(build(view_of([new, old], ["long_1", "long_2"])), "long_term")
    assert text.index("旧事") < text.index("新事")


def test_a_zero_budget_leaves_nothing_remembered() -> None:
    context = build(full_view(), budget=0)
    assert context.about and context.memory_tokens == 0
    assert build(replace(full_view(), hits=[]), budget=0).memory_tokens == 0  # small talk: nothing


def test_the_memory_never_exceeds_its_budget_however_much_is_remembered() -> None:
    entries = [
        index(n, f"回忆{n}" * 3, days=n / 10, points=[f"第{n}件事，" + "细节" * (n % 17), "又一件"])
        for n in range(3000)
    ]
    cores = [core("很重要的事" * 90, 10 - n) for n in range(5)]
    mids = [mid(n, days=n / 7).model_copy(update={"summary": "长长的总结" * 60}) for n in range(200)]
    for budget in (100, 400, 1250, 3000):
        for relevant in ([], [f"long_{n}" for n in range(0, 3000, 7)]):
            context = build(view_of(entries, relevant, core=cores, mids=mids), budget=budget)
            assert context.budgeted_tokens == context.memory_tokens <= budget


def test_the_memory_section_stays_flat_however_long_the_relationship_lasts() -> None:
    def memory_tokens(entries: int) -> int:
        many = [index(n, f"回忆{n}", days=n, points=[f"要点{n}"]) for n in range(entries)]
        return build(view_of(many), budget=200).memory_tokens

    assert memory_tokens(2000) <= 200
    assert abs(memory_tokens(2000) - memory_tokens(50)) <= 10


def test_a_unit_is_one_key_point_with_its_memorys_date_and_title() -> None:
    entry = index(3, "杭州旅行", days=3, points=["去了西湖", " ", "吃了龙井虾仁"])
    assert units_of([entry], []) == [
        Unit("long_3#000", "long_3", "去了西湖", entry.created_at, "day", "杭州旅行"),
        Unit("long_3#002", "long_3", "吃了龙井虾仁", entry.created_at, "day", "杭州旅行"),
    ]


def test_a_match_by_meaning_alone_still_enters_before_recency() -> None:
    old = index(1, "运动", days=300, points=["每周去游泳三次"])
    newer = [index(n, f"回忆{n}", days=n / 10, points=[f"第{n}件事" * 3]) for n in range(2, 60)]
    units = sorted(units_of([old, *newer], []), key=lambda u: -u.created_at)
    view = view_of([old, *newer], hits=[Hit(units[-1], 0.5, False)], units=units)
    assert "每周去游泳三次" in section(build(view, budget=200), "long_term")


def test_with_no_rare_word_shared_units_ranked_by_meaning_share_the_budget_with_recency() -> None:
    entries = [index(n, f"回忆{n}", days=n, points=[f"第{n}件事"]) for n in range(1, 80)]
    units = sorted(units_of(entries, []), key=lambda u: -u.created_at)
    oldest = units[-12:]
    view = view_of(entries, hits=[Hit(u, 1.0, False) for u in oldest], units=units)
    text = section(build(view, budget=600), "long_term")
    assert all(u.text in text for u in oldest) and "第1件事" in text  # the ranked ones and the newest


def test_small_talk_gets_the_smaller_budget_and_a_message_about_a_memory_the_larger() -> None:
    entries = [index(n, f"回忆{n}", days=n, points=[f"第{n}件事" * 4]) for n in range(300)]
    small_talk = assemble(view_of(entries), "", "哈哈", NOW, SHANGHAI, 800, recent_budget=300)
    about = assemble(
        view_of(entries, [f"long_{n}" for n in range(300)]), "", "第9件事", NOW, SHANGHAI, 800, recent_budget=300
    )
    assert 250 < small_talk.memory_tokens <= 300
    assert 650 < about.memory_tokens <= 800


def test_a_core_memory_the_person_wrote_in_the_first_person_is_quoted_as_theirs() -> None:
    theirs = core("我对芒果过敏", 9).model_copy(update={"source": "person"})
    text = section(build(replace(full_view(), core=[theirs, core("他喜欢大海", 8)])), "core")
    assert "- 对方亲口告诉你（其中的“我”指对方）：「我对芒果过敏」" in text
    assert "\n- 我对芒果过敏" not in text
    assert "- 他喜欢大海" in text


def test_quotes_come_before_units_within_their_share_and_the_budget_still_holds() -> None:
    entries = [index(n, f"回忆{n}", days=n / 10, points=[f"第{n}件事" * 5, "又一件"]) for n in range(400)]
    quotes = [Quote(f"m{n}", "user", days_ago(n), "我们画了一幅日落" * 6) for n in range(10)]
    for budget in (100, 400, 1000, 1700):
        context = build(view_of(entries, [f"long_{n}" for n in range(0, 400, 3)], quotes=quotes), budget=budget)
        said = section(context, "long_term_details")
        assert context.memory_tokens <= budget
        assert estimate_tokens(said) <= QUOTE_SHARE * budget
        assert (said.count("对方：「") >= 1) == (QUOTE_SHARE * budget >= 60)  # one quote is about 60 tokens


def test_small_talk_shows_no_quotes() -> None:
    entries = [index(n, f"回忆{n}", days=n, points=[f"第{n}件事"]) for n in range(20)]
    quote = Quote("m1", "user", days_ago(1), "我们画了一幅日落")
    assert section(build(view_of(entries, quotes=[quote]), budget=1700), "long_term_details") == ""


# --- the per-turn block -------------------------------------------------------------------


def test_what_a_message_recalls_beyond_the_stable_part_goes_in_the_current_message_within_its_budget() -> None:
    entries = [index(n, f"回忆{n}", days=n, points=[f"第{n}件事" * 4]) for n in range(300)]
    oldest = [u for name in ("long_299", "long_298") for u in view_of(entries).units if u.parent_id == name]
    view = replace(view_of(entries), turn=TurnRecall([Hit(u, 1.0, True) for u in oldest]))
    context = assemble(view, "", "第299件事呢", NOW, SHANGHAI, 800, recent_budget=300, turn_budget=45)
    system, current = context.messages[0]["content"], context.messages[-1]["content"]
    assert "第299件事" not in system and "第299件事第299件事" in current
    assert "第298件事" not in current  # the turn's budget held one memory
    assert 0 < section_tokens(context, "turn_memory") <= 45
    assert current.index("【这条消息让你想起的】") < current.index(TURN_MESSAGE) and current.endswith("第299件事呢")


def test_a_memory_already_in_the_stable_part_is_not_repeated_in_the_per_turn_block() -> None:
    entries = [index(1, "西湖", days=3, points=["去了西湖"])]
    view = replace(view_of(entries, ["long_1"]), turn=TurnRecall([Hit(u, 1.0, True) for u in view_of(entries).units]))
    context = assemble(view, "", "西湖怎么样", NOW, SHANGHAI, 800, turn_budget=300)
    assert "去了西湖" in context.messages[0]["content"] and section(context, "turn_memory") == ""


def test_small_talk_recalls_nothing_in_the_per_turn_block() -> None:
    entries = [index(1, "西湖", days=3, points=["去了西湖"])]
    units = view_of(entries).units
    view = replace(view_of([]), turn=TurnRecall([Hit(u, 1.0, False) for u in units]))
    assert section(assemble(view, "", "哈哈", NOW, SHANGHAI, 800, turn_budget=300), "turn_memory") == ""


def section_tokens(context: Context, name: str) -> int:
    return next(s.tokens for s in context.sections if s.name == name)
