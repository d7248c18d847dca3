"""How an AI user speaks, whatever made it speak (the person's message, or its own heartbeat): the chat
model with every tool, then its lines stored one after another as its messages, with typing delays — or, when
its owner wants it to answer with its voice and the lines may be spoken (`Line.voice`), as one voice message
saying them all (`dreamchat.services.voice`), delayed as if typed."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from dreamchat.budget import Deadline
from dreamchat.config import Settings
from dreamchat.domain import reply as replies
from dreamchat.domain.media import Media
from dreamchat.domain.models import AIUser, Message, MessageKind, PairId
from dreamchat.domain.voice import spoken_text
from dreamchat.llm.port import Completion, LLMGateway, ModelMessage
from dreamchat.llm.tools import tool_schemas
from dreamchat.ports import Clock, RandomSource, SearchProvider
from dreamchat.services.context import ContextService
from dreamchat.services.heartbeat_state import HeartbeatStateService
from dreamchat.services.memory_repo import MemoryRepository
from dreamchat.services.soul import SoulService
from dreamchat.services.tools import ToolBox
from dreamchat.services.topics import TopicService
from dreamchat.services.voice import Voice, VoiceService


def chat_model_key(ai_user: AIUser) -> str:
    """The model role that speaks for this AI user."""
    return "deepseek_reasoner" if ai_user.model == "reasoner" else "deepseek_chat"


@dataclass(frozen=True)
class Line:
    """How one line is sent: `typed` lines wait a typing delay (at most `cap` seconds, when given);
    `reasoning` is the turn's chain of thought, kept with the first line; with a `voice`, typed lines may go as
    one voice message (None: words that must be read stay text; so do untyped lines, the code's own words)."""

    kind: MessageKind = "chat"
    typed: bool = True
    reasoning: str = ""
    cap: float | None = None
    voice: Voice | None = None


@dataclass(frozen=True)
class SpeakerService:
    repo: MemoryRepository
    topics: TopicService
    context: ContextService
    soul: SoulService
    heartbeat_states: HeartbeatStateService
    gateway: LLMGateway | None
    search: SearchProvider
    clock: Clock
    random: RandomSource
    settings: Settings
    voice: VoiceService | None = None  # the AI's voice replies (none: always text)

    def can_speak(self, ai_user: AIUser) -> bool:
        """Whether a chat model is configured for this AI user (offline mode has none)."""
        return self.gateway is not None and self.gateway.configured(chat_model_key(ai_user))

    def generate(self, pair: PairId, ai_user: AIUser, messages: list[ModelMessage], deadline: Deadline) -> Completion:
        """The chat model's answer to `messages`, with every tool on offer for a few rounds."""
        if self.gateway is None:
            raise RuntimeError("no chat model is configured: ask can_speak first")
        tools = ToolBox(
            pair,
            ai_user,
            self.repo,
            self.context,
            self.soul,
            self.heartbeat_states,
            self.search,
            self.clock,
            self.settings.search_results,
        )
        return self.gateway.complete(
            chat_model_key(ai_user),
            messages,
            tools=tool_schemas(),
            run_tool=tools.run,
            max_tool_rounds=self.settings.tool_rounds,
            deadline=deadline,
        )

    def send(self, pair: PairId, lines: list[str], how: Line, *, after: str | None = None) -> Iterator[Message]:
        """Store and yield the AI's lines as its messages, each after the one before (the first after `after`),
        or as one voice message when they are spoken."""
        previous = after
        longest = min(
            how.cap if how.cap is not None else self.settings.max_delay_seconds, self.settings.max_delay_seconds
        )
        voice, text = self.voice, spoken_text(lines)
        spoken = voice.spoken(pair, how.voice, text) if voice and how.voice and how.typed and text else None
        if voice and spoken:
            yield self._voice_message(voice, pair, spoken, how, after, longest)
            return
        for index, line in enumerate(lines):
            delay = replies.typing_delay(line, self.random.random(), longest) if how.typed else 0
            message = self.topics.record(
                pair,
                "assistant",
                line,
                kind=how.kind,
                after=previous,
                delay_ms=int(delay * 1000),
                reasoning=how.reasoning if index == 0 else "",
            )
            previous = message.id
            yield message

    def _voice_message(
        self, voice: VoiceService, pair: PairId, spoken: Media, how: Line, after: str | None, longest: float
    ) -> Message:
        """The one message of a spoken reply: its text, its voice, a typing delay by the spec's formula on
        the text; the voice's bytes go again when the message cannot be stored."""
        delay = replies.typing_delay(spoken.text, self.random.random(), longest) if how.typed else 0
        try:
            return self.topics.record(
                pair,
                "assistant",
                spoken.text,
                kind=how.kind,
                after=after,
                delay_ms=int(delay * 1000),
                reasoning=how.reasoning,
                media=spoken,
            )
        except BaseException:
            voice.discard(pair, spoken)
            raise
