"""The memory tiers of one pair as repositories: the topic state, pending compressions, the messages
(log and short-term), mid-term, long-term and core memories (the snapshot a turn reads is in
`dreamchat.services.storage.snapshot`; owed work in `owed`). Each owns its keys, due-index attributes, vectors.
"""

from __future__ import annotations

from datetime import UTC, datetime

from dreamchat import keys
from dreamchat.domain import vectors as vec
from dreamchat.domain.models import CoreMemory, LongTermIndex, Message, MidTermMemory, PairId
from dreamchat.domain.topics import TopicState
from dreamchat.ports import Item, KeyRange
from dreamchat.services.storage.session import Session, Versioned, due, item, to_model, version_of, without_due
from dreamchat.services.storage.snapshot import topic_state


class _Tier:
    def __init__(self, session: Session, pair: PairId) -> None:
        self._session = session
        self._pair = pair
        self._pk = keys.pair_pk(pair)


class TopicStates(_Tier):
    """The open (or last) topic; in the due index `TOPIC#<shard>` while open, until its idle check."""

    def get(self) -> Versioned[TopicState] | None:
        found = self._session.get((self._pk, keys.TOPIC_SK))
        return Versioned(topic_state(found), version_of(found)) if found else None

    def save(self, state: TopicState, over: Versioned[TopicState] | None, idle_check: str | None = None) -> None:
        """The state over the one read; an open topic is indexed until `idle_check` (a due time)."""
        fields = {"topic_id": state.topic_id, "created_at": state.created_at, "ended": state.ended}
        if idle_check is not None and not state.ended:
            fields |= due(keys.TOPIC_DUE_KIND, keys.shard(self._pair), keys.due_sort(idle_check, self._pk))
        self._session.put_over(item((self._pk, keys.TOPIC_SK), fields), over)


class PendingCompressions(_Tier):
    """An ended topic waits in the due index until compressed: a sweep compresses it if its
    TopicEnded event was lost."""

    def add(self, topic_id: str, check_at: str) -> None:
        fields = {
            "topic_id": topic_id,
            **due(keys.COMPRESS_DUE_KIND, keys.shard(self._pair), keys.due_sort(check_at, self._pk, topic_id)),
        }
        self._session.put(item((self._pk, keys.pending_compression(topic_id)), fields))


class Messages(_Tier):
    """A message is two items: one in the conversation log, one in its topic's short-term (until
    the topic is compressed). Both are versioned: a change is written over the version read, so a
    person's deletion or edit meanwhile is never undone by a stale copy."""

    def get(self, message: Message) -> Versioned[Message] | None:
        """The message as the log holds it now (None: deleted)."""
        found = self._session.get((keys.messages_pk(self._pair), message.id))
        return Versioned(to_model(Message, found), version_of(found)) if found else None

    def add(self, message: Message, *, log: bool = True, short_term: bool = True) -> None:
        """A new message, in the log and its topic (each only if absent); an import names where it was."""
        fields = message.model_dump()
        if log:
            self._session.put_over(item((keys.messages_pk(self._pair), message.id), fields), None)
        if short_term:
            self._session.put_over(item(self._short_key(message), fields), None)

    def save(self, message: Message, over: Versioned[Message]) -> None:
        """The message changed, over the version read; in short-term only while it is still there
        (a compressed topic's message stays out of short-term)."""
        fields = message.model_dump()
        self._session.put_over(item((keys.messages_pk(self._pair), message.id), fields), over)
        short = self._session.get(self._short_key(over.entity))
        if short is not None:
            self._session.put_over(item(self._short_key(message), fields), Versioned(None, version_of(short)))

    def move(self, old: Versioned[Message], new: Message) -> bool:
        """The message moved to another topic (a semantic switch), over the versions read; False
        (nothing collected) when its topic was compressed meanwhile."""
        short = self._session.get(self._short_key(old.entity))
        if short is None:
            return False
        self._session.delete(self._short_key(old.entity), version_of(short))
        fields = new.model_dump()
        self._session.put_over(item((keys.messages_pk(self._pair), new.id), fields), old)
        self._session.put_over(item(self._short_key(new), fields), None)
        return True

    def remove(self, message: Message, *, short_term: bool = True, over: Versioned[Message] | None = None) -> None:
        """The message gone (`over`: only while the log holds it at the version read)."""
        self._session.delete((keys.messages_pk(self._pair), message.id), over.version if over else None)
        if short_term:
            self._session.delete(self._short_key(message))

    def _short_key(self, message: Message) -> tuple[str, str]:
        return keys.short_term_pk(self._pair), keys.short_term_sk(message.topic_id, message.id)


class Embedded[E: (LongTermIndex, MidTermMemory)](_Tier):
    """A tier of memories that carry the vectors of their texts, written over the version read."""

    _model: type[E]
    _prefix: str

    def all(self) -> list[Versioned[E]]:
        return [self._versioned(i) for i in self._items()]

    def save(
        self, entity: E, over: Versioned[E], vectors: vec.StoredVectors | None = None, fields: Item | None = None
    ) -> None:
        """A change over the version read (a person's edit, a redone result); the vectors go with the
        texts they were made of (new ones when given, none when the texts changed without them)."""
        found = {**self._session.read(self._key(over.entity)), **entity.model_dump(), **(fields or {})}
        if vectors is not None:
            found[vec.FIELD] = vectors.to_item()
        elif vec.embedded_texts(entity) != vec.embedded_texts(over.entity):
            found.pop(vec.FIELD, None)
        self._session.put_over(found, over)

    def remove(self, read: Versioned[E]) -> None:
        self._session.delete(self._key(read.entity))

    def vectors(self, read: Versioned[E]) -> vec.StoredVectors | None:
        return vec.StoredVectors.from_item(self._session.read(self._key(read.entity)).get(vec.FIELD))

    def set_vectors(self, read: Versioned[E], vectors: vec.StoredVectors) -> None:
        """The vectors written over the version read: a change meanwhile (a person's edit) wins."""
        found = self._session.read(self._key(read.entity))
        self._session.put_over({**found, vec.FIELD: vectors.to_item()}, read)

    def _add(self, entity: E, vectors: vec.StoredVectors | None, fields: Item) -> None:
        """A new memory, only if absent; versioned from the start."""
        written = {**entity.model_dump(), **fields}
        if vectors is not None:
            written[vec.FIELD] = vectors.to_item()
        self._session.put_over(item(self._key(entity), written), None)

    def _items(self) -> list[Item]:
        return self._session.query(self._pk, KeyRange(prefix=self._prefix))

    def _versioned(self, found: Item) -> Versioned[E]:
        return Versioned(to_model(self._model, found), version_of(found))

    def _key(self, entity: E) -> tuple[str, str]:
        raise NotImplementedError


