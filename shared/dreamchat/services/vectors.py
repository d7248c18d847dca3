"""Vectors kept up to date: a memory whose vectors are missing or stale (a new embedding model, an
edited text) gets new ones after the next compression or extraction of its pair."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from functools import partial

from dreamchat.domain import vectors as vec
from dreamchat.domain.models import LongTermIndex, MidTermMemory, PairId
from dreamchat.errors import Contended
from dreamchat.services.recall import REFRESH_BATCH, Retriever
from dreamchat.services.storage.memory import Embedded
from dreamchat.services.storage.unit_of_work import Storage


class VectorRefresh:
    def __init__(self, storage: Storage, retriever: Retriever) -> None:
        self._storage = storage
        self.retriever = retriever

    def refresh(self, pair: PairId) -> int:
        """Make the vectors that are missing or stale (a new embedding model, an edited memory), a batch
        at a time; how many memories got new vectors. A failing embedder changes nothing."""
        if not self.retriever.embedder.name:
            return 0
        done, budget = 0, REFRESH_BATCH
        with self._storage.pair(pair) as uow:
            for texts, save in [*self._stale(uow.mid_terms), *self._stale(uow.long_terms)]:
                budget -= len(texts)
                if budget < 0:
                    break
                vectors = self.retriever.vectors(texts)
                if vectors is None:
                    break  # the embedder is down: the next write tries again
                save(vectors)
                with suppress(Contended):  # over the version read: an edit meanwhile wins
                    uow.commit()
                    done += 1
        return done

    def _stale[E: (LongTermIndex, MidTermMemory)](
        self, tier: Embedded[E]
    ) -> list[tuple[list[str], Callable[[vec.StoredVectors], None]]]:
        """The texts of each memory of the tier whose vectors are missing or stale, and how to save new ones."""
        found = [(vec.embedded_texts(read.entity), read) for read in tier.all()]
        return [
            (texts, partial(tier.set_vectors, read))
            for texts, read in found
            if self.retriever.outdated(texts, tier.vectors(read))
        ]
