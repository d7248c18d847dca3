"""When the AI speaks and what its voice says (`dreamchat.domain.voice`), and how a notification shows a voice
message (`dreamchat.domain.push.said`): plain values in, plain values out."""

from __future__ import annotations

import pytest

from dreamchat.adapters.runtime import SeededRandom
from dreamchat.domain.push import VOICE_MARK, notification, said
from dreamchat.domain.voice import VOICE_MAX_CHARS, VOICE_REPLIES, VOICE_SHARE, fits, speaks, spoken_text


def never_drawn() -> float:
    raise AssertionError("only 'sometimes' draws")


def test_always_speaks_and_never_does_not_without_a_draw() -> None:
    assert speaks("always", never_drawn) is True
    assert speaks("never", never_drawn) is False


@pytest.mark.parametrize(
    ("draw", "spoken"), [(0.0, True), (VOICE_SHARE - 0.01, True), (VOICE_SHARE, False), (0.99, False)]
)
def test_sometimes_speaks_when_the_draw_falls_under_the_share(draw: float, spoken: bool) -> None:
    assert speaks("sometimes", lambda: draw) is spoken


def test_sometimes_speaks_about_its_share_of_the_time() -> None:
    random = SeededRandom(11)
    share = sum(speaks("sometimes", random.random) for _ in range(10_000)) / 10_000
    assert abs(share - VOICE_SHARE) < 0.02


def test_the_choices_are_the_owners_three_in_order() -> None:
    assert VOICE_REPLIES == ("never", "sometimes", "always")


def test_a_reply_is_spoken_as_one_line_of_its_lines() -> None:
    assert spoken_text(["早呀~", " 今天也要好好吃饭哦 ", "", "  "]) == "早呀~ 今天也要好好吃饭哦"
    assert spoken_text([]) == ""


def test_only_a_text_of_one_voice_message_fits() -> None:
    assert fits("好") and fits("好" * VOICE_MAX_CHARS)
    assert not fits("") and not fits("好" * (VOICE_MAX_CHARS + 1))


def test_a_notification_marks_a_voice_message_and_is_never_empty() -> None:
    assert said("想你啦", "audio") == f"{VOICE_MARK} 想你啦"
    assert said("", "audio") == VOICE_MARK
    assert said("想你啦", None) == "想你啦"
    shown = notification("ai_1", "小梦", "", [said("想你啦", "audio")], "m1", 0.0, show_content=True)
    assert shown.body == "[语音] 想你啦"
