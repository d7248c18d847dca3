"""The embedding circuit breaker under attack: refused inputs, racing failures, a 429's Retry-After."""

from __future__ import annotations

import contextlib
import threading
import time

import httpx
import openai
import pytest

from dreamchat.adapters.embeddings import ApiEmbedder
from dreamchat.ports import EmbeddingUnavailable
from tests.fakes.fake_llm import Reply

MODEL = "text-embedding-v4"


class Ticks:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_one_refused_input_does_not_shut_the_endpoint_for_every_other_text(fake_llm) -> None:
    """DashScope answers 400 `data_inspection_failed` for one text its moderation flags (a companion
    chat sees such messages): that says nothing about the endpoint, yet the breaker stops every
    other pair's query embedding for the whole cool-down."""
    ticks = Ticks()
    embedder = ApiEmbedder(fake_llm.base_url, "k", MODEL, cooldown=60, clock=ticks)
    fake_llm.script(
        MODEL,
        Reply.bad_request("Input data may contain inappropriate content.", code="data_inspection_failed"),
    )
    with pytest.raises(EmbeddingUnavailable):
        embedder.embed(["a flagged message"], query=True)
    ticks.now = 1
    assert embedder.embed(["another person's ordinary message"], query=True).shape[0] == 1


def _status(status: int) -> openai.APIStatusError:
    request = httpx.Request("POST", "http://embeddings.test/embeddings")
    return openai.APIStatusError("refused", response=httpx.Response(status, request=request), body=None)


def test_a_concurrent_transient_failure_does_not_shorten_the_pause_after_a_refused_key(monkeypatch) -> None:
    """Two turns embed at once: one gets 401 (pause 10 x cool-down), the other times out a moment
    later and overwrites `_closed_at` with a single cool-down, so a refused key is called again
    after 60 s instead of 600 s."""
    ticks = Ticks()
    embedder = ApiEmbedder("http://embeddings.test", "k", MODEL, cooldown=60, clock=ticks)
    refused = threading.Event()
    calls: list[str] = []

    def create(*, input, **_):  # noqa: A002 - the SDK's keyword
        calls.append(input[0])
        if input == ["slow"]:
            refused.wait(5)
            raise openai.APITimeoutError(request=httpx.Request("POST", "http://embeddings.test/embeddings"))
        raise _status(401)

    monkeypatch.setattr(embedder._client.embeddings, "create", create)
    errors: list[Exception] = []

    def slow() -> None:
        try:
            embedder.embed(["slow"], query=True)
        except EmbeddingUnavailable as error:
            errors.append(error)

    worker = threading.Thread(target=slow)
    worker.start()
    while not calls:
        pass
    with pytest.raises(EmbeddingUnavailable):
        embedder.embed(["fast"], query=True)  # 401: not again for 600 s
    refused.set()
    worker.join(5)
    assert errors
    ticks.now = 61
    with pytest.raises(EmbeddingUnavailable):
        embedder.embed(["later"], query=True)
    assert calls == ["slow", "fast"]  # the refused key is left alone for ten cool-downs


def test_a_rate_limited_endpoint_does_not_hold_the_turn_for_its_retry_after(fake_llm) -> None:
    """A 429 with `Retry-After: 4` (DashScope's QPS limit): a retry by the SDK would sleep the whole
    Retry-After (it honours up to 120 s), far beyond the embedder's 0.3 s timeout, inside a chat turn."""
    embedder = ApiEmbedder(fake_llm.base_url, "k", MODEL, timeout=0.3, cooldown=60)
    fake_llm.script(MODEL, Reply.rate_limited(retry_after=4))
    started = time.monotonic()
    with contextlib.suppress(EmbeddingUnavailable):
        embedder.embed(["海边日出"], query=True)
    assert time.monotonic() - started < 2
