"""The reply decision, one message per line (at most five), and the spec's typing delays."""

from __future__ import annotations

import pytest

from dreamchat.adapters.runtime import SeededRandom
from dreamchat.domain.models import RelationshipLevel
from dreamchat.domain.reply import (
    ALWAYS_ANSWERED_SHARE,
    MAX_MESSAGES,
    decide_reply,
    is_late_night,
    reply_probability,
    rest_rate,
    shorten,
    split_messages,
    typing_delay,
)
from dreamchat.llm.chat_prompts import reply_guidance

PLAIN = "今天去公园散步了"  # no question, nothing urgent, not boring
AFTERNOON = 15

SPEC_RATES = [("特别关心", 0.95), ("关系较好", 0.80), ("一般", 0.60), ("关系冷淡", 0.30), ("决裂", 0.05)]
REST = rest_rate("一般")
ALWAYS = ["question", "memory", "farewell", "answer"]


# --- how likely a reply is ----------------------------------------------------------------


@pytest.mark.parametrize(("level", "rate"), SPEC_RATES)
def test_the_rest_rate_keeps_the_spec_rate_over_a_mix_with_the_always_answered_share(
    level: RelationshipLevel, rate: float
) -> None:
    share = 0.0 if level == "决裂" else ALWAYS_ANSWERED_SHARE
    assert share + (1 - share) * rest_rate(level) == pytest.approx(max(rate, share))
    assert 0 <= rest_rate(level) <= rate


def test_at_the_break_up_the_rest_rate_is_the_spec_rate() -> None:
    assert rest_rate("决裂") == pytest.approx(0.05)


@pytest.mark.parametrize(("level", "rate"), SPEC_RATES)
def test_a_plain_message_is_answered_at_the_levels_rest_rate(level: RelationshipLevel, rate: float) -> None:
    assert reply_probability(level, PLAIN) == pytest.approx(max(rest_rate(level), 0.02))


@pytest.mark.parametrize("urgent", ["我好难过", "救命", "我生病了", "在吗", "我想你"])
def test_an_urgent_message_is_much_more_likely_to_be_answered(urgent: str) -> None:
    assert reply_probability("一般", urgent) == pytest.approx(REST + 0.3)


@pytest.mark.parametrize("boring", ["嗯", "嗯嗯嗯", "哦", "ok", "OK", "k", "哈哈哈", "。。。", "...", "  好  ", "？"])
def test_a_boring_message_is_drawn_at_the_rest_rate(boring: str) -> None:
    assert reply_probability("一般", boring) == pytest.approx(REST)
    assert decide_reply("一般", None, AFTERNOON, boring, 0.99, asked=None).reason is None


def test_the_probability_never_reaches_certainty() -> None:
    assert reply_probability("特别关心", "救命，我好害怕") == 0.99


def test_the_probability_never_falls_to_zero() -> None:
    assert reply_probability("关系冷淡", PLAIN) == 0.02


# --- the decision -------------------------------------------------------------------------


@pytest.mark.parametrize("asked", ALWAYS)
@pytest.mark.parametrize("level", ["特别关心", "关系较好", "一般", "关系冷淡"])
def test_an_always_answered_message_is_answered_whatever_the_draw(asked, level: RelationshipLevel) -> None:
    decision = decide_reply(level, "失落", 3, "你最近在听什么歌？", random=0.999, asked=asked)
    assert decision.inclined and decision.reason == asked and decision.probability == 1.0
    assert "你想回复这条消息" in reply_guidance(decision)


@pytest.mark.parametrize("asked", ALWAYS)
def test_at_the_break_up_nothing_is_always_answered(asked) -> None:
    decision = decide_reply("决裂", None, AFTERNOON, "你最近在听什么歌？", random=0.5, asked=asked)
    assert not decision.inclined and decision.reason is None
    assert decision.probability == pytest.approx(0.05)


