"""What a heartbeat run sends and remembers: HEARTBEAT_OK, the AI's move, duplicate suppression,
the per-day count, and the list of scheduled heartbeats."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from dreamchat.domain.bounds import SCHEDULED_HEARTBEATS
from dreamchat.domain.heartbeat import (
    HeartbeatState,
    SentText,
    add_scheduled,
    person_wrote,
    read_heartbeat_reply,
    record_sent,
    remove_scheduled,
    sent_recently,
)
from dreamchat.domain.models import ScheduledHeartbeat

SHANGHAI = "Asia/Shanghai"
MORNING = datetime(2026, 3, 15, 1, 0, tzinfo=UTC)  # 09:00 in Shanghai


def daily(hour: int, minute: int, template: str = "") -> ScheduledHeartbeat:
    return ScheduledHeartbeat(hour=hour, minute=minute, message_template=template)


def sent_at(text: str, moment: datetime) -> HeartbeatState:
    return HeartbeatState(recent=[SentText(text=text, at=int(moment.timestamp()))])


# --- reading the AI's heartbeat reply -----------------------------------------------------


@pytest.mark.parametrize(
    "reply", ["HEARTBEAT_OK", "  HEARTBEAT_OK  ", "\nHEARTBEAT_OK\n\n", "heartbeat_ok", "Heartbeat_Ok"]
)
def test_heartbeat_ok_alone_in_any_case_and_spacing_sends_nothing(reply: str) -> None:
    assert read_heartbeat_reply(reply) == ("", None)


@pytest.mark.parametrize(
    "reply",
    ["HEARTBEAT_OK。", "HEARTBEAT_OK!", "HEARTBEAT_OK ...", "HEARTBEAT_OK\n——", "。HEARTBEAT_OK", "…… HEARTBEAT_OK"],
)
def test_heartbeat_ok_with_only_punctuation_around_it_sends_nothing(reply: str) -> None:
    assert read_heartbeat_reply(reply) == ("", None)


def test_heartbeat_ok_at_the_start_followed_by_a_real_message_sends_that_message() -> None:
    assert read_heartbeat_reply("HEARTBEAT_OK\n早上好呀，今天要加油哦") == ("早上好呀，今天要加油哦", None)


def test_heartbeat_ok_at_the_end_after_a_real_message_sends_that_message() -> None:
    assert read_heartbeat_reply("在忙吗？想你了 HEARTBEAT_OK") == ("在忙吗？想你了", None)


def test_a_reply_without_heartbeat_ok_is_sent_as_it_is() -> None:
    assert read_heartbeat_reply("  今天下雨了，记得带伞\n别着凉  ") == ("今天下雨了，记得带伞\n别着凉", None)


@pytest.mark.parametrize("reply", ["🌙", "❤️", "HEARTBEAT_OK 😊"])
def test_an_emoji_is_a_message_worth_sending(reply: str) -> None:
    assert read_heartbeat_reply(reply)[0] == reply.replace("HEARTBEAT_OK", "").strip()


def test_an_empty_reply_sends_nothing() -> None:
    assert read_heartbeat_reply("") == ("", None)
    assert read_heartbeat_reply("   \n ") == ("", None)


def test_the_next_heartbeat_marker_gives_the_hours_and_is_never_sent() -> None:
    assert read_heartbeat_reply("HEARTBEAT_OK [NEXT_HEARTBEAT_HOURS:3]") == ("", 3.0)
    assert read_heartbeat_reply("[NEXT_HEARTBEAT_HOURS:3]HEARTBEAT_OK") == ("", 3.0)


@pytest.mark.parametrize(
    ("marker", "hours"),
    [("[NEXT_HEARTBEAT_HOURS: 2.5]", 2.5), ("[next_heartbeat_hours：4]", 4.0), ("[ NEXT_HEARTBEAT_HOURS : 12 ]", 12.0)],
)
def test_the_next_heartbeat_marker_is_read_with_spaces_full_width_colons_and_any_case(
    marker: str, hours: float
) -> None:
    assert read_heartbeat_reply(f"早安{marker}") == ("早安", hours)


def test_a_message_with_the_next_heartbeat_marker_in_the_middle_is_sent_without_it() -> None:
    assert read_heartbeat_reply("早安[NEXT_HEARTBEAT_HOURS:3]呀") == ("早安呀", 3.0)


# --- duplicate suppression ----------------------------------------------------------------


def test_the_same_text_within_24_hours_counts_as_sent_recently() -> None:
    state = sent_at("早上好呀", MORNING)
    assert sent_recently(state, "早上好呀", MORNING + timedelta(hours=23, minutes=59, seconds=59))


def test_spaces_and_case_do_not_make_a_text_new() -> None:
    state = sent_at("Good morning 早上好 呀", MORNING)
    assert sent_recently(state, " good  MORNING早上好呀\n", MORNING + timedelta(hours=1))


def test_the_same_text_may_be_sent_again_after_24_hours() -> None:
    state = sent_at("早上好呀", MORNING)
    assert not sent_recently(state, "早上好呀", MORNING + timedelta(hours=24))


def test_a_different_text_is_never_a_duplicate() -> None:
    state = sent_at("早上好呀", MORNING)
    assert not sent_recently(state, "早上好", MORNING + timedelta(minutes=1))


def test_nothing_sent_means_nothing_is_a_duplicate() -> None:
    assert not sent_recently(HeartbeatState(), "早上好呀", MORNING)


# --- recording what was sent --------------------------------------------------------------


def test_the_first_send_of_a_local_day_starts_the_count_and_remembers_the_texts() -> None:
    state = record_sent(HeartbeatState(), ["早上好", "今天也要开心"], MORNING, SHANGHAI)
    assert (state.sent_day, state.sent_today, state.unanswered) == ("2026-03-15", 1, 1)
    assert state.last_sent_at == int(MORNING.timestamp())
    assert [s.text for s in state.recent] == ["早上好", "今天也要开心"]


def test_a_second_send_the_same_local_day_adds_to_the_count() -> None:
    first = record_sent(HeartbeatState(), ["早上好"], MORNING, SHANGHAI)
    second = record_sent(first, ["午饭吃了吗"], MORNING + timedelta(hours=4), SHANGHAI)
    assert (second.sent_today, second.unanswered) == (2, 2)


def test_the_count_restarts_at_local_midnight_not_utc_midnight() -> None:
    before_midnight = datetime(2026, 3, 15, 15, 59, tzinfo=UTC)  # 23:59 in Shanghai
    after_midnight = datetime(2026, 3, 15, 16, 0, tzinfo=UTC)  # 00:00 on the 16th in Shanghai
    first = record_sent(HeartbeatState(), ["晚安"], before_midnight, SHANGHAI)
    second = record_sent(first, ["睡不着吗"], after_midnight, SHANGHAI)
    assert (first.sent_day, second.sent_day, second.sent_today) == ("2026-03-15", "2026-03-16", 1)


def test_the_same_moments_in_utc_are_one_day() -> None:
    first = record_sent(HeartbeatState(), ["a"], datetime(2026, 3, 15, 15, 59, tzinfo=UTC), "UTC")
    second = record_sent(first, ["b"], datetime(2026, 3, 15, 16, 0, tzinfo=UTC), "UTC")
    assert second.sent_today == 2


def test_texts_older_than_24_hours_are_forgotten_when_a_new_one_is_sent() -> None:
    old = sent_at("昨天的话", MORNING)
    state = record_sent(old, ["今天的话"], MORNING + timedelta(hours=25), SHANGHAI)
    assert [s.text for s in state.recent] == ["今天的话"]


def test_at_most_fifty_recent_texts_are_kept() -> None:
    state = record_sent(HeartbeatState(), [f"第{i}句" for i in range(60)], MORNING, SHANGHAI)
    assert len(state.recent) == 50
    assert state.recent[-1].text == "第59句"


def test_a_person_writing_forgives_the_unanswered_heartbeats() -> None:
    sent = record_sent(
        record_sent(HeartbeatState(), ["在吗"], MORNING, SHANGHAI), ["在吗？"], MORNING + timedelta(hours=2), SHANGHAI
    )
    assert person_wrote(sent, MORNING + timedelta(hours=3)).unanswered == 0


def test_recording_returns_a_new_state_and_leaves_the_old_one_alone() -> None:
    before = HeartbeatState()
    record_sent(before, ["早上好"], MORNING, SHANGHAI)
    assert before == HeartbeatState()


# --- the list of scheduled heartbeats -----------------------------------------------------


def test_scheduled_heartbeats_are_kept_in_time_order() -> None:
    state = HeartbeatState()
    for entry in (daily(22, 30, "晚安"), daily(7, 0, "早安"), daily(12, 15, "午饭")):
        state = add_scheduled(state, entry)
    assert [(s.hour, s.minute) for s in state.scheduled] == [(7, 0), (12, 15), (22, 30)]


def test_setting_the_same_time_again_replaces_its_template() -> None:
    state = add_scheduled(add_scheduled(HeartbeatState(), daily(7, 0, "早安")), daily(7, 0, "起床啦"))
    assert state.scheduled == [daily(7, 0, "起床啦")]


def test_at_most_max_scheduled_heartbeats_per_pair() -> None:
    state = HeartbeatState(scheduled=[daily(hour, 0) for hour in range(SCHEDULED_HEARTBEATS)])
    with pytest.raises(ValueError, match=str(SCHEDULED_HEARTBEATS)):
        add_scheduled(state, daily(23, 0))


def test_a_full_list_still_accepts_a_new_template_for_an_existing_time() -> None:
    state = HeartbeatState(scheduled=[daily(hour, 0) for hour in range(SCHEDULED_HEARTBEATS)])
    replaced = add_scheduled(state, daily(3, 0, "夜猫子"))
    assert len(replaced.scheduled) == SCHEDULED_HEARTBEATS
    assert daily(3, 0, "夜猫子") in replaced.scheduled


def test_removing_a_scheduled_heartbeat_keeps_the_others() -> None:
    state = HeartbeatState(scheduled=[daily(7, 0), daily(22, 30)])
    after, removed = remove_scheduled(state, 7, 0)
    assert removed
    assert after.scheduled == [daily(22, 30)]


def test_removing_a_time_that_is_not_scheduled_changes_nothing() -> None:
    state = HeartbeatState(scheduled=[daily(7, 0)])
    after, removed = remove_scheduled(state, 7, 30)
    assert not removed
    assert after.scheduled == state.scheduled


def test_the_token_never_reaches_the_person_wherever_it_stands() -> None:
    assert read_heartbeat_reply("HEARTBEAT_OK：早上好") == ("早上好", None)
    assert "HEARTBEAT_OK" not in read_heartbeat_reply("早上好 HEARTBEAT_OK 吃了吗")[0]


def test_a_moved_heartbeat_is_kept_within_what_the_level_allows() -> None:
    from datetime import timedelta

    from dreamchat.domain.heartbeat import bounded_move

    day = timedelta(hours=24)
    assert bounded_move(99999999999, day, 8) == 24 * 8
    assert bounded_move(float("inf"), day, 8) == 24 * 8
    assert bounded_move(0.01, day, 8) == 0.25
    assert bounded_move(5, day, 8) == 5 and bounded_move(None, day, 8) is None


def test_every_form_of_the_markers_is_read_and_none_is_shown() -> None:
    from dreamchat.domain.heartbeat import read_heartbeat_reply, strip_control_markers

    for written in (
        "[NEXT_HEARTBEAT_HOURS:3]",
        "【NEXT_HEARTBEAT_HOURS：3】",
        "[next heartbeat hours 3]",
        "（NEXT_HEARTBEAT_HOURS: 3）",
    ):
        assert read_heartbeat_reply(f"晚点再聊 {written}") == ("晚点再聊", 3.0)
        assert strip_control_markers(f"晚点再聊 {written}").strip() == "晚点再聊"
    assert read_heartbeat_reply("[NEXT_HEARTBEAT_HOURS:" + "9" * 401 + "]")[1] == float("inf")
    assert read_heartbeat_reply("好 [NEXT_HEARTBEAT_HOURS:-5]") == ("好", None)
    assert strip_control_markers("Heartbeat_OK 好呀").strip() == "好呀"
