"""Vectors kept up to date: a memory whose vectors are missing or stale (a new embedding model, an
edited text) gets new ones after the next compression or extraction of its pair, or when an import's
owed work is paid (`VectorService.complete`).

Memories are embedded together: as many as fill one embeddings call (`RecallService.texts_per_call`, the
model's limit), their vectors written in one commit."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from dreamchat.domain import vectors as vec
from dreamchat.domain.models import LongTermIndex, MidTermMemory, PairId
from dreamchat.ports import MAX_TRANSACTION_ITEMS
from dreamchat.services.recall import REFRESH_BATCH, RecallService
from dreamchat.services.storage.memory import Embedded
from dreamchat.services.storage.unit_of_work import PairUnitOfWork, Storage

Stale = tuple[list[str], Callable[[vec.StoredVectors], None]]  # a memory's texts, and how to save its vectors


class VectorService:
    def __init__(self, storage: Storage, retriever: RecallService) -> None:
        self._storage = storage
        self.retriever = retriever

    def refresh(self, pair: PairId, *, has_time: Callable[[], bool] = lambda: True) -> int:
        """Make the vectors that are missing or stale (at most REFRESH_BATCH texts), a call's worth of
        memories at a time while `has_time()`; how many memories got new vectors. A failing embedder
        changes nothing, and a memory changed meanwhile (a person's edit) keeps its change."""
        if not self.retriever.embedder.name:
            return 0
        done = 0
        with self._storage.pair(pair) as uow:
            for batch in _calls(self._stale(uow), self.retriever.texts_per_call, REFRESH_BATCH):
                if not has_time():
                    break
                made = self.retriever.vectors_of([texts for texts, _ in batch])
                if made is None:
                    break  # the embedder is down: the next write (or the owed work) tries again
                for (_, save), vectors in zip(batch, made, strict=True):
                    save(vectors)
                if uow.committed():  # over the versions read: a batch with an edit meanwhile waits for the next
                    done += len(batch)
        return done

    def complete(self, pair: PairId, *, has_time: Callable[[], bool] = lambda: True) -> tuple[int, int]:
        """Refresh until no memory of the pair is missing its vectors (or time, or the embedder, runs
        out): how many memories got vectors, and how many still lack them."""
        made = 0
        while has_time() and (done := self.refresh(pair, has_time=has_time)):
            made += done
        return made, self.missing(pair)

    def missing(self, pair: PairId) -> int:
        """How many of the pair's memories lack vectors of the current model for their texts."""
        if not self.retriever.embedder.name:
            return 0
        with self._storage.pair(pair) as uow:
            return len(self._stale(uow))

    def _stale(self, uow: PairUnitOfWork) -> list[Stale]:
        return [*self._tier(uow.mid_terms), *self._tier(uow.long_terms)]

    def _tier[E: (LongTermIndex, MidTermMemory)](self, tier: Embedded[E]) -> list[Stale]:
        """The texts of each memory of the tier whose vectors are missing or stale, and how to save new ones."""
        found = [(vec.embedded_texts(read.entity), read) for read in tier.all()]
        return [
            (texts, partial(tier.set_vectors, read))
            for texts, read in found
            if self.retriever.outdated(texts, tier.vectors(read))
        ]


def _calls(stale: list[Stale], per_call: int, at_most: int) -> list[list[Stale]]:
    """The memories grouped so each group's texts fill one call (a memory with more texts than a call
    takes goes alone; the embedder splits it) and its vectors one commit (at most
    MAX_TRANSACTION_ITEMS memories), at most `at_most` texts in all."""
    calls: list[list[Stale]] = []
    size = total = 0
    for memory in stale:
        total += len(memory[0])
        if total > at_most:
            break
        if not calls or size + len(memory[0]) > per_call or len(calls[-1]) == MAX_TRANSACTION_ITEMS:
            calls.append([])
            size = 0
        calls[-1].append(memory)
        size += len(memory[0])
    return calls