class MidTerms(Embedded[MidTermMemory]):
    """One summary per topic; in the due index `EXTRACT#<shard>` until extracted to long-term."""

    _model, _prefix = MidTermMemory, keys.MID_PREFIX

    def get(self, topic_id: str) -> Versioned[MidTermMemory] | None:
        found = self._session.get((self._pk, keys.mid_term(topic_id)))
        return self._versioned(found) if found else None

    def add(self, mid: MidTermMemory, vectors: vec.StoredVectors | None) -> None:
        """A new memory (only if the topic has none yet), due for extraction from its hour; a degraded
        one only once its compression is redone (`redone`)."""
        self._add(mid, vectors, {} if mid.degraded else self._due_now(mid))

    def redone(self, mid: MidTermMemory, over: Versioned[MidTermMemory], vectors: vec.StoredVectors | None) -> None:
        """Its compression redone (or the redo cancelled), over the version read: due unless extracted."""
        self.save(mid, over, vectors, {} if mid.extracted_to_long else self._due_now(mid))

    def restore(self, mid: MidTermMemory) -> None:
        """An imported memory (only if absent): due for extraction unless it was extracted."""
        fields = {} if mid.extracted_to_long else self._due_now(mid)
        self._add(mid, None, fields)

    def _due_now(self, mid: MidTermMemory) -> dict[str, str]:
        """In the due index from the memory's hour."""
        when = keys.due_time(datetime.fromtimestamp(mid.created_at, UTC))
        return due(keys.EXTRACT_DUE_KIND, keys.shard(self._pair), keys.due_sort(when, self._pk, mid.id))

    def extracted(self, read: Versioned[MidTermMemory], *, degraded: bool = False) -> None:
        """Folded into long-term (or into nothing): out of the due index, and flagged, unless what it
        went into is degraded (its extraction is owed work then, never done)."""
        found = without_due(self._session.read(self._key(read.entity)))
        self._session.put_over({**found, **({} if degraded else {"extracted_to_long": True})}, read)

    def lease(self, found: Item, until: str) -> None:
        """A due memory (an item read from the due index) moves in the index to `until`, so later
        sweeps skip the pair while its extraction is in flight; a change since it was read fails the commit."""
        read = self._session.remember(found)
        moved = due(keys.EXTRACT_DUE_KIND, keys.shard(self._pair), keys.due_sort(until, self._pk, read["id"]))
        self._session.put_over({**read, **moved}, Versioned(None, version_of(read)))

    def _key(self, entity: MidTermMemory) -> tuple[str, str]:
        return self._pk, keys.mid_term(entity.topic_id)


class LongTerms(Embedded[LongTermIndex]):
    """The long-term index (its detail documents are blobs); each entry is judged once for core memory."""

    _model, _prefix = LongTermIndex, keys.LONG_PREFIX

    def unjudged(self) -> list[Versioned[LongTermIndex]]:
        return [self._versioned(i) for i in self._items() if i.get("core_judged") is False]

    def add(self, entry: LongTermIndex, vectors: vec.StoredVectors | None) -> None:
        self._add(entry, vectors, {"core_judged": False})

    def restore(self, entry: LongTermIndex) -> None:
        """An imported entry (only if absent), judged for core memory where it came from."""
        self._add(entry, None, {"core_judged": True})

    def judged(self, read: Versioned[LongTermIndex]) -> None:
        """Marked judged over the version judged: an edit or deletion meanwhile fails the commit."""
        found = self._session.read(self._key(read.entity))
        self._session.put_over({**found, "core_judged": True}, read)

    def _key(self, entity: LongTermIndex) -> tuple[str, str]:
        return self._pk, keys.long_term(entity.id)


class CoreMemories(_Tier):
    """Rare facts that shape behaviour; never edited by the AI. The person's edit goes over the
    version read, so a memory they deleted meanwhile is not brought back by an edit computed before."""

    def all(self) -> list[CoreMemory]:
        return [read.entity for read in self.read_all()]

    def read_all(self) -> list[Versioned[CoreMemory]]:
        found = self._session.query(self._pk, KeyRange(prefix=keys.CORE_PREFIX))
        return [Versioned(to_model(CoreMemory, i), version_of(i)) for i in found]

    def add(self, memory: CoreMemory) -> None:
        self._session.put(item((self._pk, keys.core(memory.id)), memory.model_dump()), if_absent=True)

    def save(self, memory: CoreMemory, over: Versioned[CoreMemory]) -> None:
        """The person's edit, over the version read (the memory must still be there)."""
        self._session.put_over(item((self._pk, keys.core(memory.id)), memory.model_dump()), over)

    def remove(self, core_id: str) -> None:
        self._session.delete((self._pk, keys.core(core_id)))