def test_a_random_number_below_the_probability_inclines_the_ai_to_reply() -> None:
    decision = decide_reply("一般", None, AFTERNOON, PLAIN, random=REST - 0.01)
    assert decision.inclined and decision.reason is None
    assert decision.probability == pytest.approx(REST)
    assert "你想回复这条消息" in reply_guidance(decision)


def test_a_random_number_at_or_above_the_probability_inclines_the_ai_to_stay_silent() -> None:
    decision = decide_reply("一般", None, AFTERNOON, PLAIN, random=REST)
    assert not decision.inclined
    assert "不回复" in reply_guidance(decision)


def test_the_decision_is_the_same_for_the_same_random_number() -> None:
    first = decide_reply("关系较好", "开心", 23, "你在干嘛呢？", random=0.42)
    second = decide_reply("关系较好", "开心", 23, "你在干嘛呢？", random=0.42)
    assert first == second


def test_over_many_draws_the_share_of_inclined_decisions_follows_the_rest_rate() -> None:
    rng = SeededRandom(11)
    inclined = sum(decide_reply("关系较好", None, AFTERNOON, PLAIN, rng.random()).inclined for _ in range(2000))
    assert rest_rate("关系较好") - 0.04 < inclined / 2000 < rest_rate("关系较好") + 0.04


def test_the_guidance_starts_with_its_heading() -> None:
    assert reply_guidance(decide_reply("一般", None, AFTERNOON, PLAIN, 0.1)).startswith("【回复决策】")


@pytest.mark.parametrize("hour", [23, 0, 3, 6])
def test_late_at_night_the_guidance_asks_for_shorter_more_emotional_replies(hour: int) -> None:
    assert is_late_night(hour)
    assert "深夜" in reply_guidance(decide_reply("一般", None, hour, PLAIN, 0.1))


@pytest.mark.parametrize("hour", [7, 12, 22])
def test_in_the_day_and_evening_the_guidance_says_nothing_about_the_night(hour: int) -> None:
    assert not is_late_night(hour)
    assert "深夜" not in reply_guidance(decide_reply("一般", None, hour, PLAIN, 0.1))


def test_the_current_mood_sets_the_tone_of_the_guidance() -> None:
    assert "低落" in reply_guidance(decide_reply("一般", "失落", AFTERNOON, PLAIN, 0.1))
    assert "轻快" in reply_guidance(decide_reply("一般", "开心", AFTERNOON, PLAIN, 0.1))


def test_without_a_mood_the_guidance_has_no_tone() -> None:
    guidance = reply_guidance(decide_reply("一般", None, AFTERNOON, PLAIN, 0.1))
    assert "你最近" not in guidance and "最近的话题" not in guidance


@pytest.mark.parametrize("level", ["关系冷淡", "决裂"])
def test_a_cold_relationship_allows_perfunctory_replies(level: RelationshipLevel) -> None:
    assert "敷衍" in reply_guidance(decide_reply(level, None, AFTERNOON, PLAIN, 0.0))


def test_a_warm_relationship_does_not_ask_for_perfunctory_replies() -> None:
    assert "敷衍" not in reply_guidance(decide_reply("特别关心", None, AFTERNOON, PLAIN, 0.0))


# --- one message per line -----------------------------------------------------------------


def test_each_non_empty_line_is_one_message() -> None:
    assert split_messages("哈哈\n真的假的\n你也太厉害了吧") == ["哈哈", "真的假的", "你也太厉害了吧"]


def test_blank_lines_and_surrounding_spaces_are_dropped() -> None:
    assert split_messages("\n  早上好  \n\n   \r\n吃了吗\n\n") == ["早上好", "吃了吗"]


def test_an_empty_reply_is_no_message_at_all() -> None:
    assert split_messages("") == []
    assert split_messages(" \n\n ") == []


def test_five_lines_are_five_messages() -> None:
    text = "\n".join("一二三四五")
    assert split_messages(text) == list("一二三四五")
    assert MAX_MESSAGES == 5


def test_lines_beyond_the_fifth_are_merged_into_the_fifth() -> None:
    assert split_messages("1\n2\n3\n4\n5\n6\n7") == ["1", "2", "3", "4", "5 6 7"]


