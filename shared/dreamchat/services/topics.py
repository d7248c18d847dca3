"""Where a pair's messages go: record them in the log and their topic, open, switch and end topics
(farewells, markers, an idle gap), and the due index's safety nets (idle topics, lost events).

Ending a topic publishes `TopicEnded`; compression then moves it to mid-term memory.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import suppress
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from dreamchat import keys
from dreamchat.config import Settings
from dreamchat.domain import topics
from dreamchat.domain.ids import message_id
from dreamchat.domain.media import Media
from dreamchat.domain.models import Message, MessageKind, PairId, Role, Safety
from dreamchat.domain.owed import OwedWork
from dreamchat.domain.topics import Placement, TopicState
from dreamchat.errors import Contended, MediaAlreadySent, NotFound
from dreamchat.events import TopicEnded
from dreamchat.ports import Clock, Event, EventBus, RandomSource
from dreamchat.services.due_index import due_pages
from dreamchat.services.memory_repo import MemoryRepository
from dreamchat.services.storage.unit_of_work import PairUnitOfWork, Storage, retry_on_conflict

COMPRESS_SAFETY_NET = timedelta(hours=1)  # an ended topic not compressed by then is compressed by the sweep


def topic_ended(pair: PairId, topic_id: str) -> Event:
    return TopicEnded(pair.account_id, pair.ai_user_id, topic_id).event()


class TopicService:
    def __init__(
        self,
        repo: MemoryRepository,
        storage: Storage,
        bus: EventBus,
        clock: Clock,
        random: RandomSource,
        settings: Settings,
    ) -> None:
        self.repo = repo
        self._storage = storage
        self._bus = bus
        self._clock = clock
        self._random = random
        self._settings = settings

    def record(
        self,
        pair: PairId,
        role: Role,
        content: str,
        *,
        kind: MessageKind = "chat",
        after: str | None = None,
        delay_ms: int = 0,
        reasoning: str = "",
        safety: Safety | None = None,
        media: Media | None = None,
    ) -> Message:
        """Store one message durably in the log and its topic; opens or closes topics as needed. A message
        that carries `media` (the record as it is to be kept) takes it in the same commit: of two messages
        naming one upload, one carries it (MediaAlreadySent for the other)."""

        def place() -> tuple[Message, Placement]:
            with self._storage.pair(pair) as uow:
                now = self._clock.now()
                read = uow.topic.get()
                last = self.repo.log.last_message(pair)
                fresh = topics.new_topic_id(now, self._random.random())
                placement = topics.place_message(
                    read.entity if read else None,
                    last.timestamp if last else None,
                    now,
                    self._settings.topic_idle_hours,
                    fresh,
                )
                previous = max(filter(None, [after, last.id if last else None]), default=None)
                message = Message(
                    id=message_id(now, self._random.random(), previous),
                    role=role,
                    content=content,
                    timestamp=int(now.timestamp()),
                    topic_id=placement.topic_id,
                    kind=kind,
                    delay_ms=delay_ms,
                    reasoning=reasoning,
                    safety=safety,
                    media_id=media.id if media else None,
                    media_kind=media.kind if media else None,
                    duration_s=media.duration_s if media else None,
                )
                uow.messages.add(message)
                if media is not None:
                    _carry(uow, media, message)
                if placement.opens_topic:
                    uow.topic.save(TopicState(fresh, int(now.timestamp())), read, self._idle_check(now))
                if placement.closes_topic:
                    uow.pending.add(placement.closes_topic, self._retry_check(now))
                uow.commit()  # Contended: another message opened a topic first; place this one again
                return message, placement

        message, placement = retry_on_conflict(place)
        self._announce(pair, placement)
        return message

    def update_message(self, pair: PairId, seen: Message, updated: Message) -> Message | None:
        """Store a recorded message again, changed (read without a reply, its reasoning, a crisis
        mark), over the message as `seen`: None, and nothing written, when the person deleted or
        edited it meanwhile (their change stands) or its topic was compressed and it was deleted."""
        with self._storage.pair(pair) as uow:
            read = uow.messages.get(seen)
            if read is None or read.entity != seen:
                return None
            uow.messages.save(updated, read)
            try:
                uow.commit()
            except Contended:  # changed between the read and the write: theirs stands
                return None
        return updated

    def end_topic(self, pair: PairId, topic_id: str) -> bool:
        """Mark the topic ended and announce it; False if it was not the open topic."""
        with self._storage.pair(pair) as uow:
            read = uow.topic.get()
            if read is None or read.entity.topic_id != topic_id or read.entity.ended:
                return False
            uow.topic.save(replace(read.entity, ended=True), read)
            uow.pending.add(topic_id, self._retry_check(self._clock.now()))
            try:
                uow.commit()
            except Contended:
                return False
        self._bus.publish(topic_ended(pair, topic_id))
        return True

    def switch_topic(self, pair: PairId, message: Message) -> Message:
        """A semantic switch: the old topic ends without `message`, which opens the next topic. The
        message moves only as the turn saw it: one the person deleted or edited meanwhile stays as they left it."""
        with self._storage.pair(pair) as uow:
            read = uow.topic.get()
            if read is None or read.entity.topic_id != message.topic_id:
                return message
            seen = uow.messages.get(message)
            if seen is None or seen.entity != message:
                return message
            now = self._clock.now()
            fresh = topics.new_topic_id(now, self._random.random())
            moved = message.model_copy(update={"topic_id": fresh})
            if not uow.messages.move(seen, moved):
                return message
            uow.topic.save(TopicState(fresh, int(now.timestamp())), read, self._idle_check(now))
            uow.pending.add(read.entity.topic_id, self._retry_check(now))
            try:
                uow.commit()
            except Contended:
                return message
        self._bus.publish(topic_ended(pair, read.entity.topic_id))
        return moved

    def close_idle_topics(self) -> int:
        """End open topics nobody wrote to for TOPIC_IDLE_HOURS, so they are compressed without
        waiting for the next message. Reads only the due index; how many topics it ended."""
        ended = 0
        for page in due_pages(self._storage, keys.TOPIC_DUE_KIND, keys.due_until(self._clock.now())):
            for found in page.items:
                ended += self._check_idle(keys.pair_from_pk(found["pk"]))
        return ended

    def _check_idle(self, pair: PairId) -> int:
        """End the pair's topic if idle; else move its check to when it would be."""
        with self._storage.pair(pair) as uow:
            read = uow.topic.get()
            last = self.repo.log.last_message(pair)
            if read is None:
                return 0
            state, now = read.entity, self._clock.now()
            if (
                not state.ended
                and last is not None
                and not topics.is_idle(last.timestamp, now, self._settings.topic_idle_hours)
            ):
                check = datetime.fromtimestamp(last.timestamp, UTC) + timedelta(hours=self._settings.topic_idle_hours)
                uow.topic.save(state, read, keys.due_time(check))
                with suppress(Contended):  # a message or an ending changed the topic meanwhile
                    uow.commit()
                return 0
            if state.ended:  # ended some other way but still indexed: leave the index
                uow.topic.save(state, read)
                with suppress(Contended):
                    uow.commit()
                return 0
        return int(self.end_topic(pair, state.topic_id))

    def leftovers(self) -> Iterator[tuple[PairId, str]]:
        """Ended topics whose TopicEnded was lost (their marker is over an hour old), to compress."""
        for page in due_pages(self._storage, keys.COMPRESS_DUE_KIND, keys.due_until(self._clock.now())):
            for found in page.items:
                yield keys.pair_from_pk(found["pk"]), found["topic_id"]

    def _retry_check(self, now: datetime) -> str:
        return keys.due_time(now + COMPRESS_SAFETY_NET)

    def _idle_check(self, now: datetime) -> str:
        return keys.due_time(now + timedelta(hours=self._settings.topic_idle_hours))

    def _announce(self, pair: PairId, placement: Placement) -> None:
        if placement.closes_topic:
            self._bus.publish(topic_ended(pair, placement.closes_topic))

    def end_topic_now(self, pair: PairId) -> list[str]:
        """End the open topic; every topic still in short-term, to compress now."""
        state = self.repo.topic_state(pair)
        if state is not None and not state.ended and self.repo.short_term(pair, state.topic_id):
            self.close_if_open(pair, state.topic_id)
        return self.repo.short_term_topics(pair)

    def close_if_open(self, pair: PairId, topic_id: str) -> None:
        """End the topic if it is still the open one (a compression of it is about to run)."""
        with self._storage.pair(pair) as uow:
            read = uow.topic.get()
            if read is not None and read.entity.topic_id == topic_id and not read.entity.ended:
                uow.topic.save(replace(read.entity, ended=True), read)
                with suppress(Contended):  # someone else changed the topic meanwhile: closed either way
                    uow.commit()


def _carry(uow: PairUnitOfWork, media: Media, message: Message) -> None:
    """The media record joins the message (over the version read); words still owed are owed work. A record
    that carries another message's id may pass on only from the message `media` names (an edit's)."""
    read = uow.media.get(media.id)
    if read is None:
        raise NotFound("no such media")
    if read.entity.message_id not in (None, media.message_id):
        raise MediaAlreadySent("this photo or voice note was sent already")
    uow.media.save(media.model_copy(update={"message_id": message.id}), read)
    if media.text_state == "owed" and uow.owed.get("media", media.id) is None:
        uow.owed.owe(OwedWork(kind="media", subject=media.id, since=message.timestamp, due_at=message.timestamp))
