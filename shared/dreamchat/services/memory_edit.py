"""The person's corrections to their memories: update or delete one entry of one tier.

The AI can never edit or delete a core memory; the person can, and may add one.
"""

from __future__ import annotations

import uuid
from typing import Any

from dreamchat.domain import vectors as vec
from dreamchat.domain.bounds import CORE_CHARS, CORE_MEMORIES
from dreamchat.domain.core_memory import split
from dreamchat.domain.models import (
    CoreMemory,
    EmotionTags,
    LongTermIndex,
    Message,
    MidTermMemory,
    PairId,
)
from dreamchat.domain.supersession import carried, renumbered, undo_problem, undone
from dreamchat.errors import Conflict, Contended, Invalid, NotFound
from dreamchat.ports import Clock
from dreamchat.services.memory_repo import MemoryRepository, detail_key, new_detail, settle_detail
from dreamchat.services.recall import RecallService
from dreamchat.services.storage.memory import Embedded
from dreamchat.services.storage.session import Versioned
from dreamchat.services.storage.unit_of_work import Storage, retry_on_conflict
from dreamchat.services.supersession import follow

REMEMBERED = "对方让我记住的"  # the category of a core memory made from a message (让 TA 记住这条)


class MemoryEditService:
    def __init__(
        self,
        repo: MemoryRepository,
        storage: Storage,
        clock: Clock,
        retriever: RecallService | None = None,
        max_core: int = 50,
    ) -> None:
        self._max_core = max_core  # core memories a person may add to one pair
        self._repo = repo
        self._storage = storage
        self._clock = clock
        self._retriever = retriever

    def short_term(self, pair: PairId, entry_id: str, delete: bool, changes: dict[str, Any]) -> dict[str, Any] | None:
        found = next((m for m in self._repo.short_term(pair) if m.id == entry_id), None)
        if found is None:
            raise NotFound("no such short-term message")
        updated = None if delete else Message.model_validate({**found.model_dump(), **changes})
        with self._storage.pair(pair) as uow:
            if updated is None:
                uow.messages.remove(found)
            else:
                read = uow.messages.get(found)
                if read is None:
                    raise NotFound("no such short-term message")
                uow.messages.save(updated, read)
            uow.commit()  # an edit over a message changed meanwhile: Contended (409), nothing written
        return updated.model_dump() if updated else None

    def mid_term(self, pair: PairId, entry_id: str, delete: bool, changes: dict[str, Any]) -> dict[str, Any] | None:
        with self._storage.pair(pair) as uow:
            found = _find(uow.mid_terms, entry_id, "no such mid-term memory")
            if delete:
                uow.mid_terms.remove(found)
                uow.commit()
                return None
            if "emotion_tags" in changes:
                changes["emotion_tags"] = EmotionTags.model_validate(changes["emotion_tags"]).model_dump()
            # the person's words now: an owed redo of its compression is cancelled (`RedoService.compress`)
            theirs = {"degraded": False, "summary_cut": False}
            memory = MidTermMemory.model_validate({**found.entity.model_dump(), **changes, **theirs})
            uow.mid_terms.save(memory, found, self._vectors(found.entity, memory))
            uow.commit()
        return memory.model_dump()

    def long_term(self, pair: PairId, entry_id: str, delete: bool, changes: dict[str, Any]) -> dict[str, Any] | None:
        """Deleted, or changed over the entry stored now: a re-embedding or the core judge writing
        meanwhile loses to the person, whose changes are applied again on what they wrote. Marks
        other entries hold naming its key points follow their text, in the same commit (a point
        rewritten or removed: the fact it replaced is current again)."""
        with self._storage.pair(pair) as uow:
            found = _find(uow.long_terms, entry_id, "no such long-term memory")
            if delete:
                uow.long_terms.remove(found)
                uow.commit()
                self._repo.blobs.delete(detail_key(pair, found.entity))
                return None
        detail_content = changes.pop("detail_content", None)
        current_again = changes.pop("undo_supersede", [])
        changes["degraded"] = False  # the person's now: an owed redo of its extraction is cancelled
        if "key_points" in changes:  # a point keeps the message it came from while its text stays
            was = dict(zip(found.entity.key_points, found.entity.sources, strict=False))
            changes["sources"] = [was.get(point, "") for point in changes["key_points"]]
        entry = _edited(found.entity, changes, current_again)  # invalid: before any write
        written = None if detail_content is None else self._new_detail(pair, entry, detail_content)
        if written is not None:  # stored before the commit naming it: the commit that wins, wins the document
            changes["detail_revision"], entry = written.detail_revision, written
        committed = None
        try:
            committed = self._commit_long_term(pair, entry_id, changes, current_again)
        finally:  # lost (or deleted meanwhile): their new document goes; won: the one it replaced
            if written is not None:
                settle_detail(self._repo, pair, written, committed[1] if committed else None, committed is not None)
        if committed is None:
            raise Contended("the memory kept changing; try again")
        return entry.model_dump()

    def _commit_long_term(
        self, pair: PairId, entry_id: str, changes: dict[str, Any], current_again: list[int]
    ) -> tuple[LongTermIndex, LongTermIndex] | None:
        """The changes committed over the entry stored now (tried again when it changed meanwhile):
        the entry written and the one it replaced; None when it kept changing."""

        def write() -> tuple[LongTermIndex, LongTermIndex]:
            with self._storage.pair(pair) as uow:
                latest = _find(uow.long_terms, entry_id, "no such long-term memory")
                edited = _edited(latest.entity, changes, current_again)
                uow.long_terms.save(edited, latest, self._vectors(latest.entity, edited))
                if edited.key_points != latest.entity.key_points:
                    follow(uow, entry_id, renumbered(latest.entity.key_points, edited.key_points))
                uow.commit()
                return edited, latest.entity

        try:
            return retry_on_conflict(write)
        except Contended:
            return None

    def core(self, pair: PairId, entry_id: str | None, delete: bool, changes: dict[str, Any]) -> dict[str, Any] | None:
        if entry_id is None:
            return self._add_core(pair, changes)
        with self._storage.pair(pair) as uow:
            found = next((m for m in uow.core.read_all() if m.entity.id == entry_id), None)
            if found is None:
                raise NotFound("no such core memory")
            updated = None if delete else CoreMemory.model_validate({**found.entity.model_dump(), **changes})
            if updated is None:
                uow.core.remove(entry_id)
            else:
                uow.core.save(updated, found)
            uow.commit()  # deleted or changed meanwhile: Contended (409), nothing written
        return updated.model_dump() if updated else None

    def remember(self, pair: PairId, message_id: str) -> dict[str, Any]:
        """让 TA 记住这条: a core memory of the person's making (source `person`, importance 8) holding the
        message's words, within the same limits as one added by hand (Conflict past them)."""
        message = self._repo.log.message(pair, message_id)
        if message is None:
            raise NotFound("no such message in this conversation")
        content = message.content.strip()[:CORE_CHARS]
        if not content:
            raise Invalid("this message has no words to remember")
        return self._add_core(pair, {"content": content, "category": REMEMBERED})

    def _add_core(self, pair: PairId, changes: dict[str, Any]) -> dict[str, Any]:
        if not changes.get("content"):
            raise Invalid("a new core memory needs content")
        memory = CoreMemory.model_validate(
            {
                "importance": 8,
                **changes,
                "id": f"core_{uuid.uuid4().hex[:12]}",
                "created_at": int(self._clock.now().timestamp()),
                "source": "person",
            }
        )
        with self._storage.pair(pair) as uow:
            held = uow.core.all()
            if sum(m.source == "person" for m in held) >= self._max_core:
                raise Conflict(f"at most {self._max_core} core memories can be added by hand; delete one first")
            if len(split(held).current) >= CORE_MEMORIES:
                raise Conflict(f"this AI friend holds {CORE_MEMORIES} core memories of you; delete one first")
            uow.core.add(memory)
            uow.commit()
        return memory.model_dump()

    def _vectors(
        self, before: LongTermIndex | MidTermMemory, after: LongTermIndex | MidTermMemory
    ) -> vec.StoredVectors | None:
        """Vectors for the edited texts (none when they could not be made, or the texts stayed: the
        next compression or extraction of the pair makes what is missing)."""
        texts = vec.embedded_texts(after)
        if self._retriever is None or texts == vec.embedded_texts(before):
            return None
        return self._retriever.vectors(texts)

    def _new_detail(self, pair: PairId, entry: LongTermIndex, content: str) -> LongTermIndex:
        detail = self._repo.detail(pair, entry)
        if detail is None:
            raise NotFound("the detail document is missing")
        return new_detail(
            self._repo, pair, entry, detail.model_copy(update={"title": entry.title, "detail_content": content})
        )


def _edited(entry: LongTermIndex, changes: dict[str, Any], current_again: list[int]) -> LongTermIndex:
    """The entry with the person's changes: a supersession follows its point's text (a point rewritten
    is current again), and the points in `current_again` (numbered as after the edit) are current again."""
    edited = LongTermIndex.model_validate({**entry.model_dump(), **changes})
    problem = undo_problem(edited, current_again)
    if problem is not None:
        raise Invalid(f"undo_supersede: {problem}")
    if "key_points" in changes:
        edited = edited.model_copy(update={"superseded": carried(entry, edited.key_points)})
    return undone(edited, current_again)


def _find[E: (LongTermIndex, MidTermMemory)](tier: Embedded[E], entry_id: str, missing: str) -> Versioned[E]:
    found = next((read for read in tier.all() if read.entity.id == entry_id), None)
    if found is None:
        raise NotFound(missing)
    return found
