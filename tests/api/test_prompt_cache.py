"""A prompt a provider's prefix cache can serve (issue 27): the stable part first, the per-turn block
(time, what this message recalls, reply guidance) inside the current user message, never stored."""

from __future__ import annotations

import json

from tests.api.conftest import Person
from tests.api.sse import parse_sse
from tests.fakes.fake_llm import Reply

CHAT_MODEL = "deepseek-chat"
SAID = ["你好呀", "今天好热", "刚下班，好累", "晚上吃什么好呢", "想吃火锅"]


def send(person: Person, ai: dict, content: str) -> None:
    response = person.post(f"/api/ai-users/{ai['id']}/chat", json={"content": content})
    assert response.status_code == 200 and parse_sse(response.text)[-1][0] == "done", response.text


def serialized(messages: list[dict]) -> list[str]:
    return [json.dumps(m, ensure_ascii=False, sort_keys=True) for m in messages]


def test_consecutive_turns_of_a_topic_share_the_previous_requests_prefix_byte_for_byte(
    person, ai, fake_llm, clock
) -> None:
    fake_llm.default = lambda body: Reply.text(f"嗯嗯（第{len(body['messages'])}条）")
    for text in SAID:
        clock.advance(minutes=1)  # the clock moves every turn: it must not break the prefix
        send(person, ai, text)
    requests = fake_llm.requests_for(CHAT_MODEL)
    assert len(requests) == len(SAID)
    for before, after in zip(requests, requests[1:], strict=False):
        previous, now = serialized(before.messages), serialized(after.messages)
        # everything the previous request sent but its current message, then what followed it
        assert now[: len(previous) - 1] == previous[:-1]
        assert previous[-1] != now[len(previous) - 1]  # the per-turn block is not re-sent
        assert after.messages[len(previous) - 1] == {"role": "user", "content": SAID[(len(previous) - 2) // 2]}


def test_the_tool_list_is_byte_identical_across_turns(person, ai, fake_llm, clock) -> None:
    for text in SAID[:3]:
        clock.advance(minutes=1)
        send(person, ai, text)
    tools = {json.dumps(r.body["tools"], ensure_ascii=False) for r in fake_llm.requests_for(CHAT_MODEL)}
    assert len(tools) == 1 and json.loads(tools.pop())


def test_the_per_turn_block_reaches_the_model_and_never_the_history(person, ai, fake_llm, clock) -> None:
    for text in SAID[:3]:
        clock.advance(minutes=1)
        send(person, ai, text)
    last = fake_llm.requests_for(CHAT_MODEL)[-1].messages
    assert "现在是" not in last[0]["content"]  # no clock in the stable part
    assert last[-1]["role"] == "user" and last[-1]["content"].endswith(SAID[2])
    assert "现在是" in last[-1]["content"] and "【这一轮的提示】" in last[-1]["content"]
    stored = person.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"]
    assert [m["content"] for m in stored if m["role"] == "user"] == SAID[:3]
    earlier = [m["content"] for m in last[1:-1]]
    assert all("【这一轮的提示】" not in text and "现在是" not in text for text in earlier)
