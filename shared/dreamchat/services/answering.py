"""Answering a person's message again after a turn that failed: whether it may be now (the rule is
`dreamchat.domain.answering`), and the lease that keeps it to one answer at a time, each as long as a
turn can run. A failed turn frees its message at once; a retry that fails frees it again."""

from __future__ import annotations

from contextlib import suppress

from dreamchat import keys
from dreamchat.domain.answering import awaits_answer, retry_offered, retry_refusal, turn_over
from dreamchat.domain.models import Message, PairId
from dreamchat.ports import Clock
from dreamchat.services.leases import LeaseClaim, LeaseService
from dreamchat.services.tombstones import Gone

RETRIES_PER_MESSAGE = 1000  # a person may keep asking; each retry is a real turn on the model pool


class AnsweringService:
    def __init__(self, leases: LeaseService, clock: Clock, turn_seconds: float) -> None:
        self._leases = leases
        self._clock = clock
        self._turn_seconds = turn_seconds

    def refusal(self, pair: PairId, last: Message | None, message_id: str) -> str | None:
        """Why `message_id` may not be answered again now, given the conversation's `last` message (None: it may)."""
        freed = self._leases.open_to_claim(*keys.answering(pair, message_id)) is not None  # a failed turn left one
        return retry_refusal(last, message_id, freed=freed, over=last is not None and self._over(last))

    def claim(self, pair: PairId, message_id: str) -> LeaseClaim:
        return self._leases.claim(*keys.answering(pair, message_id))

    def offered(self, pair: PairId, last: Message) -> bool:
        """The conversation's last message is the person's, its turn ended without an answer, and a retry
        would take it now: never retried and its turn's time is over, or its retry lease is free."""
        open_now = self._leases.open_to_claim(*keys.answering(pair, last.id)) if awaits_answer(last) else False
        return retry_offered(last, open_now=open_now, over=self._over(last))

    def free(self, pair: PairId, message_id: str) -> None:
        """A turn failed: the person may ask for the answer again at once."""
        with suppress(Gone):  # none is kept once the conversation or the account was deleted
            self._leases.free(*keys.answering(pair, message_id))

    def settle(self, lease: LeaseClaim, *, answered: bool) -> None:
        """A retry ran: an answer ends it, a failure leaves the message free to retry."""
        with suppress(Gone):
            (self._leases.finish if answered else self._leases.release)(lease)

    def claim_anew(self, pair: PairId, message_id: str) -> LeaseClaim:
        """The lease on a new answer to the person's message (换一个回答), one at a time."""
        return self._leases.claim(*keys.answering_anew(pair, message_id))

    def anew_done(self, lease: LeaseClaim) -> None:
        """A new answer was made or failed: the message may be answered anew again."""
        with suppress(Gone):
            self._leases.release(lease)

    def _over(self, person: Message) -> bool:
        return turn_over(person, self._clock.now().timestamp(), self._turn_seconds)
