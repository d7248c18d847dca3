"""Owed words redone: a voice note or photo sent while its role was down (not configured, failing, too slow,
or past the account's budget) is heard or seen once the role answers again, from the same sweep that heals
degraded memories (`HealingService.heal`, each redo started only while the sweep has time).

The media record gets its words, and the message that carries it its new text in the log and in short-term
memory (over the versions read, the owed record paid in the same commit); a topic already summarised from the
placeholder is summarised again from the log (its compression owed, due at once: "那只橘猫" is remembered, not
"一张图片"). The late words go through the crisis
check as typed words do: a crisis found late marks the message and starts the protocol (a check-in heartbeat
and an escalation for the operators), since the person has long been answered and must not be left in silence.
"""

from __future__ import annotations

import contextlib
import logging

from dreamchat.domain.media import Media, message_text, owed_words, typed_beside
from dreamchat.domain.models import Message, PairId
from dreamchat.domain.owed import OwedWork, RedoOutcome
from dreamchat.domain.protocol import marked
from dreamchat.errors import Contended, NotFound
from dreamchat.ports import Clock
from dreamchat.services.ai_users import AIUserService
from dreamchat.services.crisis_protocol import CrisisService
from dreamchat.services.media_words import MediaWordsService
from dreamchat.services.memory_repo import MessageLog
from dreamchat.services.storage.session import Versioned
from dreamchat.services.storage.unit_of_work import PairUnitOfWork, Storage

log = logging.getLogger(__name__)


class MediaRedoService:
    def __init__(
        self,
        storage: Storage,
        words: MediaWordsService,
        message_log: MessageLog,
        protocol: CrisisService,
        ai_users: AIUserService,
        clock: Clock,
    ) -> None:
        self._clock = clock
        self._storage = storage
        self._words = words
        self._log = message_log
        self._protocol = protocol
        self._ai_users = ai_users

    def redo(self, pair: PairId, owed: Versioned[OwedWork]) -> RedoOutcome:
        """The words of one owed media record: `healed` (the record and its message rewritten), `degraded`
        (the role cannot give them yet: still owed), `cancelled` (erased, or done meanwhile) or `contended`."""
        with self._storage.pair(pair) as uow:
            read = uow.media.get(owed.entity.subject)
        if read is None or read.entity.text_state == "done":
            return self._pay(pair, owed)
        done = self._words.hear(pair, read.entity)  # no deadline of a request: the client's timeout bounds it
        if done.text_state == "owed":
            return "degraded"
        message = self._log.message(pair, done.message_id) if done.message_id else None
        with self._storage.pair(pair) as uow:
            uow.media.save(done, read)
            uow.owed.paid(owed)
            late_crisis = self._rewrite(uow, read.entity, done, message)
            try:
                uow.commit()
            except Contended:
                return "contended"
        log.info("media words redone", extra={"ai_user_id": pair.ai_user_id, "media_id": done.id})
        if late_crisis is not None:
            self._protocol_late(pair, late_crisis, done)
        return "healed"

    def _rewrite(self, uow: PairUnitOfWork, owed: Media, done: Media, message: Message | None) -> Message | None:
        """The message's new text (and its crisis mark, never lowered) over the message as it is now (a mark
        put on it meanwhile stands), unless its words changed; the message when the words found a crisis the
        message was not marked with."""
        read = uow.messages.get(message) if message is not None else None
        if read is None or not owed_words(read.entity.media_kind, read.entity.content):
            return None
        now = read.entity
        typed = typed_beside(owed, now.content)
        if typed is None:
            return None
        content = message_text(done, typed)
        verdict = self._protocol.judge([], content, None, done.concern)
        safety = now.safety if now.safety == "crisis" else marked(verdict) or now.safety
        rewritten = now.model_copy(update={"content": content, "safety": safety})
        uow.messages.save(rewritten, read)
        self._summarise_again(uow, now.topic_id)
        return rewritten if safety == "crisis" and now.safety != "crisis" else None

    def _summarise_again(self, uow: PairUnitOfWork, topic_id: str) -> None:
        """The topic's summary, made from the placeholder, owed again from the log (the healing's compression
        redo; until then extraction leaves it alone). Nothing when the topic is not summarised yet, or is owed."""
        read = uow.mid_terms.get(topic_id)
        if read is None or uow.owed.get("compress", read.entity.id) is not None:
            return
        uow.mid_terms.save(read.entity.model_copy(update={"degraded": True}), read)
        now = int(self._clock.now().timestamp())
        uow.owed.owe(OwedWork(kind="compress", subject=read.entity.id, since=now, due_at=now))

    def _protocol_late(self, pair: PairId, message: Message, media: Media) -> None:
        """A crisis heard or seen late: the check-in is owed and the operators are told (never silence)."""
        by = "vision" if media.kind == "image" else "speech_to_text"
        with contextlib.suppress(NotFound):  # the AI user is gone: no check-in from it, the escalation still opens
            self._protocol.check_in_later(pair, self._ai_users.visible(pair.account_id, pair.ai_user_id))
        self._protocol.referred(pair, message.id, f"late_{by}")

    def _pay(self, pair: PairId, owed: Versioned[OwedWork]) -> RedoOutcome:
        with self._storage.pair(pair) as uow:
            uow.owed.paid(owed)
            try:
                uow.commit()
            except Contended:
                return "contended"
        return "cancelled"
