"""What a conversation (a chat turn, a heartbeat, the AI's tools) asks of a pair's memory: where its
messages go (`dreamchat.services.topics.Topics`) and what the AI remembers
(`dreamchat.services.context.ContextBuilder`), with the reads behind both (`MemoryRepository`).

The background steps have their own modules: `dreamchat.services.compression` (short-term to
mid-term), `dreamchat.services.long_term` (mid-term to long-term), `dreamchat.services.core_judgment`
and `dreamchat.services.vectors`.
"""

from __future__ import annotations

from dreamchat.services.context import ContextBuilder
from dreamchat.services.memory_repo import MemoryRepository
from dreamchat.services.recall import Retriever
from dreamchat.services.topics import Topics


class MemoryService:
    def __init__(self, repo: MemoryRepository, retriever: Retriever, topics: Topics, context: ContextBuilder) -> None:
        self.repo = repo
        self.retriever = retriever
        self.record = topics.record
        self.update_message = topics.update_message
        self.end_topic = topics.end_topic
        self.switch_topic = topics.switch_topic
        self.context = context.context
        self.recall = context.recall