def test_a_sixth_line_after_blank_lines_is_still_merged() -> None:
    assert split_messages("1\n\n2\n3\n\n4\n5\n\n\n6") == ["1", "2", "3", "4", "5 6"]


# --- typing delay: (0.5 + r × 0.7) × characters, capped --------------------------------------

TEN = "今天天气真好我们出去"
FIVE = "早上好呀！"
TWENTY = TEN * 2


@pytest.mark.parametrize(("text", "low", "high"), [(FIVE, 2.5, 6.0), (TEN, 5.0, 12.0), (TWENTY, 10.0, 24.0)])
def test_the_spec_examples_are_the_bounds_of_the_delay(text: str, low: float, high: float) -> None:
    assert typing_delay(text, 0.0, cap_seconds=60) == pytest.approx(low)
    assert typing_delay(text, 1.0, cap_seconds=60) == pytest.approx(high)


def test_every_random_draw_gives_a_delay_within_the_bounds() -> None:
    rng = SeededRandom(3)
    for _ in range(500):
        assert 5.0 <= typing_delay(TEN, rng.random(), cap_seconds=60) < 12.0


def test_the_delay_grows_linearly_with_the_random_number() -> None:
    assert typing_delay(TEN, 0.5, cap_seconds=60) == pytest.approx(8.5)


def test_a_long_message_is_capped() -> None:
    assert typing_delay("好" * 100, 0.5, cap_seconds=30) == 30


def test_a_cap_of_zero_means_no_delay() -> None:
    assert typing_delay(TEN, 0.5, cap_seconds=0) == 0


def test_an_empty_message_takes_no_time() -> None:
    assert typing_delay("", 0.9, cap_seconds=30) == 0


def test_a_message_over_the_limit_is_cut_after_its_last_sentence_end() -> None:
    text = "第一句。第二句！第三句还没说完就"
    assert shorten(text, 12) == "第一句。第二句！"
    assert shorten("Hi there. How are you doing today", 16) == "Hi there."


def test_a_message_without_a_sentence_end_in_its_second_half_is_cut_at_the_limit() -> None:
    assert shorten("好。" + "啊" * 50, 20) == "好。" + "啊" * 18


def test_every_split_message_is_within_the_limit() -> None:
    lines = split_messages(("很长的一句话。" * 1000 + "\n") * 8, max_chars=2000)
    assert len(lines) == 5 and all(len(line) <= 2000 and line.endswith("。") for line in lines)


def test_by_default_the_delay_is_the_spec_formula_up_to_its_maximum_for_the_longest_message() -> None:
    from dreamchat.config import Settings
    from dreamchat.domain.bounds import MESSAGE_CHARS as MAX_MESSAGE_CHARS

    cap = Settings().max_delay_seconds
    assert cap == 1.2 * MAX_MESSAGE_CHARS  # (0.5 + 1 × 0.7) × 2,000 characters: never cut short
    assert typing_delay("字" * 50, 0.0, cap) == 25 and typing_delay("字" * 50, 1.0, cap) == pytest.approx(60)


def test_mood_and_late_night_nudge_the_reply_probability() -> None:
    ordinary = "好想去海边"
    assert reply_probability("一般", ordinary, None, 14) == pytest.approx(REST)
    assert reply_probability("一般", ordinary, "失落", 14) == pytest.approx(REST - 0.10)
    assert reply_probability("一般", ordinary, "好奇", 14) == pytest.approx(REST + 0.05)
    assert reply_probability("一般", ordinary, None, 2) == pytest.approx(REST - 0.10)
    assert reply_probability("决裂", "嗯", "失落", 2) == pytest.approx(0.02)


def test_the_draw_decides_and_the_same_number_decides_the_same() -> None:
    assert decide_reply("一般", None, 14, "好想去海边", REST - 0.01).inclined
    assert not decide_reply("一般", None, 14, "好想去海边", REST).inclined
