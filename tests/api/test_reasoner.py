"""`deepseek_reasoner`: its chain of thought goes back to the model within the turn's tool loop
(DeepSeek's thinking mode answers 400 otherwise), is kept beside the AI's message, is streamed as
a `thinking` event, and never enters a later context or the chat text."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from dreamchat.api.app import create_app
from dreamchat.config import Settings
from dreamchat.wiring import build_runtime
from tests.api.conftest import Person, register
from tests.api.test_chat import history, send
from tests.fakes.fake_llm import FakeLLMServer, Reply

REASONER = "deepseek-reasoner"


@pytest.fixture
def thinking_llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(thinking=(REASONER,)) as server:
        yield server


@pytest.fixture
def person(tmp_path, clock, rng, thinking_llm) -> Iterator[Person]:
    settings = Settings(
        data_dir=tmp_path / "data",
        run_scheduler=False,
        llm_base_url=thinking_llm.base_url,
        llm_api_key="test-key",
        llm_timeout_seconds=10,
        llm_max_retries=0,  # slack for a loaded machine
        access_token_minutes=60 * 24 * 365,
    )
    with TestClient(create_app(settings, build_runtime(settings, clock=clock, random=rng))) as client:
        yield register(client, "alice")


@pytest.fixture
def ai(person) -> dict:
    return person.create_ai_user(name="小梦", model="reasoner")


def test_the_second_request_of_a_tool_loop_carries_the_first_answers_reasoning(person, ai, thinking_llm) -> None:
    thinking_llm.script(
        REASONER,
        Reply.tools(("get_current_state", {}), reasoning="先看看现在几点了"),
        Reply.text("晚上好呀", reasoning="现在是晚上八点，打个招呼"),
    )
    events = send(person, ai, "你好")
    first, second = thinking_llm.requests_for(REASONER)
    assert first.reasoning_sent_back == []
    assert second.reasoning_sent_back == ["先看看现在几点了"]
    assert [name for name, _ in events] == ["thinking", "message", "done"]
    assert events[0][1] == {"content": "先看看现在几点了\n\n现在是晚上八点，打个招呼"}
    assert events[1][1]["content"] == "晚上好呀"


def test_the_chain_is_stored_beside_the_message_and_never_enters_a_later_context(person, ai, thinking_llm) -> None:
    thinking_llm.script(
        REASONER,
        Reply.tools(("get_current_state", {}), reasoning="秘密的思考一"),
        Reply.text("晚上好呀\n今天怎么样", reasoning="秘密的思考二"),
        Reply.text("那就好"),
    )
    send(person, ai, "你好")
    stored = history(person, ai)
    assert [(m["role"], m["content"], m["reasoning"]) for m in stored] == [
        ("user", "你好", ""),
        ("assistant", "晚上好呀", "秘密的思考一\n\n秘密的思考二"),
        ("assistant", "今天怎么样", ""),
    ]
    send(person, ai, "还不错")
    later = json.dumps(thinking_llm.requests_for(REASONER)[-1].body, ensure_ascii=False)
    assert "秘密的思考" not in later and "reasoning_content" not in later
    context = json.dumps(person.get(f"/api/memory/{ai['id']}").json(), ensure_ascii=False)
    assert "秘密的思考" not in context


def test_a_silent_answer_keeps_its_reasoning_on_the_persons_message(person, ai, thinking_llm) -> None:
    thinking_llm.script(REASONER, Reply.text("", reasoning="不想回"))
    events = send(person, ai, "嗯")
    assert [name for name, _ in events] == ["thinking", "done"] and events[-1][1]["replied"] is False
    [message] = history(person, ai)
    assert message["read_no_reply"] is True and message["reasoning"] == "不想回"


def test_without_sending_the_reasoning_back_the_fake_answers_400_like_deepseek(thinking_llm) -> None:
    from openai import BadRequestError, OpenAI

    client = OpenAI(base_url=thinking_llm.base_url, api_key="k", max_retries=0)
    lost = [
        {"role": "user", "content": "你好"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "call_0", "type": "function", "function": {"name": "get_current_state", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_0", "content": "{}"},
    ]
    with pytest.raises(BadRequestError):
        client.chat.completions.create(model=REASONER, messages=lost)


def test_an_endless_chain_of_thought_is_kept_only_up_to_its_limit(person, ai, thinking_llm) -> None:
    from dreamchat.domain.bounds import REASONING_CHARS as MAX_REASONING_CHARS

    thinking_llm.script(REASONER, Reply.text("好", reasoning="想" * (MAX_REASONING_CHARS + 5000)))
    events = send(person, ai, "你好")
    assert len(events[0][1]["content"]) == MAX_REASONING_CHARS
    assert len(history(person, ai)[-1]["reasoning"]) == MAX_REASONING_CHARS
