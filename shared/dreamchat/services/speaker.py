"""How an AI user speaks, whatever made it speak (the person's message, or its own heartbeat): the chat
model with every tool, then its lines stored one after another as its messages, with typing delays."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from dreamchat.budget import Deadline
from dreamchat.config import Settings
from dreamchat.domain import reply as replies
from dreamchat.domain.models import AIUser, Message, MessageKind, PairId
from dreamchat.llm.port import Completion, LLMGateway, ModelMessage
from dreamchat.llm.tools import tool_schemas
from dreamchat.ports import Clock, RandomSource, SearchProvider
from dreamchat.services.context import ContextService
from dreamchat.services.heartbeat_state import HeartbeatStateService
from dreamchat.services.memory_repo import MemoryRepository
from dreamchat.services.soul import SoulService
from dreamchat.services.tools import ToolBox
from dreamchat.services.topics import TopicService


def chat_model_key(ai_user: AIUser) -> str:
    """The model role that speaks for this AI user."""
    return "deepseek_reasoner" if ai_user.model == "reasoner" else "deepseek_chat"


@dataclass(frozen=True)
class Line:
    """How one line is sent: `typed` lines wait a typing delay (at most `cap` seconds, when given);
    `reasoning` is the turn's chain of thought, kept with the first line."""

    kind: MessageKind = "chat"
    typed: bool = True
    reasoning: str = ""
    cap: float | None = None


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
        """Store and yield the AI's lines as its messages, each after the one before (the first after `after`)."""
        previous = after
        longest = min(
            how.cap if how.cap is not None else self.settings.max_delay_seconds, self.settings.max_delay_seconds
        )
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
