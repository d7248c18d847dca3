"""The chat turn, as the spec's flow: save the person's message → assemble the context →
the chat model with tools → reply decision → 1-5 messages with typing delays → save them →
topic-end detection → TopicEnded.

The person's message is stored before anything else can fail; a model failure ends the
turn with an error, never with a lost message. The turn has a deadline (the Lambda's remaining
time, or DREAMCHAT_CHAT_TURN_SECONDS) and is finished (stored, topic ended, events) before its
first event is sent, so a client that hangs up changes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from dreamchat import keys
from dreamchat.budget import Deadline
from dreamchat.config import Settings
from dreamchat.domain import reply as replies
from dreamchat.domain.heartbeat import person_wrote
from dreamchat.domain.models import MAX_MESSAGE_CHARS, MAX_REASONING_CHARS, AIUser, Message, PairId
from dreamchat.domain.relationship import DEFAULT_LEVEL
from dreamchat.domain.text import is_blank
from dreamchat.domain.topics import read_markers, says_farewell
from dreamchat.errors import Invalid, TooLarge
from dreamchat.llm.chat_prompts import chat_instructions
from dreamchat.llm.errors import LLMError
from dreamchat.llm.gateway import OpenAIGateway
from dreamchat.llm.offline import offline_reply
from dreamchat.ports import Clock, RandomSource, SearchProvider
from dreamchat.services.heartbeat_state import HeartbeatStates
from dreamchat.services.limits import RateLimit
from dreamchat.services.memory import MemoryService
from dreamchat.services.memory_repo import PairSnapshot
from dreamchat.services.soul import SoulService
from dreamchat.services.tools import ToolBox, tool_schemas

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Thinking:
    """The reasoning model's chain of thought for this turn (sent before the messages)."""

    content: str


@dataclass(frozen=True)
class Reply:
    """What the AI produced: its text, whether someone "typed" it, and its chain of thought."""

    text: str
    typed: bool = True
    reasoning: str = ""
    read_pause: float | None = None  # seconds before 已读 shows, when the AI reads without replying


@dataclass(frozen=True)
class Sent:
    message: Message
    delay_ms: int
    index: int


@dataclass(frozen=True)
class Done:
    replied: bool
    topic_ended: bool
    message_count: int
    read_after_ms: int = 0  # 已读 shows after this pause (a person does not read the instant it arrives)


@dataclass(frozen=True)
class Failed:
    code: str
    message: str


def check_content(content: str) -> str:
    if len(content) > MAX_MESSAGE_CHARS:
        raise TooLarge(f"a message may have at most {MAX_MESSAGE_CHARS} characters")
    if is_blank(content):
        raise Invalid("the message is empty")
    return content


