"""Anchoring key points to the messages they came from, and the excerpt a turn shows."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from dreamchat.domain.quotes import Quote, anchor, excerpt
from dreamchat.domain.tokens import estimate_tokens
from dreamchat.llm.chat_context import render_quote

MESSAGES = [
    ("m1", "It was an awesome time! We explored nature, roasted marshmallows and went on a hike."),
    ("m2", "Thanks, that means a lot."),
    ("m3", "Last Friday I went to a council meeting for adoption. It was inspiring and emotional."),
]


def test_a_key_point_is_anchored_to_the_message_sharing_most_of_its_words() -> None:
    points = [
        "Melanie went camping and had a great time exploring nature, roasting marshmallows, and hiking.",
        "Caroline attended a council meeting for adoption last Friday.",
    ]
    assert anchor(points, MESSAGES) == ["m1", "m3"]


def test_a_point_no_message_says_is_anchored_to_nothing() -> None:
    assert anchor(["Caroline is a painter"], MESSAGES) == [""]
    assert anchor(["anything at all"], []) == [""]
    assert anchor(["他下个月去杭州出差"], [("m1", "下个月我要去杭州出差"), ("m2", "好的")]) == ["m1"]


def test_a_short_message_is_shown_whole() -> None:
    assert excerpt("  Thanks,   that means a lot. ", "what", "thanks") == "Thanks, that means a lot."


def test_a_long_message_shows_the_sentences_the_question_asks_about_in_their_order() -> None:
    text = (
        "We love painting together lately, especially nature-inspired ones. "
        + "The weather was lovely and we spent the whole afternoon outside talking about school. " * 3
        + "Here's our latest work from last weekend. [shares a photo of a painting of a sunset with a palm tree]"
    )
    shown = excerpt(text, "What did Mel and her kids paint in their latest project?", "enjoy painting", max_tokens=40)
    assert shown.startswith("We love painting") and "latest work" in shown
    assert "weather" not in shown
    assert estimate_tokens(shown) <= 40


def test_one_sentence_longer_than_the_limit_is_clipped_and_marked() -> None:
    shown = excerpt("我们画了好多好多的画" * 50, "画", "画", max_tokens=30)
    assert shown.endswith("…") and estimate_tokens(shown) <= 30


def test_a_quote_reads_as_when_who_and_the_words() -> None:
    tz = ZoneInfo("Asia/Shanghai")
    assert render_quote(Quote("m", "user", 1_700_000_000, "我们画了日落"), tz) == "2023-11-15 对方：「我们画了日落」"
    assert render_quote(Quote("m", "assistant", 1_700_000_000, "好美"), tz) == "2023-11-15 你：「好美」"
