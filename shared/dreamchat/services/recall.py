"""Retrieval for one pair: its memory units, their vectors, the embedding of a turn's query.

Vectors are made when a memory is written and stored in its item (int8, tagged with the model
and the texts); a unit whose vectors are missing or stale (another model, edited text) ranks by
words until `refresh` makes them again. Every embedding failure falls back to words (BM25):
nothing is lost, the turn goes on.
"""

from __future__ import annotations

import hashlib
import logging
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from threading import Lock

import numpy as np

from dreamchat.domain import vectors as vec
from dreamchat.domain.models import EmotionTags, LongTermIndex, MidTermMemory, PairId
from dreamchat.domain.retrieval import Hit, Query, Unit, UnitIndex, build_index, search
from dreamchat.domain.supersession import Now, point_ref, replacements
from dreamchat.ports import Embedder, EmbeddingUnavailable

log = logging.getLogger(__name__)

CACHED_PAIRS = 16  # prepared indexes kept in memory (a warm Lambda or the local server reuses them)
REFRESH_BATCH = 256  # texts re-embedded per refresh call
CACHED_QUERIES = 1024  # query vectors kept (a topic's opening is searched on every turn of the topic)
RECENT_CHARS = 300


@dataclass(frozen=True)
class Found:
    hits: list[Hit]
    units: list[Unit]  # newest first


@dataclass(frozen=True)
class Prepared:
    index: UnitIndex
    newest: list[Unit]


def units_of(entries: list[LongTermIndex], mids: list[MidTermMemory]) -> list[Unit]:
    """Each key point of each long-term entry (one a later one replaced carries what holds now);
    each summary not yet extracted."""
    past = replacements(entries)
    units = [
        Unit(
            f"{e.id}#{n:03d}",
            e.id,
            point,
            e.created_at,
            e.time_precision,
            e.title,
            _source(e, n),
            *_now(past, e, n),
            tags=_tags(e.emotion_tags),
        )
        for e in entries
        for n, point in enumerate(e.key_points)
        if point.strip()
    ]
    units += [
        Unit(f"{m.id}#000", m.id, m.summary, m.created_at, "hour", tags=_tags(m.emotion_tags))
        for m in mids
        if not m.extracted_to_long
    ]
    return units


def _tags(tags: EmotionTags | None) -> tuple[str, ...]:
    return (tags.basic_emotion, tags.scene, tags.atmosphere) if tags else ()


def _now(past: dict[str, Now], entry: LongTermIndex, number: int) -> tuple[str, int]:
    found = past.get(point_ref(entry.id, number))
    return (found.text, found.since) if found else ("", 0)


def _source(entry: LongTermIndex, number: int) -> str:
    return entry.sources[number] if number < len(entry.sources) else ""


