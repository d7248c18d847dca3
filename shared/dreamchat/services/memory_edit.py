"""The person's corrections to their memories: update or delete one entry of one tier.

The AI can never edit or delete a core memory; the person can, and may add one.
"""

from __future__ import annotations

import uuid
from typing import Any

from dreamchat import keys
from dreamchat.domain import vectors as vec
from dreamchat.domain.models import (
    CoreMemory,
    EmotionTags,
    LongTermIndex,
    Message,
    MidTermMemory,
    PairId,
)
from dreamchat.errors import Conflict, Invalid, NotFound
from dreamchat.ports import Clock, ConditionFailed, Delete, Item, Put
from dreamchat.services.memory_repo import MemoryRepository, item, to_model
from dreamchat.services.recall import Retriever, texts_of


class MemoryEditor:
    def __init__(self, repo: MemoryRepository, clock: Clock, retriever: Retriever | None = None) -> None:
        self._repo = repo
        self._clock = clock
        self._retriever = retriever

    def _with_vectors(self, found: Item, merged: Item) -> Item:
        """The edited item with vectors for its new texts (none when they could not be made: the next
        compression or extraction of the pair makes them)."""
        if self._retriever is None or texts_of(merged) == texts_of(found):
            return merged
        fresh = {k: v for k, v in merged.items() if k != vec.FIELD}
        return {**fresh, **self._retriever.vectors_for(texts_of(fresh))}

    def short_term(self, pair: PairId, entry_id: str, delete: bool, changes: dict[str, Any]) -> Item | None:
        found = next((m for m in self._repo.short_term(pair) if m.id == entry_id), None)
        if found is None:
            raise NotFound("no such short-term message")
        short_key = (keys.short_term_pk(pair), keys.short_term_sk(found.topic_id, found.id))
        log_key = (keys.messages_pk(pair), found.id)
        if delete:
            self._repo.store.transact([Delete(*short_key), Delete(*log_key)])
            return None
        updated = Message.model_validate({**found.model_dump(), **changes})
        self._repo.store.transact(
            [Put(item(*short_key, updated.model_dump())), Put(item(*log_key, updated.model_dump()))]
        )
        return updated.model_dump()

    def mid_term(self, pair: PairId, entry_id: str, delete: bool, changes: dict[str, Any]) -> Item | None:
        found = next((i for i in self._repo.mid_term_items(pair) if i["id"] == entry_id), None)
        if found is None:
            raise NotFound("no such mid-term memory")
        if delete:
            self._repo.store.delete(found["pk"], found["sk"])
            return None
        if "emotion_tags" in changes:
            changes["emotion_tags"] = EmotionTags.model_validate(changes["emotion_tags"]).model_dump()
        merged = self._with_vectors(found, {**found, **changes})
        memory = to_model(MidTermMemory, merged)
        self._repo.store.put_versioned({**merged, **memory.model_dump()}, found["version"])
        return memory.model_dump()

    def long_term(self, pair: PairId, entry_id: str, delete: bool, changes: dict[str, Any]) -> Item | None:
        found = next((i for i in self._repo.long_index_items(pair) if i["id"] == entry_id), None)
        if found is None:
            raise NotFound("no such long-term memory")
        if delete:
            self._repo.store.delete(found["pk"], found["sk"])
            self._repo.blobs.delete(f"{keys.pair_blob_prefix(pair)}long_term_details/{found['detail_file']}")
            return None
        detail_content = changes.pop("detail_content", None)
        if "key_points" in changes:  # a point keeps the message it came from while its text stays
            was = dict(zip(found.get("key_points", []), found.get("sources", []), strict=False))
            changes["sources"] = [was.get(point, "") for point in changes["key_points"]]
        entry = to_model(LongTermIndex, {**found, **changes})  # invalid changes fail before any write
        if detail_content is not None:
            self._rewrite_detail(pair, entry, detail_content)
        if "version" not in found:  # stored before entries had versions: this edit gives it its first
            first = {**self._with_vectors(found, {**found, **changes}), "version": 1}
            try:
                self._repo.store.transact([Put(first, if_unversioned=True)])
                return entry.model_dump()
            except ConditionFailed:  # versioned (or deleted) meanwhile
                found = self._latest(found)
        self._put_latest(found, changes)  # a re-embedding or the core judge writing meanwhile: this edit wins
        return entry.model_dump()

    def _put_latest(self, found: Item, changes: dict[str, Any], attempts: int = 3) -> None:
        """The person's changes on the latest stored item (its vectors remade when its texts change)."""
        for _ in range(attempts):
            merged = self._with_vectors(found, {**found, **changes})
            try:
                self._repo.store.put_versioned(merged, found["version"])
                return
            except ConditionFailed:
                found = self._latest(found)
        raise Conflict("the memory kept changing; try again")

    def _latest(self, found: Item) -> Item:
        latest = self._repo.store.get(found["pk"], found["sk"])
        if latest is None:
            raise NotFound("no such long-term memory")
        return latest

    def core(self, pair: PairId, entry_id: str | None, delete: bool, changes: dict[str, Any]) -> Item | None:
        if entry_id is None:
            return self._add_core(pair, changes)
        found = next((m for m in self._repo.core(pair) if m.id == entry_id), None)
        if found is None:
            raise NotFound("no such core memory")
        if delete:
            self._repo.store.delete(keys.pair_pk(pair), keys.core(entry_id))
            return None
        updated = CoreMemory.model_validate({**found.model_dump(), **changes})
        self._repo.store.put(item(keys.pair_pk(pair), keys.core(entry_id), updated.model_dump()))
        return updated.model_dump()

    def _add_core(self, pair: PairId, changes: dict[str, Any]) -> Item:
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
        self._repo.store.transact([self._repo.core_put(pair, memory)])
        return memory.model_dump()

    def _rewrite_detail(self, pair: PairId, entry: LongTermIndex, content: str) -> None:
        detail = self._repo.detail(pair, entry.detail_file)
        if detail is None:
            raise NotFound("the detail document is missing")
        key = f"{keys.pair_blob_prefix(pair)}long_term_details/{entry.detail_file}"
        self._repo.put_detail(pair, key, detail.model_copy(update={"title": entry.title, "detail_content": content}))
