"""Fixtures for the LLM tests: the fake server, settings pointing at it, and a gateway with a recording sleep."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from dreamchat.config import Settings
from dreamchat.llm.gateway import OpenAIGateway
from tests.fakes.fake_llm import FakeLLMServer

NOW = datetime(2026, 3, 15, 14, 3, tzinfo=ZoneInfo("Asia/Shanghai"))

MakeSettings = Callable[..., Settings]


@pytest.fixture(autouse=True)
def _no_model_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The developer's own DREAMCHAT_*/OPENAI_* variables must not leak into these tests."""
    for name in list(os.environ):
        if name.startswith(("DREAMCHAT_", "OPENAI_")):
            monkeypatch.delenv(name)


@pytest.fixture
def sleeps() -> list[float]:
    """Every back-off the code under test asked for, instead of sleeping."""
    return []


@pytest.fixture
def make_settings(fake_llm: FakeLLMServer) -> MakeSettings:
    """Settings whose every model key points at the fake server, with a short timeout."""

    def make(**overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "llm_base_url": fake_llm.base_url,
            "llm_api_key": "test-key",
            "llm_timeout_seconds": 2.0,
            "llm_max_retries": 2,
        }
        return Settings(**(values | overrides))

    return make


@pytest.fixture
def gateway(make_settings: MakeSettings, sleeps: list[float]) -> OpenAIGateway:
    """A gateway on the fake server whose back-off only records the delay."""
    return OpenAIGateway.from_settings(make_settings(), sleep=sleeps.append)
