"""An on-disk cache of embeddings for the benchmarks, keyed by model, query/document and text.

Replaying LoCoMo embeds every fact and question again on each run; with the local model that is most
of a run's time. The vectors a model gives a text never change, so the benches keep them in one
SQLite file (default `~/.cache/dreamchat-bench/embeddings.sqlite`, or `DREAMCHAT_BENCH_CACHE`;
`off` disables it). Bench-only: the services never read it.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from dreamchat.ports import Embedder

DEFAULT_CACHE = Path.home() / ".cache" / "dreamchat-bench" / "embeddings.sqlite"


def cache_path(option: str | None = None) -> Path | None:
    """The cache file: the option, else DREAMCHAT_BENCH_CACHE, else the default; None for `off`."""
    chosen = option or os.environ.get("DREAMCHAT_BENCH_CACHE") or str(DEFAULT_CACHE)
    return None if chosen == "off" else Path(chosen)


class CachedEmbedder:
    """The inner embedder, asked only for the texts the cache does not hold (one call per batch)."""

    def __init__(self, inner: Embedder, path: Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.kind = inner.kind
        self.hits = 0
        self.misses = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, timeout=60, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)")
        self._lock = threading.Lock()

    def _key(self, text: str, query: bool) -> str:
        return hashlib.sha256(f"{self.name}\x00{int(query)}\x00{text}".encode()).hexdigest()

    def embed(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        keys = [self._key(t, query) for t in texts]
        with self._lock:
            found = {}
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(f"SELECT key, vector FROM vectors WHERE key IN ({marks})", chunk)
                found.update({k: np.frombuffer(v, dtype=np.float32) for k, v in rows})
        missing = [i for i, k in enumerate(keys) if k not in found]
        self.hits += len(keys) - len(missing)
        self.misses += len(missing)
        if missing:
            made = np.asarray(self.inner.embed([texts[i] for i in missing], query=query), dtype=np.float32)
            with self._lock:
                self._db.executemany(
                    "INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                    [(keys[i], made[n].tobytes()) for n, i in enumerate(missing)],
                )
                self._db.commit()
            found.update({keys[i]: made[n] for n, i in enumerate(missing)})
        return np.stack([found[k] for k in keys]) if keys else np.zeros((0, 0), dtype=np.float32)

    def close(self) -> None:
        self._db.close()


def cached(inner: Embedder, option: str | None = None) -> Embedder:
    """The embedder behind the cache, or as it is when there is no model or the cache is off."""
    path = cache_path(option)
    if path is None or not inner.name:
        return inner
    return CachedEmbedder(inner, path)
