"""A way out (暂行办法: an easy exit by button or keyword). `stop` (the button) or a message that is an exit
keyword (`asks_to_stop`, then `wrote`) stops the companion at once: the pair's friendship is marked stopped
and the AI says one plain goodbye written in code (`dreamchat.llm.chat_prompts.GOODBYE`, no model call),
stored as its message. Then it sends nothing first: no heartbeat and no crisis check-in (`or_stopped`, beside
an operator's takeover), no push of one (`unless_stopped`); the greeting never comes again, as the chat is
not empty. The person's next message lifts the stop (`wrote`) and its turn goes on as always. A crisis
statement, or a keyword in a topic that shows distress or a crisis, is never a stop: the protocol answers it."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from dreamchat.domain import exits
from dreamchat.domain.models import AIUser, Friendship, Message, PairId
from dreamchat.errors import Contended, NotFound
from dreamchat.llm.chat_prompts import GOODBYE
from dreamchat.ports import Clock
from dreamchat.services.chat_events import ChatEvent, Done, Sent
from dreamchat.services.crisis_protocol import CrisisService
from dreamchat.services.escalations import Push
from dreamchat.services.storage.unit_of_work import Storage, retry_on_conflict
from dreamchat.services.tombstones import Gone
from dreamchat.services.topics import TopicService

log = logging.getLogger(__name__)

_NOT_FRIENDS = "not friends with this AI user"


class ExitService:
    def __init__(
        self, storage: Storage, topics: TopicService, protocol: CrisisService, clock: Clock, keywords: Sequence[str]
    ) -> None:
        self._storage, self._topics, self._protocol, self._clock = storage, topics, protocol, clock
        self._keywords = tuple(keywords)

    def stop(self, pair: PairId) -> Message | None:
        """The person's button: the companion stops now, with its goodbye (None when it already was
        stopped: a second press says nothing more). NotFound unless they are friends."""
        now = int(self._clock.now().timestamp())
        if not self._change(pair, lambda friendship: exits.stopped(friendship, now), missing=NotFound(_NOT_FRIENDS)):
            return None
        return self._goodbye(pair)

    def asks_to_stop(self, pair: PairId, content: str) -> bool:
        """Whether the person's message (before it is stored) stops the companion: an exit keyword, never a
        crisis statement nor in a topic that shows distress or a crisis (`dreamchat.domain.exits.stops`)."""
        if not exits.is_exit(content, self._keywords):
            return False
        crisis = self._protocol.check.judge(content).crisis
        return exits.stops(content, self._keywords, crisis=crisis, topic=self._protocol.open_topic(pair))

    def wrote(self, pair: PairId, stop: bool) -> Message | None:
        """The person's message is stored: a keyword that asks to `stop` stops the companion (its goodbye,
        again if it already was); any other message lifts a stop (None: the turn goes on)."""
        if not stop:
            self._change(pair, exits.resumed)
            return None
        now = int(self._clock.now().timestamp())
        self._change(pair, lambda friendship: exits.stopped(friendship, now))
        return self._goodbye(pair)

    def stopped(self, pair: PairId) -> bool:
        """Whether the person stopped the companion and has not written since."""
        with self._storage.pair(pair.seen_in(None)) as uow:
            read = uow.friendship.get()
        return read is not None and read.entity.stopped

    def or_stopped(self, quiet: Callable[[PairId], bool]) -> Callable[[PairId], bool]:
        """`quiet` (an operator has the chat), or the person stopped the companion: the AI writes nothing first."""
        return lambda pair: quiet(pair) or self.stopped(pair)

    def unless_stopped(self, push: Push) -> Push:
        """`push`, never for a pair the person stopped (messages stored just before the stop stay unpushed)."""

        def pushed(pair: PairId, ai_user: AIUser, messages: list[Message]) -> object:
            if self.stopped(pair):
                log.info("push skipped: stopped", extra={"ai_user_id": pair.ai_user_id})
                return None
            return push(pair, ai_user, messages)

        return pushed

    @staticmethod
    def said(goodbye: Message) -> list[ChatEvent]:
        """The turn of a message that stopped the companion: its goodbye, at once, and nothing else."""
        return [Sent(goodbye, 0, 0), Done(True, False, 1)]

    def _goodbye(self, pair: PairId) -> Message:
        log.info("companion stopped", extra={"ai_user_id": pair.ai_user_id})
        return self._topics.record(pair, "assistant", GOODBYE)

    def _change(
        self, pair: PairId, change: Callable[[Friendship], Friendship | None], missing: Exception | None = None
    ) -> bool:
        """`change` written over the friendship as read now; whether it changed anything (`missing` is raised
        when there is no friendship)."""

        def write() -> bool:
            with self._storage.pair(pair.seen_in(None)) as uow:  # the friendship as it is now, each time
                read = uow.friendship.get()
                if read is None:
                    if missing is not None:
                        raise missing
                    return False
                changed = change(read.entity)
                if changed is None:
                    return False
                uow.friendship.save(changed, read)
                try:
                    uow.commit()
                except Gone:  # a friendship begun again meanwhile: read it afresh
                    raise Contended("the friendship kept changing; try again") from None
            return True

        return retry_on_conflict(write)
