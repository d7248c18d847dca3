"""Embedding vectors as stored beside a memory: int8, base64, tagged with the model and the texts.

A stored set is usable only for the same model and the same texts (a person's edit or a new
embedding model makes it stale, and it is made again).
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dreamchat.domain.models import LongTermIndex, MidTermMemory

FIELD = "embedding"


@dataclass(frozen=True)
class StoredVectors:
    model: str
    digest: str
    data: str  # base64 of rows × dims int8

    def to_item(self) -> dict[str, str]:
        return {"model": self.model, "digest": self.digest, "data": self.data}

    @classmethod
    def from_item(cls, value: Any) -> StoredVectors | None:
        if not isinstance(value, dict) or not all(isinstance(value.get(k), str) for k in ("model", "digest", "data")):
            return None
        return cls(value["model"], value["digest"], value["data"])


def digest(texts: Sequence[str]) -> str:
    return hashlib.sha256("\x1f".join(texts).encode()).hexdigest()[:16]


def store(model: str, texts: Sequence[str], vectors: np.ndarray) -> StoredVectors:
    """The vectors quantised to int8 (each row scaled to ±127: cosine ignores the scale)."""
    rows = np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)
    peak = np.abs(rows).max(axis=1, keepdims=True)
    quantised = np.round(rows / np.where(peak > 0, peak, 1) * 127).astype(np.int8)
    return StoredVectors(model, digest(texts), base64.b64encode(quantised.tobytes()).decode())


def usable(stored: StoredVectors | None, model: str, texts: Sequence[str]) -> np.ndarray | None:
    """The unit-length float32 rows, one per text, when `stored` fits this model and these texts."""
    if stored is None or not model or stored.model != model or stored.digest != digest(texts) or not texts:
        return None
    try:
        raw = np.frombuffer(base64.b64decode(stored.data, validate=True), dtype=np.int8)
    except ValueError:
        return None
    if raw.size == 0 or raw.size % len(texts):
        return None
    return normalised(raw.reshape(len(texts), -1).astype(np.float32))


def normalised(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms > 0, norms, 1)


def embedded_texts(memory: LongTermIndex | MidTermMemory) -> list[str]:
    """The texts of a memory that are embedded, in unit order: a long-term entry's key points, a
    mid-term memory's summary."""
    if isinstance(memory, LongTermIndex):
        return [p for p in memory.key_points if p.strip()]
    return [memory.summary] if memory.summary else []
