"""The chat turn, as the spec's flow: save the person's message → assemble the context →
the chat model with tools → reply decision → 1-5 messages with typing delays → save them →
topic-end detection → TopicEnded.

The person's message is stored before anything else can fail; a model failure ends the
turn with an error, never with a lost message.

The person comes first: a message that shows a crisis (`dreamchat.domain.safety`, or the model's
own crisis marker) is always answered, whatever the relationship or the draw, with short typing
delays, care in the prompt and a `Safety` event with help lines before the messages; the rest of
its topic stays under the same protocol, and the next heartbeat is a check-in. A sincere question
whether the AI is a person is always answered, honestly. After long continuous use, a reply is
preceded by a break reminder (`Notice`). The turn has a deadline (the Lambda's remaining
time, or DREAMCHAT_CHAT_TURN_SECONDS) and is finished (stored, topic ended, events) before its
first event is sent, so a client that hangs up changes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from dreamchat import keys
from dreamchat.budget import Deadline
from dreamchat.config import Settings
from dreamchat.domain import reply as replies
from dreamchat.domain import safety
from dreamchat.domain.heartbeat import HeartbeatState, check_in_after, person_wrote, strip_control_markers
from dreamchat.domain.models import MAX_MESSAGE_CHARS, MAX_REASONING_CHARS, AIUser, Message, PairId
from dreamchat.domain.relationship import DEFAULT_LEVEL
from dreamchat.domain.sessions import BREAK_NOTICE
from dreamchat.domain.text import is_blank
from dreamchat.domain.topics import read_markers, says_farewell
from dreamchat.errors import Invalid, TooLarge
from dreamchat.llm.chat_prompts import CRISIS_GUIDANCE, HUMAN_QUESTION_GUIDANCE, chat_instructions
from dreamchat.llm.errors import LLMError
from dreamchat.llm.offline import crisis_reply, offline_reply
from dreamchat.llm.port import LLMGateway
from dreamchat.ports import Clock, Counter, RandomSource, SearchProvider
from dreamchat.services.heartbeat_state import HeartbeatStates
from dreamchat.services.limits import RateLimit
from dreamchat.services.memory import MemoryService
from dreamchat.services.memory_repo import PairSnapshot
from dreamchat.services.sessions import Sessions
from dreamchat.services.soul import SoulService
from dreamchat.services.tools import ToolBox, tool_schemas

log = logging.getLogger(__name__)


CRISIS_REFERRALS = "CrisisReferrals"
CRISIS_MAX_DELAY_SECONDS = 3.0  # a person in crisis never waits on a simulated typist


@dataclass(frozen=True)
class SafetyNotice:
    """Help lines for a person in crisis (sent before the messages, shown as a card)."""

    resources: tuple[safety.CrisisResource, ...]
    kind: str = "crisis"

    def as_dict(self) -> dict[str, object]:
        fields = ("name", "phone", "url", "hours")
        return {"kind": self.kind, "resources": [{f: getattr(r, f) for f in fields} for r in self.resources]}


@dataclass(frozen=True)
class Notice:
    """An in-app notice before the AI's messages (not a message of the AI's)."""

    kind: str
    text: str


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


Event = SafetyNotice | Notice | Thinking | Sent | Done | Failed


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
        gateway: LLMGateway | None,
        search: SearchProvider,
        clock: Clock,
        random: RandomSource,
        settings: Settings,
        count: Counter | None = None,
        *,
        on_reply: Callable[[PairId, AIUser, list[Message], Deadline], object] | None = None,
    ) -> None:
        self._on_reply = on_reply or (lambda pair, ai_user, messages, deadline: None)  # the push, once stored
        self.memory = memory
        self._soul = soul
        self._heartbeats = heartbeats
        self._gateway = gateway
        self._search = search
        self._clock = clock
        self._random = random
        self._settings = settings
        self._limit = RateLimit(memory.repo.store, clock)
        self._sessions = Sessions(memory.repo.store, clock, settings.break_reminder_minutes)
        self._count = count or (lambda name, value=1: None)
        self.crisis_help = SafetyNotice(tuple(safety.resources_for(settings.crisis_locale, settings.crisis_table)))

    def accept(self, pair: PairId, ai_user: AIUser, content: str) -> Message:
        """Store the person's message durably (the first step of every turn and of save-message)."""
        check_content(content)
        self._limit.hit(
            keys.message_limit_scope(pair.account_id),
            self._settings.messages_per_minute,
            60,
            "too many messages; wait a moment",
        )
        crisis = safety.crisis_in(content)
        message = self.memory.record(pair, "user", content, safety="crisis" if crisis else None)
        now = self._clock.now()
        minutes = self._settings.crisis_checkin_minutes

        def wrote(state: HeartbeatState) -> HeartbeatState:
            answered = person_wrote(state, now)
            return check_in_after(answered, now, minutes) if crisis else answered

        relationship = self.memory.repo.relationship(pair)
        self._heartbeats.change(pair, ai_user, relationship, wrote)
        self._sessions.continue_with_message(pair.account_id)
        if crisis:
            self._referred(ai_user, "lexicon")
        return message

    def safety_of(self, message: Message) -> SafetyNotice | None:
        """What the person sees beside a message marked as a crisis."""
        return self.crisis_help if message.safety == "crisis" else None

    def save(self, pair: PairId, ai_user: AIUser, content: str) -> tuple[Message, bool]:
        """Store a message without a reply; a farewell still ends the topic."""
        message = self.accept(pair, ai_user, content)
        ended = says_farewell(content, self._settings.farewell_keywords)
        if ended:
            self.memory.end_topic(pair, message.topic_id)
        return message, ended

    def respond(self, pair: PairId, ai_user: AIUser, person: Message, deadline: Deadline | None = None) -> list[Event]:
        """The AI's side of the turn, all of it done: the events to send, ending with Done or Failed."""
        deadline = deadline or Deadline.after(self._settings.chat_turn_seconds)
        crisis = person.safety == "crisis" or self._topic_in_crisis(pair, person)
        try:
            reply = self._generate(pair, ai_user, person, deadline.sooner(self._settings.chat_reserve_seconds), crisis)
        except LLMError as error:
            log.warning("chat model failed", extra={"ai_user_id": ai_user.id, "error": type(error).__name__})
            if not crisis:
                self._end_on_farewell(pair, person)
                return [Failed("model_unavailable", "对方暂时无法回复，你的消息已经保存。")]
            reply = Reply(crisis_reply(offline=False), typed=False)  # never silence
        markers = read_markers(reply.text)
        text, flagged = safety.read_crisis_marker(strip_control_markers(markers.text))
        if flagged and not crisis:  # the model saw what the lexicon missed
            crisis = True
            person = self._mark_crisis(pair, ai_user, person)
        elif crisis and person.safety != "crisis":  # later in a crisis topic: the check-in waits for this message
            self._check_in_later(pair, ai_user)
        if markers.switched:
            person = self.memory.switch_topic(pair, person)
        reasoning = reply.reasoning[:MAX_REASONING_CHARS]
        lines = replies.split_messages(text)
        if crisis and not lines:
            lines = [crisis_reply(offline=False)]
        cap = CRISIS_MAX_DELAY_SECONDS if crisis else None
        sent = list(self._send(pair, person, lines, typed=reply.typed, reasoning=reasoning, cap=cap))
        if not sent:  # 已读不回: the history shows it, not only the live turn
            self.memory.update_message(pair, person.model_copy(update={"read_no_reply": True, "reasoning": reasoning}))
        # A topic that grows past the limit ends too, so short-term memory stays bounded.
        too_long = len(self.memory.repo.short_term(pair, person.topic_id)) >= self._settings.topic_max_messages
        ended = (markers.ended or too_long) and self.memory.end_topic(pair, person.topic_id)
        ended = self._end_on_farewell(pair, person) or ended
        thinking = [Thinking(reasoning)] if reasoning else []
        notices: list[Event] = [self.crisis_help] if crisis else []
        if sent and not crisis and self._sessions.break_reminder_due(pair.account_id):
            notices.append(Notice("break", BREAK_NOTICE))
        pause = 0.0
        if not sent:
            pause = (
                reply.read_pause
                if reply.read_pause is not None
                else replies.read_pause_seconds(self._random.random(), self._settings.max_delay_seconds)
            )
        if sent:
            self._on_reply(pair, ai_user, [s.message for s in sent], deadline)
        return [*notices, *thinking, *sent, Done(bool(sent), ended, len(sent), int(pause * 1000))]

    def _topic_in_crisis(self, pair: PairId, person: Message) -> bool:
        """The safety protocol, once on, holds for the rest of the topic."""
        return any(m.safety == "crisis" for m in self.memory.repo.short_term(pair, person.topic_id))

    def _mark_crisis(self, pair: PairId, ai_user: AIUser, person: Message) -> Message:
        marked = person.model_copy(update={"safety": "crisis"})
        self.memory.update_message(pair, marked)
        self._check_in_later(pair, ai_user)
        self._referred(ai_user, "model")
        return marked

    def _check_in_later(self, pair: PairId, ai_user: AIUser) -> None:
        now, minutes = self._clock.now(), self._settings.crisis_checkin_minutes
        relationship = self.memory.repo.relationship(pair)
        self._heartbeats.change(pair, ai_user, relationship, lambda state: check_in_after(state, now, minutes))

    def _referred(self, ai_user: AIUser, by: str) -> None:
        """Counted, never described: ids and counts only."""
        log.info("crisis protocol", extra={"ai_user_id": ai_user.id, "detected_by": by})
        self._count(CRISIS_REFERRALS, 1)

    def _generate(self, pair: PairId, ai_user: AIUser, person: Message, deadline: Deadline, crisis: bool) -> Reply:
        """The AI's reply (the offline notice comes at once, untyped). When the draw says no, the
        model is not asked: the turn is 已读不回 — never for a crisis, nor for a sincere question
        whether the AI is a person."""
        key = "deepseek_reasoner" if ai_user.model == "reasoner" else "deepseek_chat"
        if self._gateway is None or not self._gateway.configured(key):
            text = crisis_reply(offline=True) if crisis else offline_reply(ai_user.name)
            return Reply(text, typed=False)
        snapshot = self.memory.repo.snapshot(pair)
        if crisis:
            guidance = CRISIS_GUIDANCE
        else:
            asked = safety.asks_if_human(person.content)  # answered, always and honestly
            decision = self._decide(pair, snapshot, ai_user, person, must_answer=asked)
            if not decision.inclined and self._settings.reply_decision == "draw":
                return self._read_without_replying(ai_user, decision)
            guidance = decision.guidance + (HUMAN_QUESTION_GUIDANCE if asked else "")
        instructions = chat_instructions(
            ai_user.name,
            self._clock.now(),
            self.memory.repo.zone(pair, ai_user),
            snapshot.relationship.level,
            guidance,
            crisis=crisis,
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

    def _read_without_replying(self, ai_user: AIUser, decision: replies.ReplyDecision) -> Reply:
        log.info("read without replying", extra={"ai_user_id": ai_user.id, "probability": decision.probability})
        # the draw's leftover is itself uniform: no second draw, so seeded runs keep their sequence
        leftover = (decision.draw - decision.probability) / max(1 - decision.probability, 1e-9)
        pause = replies.read_pause_seconds(min(max(leftover, 0.0), 1.0), self._settings.max_delay_seconds)
        return Reply("", read_pause=pause)

    def _decide(
        self, pair: PairId, snapshot: PairSnapshot, ai_user: AIUser, person: Message, *, must_answer: bool = False
    ) -> replies.ReplyDecision:
        mids = snapshot.mids
        mood = max(mids, key=lambda m: m.created_at).emotion_tags.basic_emotion if mids else None
        hour = self._clock.now().astimezone(ZoneInfo(self.memory.repo.zone(pair, ai_user))).hour
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
        draw = self._random.random()
        return replies.decide_reply(
            relationship.level, mood, hour, person.content, draw, warm=warm or must_answer, night_owl=ai_user.night_owl
        )

    def _send(
        self,
        pair: PairId,
        after: Message,
        lines: list[str],
        *,
        typed: bool = True,
        reasoning: str = "",
        cap: float | None = None,
    ) -> Iterator[Sent]:
        """Store and yield the AI's messages; the chain of thought is kept with the first one."""
        previous = after.id
        longest = min(cap if cap is not None else self._settings.max_delay_seconds, self._settings.max_delay_seconds)
        for index, line in enumerate(lines):
            delay = replies.typing_delay(line, self._random.random(), longest) if typed else 0
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
