"""Structured calls: tolerant parsing, one corrective retry with the validation error, coerce, or an error."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, Field

from dreamchat.llm.errors import LLMOutputError
from dreamchat.llm.gateway import OpenAIGateway
from tests.fakes.fake_llm import FakeLLMServer, Reply

ASK = [{"role": "user", "content": "给我打分"}]


class Score(BaseModel):
    score: int = Field(ge=0, le=10)
    comment: str


def clamp(raw: dict[str, Any]) -> Score:
    """A coerce that repairs an out-of-range score."""
    return Score(score=max(0, min(10, int(raw.get("score", 0)))), comment=str(raw.get("comment", "")))


def test_a_fenced_object_inside_prose_is_parsed(fake_llm: FakeLLMServer, gateway: OpenAIGateway) -> None:
    reply = '好的，结果如下：\n```json\n{"score": 8, "comment": "不错"}\n```\n希望有帮助！'
    fake_llm.script("qwen-plus", Reply.text(reply))
    assert gateway.structured("qwen_short_to_mid", ASK, Score) == Score(score=8, comment="不错")


def test_the_call_asks_for_a_json_object(fake_llm: FakeLLMServer, gateway: OpenAIGateway) -> None:
    fake_llm.script("qwen-plus", Reply.json({"score": 1, "comment": "x"}))
    gateway.structured("qwen_short_to_mid", ASK, Score)
    assert fake_llm.requests[0].body["response_format"] == {"type": "json_object"}


def test_json_mode_can_be_left_off_for_servers_without_it(fake_llm: FakeLLMServer, make_settings: Any) -> None:
    gateway = OpenAIGateway.from_settings(make_settings(), json_mode=False)
    fake_llm.script("qwen-plus", Reply.json({"score": 1, "comment": "x"}))
    gateway.structured("qwen_short_to_mid", ASK, Score)
    assert "response_format" not in fake_llm.requests[0].body


def test_an_invalid_object_is_retried_once_with_the_validation_error(
    fake_llm: FakeLLMServer, gateway: OpenAIGateway
) -> None:
    fake_llm.script(
        "qwen-plus", Reply.json({"score": 15, "comment": "满分"}), Reply.json({"score": 9, "comment": "好"})
    )
    assert gateway.structured("qwen_short_to_mid", ASK, Score) == Score(score=9, comment="好")
    retry = fake_llm.requests[1].messages
    assert retry[:-2] == ASK
    assert retry[-2] == {"role": "assistant", "content": '{"score": 15, "comment": "满分"}'}
    assert retry[-1]["role"] == "user" and "score" in retry[-1]["content"] and "10" in retry[-1]["content"]


def test_a_reply_without_any_object_is_retried_too(fake_llm: FakeLLMServer, gateway: OpenAIGateway) -> None:
    fake_llm.script("qwen-plus", Reply.text("我觉得挺好的"), Reply.json({"score": 7, "comment": "行"}))
    assert gateway.structured("qwen_short_to_mid", ASK, Score).score == 7


def test_still_invalid_after_the_retry_uses_coerce_on_the_last_object(
    fake_llm: FakeLLMServer, gateway: OpenAIGateway
) -> None:
    fake_llm.script("qwen-plus", Reply.json({"score": 15, "comment": "a"}), Reply.json({"score": 12, "comment": "b"}))
    assert gateway.structured("qwen_short_to_mid", ASK, Score, coerce=clamp) == Score(score=10, comment="b")
    assert len(fake_llm.requests) == 2


def test_still_invalid_without_coerce_is_an_output_error(fake_llm: FakeLLMServer, gateway: OpenAIGateway) -> None:
    fake_llm.script("qwen-plus", Reply.json({"score": 15}), Reply.json({"score": 12}))
    with pytest.raises(LLMOutputError, match="Score"):
        gateway.structured("qwen_short_to_mid", ASK, Score)


def test_no_object_at_all_is_an_output_error_even_with_coerce(fake_llm: FakeLLMServer, gateway: OpenAIGateway) -> None:
    fake_llm.script("qwen-plus", Reply.text("不告诉你"), Reply.text("还是不告诉你"))
    with pytest.raises(LLMOutputError):
        gateway.structured("qwen_short_to_mid", ASK, Score, coerce=clamp)


def test_a_coerce_that_cannot_repair_is_an_output_error(fake_llm: FakeLLMServer, gateway: OpenAIGateway) -> None:
    fake_llm.script("qwen-plus", Reply.json({"score": "很高"}), Reply.json({"score": "非常高"}))
    with pytest.raises(LLMOutputError, match="coerced"):
        gateway.structured("qwen_short_to_mid", ASK, Score, coerce=clamp)
