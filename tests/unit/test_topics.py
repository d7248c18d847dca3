"""Topic ends and topic ids: farewells, the model's markers, idle gaps."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from dreamchat.config import DEFAULT_FAREWELLS
from dreamchat.domain.topics import (
    TOPIC_ENDED_MARKER,
    TOPIC_SWITCH_MARKER,
    Placement,
    TopicState,
    new_topic_id,
    place_message,
    read_markers,
    says_farewell,
)

NOON = datetime(2026, 3, 15, 12, 0, tzinfo=UTC)
IDLE_HOURS = 6.0


def open_topic(topic_id: str = "topic_old") -> TopicState:
    return TopicState(topic_id=topic_id, created_at=int((NOON - timedelta(days=1)).timestamp()))


def seconds_before(now: datetime, **delta: float) -> int:
    return int((now - timedelta(**delta)).timestamp())


# --- topic ids ---------------------------------------------------------------------------


def test_a_topic_id_names_the_epoch_second_and_six_hex_digits() -> None:
    assert new_topic_id(NOON, 0.5) == f"topic_{int(NOON.timestamp()):010d}_800000"


def test_topic_ids_sort_by_time_whatever_the_random_part() -> None:
    earlier = new_topic_id(NOON, 0.999999)
    later = new_topic_id(NOON + timedelta(seconds=1), 0.0)
    assert earlier < later


def test_topic_ids_of_the_same_second_differ_by_their_random_part() -> None:
    assert new_topic_id(NOON, 0.1) != new_topic_id(NOON, 0.2)


# --- placing a message -------------------------------------------------------------------


def test_the_first_message_of_a_pair_opens_a_topic_and_closes_none() -> None:
    placement = place_message(None, None, NOON, IDLE_HOURS, "topic_new")
    assert placement == Placement("topic_new", opens_topic=True, closes_topic=None)


def test_a_message_after_an_ended_topic_opens_a_new_one_without_closing_it_again() -> None:
    ended = TopicState(topic_id="topic_old", created_at=0, ended=True)
    placement = place_message(ended, seconds_before(NOON, minutes=1), NOON, IDLE_HOURS, "topic_new")
    assert placement == Placement("topic_new", opens_topic=True, closes_topic=None)


def test_a_message_within_the_idle_gap_joins_the_open_topic() -> None:
    placement = place_message(open_topic(), seconds_before(NOON, minutes=5), NOON, IDLE_HOURS, "topic_new")
    assert placement == Placement("topic_old", opens_topic=False, closes_topic=None)


def test_a_message_one_second_under_the_idle_threshold_still_joins_the_open_topic() -> None:
    last = seconds_before(NOON, hours=IDLE_HOURS) + 1
    placement = place_message(open_topic(), last, NOON, IDLE_HOURS, "topic_new")
    assert placement.topic_id == "topic_old"
    assert placement.closes_topic is None


def test_a_message_exactly_at_the_idle_threshold_closes_the_old_topic_and_opens_a_new_one() -> None:
    last = seconds_before(NOON, hours=IDLE_HOURS)
    placement = place_message(open_topic(), last, NOON, IDLE_HOURS, "topic_new")
    assert placement == Placement("topic_new", opens_topic=True, closes_topic="topic_old")


def test_a_message_long_after_the_idle_threshold_closes_the_old_topic() -> None:
    placement = place_message(open_topic(), seconds_before(NOON, days=3), NOON, IDLE_HOURS, "topic_new")
    assert placement.closes_topic == "topic_old"
    assert placement.opens_topic


def test_the_idle_threshold_is_configurable_in_fractional_hours() -> None:
    last = seconds_before(NOON, minutes=30)
    assert place_message(open_topic(), last, NOON, 0.5, "topic_new").closes_topic == "topic_old"
    assert place_message(open_topic(), last, NOON, 0.6, "topic_new").closes_topic is None


def test_an_open_topic_without_a_last_message_time_keeps_the_message() -> None:
    placement = place_message(open_topic(), None, NOON, IDLE_HOURS, "topic_new")
    assert placement == Placement("topic_old", opens_topic=False, closes_topic=None)


# --- farewells -----------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["好的，再见！", "拜拜啦", "那我们下次聊", "晚安~", "先这样，回头聊"])
def test_chinese_farewells_are_found_anywhere_in_the_message(text: str) -> None:
    assert says_farewell(text, DEFAULT_FAREWELLS)


@pytest.mark.parametrize("text", ["bye", "OK bye!", "Bye.", "BYE BYE", "bye-bye", "goodbye then", "Good night :)"])
def test_latin_farewells_match_as_whole_words_in_any_case(text: str) -> None:
    assert says_farewell(text, DEFAULT_FAREWELLS)


@pytest.mark.parametrize("text", ["maybe later", "byebye", "goodbyes are hard", "nearby", "a goodnight story"])
def test_latin_farewells_inside_a_longer_word_do_not_count(text: str) -> None:
    # "byebye" written as one word is not the keyword "bye" standing alone (see says_farewell).
    assert not says_farewell(text, DEFAULT_FAREWELLS)


def test_an_ordinary_message_is_no_farewell() -> None:
    assert not says_farewell("今天天气真好，我们去散步吧", DEFAULT_FAREWELLS)


def test_the_farewell_list_is_configurable() -> None:
    assert says_farewell("那我先撤了", ["先撤了"])
    assert not says_farewell("再见", ["先撤了"])
    assert says_farewell("See ya tomorrow", ["see ya"])


def test_blank_keywords_in_the_list_match_nothing() -> None:
    assert not says_farewell("随便说点什么", ["", "  "])


def test_keywords_are_trimmed_and_case_folded_before_matching() -> None:
    assert says_farewell("ciao!", ["  CIAO "])


def test_an_empty_keyword_list_never_ends_a_topic() -> None:
    assert not says_farewell("再见", [])


# --- the model's markers -------------------------------------------------------------------


def test_a_reply_without_markers_is_left_as_it_is() -> None:
    markers = read_markers("今天过得怎么样？")
    assert (markers.text, markers.ended, markers.switched) == ("今天过得怎么样？", False, False)


def test_topic_ended_at_the_end_of_a_reply_is_read_and_stripped() -> None:
    markers = read_markers(f"晚安，好梦{TOPIC_ENDED_MARKER}")
    assert markers.ended and not markers.switched
    assert markers.text == "晚安，好梦"


def test_topic_ended_anywhere_in_the_reply_is_read_and_stripped() -> None:
    markers = read_markers(f"{TOPIC_ENDED_MARKER}好的\n明天见")
    assert markers.ended
    assert markers.text == "好的\n明天见"


def test_topic_switch_is_read_and_stripped() -> None:
    markers = read_markers(f"{TOPIC_SWITCH_MARKER}说起来，你考试怎么样了？")
    assert markers.switched and not markers.ended
    assert markers.text == "说起来，你考试怎么样了？"


@pytest.mark.parametrize("marker", ["[topic_ended]", "[ TOPIC_ENDED ]", "[Topic_Ended]", "[  topic_ended]"])
def test_markers_are_read_whatever_their_case_and_inner_spaces(marker: str) -> None:
    markers = read_markers(f"拜拜{marker}")
    assert markers.ended
    assert markers.text == "拜拜"


def test_both_markers_in_one_reply_are_both_read_and_every_copy_stripped() -> None:
    markers = read_markers(f"{TOPIC_SWITCH_MARKER}嗯嗯{TOPIC_ENDED_MARKER}\n好的{TOPIC_ENDED_MARKER}")
    assert markers.ended and markers.switched
    assert "TOPIC" not in markers.text.upper()
    assert markers.text == "嗯嗯\n好的"


def test_a_reply_that_is_only_a_marker_leaves_nothing_to_show() -> None:
    assert read_markers(f"  {TOPIC_ENDED_MARKER}  ").text.strip() == ""


def test_an_unrelated_bracketed_word_is_not_a_marker() -> None:
    markers = read_markers("[TOPIC] 你好 [ENDED]")
    assert not markers.ended and not markers.switched
    assert markers.text == "[TOPIC] 你好 [ENDED]"


@pytest.mark.parametrize("text", ["今晚安排了什么？", "今晚安静得很"])
def test_a_farewell_inside_another_word_is_no_farewell(text: str) -> None:
    assert not says_farewell(text, ["晚安"])


@pytest.mark.parametrize("text", ["下次聊吧", "好的晚安~", "我先睡了，晚安啦"])
def test_a_farewell_that_begins_a_word_ends_the_topic(text: str) -> None:
    assert says_farewell(text, ["晚安", "下次聊"])
