"""The retriever keeps a turn's query vectors a while: a topic's opening, searched on every turn of
the topic, reaches the embedding model once; memory texts are never served from that cache."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from dreamchat.ports import EmbeddingUnavailable
from dreamchat.services import recall
from dreamchat.services.recall import RecallService


class CountingEmbedder:
    name = "test:counting:4"
    kind = "api"

    def __init__(self) -> None:
        self.calls: list[tuple[list[str], bool]] = []
        self.down = False

    def embed(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        self.calls.append((list(texts), query))
        if self.down:
            raise EmbeddingUnavailable("down")
        return np.asarray([[len(t), sum(map(ord, t)) % 97, float(query), 1.0] for t in texts], dtype=np.float32)


def expected(texts: list[str], *, query: bool) -> np.ndarray:
    return CountingEmbedder().embed(texts, query=query)


def test_a_repeated_query_text_is_embedded_once_and_the_rows_keep_their_order() -> None:
    embedder = CountingEmbedder()
    retriever = RecallService(embedder)
    first = retriever.embed(["我们聊聊搬家", "打包好累"], query=True)
    second = retriever.embed(["我们聊聊搬家", "新家离公司近", "打包好累"], query=True)
    assert embedder.calls == [(["我们聊聊搬家", "打包好累"], True), (["新家离公司近"], True)]
    assert np.array_equal(first, expected(["我们聊聊搬家", "打包好累"], query=True))
    assert np.array_equal(second, expected(["我们聊聊搬家", "新家离公司近", "打包好累"], query=True))
    assert retriever.embed(["打包好累"], query=True) is not None and len(embedder.calls) == 2


def test_memory_texts_always_reach_the_model_and_never_fill_the_query_cache() -> None:
    embedder = CountingEmbedder()
    retriever = RecallService(embedder)
    retriever.embed(["我住在上海"], query=False)
    retriever.embed(["我住在上海"], query=False)
    rows = retriever.embed(["我住在上海"], query=True)  # a query vector differs from a passage vector
    assert [q for _, q in embedder.calls] == [False, False, True]
    assert np.array_equal(rows, expected(["我住在上海"], query=True))


def test_a_failed_model_caches_nothing_and_words_rank_alone() -> None:
    embedder = CountingEmbedder()
    retriever = RecallService(embedder)
    embedder.down = True
    assert retriever.embed(["在吗"], query=True) is None
    embedder.down = False
    assert retriever.embed(["在吗"], query=True) is not None
    assert len(embedder.calls) == 2


def test_the_cache_is_bounded_and_keyed_by_a_digest_not_the_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recall, "CACHED_QUERIES", 3)
    embedder = CountingEmbedder()
    retriever = RecallService(embedder)
    for text in ["一", "二", "三", "四"]:
        retriever.embed([text], query=True)
    assert len(retriever._queries) == 3
    assert all(isinstance(key, bytes) and "一".encode() not in key for key in retriever._queries)
    retriever.embed(["一"], query=True)  # the oldest was let go
    assert embedder.calls[-1] == (["一"], True)
