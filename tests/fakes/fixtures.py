"""Pytest fixtures for the fakes; a conftest imports them where they are wanted."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.fake_llm import FakeLLMServer


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    """A running fake OpenAI-compatible server, stopped after the test."""
    with FakeLLMServer() as server:
        yield server
