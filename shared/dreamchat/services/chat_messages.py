"""The conversation's messages outside a turn: the greeting, a message saved without a reply, the history
with the message that may be answered again, deleting one message, and how far the person has read. A
protection of the person (`admit`) refuses the greeting and a message saved, never one on distress or a crisis."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dreamchat.budget import Deadline
from dreamchat.domain.answers import SEARCH_SCAN_MESSAGES, matches
from dreamchat.domain.cards import person_named
from dreamchat.domain.media import message_text
from dreamchat.domain.models import AIUser, Message, PairId
from dreamchat.domain.personas import opening
from dreamchat.errors import NotFound
from dreamchat.services.ai_users import AIUserService
from dreamchat.services.answering import AnsweringService
from dreamchat.services.chat import ChatService
from dreamchat.services.exits import ExitService
from dreamchat.services.heartbeat_state import HeartbeatStateService
from dreamchat.services.idempotency import IdempotencyService, abandon_key, claim_key
from dreamchat.services.media_words import MediaWordsService
from dreamchat.services.memory_repo import MemoryRepository, MessageLog
from dreamchat.services.profile import ProfileService
from dreamchat.services.topics import TopicService
from dreamchat.services.usage import UsageService
from dreamchat.services.views import HistoryPage, ViewService

SEARCH_PAGE = 200  # messages a history search reads at a time


@dataclass(frozen=True)
class History:
    """A page of the conversation, and the person's latest message when it may be answered again."""

    page: HistoryPage
    retry_message_id: str | None


class ChatMessageService:
    def __init__(
        self,
        chat: ChatService,
        topics: TopicService,
        repo: MemoryRepository,
        message_log: MessageLog,
        heartbeats: HeartbeatStateService,
        ai_users: AIUserService,
        views: ViewService,
        idempotency: IdempotencyService,
        answering: AnsweringService,
        usage: UsageService,
        exits: ExitService,
        profiles: ProfileService,
        words: MediaWordsService,
    ) -> None:
        self._words = words  # a photo's or voice note's words, before the message is stored
        self._chat = chat
        self._topics = topics
        self._repo = repo
        self._log = message_log
        self._heartbeats = heartbeats
        self._ai_users = ai_users
        self._views = views
        self._idempotency = idempotency
        self._answering = answering
        self._usage = usage
        self._exits = exits
        self._profiles = profiles  # the nickname a card's greeting calls the person by

    def greet(self, pair: PairId, ai_user: AIUser) -> Message | None:
        """Store the AI user's opening message when the chat is opened for the first time and is empty;
        None otherwise (no greeting set, already greeted, the two have talked, or a greeting saved
        before the honesty rule that claims to be human). First contact follows it."""
        self._usage.admit(pair.account_id, ai_user, greeting=True)
        greeting = opening(person_named(ai_user.greeting, self._profiles.nickname(pair.account_id), to_them=True))
        if not greeting or self._log.last_message(pair) is not None:
            return None
        if not self._log.claim_greeting(pair):
            return None
        message = self._topics.record(pair, "assistant", greeting, kind="greeting")
        self._heartbeats.greeted(pair, ai_user, self._repo.relationship(pair))
        return message

    def save(
        self,
        pair: PairId,
        ai_user: AIUser,
        content: str,
        key: str | None,
        media_id: str | None = None,
        deadline: Deadline | None = None,
    ) -> Mapping[str, Any]:
        """Store the person's message without asking for a reply: the message, whether it ended its
        topic, and the help lines when it shows a crisis (a retry with the key gets the first again). It is
        the person writing: it lifts a stop, or, an exit keyword, stops the companion (its goodbye in the chat).
        Distress, a crisis or a way out passes every protection. `media_id`: the photo or voice note it
        carries, its words found after the key's claim (`dreamchat.services.media_words`)."""
        stop = self._exits.asks_to_stop(pair, content)
        if not stop and media_id is None and not self._chat.protected(pair, content):
            self._usage.admit(pair.account_id, ai_user)
        named = (content, media_id) if media_id else (content,)
        claim = claim_key(self._idempotency, pair.account_id, key, "save-message", pair.ai_user_id, *named)
        if claim is not None and claim.replay is not None:
            return dict(claim.replay)
        try:
            media = self._words.words(pair, media_id, deadline) if media_id else None
            if media is not None:  # the words heard or seen are checked, and gated, like typed ones
                content = message_text(media, content)
                if not stop and not self._chat.protected(pair, content, media):
                    self._usage.admit(pair.account_id, ai_user)
            message, ended = self._chat.save(pair, ai_user, content, media)
            self._exits.wrote(pair, stop)
        except BaseException:
            abandon_key(self._idempotency, claim)
            raise
        help_lines = self._chat.safety_of(pair, message)
        saved = {"message": message, "topic_ended": ended, "safety": help_lines.as_dict() if help_lines else None}
        if claim is not None:
            self._idempotency.finish(claim, {**saved, "message": message.model_dump(mode="json")})
        return saved

    def history(self, pair: PairId, before: str | None, after: str | None, limit: int) -> History:
        """The conversation oldest to newest; `retry_message_id` names the person's latest message when
        it is in this page and its turn ended without an answer (the model failed, the connection dropped)."""
        page = self._views.history(pair, before, after, limit)
        newest = page.newest
        offered = newest is not None and self._answering.offered(pair, newest)
        return History(page, newest.id if newest is not None and offered else None)

    def search(self, pair: PairId, query: str, before: str | None, limit: int) -> History:
        """The conversation's messages holding `query` (any case), oldest to newest, newest first found: up to
        `limit` hits from the newest back (from `before`); `next_cursor` goes on further back. A request
        reads at most SEARCH_SCAN_MESSAGES messages, so a rare word may come back with fewer hits and a cursor."""
        hits: list[Message] = []
        cursor, scanned, more = before, 0, True
        while more and len(hits) < limit and scanned < SEARCH_SCAN_MESSAGES:
            window, more = self._log.messages(pair, before=cursor, after=None, limit=SEARCH_PAGE)
            scanned += len(window)
            for message in reversed(window):
                cursor = message.id
                if matches(message, query):
                    hits.append(message)
                    if len(hits) == limit:
                        more = more or message is not window[0]
                        break
            more = more and bool(window)
        return History(HistoryPage(hits[::-1], cursor if more else None, None), None)

    def delete(self, pair: PairId, message_id: str) -> None:
        """Delete one message (the person's or the AI's), also from short-term memory, and the photo or voice
        note it carried (record and bytes)."""
        found = self._log.message(pair, message_id)
        if found is None or not self._log.delete_message(pair, message_id):
            raise NotFound("no such message in this conversation")
        self._words.forget(pair, found)

    def mark_read(self, pair: PairId, message_id: str) -> None:
        """The person has seen the conversation up to this message."""
        if not self._log.has_message(pair, message_id):
            raise NotFound("no such message in this conversation")
        self._ai_users.mark_read(pair.account_id, pair.ai_user_id, message_id)
