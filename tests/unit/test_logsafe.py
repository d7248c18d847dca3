from __future__ import annotations

from pydantic import BaseModel, ValidationError

from dreamchat.logsafe import failure


class Message(BaseModel):
    count: int


def test_a_failure_is_described_without_its_message() -> None:
    try:
        Message.model_validate({"count": "我今天很难过"})
    except ValidationError as error:
        described = failure(error)
    assert described.startswith("ValidationError at ")
    assert "难过" not in described and "test_logsafe.py" in described