class ChatService:
    def __init__(
        self,
        memory: MemoryService,
        soul: SoulService,
        heartbeats: HeartbeatStates,
        gateway: OpenAIGateway | None,
        search: SearchProvider,
        clock: Clock,
        random: RandomSource,
        settings: Settings,
    ) -> None:
        self.memory = memory
        self._soul = soul
        self._heartbeats = heartbeats
        self._gateway = gateway
        self._search = search
        self._clock = clock
        self._random = random
        self._settings = settings
        self._limit = RateLimit(memory.repo.store, clock)

    def accept(self, pair: PairId, ai_user: AIUser, content: str) -> Message:
        """Store the person's message durably (the first step of every turn and of save-message)."""
        check_content(content)
        self._limit.hit(
            keys.message_limit_scope(pair.account_id),
            self._settings.messages_per_minute,
            60,
            "too many messages; wait a moment",
        )
        message = self.memory.record(pair, "user", content)
        relationship = self.memory.repo.relationship(pair)
        self._heartbeats.change(pair, ai_user, relationship, lambda state: person_wrote(state, self._clock.now()))
        return message

    def save(self, pair: PairId, ai_user: AIUser, content: str) -> tuple[Message, bool]:
        """Store a message without a reply; a farewell still ends the topic."""
        message = self.accept(pair, ai_user, content)
        ended = says_farewell(content, self._settings.farewell_keywords)
        if ended:
            self.memory.end_topic(pair, message.topic_id)
        return message, ended

    def respond(
        self, pair: PairId, ai_user: AIUser, person: Message, deadline: Deadline | None = None
    ) -> list[Thinking | Sent | Done | Failed]:
        """The AI's side of the turn, all of it done: the events to send, ending with Done or Failed."""
        deadline = deadline or Deadline.after(self._settings.chat_turn_seconds)
        try:
            reply = self._generate(pair, ai_user, person, deadline.sooner(self._settings.chat_reserve_seconds))
        except LLMError as error:
            log.warning("chat model failed", extra={"ai_user_id": ai_user.id, "error": type(error).__name__})
            self._end_on_farewell(pair, person)
            return [Failed("model_unavailable", "对方暂时无法回复，你的消息已经保存。")]
        markers = read_markers(reply.text)
        if markers.switched:
            person = self.memory.switch_topic(pair, person)
        reasoning = reply.reasoning[:MAX_REASONING_CHARS]
        sent = list(
            self._send(pair, person, replies.split_messages(markers.text), typed=reply.typed, reasoning=reasoning)
        )
        if not sent:  # 已读不回: the history shows it, not only the live turn
            self.memory.update_message(pair, person.model_copy(update={"read_no_reply": True, "reasoning": reasoning}))
        # A topic that grows past the limit ends too, so short-term memory stays bounded.
        too_long = len(self.memory.repo.short_term(pair, person.topic_id)) >= self._settings.topic_max_messages
        ended = (markers.ended or too_long) and self.memory.end_topic(pair, person.topic_id)
        ended = self._end_on_farewell(pair, person) or ended
        thinking = [Thinking(reasoning)] if reasoning else []
        pause = 0.0
        if not sent:
            pause = (
                reply.read_pause
                if reply.read_pause is not None
                else replies.read_pause_seconds(self._random.random(), self._settings.max_delay_seconds)
            )
        return [*thinking, *sent, Done(bool(sent), ended, len(sent), int(pause * 1000))]

    def _generate(self, pair: PairId, ai_user: AIUser, person: Message, deadline: Deadline) -> Reply:
        """The AI's reply (the offline notice comes at once, untyped). When the draw says no, the
        model is not asked: the turn is 已读不回."""
        key = "deepseek_reasoner" if ai_user.model == "reasoner" else "deepseek_chat"
        if self._gateway is None or not self._gateway.configured(key):
            return Reply(offline_reply(ai_user.name), typed=False)
        snapshot = self.memory.repo.snapshot(pair)
        decision = self._decide(pair, snapshot, ai_user, person)
        if not decision.inclined and self._settings.reply_decision == "draw":
            log.info("read without replying", extra={"ai_user_id": ai_user.id, "probability": decision.probability})
            # the draw's leftover is itself uniform: no second draw, so seeded runs keep their sequence
            leftover = (decision.draw - decision.probability) / max(1 - decision.probability, 1e-9)
            return Reply(
                "",
                read_pause=replies.read_pause_seconds(min(max(leftover, 0.0), 1.0), self._settings.max_delay_seconds),
            )
        instructions = chat_instructions(
            ai_user.name, self._clock.now(), ai_user.timezone, snapshot.relationship.level, decision.guidance
        )
        context = self.memory.context(
            pair, ai_user, person.content, instructions, exclude_message=person.id, snapshot=snapshot
        )
        tools = ToolBox(
            pair,
            ai_user,
            self.memory,
            self._soul,
            self._heartbeats,
            self._search,
            self._clock,
            self._settings.search_results,
        )
        completion = self._gateway.complete(
            key,
            context.messages,
            tools=tool_schemas(),
            run_tool=tools.run,
            max_tool_rounds=self._settings.tool_rounds,
            deadline=deadline,
        )
        return Reply(completion.text or "", reasoning=completion.reasoning)

    def _decide(self, pair: PairId, snapshot: PairSnapshot, ai_user: AIUser, person: Message) -> replies.ReplyDecision:
        mids = snapshot.mids
        mood = max(mids, key=lambda m: m.created_at).emotion_tags.basic_emotion if mids else None
        hour = self._clock.now().astimezone(ZoneInfo(ai_user.timezone)).hour
        relationship = snapshot.relationship
        warm_n = self._settings.warm_start_messages
        level_set = relationship.updated_at != 0
        # the log's start is read only while the first day can still be warm: not after a level was
        # set, nor once the compressed topics alone hold more messages than the read would reach
        compressed = sum(m.message_count for m in mids)
        may_be_warm = (
            warm_n
            and relationship.level == DEFAULT_LEVEL
            and not level_set
            and compressed < self.memory.repo.message_window(warm_n)
        )
        number = self.memory.repo.person_message_number(pair, person.id, warm_n) if may_be_warm else None
        warm = replies.warm_start(relationship.level, level_set, number, warm_n)
        return replies.decide_reply(relationship.level, mood, hour, person.content, self._random.random(), warm=warm)

    def _send(
        self, pair: PairId, after: Message, lines: list[str], *, typed: bool = True, reasoning: str = ""
    ) -> Iterator[Sent]:
        """Store and yield the AI's messages; the chain of thought is kept with the first one."""
        previous = after.id
        for index, line in enumerate(lines):
            delay = replies.typing_delay(line, self._random.random(), self._settings.max_delay_seconds) if typed else 0
            message = self.memory.record(
                pair,
                "assistant",
                line,
                after=previous,
                delay_ms=int(delay * 1000),
                reasoning=reasoning if index == 0 else "",
            )
            previous = message.id
            yield Sent(message, message.delay_ms, index)

    def _end_on_farewell(self, pair: PairId, person: Message) -> bool:
        if not says_farewell(person.content, self._settings.farewell_keywords):
            return False
        return self.memory.end_topic(pair, person.topic_id)
