"""Read models: what one screen shows, gathered from several reads in one place, so routes stay a
parse and a call. Nothing here decides or writes, except that the history's newest page marks the
conversation read (opening a chat is reading it)."""

from __future__ import annotations

from dataclasses import dataclass

from dreamchat.domain.core_memory import split
from dreamchat.domain.heartbeat import HeartbeatState, Mode, Prefs
from dreamchat.domain.models import (
    AIUser,
    Conversation,
    CoreMemory,
    Friendship,
    LongTermDetail,
    LongTermIndex,
    Message,
    MidTermMemory,
    PairId,
    Relationship,
    RelationshipLevel,
    SelfSoul,
)
from dreamchat.errors import Invalid, NotFound
from dreamchat.llm.chat_context import Context
from dreamchat.llm.chat_prompts import chat_instructions
from dreamchat.ports import Clock
from dreamchat.services.ai_users import AIUserService
from dreamchat.services.context import ContextService
from dreamchat.services.friend_lists import FriendListService
from dreamchat.services.heartbeat_state import HeartbeatStateService
from dreamchat.services.memory_repo import MemoryRepository
from dreamchat.services.paging import Page, key_of
from dreamchat.services.quality import QualityService


@dataclass(frozen=True)
class FriendView:
    """One row of the chat list."""

    ai_user: AIUser
    friendship: Friendship
    relationship: RelationshipLevel
    unread: int
    next_heartbeat: int | None
    heartbeat: Mode
    last_message: Message | None


@dataclass(frozen=True)
class TopicView:
    """A short-term topic in the spec's shape, with its messages' ids (for edits)."""

    topic_id: str | None
    conversations: list[Conversation]
    created_at: int | None
    message_ids: list[str]


NO_TOPIC = TopicView(None, [], None, [])


@dataclass(frozen=True)
class MemoryFilesView:
    short_term: TopicView
    short_term_pending: list[TopicView]
    mid_term: list[MidTermMemory]
    long_term: list[LongTermIndex]
    core: list[CoreMemory]  # every entry but the relationship's history
    self_soul: SelfSoul
    relationship: Relationship
    relationship_history: list[CoreMemory]  # every change of level, oldest first


@dataclass(frozen=True)
class ContextView:
    context: Context
    quality: dict[str, object]


@dataclass(frozen=True)
class HistoryPage:
    messages: list[Message]
    next_cursor: str | None
    newest: Message | None  # the conversation's last message, when this page holds it


@dataclass(frozen=True)
class HeartbeatRow:
    ai_user: AIUser
    state: HeartbeatState
    level: RelationshipLevel


@dataclass(frozen=True)
class HeartbeatStatusView:
    prefs: Prefs
    rows: list[HeartbeatRow]
    next_cursor: str | None


class ViewService:
    def __init__(
        self,
        ai_users: AIUserService,
        friend_lists: FriendListService,
        repo: MemoryRepository,
        context: ContextService,
        heartbeats: HeartbeatStateService,
        quality: QualityService,
        clock: Clock,
    ) -> None:
        self._ai_users = ai_users
        self._friend_lists = friend_lists
        self._repo = repo
        self._context = context
        self._heartbeats = heartbeats
        self._quality = quality
        self._clock = clock

    def friends(self, account_id: str, cursor: str | None, limit: int) -> Page[FriendView]:
        """A page of the chat list, by AI user id (the client orders it: pinned, then latest)."""
        found = self._friend_lists.friend_page(account_id, key_of(cursor), limit)
        return Page([self._friend(account_id, a, f) for a, f in found.items], found.cursor)

    def _friend(self, account_id: str, ai_user: AIUser, friendship: Friendship) -> FriendView:
        pair = PairId(account_id=account_id, ai_user_id=ai_user.id)
        state = self._heartbeats.get(pair)
        return FriendView(
            ai_user=ai_user,
            friendship=friendship,
            relationship=self._repo.relationship(pair).level,
            unread=self._repo.log.unread(pair, friendship.last_read),
            next_heartbeat=state.next_due,
            heartbeat=state.mode,
            last_message=self._repo.log.last_message(pair),
        )

    def ai_users(self, account_id: str, cursor: str | None, limit: int) -> Page[AIUser]:
        """The caller's own AI users and the public ones they befriended, by id."""
        return self._friend_lists.listing(account_id, key_of(cursor), limit)

    def memory_files(self, pair: PairId) -> MemoryFilesView:
        """Every tier with the spec's field names; topics ended but not compressed yet are pending."""
        topics = _topics(self._repo.short_term(pair))
        state = self._repo.topic_state(pair)
        current = next((t for t in topics if state and t.topic_id == state.topic_id and not state.ended), None)
        core = split(self._repo.core(pair))
        return MemoryFilesView(
            short_term=current or NO_TOPIC,
            short_term_pending=[t for t in topics if t is not current],
            mid_term=self._repo.mid_terms(pair),
            long_term=self._repo.long_index(pair),
            core=core.current,
            self_soul=self._repo.self_soul(pair),
            relationship=self._repo.relationship(pair),
            relationship_history=core.history,
        )

    def detail(self, pair: PairId, detail_file: str) -> LongTermDetail:
        """A long-term detail document an index entry of the pair names; NotFound otherwise."""
        entry = next((e for e in self._repo.long_index(pair) if e.detail_file == detail_file), None)
        detail = self._repo.detail(pair, entry) if entry is not None else None
        if detail is None:
            raise NotFound("no such detail document")
        return detail

    def context(self, pair: PairId, ai_user: AIUser, message: str | None) -> ContextView:
        """The context the model would see now (`message` previews retrieval), with the quality figures."""
        level = self._repo.relationship(pair).level
        instructions = chat_instructions(ai_user.name, level)
        context = self._context.context(pair, ai_user, message, instructions)
        return ContextView(context, self._quality.figures(pair).report())

    def history(self, pair: PairId, before: str | None, after: str | None, limit: int) -> HistoryPage:
        """A window of the log oldest to newest; `before` pages back, `after` fetches newer messages."""
        if before is not None and after is not None:
            raise Invalid("use either before or after, not both")
        window, more = self._repo.log.messages(pair, before=before, after=after, limit=limit)
        if before is None and window:
            self._ai_users.mark_read(pair.account_id, pair.ai_user_id, window[-1].id)
        cursor = None
        if more and window:
            cursor = window[-1].id if after is not None else window[0].id
        newest = window[-1] if window and before is None and not (more and after is not None) else None
        return HistoryPage(window, cursor, newest)

    def heartbeat_status(self, account_id: str, cursor: str | None, limit: int) -> HeartbeatStatusView:
        """The caller's settings and a page of their AI friends, each with its level and heartbeat state."""
        found = self._friend_lists.friend_page(account_id, key_of(cursor), limit)
        rows = []
        for ai_user, _ in found.items:
            pair = PairId(account_id=account_id, ai_user_id=ai_user.id)
            rows.append(HeartbeatRow(ai_user, self._heartbeats.get(pair), self._repo.relationship(pair).level))
        return HeartbeatStatusView(self._heartbeats.prefs(account_id), rows, found.cursor)


def _topics(messages: list[Message]) -> list[TopicView]:
    """Short-term messages grouped by topic, in their order."""
    topics = []
    for topic_id in dict.fromkeys(m.topic_id for m in messages):
        of_topic = [m for m in messages if m.topic_id == topic_id]
        conversations = [Conversation(role=m.role, content=m.content, timestamp=m.timestamp) for m in of_topic]
        topics.append(TopicView(topic_id, conversations, of_topic[0].timestamp, [m.id for m in of_topic]))
    return topics