class RecallService:
    def __init__(self, embedder: Embedder, texts_per_call: int = 10) -> None:
        self.embedder = embedder
        self.texts_per_call = texts_per_call  # what one embeddings call takes (DREAMCHAT_EMBEDDING_BATCH)
        self._cache: OrderedDict[tuple[str, str], Prepared] = OrderedDict()
        self._queries: OrderedDict[bytes, np.ndarray] = OrderedDict()  # keyed by a digest, never the text
        self._lock = Lock()

    @property
    def kind(self) -> str:
        """What ranks the units: "api", "local" (with BM25) or "bm25" alone."""
        return self.embedder.kind

    def find(
        self,
        pair: PairId,
        entries: list[LongTermIndex],
        mids: list[MidTermMemory],
        stored: dict[str, vec.StoredVectors | None],
        message: str,
        recent: str = "",
        period: tuple[int, int] | None = None,
        feeling: tuple[str, ...] = (),
    ) -> Found:
        """The pair's units ranked for the message (no ranking for an empty one), and all its units
        newest first; `recent` the turns before it, `feeling` the emotion labels they show (`recall_query`),
        `period` ([start, end) epoch seconds) the time the message names, if any."""
        prepared = self.prepare(pair, entries, mids, stored)
        query = Query(message, recent[-RECENT_CHARS:], period=period, feeling=feeling)
        if message.strip() and prepared.index.matrix is not None:
            query = Query(query.message, query.recent, self.embed(query.texts, query=True), period, feeling)
        return Found(search(prepared.index, query) if message.strip() else [], prepared.newest)

    def prepare(
        self,
        pair: PairId,
        entries: list[LongTermIndex],
        mids: list[MidTermMemory],
        stored: dict[str, vec.StoredVectors | None],
    ) -> Prepared:
        """The units and their index, from the cache while the pair's memories stay the same."""
        fingerprint = hash(
            (
                tuple(
                    (e.id, e.created_at, e.time_precision, e.title, tuple(e.key_points), tuple(e.sources))
                    + tuple((s.point, s.superseded_by, s.at) for s in e.superseded)
                    + _tags(e.emotion_tags)
                    for e in entries
                ),
                tuple((m.id, m.summary, m.extracted_to_long, *_tags(m.emotion_tags)) for m in mids),
                tuple((p, s.digest, s.model) for p, s in stored.items() if s),
            )
        )
        key = (f"{pair.account_id}/{pair.ai_user_id}", f"{self.embedder.name}:{fingerprint}")
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        units = units_of(entries, mids)
        prepared = Prepared(self._index(units, stored), sorted(units, key=lambda u: (-u.created_at, u.id)))
        with self._lock:
            self._cache[key] = prepared
            while len(self._cache) > CACHED_PAIRS:
                self._cache.popitem(last=False)
        return prepared

    def _index(self, units: list[Unit], stored: dict[str, vec.StoredVectors | None]) -> UnitIndex:
        by_parent: dict[str, list[Unit]] = {}
        for unit in units:
            by_parent.setdefault(unit.parent_id, []).append(unit)
        vectors: list[np.ndarray | None] = []
        for group in by_parent.values():
            rows = vec.usable(stored.get(group[0].parent_id), self.embedder.name, [u.text for u in group])
            vectors += [rows[i] for i in range(len(group))] if rows is not None else [None] * len(group)
        return build_index([u for group in by_parent.values() for u in group], vectors)

    def embed(self, texts: Sequence[str], *, query: bool) -> np.ndarray | None:
        """Vectors for the texts, or None when there is no model or it failed (words alone then).
        A query's vectors are kept a while: only texts not seen lately reach the model."""
        if not texts or not self.embedder.name:
            return None
        keys = [self._query_key(t) for t in texts] if query else []
        with self._lock:
            known = {k: self._queries[k] for k in keys if k in self._queries}
        missing = [t for t, k in zip(texts, keys, strict=True) if k not in known] if query else list(texts)
        try:
            made = np.asarray(self.embedder.embed(missing, query=query), dtype=np.float32) if missing else None
        except EmbeddingUnavailable:
            log.warning("embedding unavailable; ranking by words alone", extra={"texts": len(missing)})
            return None
        if not query:
            return made
        fresh = dict(zip([self._query_key(t) for t in missing], made if made is not None else [], strict=True))
        with self._lock:
            for key, row in fresh.items():
                self._queries[key] = row
                self._queries.move_to_end(key)
            for key in known.keys() & self._queries.keys():
                self._queries.move_to_end(key)
            while len(self._queries) > CACHED_QUERIES:
                self._queries.popitem(last=False)
        return np.stack([known[k] if k in known else fresh[k] for k in keys])

    def _query_key(self, text: str) -> bytes:
        return hashlib.blake2b(f"{self.embedder.name}\0{text}".encode(), digest_size=16).digest()

    def vectors(self, texts: list[str]) -> vec.StoredVectors | None:
        """The texts' vectors as stored beside their memory (None when they could not be made)."""
        rows = self.embed(texts, query=False) if texts else None
        return vec.store(self.embedder.name, texts, rows) if rows is not None else None

    def vectors_of(self, memories: list[list[str]]) -> list[vec.StoredVectors] | None:
        """Each memory's vectors (its texts given as a list), all the texts embedded together: one
        embeddings call for memories whose texts fit `texts_per_call` (None when they could not be made)."""
        texts = [text for group in memories for text in group]
        rows = self.embed(texts, query=False) if texts else None
        if rows is None:
            return None
        made, start = [], 0
        for group in memories:
            made.append(vec.store(self.embedder.name, group, rows[start : start + len(group)]))
            start += len(group)
        return made

    def outdated(self, texts: list[str], stored: vec.StoredVectors | None) -> bool:
        """Whether a memory's vectors are missing or stale (another model, other texts)."""
        if not texts or not self.embedder.name:
            return False
        return vec.usable(stored, self.embedder.name, texts) is None
