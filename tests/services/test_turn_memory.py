"""The stable memories of a turn are recalled for the topic's opening (issue 27), so a later message
leaves the system message as it was; what it recalls itself goes in its per-turn block."""

from __future__ import annotations

from tests.fakes.fake_llm import Reply
from tests.services.conftest import services_with_fake_llm
from tests.services.test_quotes import AI, PAIR, remember

ASKED = "下个月去杭州出差的事定了吗？"


def test_the_stable_part_is_recalled_for_the_topics_opening_whatever_the_later_message(
    runtime, fake_llm, clock
) -> None:
    services = services_with_fake_llm(runtime, fake_llm)
    remember(services, fake_llm, clock)
    for text in ["周末又带孩子们去画画了", "画了日落", "还有棕榈树"]:
        services.topics.record(PAIR, "user", text)
    first = services.context.context(PAIR, AI, "哈哈", "【指令】").messages[0]
    clock.advance(minutes=5)
    later = services.context.context(PAIR, AI, ASKED, "【指令】").messages[0]
    assert first == later and "画画" in first["content"]


def test_the_first_message_of_a_topic_has_no_second_recall(runtime, fake_llm, clock) -> None:
    services = services_with_fake_llm(runtime, fake_llm)
    remember(services, fake_llm, clock)
    fake_llm.default = lambda body: Reply.text("ok")
    context = services.context.context(PAIR, AI, ASKED, "【指令】")
    assert "杭州出差" in context.messages[0]["content"]  # the opening is this message: stable from now on
    assert next(s.text for s in context.sections if s.name == "turn_memory") == ""


def test_a_message_naming_when_finds_what_was_remembered_then(runtime, fake_llm, clock) -> None:
    services = services_with_fake_llm(runtime, fake_llm)
    remember(services, fake_llm, clock)  # extracted now
    clock.advance(days=3)
    vague = services.context.context(PAIR, AI, "聊了些什么？", "【指令】")
    dated = services.context.context(PAIR, AI, "三天前聊了些什么？", "【指令】")
    assert not vague.about  # no word of a memory: small talk
    assert dated.about and "画画" in next(s.text for s in dated.sections if s.name == "long_term")
    long_ago = services.context.context(PAIR, AI, "去年聊了些什么？", "【指令】")
    assert not long_ago.about  # nothing was remembered then
