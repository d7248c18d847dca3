"""The person's 👍/👎 on an AI message: stored on the message (the person sees it in the history), counted
per UTC month for the operators' console (numbers only), and never shown to a model — the prompts read a
message's content alone."""

from __future__ import annotations

import logging

from dreamchat.domain.answers import NOT_AN_ANSWER, rated
from dreamchat.domain.models import Message, PairId
from dreamchat.domain.moderation import month_of
from dreamchat.errors import Conflict, Invalid, NotFound
from dreamchat.logsafe import failure
from dreamchat.ports import Clock
from dreamchat.services.memory_repo import MessageLog
from dreamchat.services.storage.unit_of_work import Storage, retry_on_conflict
from dreamchat.services.topics import TopicService

log = logging.getLogger(__name__)


class RatingService:
    def __init__(self, storage: Storage, message_log: MessageLog, topics: TopicService, clock: Clock) -> None:
        self._storage = storage
        self._log = message_log
        self._topics = topics
        self._clock = clock

    def rate(self, pair: PairId, message_id: str, rating: int, reason: str) -> Message:
        """Rate the AI's message (the same rating again changes nothing); Invalid for the person's own."""
        message = self._log.message(pair, message_id)
        if message is None:
            raise NotFound("no such message in this conversation")
        if message.role != "assistant":
            raise Invalid(NOT_AN_ANSWER)
        if message.rating == rating and message.rating_reason == reason:
            return message
        updated = message.model_copy(update={"rating": rating, "rating_reason": reason})
        if self._topics.update_message(pair, message, updated) is None:
            raise Conflict("the message changed meanwhile; try again")
        if message.rating != rating:
            self._count(message.rating, rating)
        return updated

    def _count(self, was: int | None, now: int) -> None:
        month = month_of(self._clock.now())

        def add() -> None:
            with self._storage.begin() as uow:
                read = uow.rating_counts.get(month)
                uow.rating_counts.save(month, rated(read.entity, was, now), read)
                uow.commit()

        try:
            retry_on_conflict(add)
        except Exception as error:  # noqa: BLE001 - logged; a count never fails the rating it counts
            log.error("rating count lost", extra={"month": month, "error": failure(error)})
