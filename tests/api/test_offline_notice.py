"""Without a model, the AI says so plainly once in a pair, not under every message (issue 40, part 3)."""

from __future__ import annotations

import pytest

from dreamchat.llm.offline import OFFLINE_ACKS, offline_reply
from tests.api.test_person_first import chat, history, serve, settings_for


@pytest.fixture
def offline(tmp_path, clock):
    yield from serve(settings_for(tmp_path), clock)  # no model key: the offline provider answers


def words(events: list[tuple[str, dict]]) -> list[str]:
    return [data["content"] for name, data in events if name == "message"]


def test_the_no_model_notice_comes_once_per_pair_then_short_acknowledgements(offline, clock) -> None:
    person, _ = offline
    first, second = person.create_ai_user(name="小梦"), person.create_ai_user(name="阿青")
    said = []
    for text in ["你好呀", "今天吃了火锅", "周末想去海边", "你在听吗"]:
        said += words(chat(person, first["id"], text))
        clock.advance(seconds=30)
    assert said[0] == offline_reply("小梦") and "没有配置语言模型" in said[0]
    later = said[1:]
    assert later and all(line in OFFLINE_ACKS for line in later), later
    assert not [line for line in later if "配置" in line or "API key" in line]

    # another pair is told on its own first message
    assert words(chat(person, second["id"], "你好")) == [offline_reply("阿青")]
    # and the stored history holds the notice once for the first pair
    stored = [m["content"] for m in history(person, first["id"]) if m["role"] == "assistant"]
    assert stored.count(offline_reply("小梦")) == 1 and len(stored) == len(said)
