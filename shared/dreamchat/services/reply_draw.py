"""Whether the AI answers the person's message at all (已读不回): a message that asks something of the AI
(a question or request, a memory, a goodbye, an answer to the AI's own question: `dreamchat.domain.asked`)
is always answered at every level but 决裂; the rest is the spec's draw, by the relationship, the mood of
the last topic and the hour, except on a pair's warm first day. The decision's `reason` is logged (never
the message) and told to the client."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from zoneinfo import ZoneInfo

from dreamchat.config import Settings
from dreamchat.domain import reply as replies
from dreamchat.domain.asked import AnswerReason, always_answered
from dreamchat.domain.models import AIUser, Message, PairId
from dreamchat.domain.relationship import DEFAULT_LEVEL
from dreamchat.llm.chat_prompts import reply_guidance
from dreamchat.ports import Clock, RandomSource
from dreamchat.services.chat_events import Reply
from dreamchat.services.memory_repo import MessageLog, PairSnapshot

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ReplyDrawService:
    message_log: MessageLog
    clock: Clock
    random: RandomSource
    settings: Settings

    def read_without_replying(self, ai_user: AIUser, decision: replies.ReplyDecision) -> Reply:
        log.info("read without replying", extra={"ai_user_id": ai_user.id, "probability": decision.probability})
        # the draw's leftover is itself uniform: no second draw, so seeded runs keep their sequence
        leftover = (decision.draw - decision.probability) / max(1 - decision.probability, 1e-9)
        pause = replies.read_pause_seconds(min(max(leftover, 0.0), 1.0), self.settings.max_delay_seconds)
        return Reply("", read_pause=pause)

    def decide(
        self,
        pair: PairId,
        snapshot: PairSnapshot,
        ai_user: AIUser,
        person: Message,
        zone: str,
        *,
        must_answer: bool = False,
    ) -> replies.ReplyDecision:
        """The draw at the hour of the pair's clock (`zone`: the person's, else the AI user's)."""
        mids = snapshot.mids
        mood = max(mids, key=lambda m: m.created_at).emotion_tags.basic_emotion if mids else None
        hour = self.clock.now().astimezone(ZoneInfo(zone)).hour
        relationship = snapshot.relationship
        warm_n = self.settings.warm_start_messages
        level_set = relationship.updated_at != 0
        # the log's start is read only while the first day can still be warm: not after a level was
        # set, nor once the compressed topics alone hold more messages than the read would reach
        compressed = sum(m.message_count for m in mids)
        may_be_warm = (
            warm_n
            and relationship.level == DEFAULT_LEVEL
            and not level_set
            and compressed < self.message_log.message_window(warm_n)
        )
        number = self.message_log.person_message_number(pair, person.id, warm_n) if may_be_warm else None
        warm = replies.warm_start(relationship.level, level_set, number, warm_n)
        asked = self._asked(pair, person) if relationship.level not in replies.NEVER_ALWAYS else None
        draw = self.random.random()
        decision = replies.decide_reply(
            relationship.level, mood, hour, person.content, draw, warm=warm or must_answer, asked=asked
        )
        log.info(
            "reply decision", extra={"ai_user_id": ai_user.id, "reason": decision.reason, "replies": decision.inclined}
        )
        return replace(decision, guidance=reply_guidance(decision))

    def _asked(self, pair: PairId, person: Message) -> AnswerReason | None:
        """Why the person's message is always answered, reading the AI's message just before it."""
        before, _ = self.message_log.messages(pair, before=person.id, after=None, limit=1)
        previous = before[-1].content if before and before[-1].role == "assistant" else None
        return always_answered(person.content, previous, self.settings.farewell_keywords)
