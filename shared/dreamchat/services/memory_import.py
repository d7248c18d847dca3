"""A memory export (`dreamchat.domain.memory_export`) imported into a pair that has none yet.

All or nothing. The document is read strictly (`dreamchat.domain.strict_json`) and checked whole before
anything is written: every bound the API keeps (`dreamchat.domain.bounds`), so a document that passes
cannot fail while it is written nor break the pair later (422 names the field). Its ids are re-issued,
and the person's messages of the open topic are checked for a crisis as live ones are. A pair that holds
memories is refused (409) unless `replace`. The pair is then replaced whole
(`dreamchat.services.storage.replacement.replacing`): its items held and erased, the detail documents
written to the blob store under new revisions, the items into the pair through the unit of work (at most
`MAX_TRANSACTION_ITEMS` writes a commit, the due index rebuilt as they are written: un-extracted mid-term
memories, ended topics still in short-term, the open topic's idle check), then the heartbeat state with
its next due time. Anything that fails on the way puts the pair back as it was.

Vectors come last, a call's worth of memories at a time (`VectorService`), while the request has time;
what is left is owed work (an `embed` record, written with the import), which the extraction sweep's
healing pays. Imports are limited per account (DREAMCHAT_MEMORY_IMPORTS_PER_HOUR).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from dreamchat import keys
from dreamchat.budget import RedoWindow, models_deadline
from dreamchat.domain.crisis import CrisisCheck
from dreamchat.domain.heartbeat import HeartbeatState
from dreamchat.domain.memory_export import MemoryDocument, reissue, with_safety
from dreamchat.domain.models import AIUser, PairId, Relationship, SelfSoul
from dreamchat.domain.owed import OwedWork
from dreamchat.errors import Conflict
from dreamchat.ports import MAX_TRANSACTION_ITEMS, BlobStore, Clock, RandomSource
from dreamchat.services.ai_users import AIUserService
from dreamchat.services.heartbeat_state import HeartbeatStateService
from dreamchat.services.import_document import Write, read_document, writes
from dreamchat.services.memory_repo import MemoryRepository, detail_key
from dreamchat.services.storage.unit_of_work import PairUnitOfWork, Storage
from dreamchat.services.vectors import VectorService

MAX_IMPORT_BYTES = 4 * 1024 * 1024  # as a character card: what one Lambda request can carry
_GREETING_WINDOW = 5  # a pair whose log holds only its greeting (at most this many) counts as new


@dataclass(frozen=True)
class Imported:
    messages: int
    short_term: int
    mid_term: int
    long_term: int
    core: int
    vectors: int  # memories given their vectors in the request
    vectors_owed: int  # memories whose vectors are owed work, made by the next extraction sweep


class ImportService:
    def __init__(
        self,
        repo: MemoryRepository,
        storage: Storage,
        blobs: BlobStore,
        ai_users: AIUserService,
        heartbeats: HeartbeatStateService,
        vectors: VectorService,
        clock: Clock,
        random: RandomSource,
        check: CrisisCheck,
        spend: Callable[[str], None],
    ) -> None:
        self._blobs = blobs
        self._repo = repo
        self._storage = storage
        self._ai_users = ai_users
        self._heartbeats = heartbeats
        self._vectors = vectors
        self._clock = clock
        self._random = random
        self._check = check
        self._spend = spend  # the account's import budget (DREAMCHAT_MEMORY_IMPORTS_PER_HOUR)

    def import_memory(self, account_id: str, ai_user_id: str, upload: bytes, *, replace: bool = False) -> Imported:
        """Read, check, re-issue, then write; Invalid (nothing written) when the document is wrong,
        Conflict when the pair has memories and `replace` is not set, TooManyRequests past the hour's imports."""
        self._spend(account_id)
        pair, ai_user = self._ai_users.companion(account_id, ai_user_id)
        document = with_safety(reissue(read_document(upload), self._random.random), self._check)
        if not replace and not self._is_new(pair):
            raise Conflict("this AI friend already has memories of you: import with replace=true to erase them first")
        with self._storage.replacing(self._blobs, pair):  # replace, or a new pair's greeting; as it was on failure
            self._write(pair, ai_user, document)
        vectors, owed = self._embed(pair)
        return Imported(
            messages=len(document.messages),
            short_term=len(document.short_term),
            mid_term=len(document.mid_term),
            long_term=len(document.long_term),
            core=len(document.core) + len(document.relationship.history),
            vectors=vectors,
            vectors_owed=owed,
        )

    def _is_new(self, pair: PairId) -> bool:
        """No memory in any tier, and no message in the log but the greeting."""
        repo = self._repo
        latest, more = repo.log.messages(pair, before=None, after=None, limit=_GREETING_WINDOW)
        return (
            not more
            and all(m.kind == "greeting" for m in latest)
            and all(m.kind == "greeting" for m in repo.short_term(pair))
            and not repo.mid_terms(pair)
            and not repo.long_index(pair)
            and not repo.core(pair)
            and repo.self_soul(pair) == SelfSoul()
            and repo.relationship(pair) == Relationship()
        )

    def _write(self, pair: PairId, ai_user: AIUser, document: MemoryDocument) -> None:
        for entry in document.long_term:  # the documents first: an index never points at nothing
            if entry.detail is not None:
                self._repo.put_detail(pair, detail_key(pair, entry.index), entry.detail)
        owed = self._owed_vectors(document)
        self._commit(pair, writes(document, self._due_now(), owed))
        if document.messages:
            self._repo.log.claim_greeting(pair)  # the chat goes on: no second opening message
            self._ai_users.mark_read(pair.account_id, pair.ai_user_id, document.messages[-1].id)
        imported = document.heartbeat.model_dump(exclude={"prefs"})
        relationship = document.relationship.current
        self._heartbeats.change(pair, ai_user, relationship, lambda _: HeartbeatState.model_validate(imported))

    def _owed_vectors(self, document: MemoryDocument) -> OwedWork | None:
        """The import's vectors as owed work (due at once), paid by the request when it makes them all."""
        if not self._vectors.retriever.embedder.name or not (document.mid_term or document.long_term):
            return None
        now = int(self._clock.now().timestamp())
        return OwedWork(kind="embed", since=now, due_at=now)

    def _embed(self, pair: PairId) -> tuple[int, int]:
        """Vectors for the imported memories while the request has time (a call's worth at a time, each
        started only if the slowest so far still fits); how many were made, and how many stay owed."""
        if not self._vectors.retriever.embedder.name:
            return 0, 0
        deadline = models_deadline()
        has_time = RedoWindow(deadline, share=1.0).has_time if deadline is not None else lambda: True
        made, missing = self._vectors.complete(pair, has_time=has_time)
        if not missing:
            with self._storage.pair(pair) as uow:
                if (owed := uow.owed.get("embed")) is not None:
                    uow.owed.paid(owed)
                    uow.committed()  # lost to a healer meanwhile: it pays the record itself
        return made, missing

    def _commit(self, pair: PairId, writes: Iterator[Write]) -> None:
        """The writes in commits of at most MAX_TRANSACTION_ITEMS items each."""
        batch: list[Callable[[PairUnitOfWork], None]] = []
        size = 0
        for count, write in writes:
            if size + count > MAX_TRANSACTION_ITEMS:
                self._commit_batch(pair, batch)
                batch, size = [], 0
            batch.append(write)
            size += count
        self._commit_batch(pair, batch)

    def _commit_batch(self, pair: PairId, batch: list[Callable[[PairUnitOfWork], None]]) -> None:
        with self._storage.pair(pair) as uow:
            for write in batch:
                write(uow)
            uow.commit()

    def _due_now(self) -> str:
        return keys.due_time(self._clock.now())
