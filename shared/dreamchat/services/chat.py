"""The chat turn, as the spec's flow: save the person's message → assemble the context →
the chat model with tools → reply decision → 1-5 messages with typing delays → save them →
topic-end detection → TopicEnded.

The person's message is stored before anything else can fail; a model failure ends the
turn with an error, never with a lost message.

The person comes first (`dreamchat.services.crisis_protocol`): a message that shows distress or a crisis, or
whose topic did, is always answered, whatever the relationship or the draw, with short typing delays and care
in the prompt; a crisis statement (the check's, or the model's own marker) adds a `Safety` event with help
lines before the messages, a check-in heartbeat and an escalation for the operators; while an operator has
taken the chat over, the AI does not answer (a `staff` notice, then Done). A sincere question whether the AI
is a person is always answered, honestly. After long continuous use, a reply is preceded by a break reminder (`Notice`). The turn has
a deadline (the Lambda's remaining time, or DREAMCHAT_CHAT_TURN_SECONDS) and is finished (stored, topic ended,
events) before its first event is sent, so a client that hangs up changes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from dreamchat.budget import Deadline
from dreamchat.config import Settings
from dreamchat.domain import reply as replies
from dreamchat.domain.bounds import REASONING_CHARS
from dreamchat.domain.crisis import read_crisis_marker
from dreamchat.domain.heartbeat import HeartbeatState, check_in_after, person_wrote, strip_control_markers
from dreamchat.domain.honesty import asks_if_human
from dreamchat.domain.media import Media, unheard
from dreamchat.domain.models import AIUser, Message, PairId, Safety
from dreamchat.domain.protocol import marked, topic_state
from dreamchat.domain.sessions import BREAK_NOTICE
from dreamchat.domain.topics import read_markers, says_farewell
from dreamchat.llm.chat_prompts import CRISIS_GUIDANCE, DISTRESS_GUIDANCE, HUMAN_QUESTION_GUIDANCE, chat_instructions
from dreamchat.llm.errors import LLMError
from dreamchat.llm.offline import OFFLINE_NOTICE_LOOKBACK, UNHEARD_REPLY, caring_reply, offline_reply_for
from dreamchat.ports import Clock, RandomSource
from dreamchat.services.chat_events import ChatEvent, Done, Failed, Notice, Reply, SafetyNotice, Sent, Thinking
from dreamchat.services.context import ContextService
from dreamchat.services.crisis_protocol import CrisisService
from dreamchat.services.heartbeat_state import HeartbeatStateService
from dreamchat.services.media_words import MediaTurnService
from dreamchat.services.memory_repo import MemoryRepository
from dreamchat.services.reply_draw import ReplyDrawService
from dreamchat.services.sessions import SessionService
from dreamchat.services.speaker import Line, SpeakerService
from dreamchat.services.topics import TopicService

log = logging.getLogger(__name__)


UNANSWERED = Failed("model_unavailable", "对方暂时无法回复，你的消息已经保存。")


def _no_push(pair: PairId, ai_user: AIUser, messages: list[Message], deadline: Deadline) -> None:
    """No push is sent."""


@dataclass
class ChatService:
    repo: MemoryRepository
    topics: TopicService
    context: ContextService
    speaker: SpeakerService
    heartbeats: HeartbeatStateService
    protocol: CrisisService
    draw: ReplyDrawService
    sessions: SessionService
    spend_message: Callable[[str], None]  # the account's message budget: TooManyRequests beyond it
    clock: Clock
    random: RandomSource
    settings: Settings
    on_reply: Callable[[PairId, AIUser, list[Message], Deadline], object] = _no_push  # the push, once stored
    notices: Callable[[str, bool], list[Notice]] = lambda account_id, distress: []  # due before a reply (usage)
    media: MediaTurnService = (
        MediaTurnService()
    )  # what the model is told of, and shown from, the photo or voice note sent

    def crisis_help(self, account_id: str) -> SafetyNotice:
        """The help lines, sent to the person now (counted for the referral report)."""
        return self.protocol.help_shown(account_id)

    def protected(self, pair: PairId, content: str, media: Media | None = None) -> bool:
        return self.protocol.protected(pair, content, media is not None and media.flagged)

    def accept(
        self, pair: PairId, ai_user: AIUser, content: str, *, limited: bool = True, media: Media | None = None
    ) -> Message:
        """Store the person's message durably (the first step of every turn and of save-message), with the
        `media` it carries; not `limited` by the message rate (distress or a crisis, which is never refused).
        The check reads the message, the topic's latest messages with it (a crisis split over two), and
        what the vision role saw in its photo."""
        content, whole = self.protocol.fitted(content)  # 413 over the limit, 422 blank
        if limited:
            self.spend_message(pair.account_id)
        topic = self.protocol.open_topic(pair)
        verdict = self.protocol.judge(topic, content, whole, media.concern if media else None)
        message = self.topics.record(pair, "user", content, safety=marked(verdict), media=media)
        now = self.clock.now()
        minutes = self.settings.crisis_checkin_minutes
        # in a crisis topic the check-in stays owed until the person has been answered after it
        owed = verdict.crisis or (topic_state(topic) == "crisis" and message.topic_id == topic[-1].topic_id)

        def wrote(state: HeartbeatState) -> HeartbeatState:
            answered = person_wrote(state, now)
            return check_in_after(answered, now, minutes) if owed else answered

        relationship = self.repo.relationship(pair)
        self.heartbeats.change(pair, ai_user, relationship, wrote)
        self.sessions.continue_with_message(pair.account_id)
        if verdict.crisis:
            self.protocol.referred(pair, message.id, verdict.by or "lexicon")
        return message

    def safety_of(self, pair: PairId, message: Message) -> SafetyNotice | None:
        """What the person sees beside a message marked as a crisis."""
        return self.crisis_help(pair.account_id) if message.safety == "crisis" else None

    def save(self, pair: PairId, ai_user: AIUser, content: str, media: Media | None = None) -> tuple[Message, bool]:
        """Store a message without a reply; a farewell still ends the topic."""
        message = self.accept(pair, ai_user, content, limited=not self.protected(pair, content, media), media=media)
        ended = message.safety is None and says_farewell(content, self.settings.farewell_keywords)
        if ended:
            self.topics.end_topic(pair, message.topic_id)
        return message, ended

    def respond(
        self,
        pair: PairId,
        ai_user: AIUser,
        person: Message,
        deadline: Deadline | None = None,
        *,
        model: bool = True,
        must_answer: bool = False,
    ) -> list[ChatEvent]:
        """The AI's side of the turn, all of it done: the events to send, ending with Done or Failed;
        without the `model` (a crisis it has no room for), words of care and the help lines. A turn that
        `must_answer` (the person asked again after a failed one) is never declined by the draw."""
        if (staffed := self.protocol.staffed(pair, person)) is not None:  # an operator is with the person
            return staffed
        deadline = deadline or Deadline.after(self.settings.chat_turn_seconds)
        state = topic_state(self.repo.short_term(pair, person.topic_id)) or person.safety
        crisis = state == "crisis"  # the protocol holds for the rest of the topic
        distress = state is not None  # answered, never silence
        budget = deadline.sooner(self.settings.chat_reserve_seconds)
        try:
            reply = (
                self._generate(pair, ai_user, person, budget, state, must_answer)
                if model or not distress
                else Reply(caring_reply(crisis, offline=False), typed=False)
            )
        except LLMError as error:
            log.warning("chat model failed", extra={"ai_user_id": ai_user.id, "error": type(error).__name__})
            if not distress:
                self._end_on_farewell(pair, person)
                return [UNANSWERED]
            reply = Reply(caring_reply(crisis, offline=False), typed=False)  # never silence
        markers = read_markers(reply.text)
        text, flagged = read_crisis_marker(strip_control_markers(markers.text))
        shown = person.safety == "crisis"  # the help card: once per crisis statement, not every message after
        if flagged and person.safety != "crisis" and not crisis:  # the model saw what the check missed
            crisis = distress = shown = True
            person = self._mark_crisis(pair, ai_user, person)
        elif crisis and person.safety != "crisis":  # later in a crisis topic: the check-in waits for this message
            self.protocol.check_in_later(pair, ai_user)
        if markers.switched:
            person = self.topics.switch_topic(pair, person)
        reasoning = reply.reasoning[:REASONING_CHARS]
        lines = replies.split_messages(text)
        if not lines and (distress or unheard(person.media_kind, person.content)):  # never silence
            lines = [caring_reply(crisis, offline=False) if distress else UNHEARD_REPLY]
        if must_answer and not lines:  # asked again for an answer: not 已读不回, a failure to retry
            return [UNANSWERED]
        cap = replies.CRISIS_MAX_DELAY_SECONDS if distress else None
        how = Line(typed=reply.typed, reasoning=reasoning, cap=cap)
        if (staffed := self.protocol.staffed(pair, person)) is not None:  # taken over while the model wrote
            return staffed
        sent = [Sent(m, m.delay_ms, i) for i, m in enumerate(self.speaker.send(pair, lines, how, after=person.id))]
        if not sent:  # 已读不回: the history shows it, not only the live turn
            # over the message as read: a deletion or edit meanwhile stands
            self.topics.update_message(
                pair, person, person.model_copy(update={"read_no_reply": True, "reasoning": reasoning})
            )
        # A topic that grows past the limit ends too, so short-term memory stays bounded.
        too_long = len(self.repo.short_term(pair, person.topic_id)) >= self.settings.topic_max_messages
        ended = (markers.ended or too_long) and self.topics.end_topic(pair, person.topic_id)
        ended = (not crisis and self._end_on_farewell(pair, person)) or ended  # a farewell never ends a crisis
        thinking = [Thinking(reasoning)] if reasoning else []
        notices: list[ChatEvent] = [self.crisis_help(pair.account_id)] if shown else []
        if sent and not distress and self.sessions.break_reminder_due(pair.account_id):
            notices.append(Notice("break", BREAK_NOTICE))
        notices += self.notices(pair.account_id, distress) if sent else []
        pause = 0.0
        if not sent:
            pause = (
                reply.read_pause
                if reply.read_pause is not None
                else replies.read_pause_seconds(self.random.random(), self.settings.max_delay_seconds)
            )
        if sent:
            self.on_reply(pair, ai_user, [s.message for s in sent], deadline)
        why = reply.asked if sent else "read_no_reply"
        return [*notices, *thinking, *sent, Done(bool(sent), ended, len(sent), int(pause * 1000), why)]

    def _mark_crisis(self, pair: PairId, ai_user: AIUser, person: Message) -> Message:
        marked = person.model_copy(update={"safety": "crisis"})
        self.topics.update_message(pair, person, marked)
        self.protocol.check_in_later(pair, ai_user)
        self.protocol.referred(pair, marked.id, "model")
        return marked

    def _generate(
        self, pair: PairId, ai_user: AIUser, person: Message, deadline: Deadline, state: Safety | None, must: bool
    ) -> Reply:
        """The AI's reply (the offline notice comes at once, untyped). When the draw says no, the
        model is not asked: the turn is 已读不回 — never in distress or a crisis (the topic's state),
        nor for a sincere question whether the AI is a person, nor when it `must` answer (a retry)."""
        if not self.speaker.can_speak(ai_user):
            recent, _ = self.repo.log.messages(pair, before=None, after=None, limit=OFFLINE_NOTICE_LOOKBACK)
            text = caring_reply(state == "crisis", offline=True) if state else offline_reply_for(ai_user.name, recent)
            text = UNHEARD_REPLY if not state and unheard(person.media_kind, person.content) else text
            return Reply(text, typed=False)
        snapshot = self.repo.snapshot(pair)
        asked, why = asks_if_human(person.content), None  # a question if human: answered, always and honestly
        must = must or unheard(person.media_kind, person.content)  # "I cannot listen now", never 已读不回
        if state:
            guidance = CRISIS_GUIDANCE if state == "crisis" else DISTRESS_GUIDANCE
        else:
            zone = self.repo.zone(pair, ai_user)
            decision = self.draw.decide(pair, snapshot, ai_user, person, zone, must_answer=asked or must)
            if not decision.inclined and self.settings.reply_decision == "draw":
                return self.draw.read_without_replying(ai_user, decision)
            guidance, why = decision.guidance, decision.reason
        guidance += (HUMAN_QUESTION_GUIDANCE if asked else "") + self.media.guidance(person)
        # distress keeps the stable instructions (and the prompt cache); its turn block asks for care
        instructions = chat_instructions(ai_user.name, snapshot.relationship.level, crisis=state == "crisis")
        context = self.context.context(
            pair, ai_user, person.content, instructions, exclude_message=person.id, snapshot=snapshot, guidance=guidance
        )
        messages = self.media.shown(pair, person, context.messages)  # the photo itself, to a model that sees
        completion = self.speaker.generate(pair, ai_user, messages, deadline)
        return Reply(completion.text or "", reasoning=completion.reasoning, asked=why)

    def _end_on_farewell(self, pair: PairId, person: Message) -> bool:
        if not says_farewell(person.content, self.settings.farewell_keywords):
            return False
        return self.topics.end_topic(pair, person.topic_id)
