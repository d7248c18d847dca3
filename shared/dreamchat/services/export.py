"""Exports: a pair's memory as one JSON document (`dreamchat.domain.memory_export`), and an
account's whole data (the account without secrets, its 关于我, its protections with the emergency contact,
every AI friend's memory).

Both are written as pieces while they are read: the tiers of one pair first (small), then its
chat history a page at a time, so an export of any length holds one page in memory. Only the
caller's pair is read (every key names the account); vectors, password hashes and tokens are
never in a document.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from dreamchat.domain import strict_json
from dreamchat.domain.core_memory import split
from dreamchat.domain.media import Media
from dreamchat.domain.memory_export import (
    ACCOUNT_FORMAT,
    FORMAT,
    ExportedAIUser,
    ExportedHeartbeat,
    ExportedLongTerm,
    ExportedRelationship,
    ExportedTopic,
    heading,
)
from dreamchat.domain.models import Account, AIUser, PairId
from dreamchat.domain.protection import Protection
from dreamchat.ports import Clock
from dreamchat.services.ai_users import AIUserService
from dreamchat.services.friend_lists import FriendListService
from dreamchat.services.heartbeat_state import HeartbeatStateService
from dreamchat.services.limits import unlimited
from dreamchat.services.memory_repo import MemoryRepository
from dreamchat.services.paging import key_of
from dreamchat.services.profile import ProfileService

PAGE_SIZE = 200  # messages read, and written, at a time


class ExportService:
    def __init__(
        self,
        repo: MemoryRepository,
        profiles: ProfileService,
        heartbeats: HeartbeatStateService,
        ai_users: AIUserService,
        friend_lists: FriendListService,
        clock: Clock,
        spend: Callable[[str], None] = unlimited,
        *,
        protection: Callable[[str], Protection] = lambda account_id: Protection(),  # the person's protections
        media: Callable[[PairId], list[Media]] = lambda pair: [],  # a pair's photos and voice notes
    ) -> None:
        self._protection = protection
        self._media = media
        self._repo = repo
        self._profiles = profiles
        self._heartbeats = heartbeats
        self._ai_users = ai_users
        self._friend_lists = friend_lists
        self._clock = clock
        self._spend = spend  # the account's budget of whole exports (DREAMCHAT_ACCOUNT_EXPORTS_PER_HOUR)

    def pair(self, account_id: str, ai_user_id: str) -> Iterator[bytes]:
        """The caller's pair with this AI user as a document, also once the AI user left their view (taken
        down, made private): the memory is theirs. NotFound (before any piece) unless they are friends."""
        pair, ai_user = self._friend_lists.kept(account_id, ai_user_id)
        return self._document(pair, ai_user)

    def account(self, account: Account) -> Iterator[bytes]:
        """The account's whole data; its friends are read as the pieces are written. TooManyRequests
        (before any piece) past the account's budget of exports."""
        self._spend(account.id)
        return self._account(account)

    def _account(self, account: Account) -> Iterator[bytes]:
        head = {
            **heading(ACCOUNT_FORMAT, self._now()),
            "account": {"id": account.id, "username": account.username, "created_at": account.created_at},
            "profile": {"about_me": self._profiles.about_me(account.id)},
            "protection": self._protection(account.id).model_dump(),
            "heartbeat_prefs": self._heartbeats.prefs(account.id).model_dump(),
            "owned_ai_users": [a.model_dump() for a in self._listed(account.id) if a.owner_id == account.id],
        }
        yield _open(head, "friends")
        for index, (ai_user, friendship) in enumerate(self._friend_lists.friends(account.id)):
            pair = PairId(account_id=account.id, ai_user_id=ai_user.id)
            yield b"," if index else b""
            friend = {"ai_user_id": ai_user.id, "name": ai_user.name, "friendship": friendship}
            yield _open({**friend, "media": [_media(m) for m in self._media(pair)]}, "memory", b"")
            yield from self._document(pair, ai_user)
            yield b"}"
        yield b"]}"

    def _listed(self, account_id: str) -> Iterator[AIUser]:
        """Every AI user the account lists, page after page."""
        after = None
        while True:
            page = self._friend_lists.listing(account_id, after)
            yield from page.items
            if page.cursor is None:
                return
            after = key_of(page.cursor)

    def _document(self, pair: PairId, ai_user: AIUser) -> Iterator[bytes]:
        yield _open(self._tiers(pair, ai_user), "messages")
        first = True
        for page in self._repo.log.log_pages(pair, PAGE_SIZE):
            if page:
                yield (b"" if first else b",") + b",".join(_json(m.model_dump()) for m in page)
                first = False
        yield b"]}"

    def _tiers(self, pair: PairId, ai_user: AIUser) -> dict[str, Any]:
        """Everything but the chat history, as the document's head."""
        repo = self._repo
        state = repo.topic_state(pair)
        core = split(repo.core(pair))
        heartbeat = self._heartbeats.get(pair)
        return {
            **heading(FORMAT, self._now()),
            "ai_user": ExportedAIUser(id=ai_user.id, name=ai_user.name).model_dump(),
            "topic": ExportedTopic(topic_id=state.topic_id, created_at=state.created_at, ended=state.ended).model_dump()
            if state
            else None,
            "short_term": [m.model_dump() for m in repo.short_term(pair)],
            "mid_term": [m.model_dump() for m in repo.mid_terms(pair)],
            "long_term": [
                ExportedLongTerm(index=entry, detail=repo.detail(pair, entry)).model_dump()
                for entry in repo.long_index(pair)
            ],
            "core": [c.model_dump() for c in core.current],
            "self_soul": repo.self_soul(pair).model_dump(),
            "relationship": ExportedRelationship(current=repo.relationship(pair), history=core.history).model_dump(),
            "heartbeat": ExportedHeartbeat(
                prefs=self._heartbeats.prefs(pair.account_id),
                **heartbeat.model_dump(include=set(ExportedHeartbeat.model_fields) - {"prefs"}),
            ).model_dump(),
        }

    def _now(self) -> int:
        return int(self._clock.now().timestamp())


def _media(media: Media) -> dict[str, Any]:
    """A photo or voice note as the account export lists it: what it is and its text, not its bytes (served by
    `GET /api/media/{media_id}`)."""
    return media.model_dump(exclude={"account_id", "ai_user_id"})


def _json(value: Any) -> bytes:
    """Strict JSON (a number stored before the import's checks that is not finite: null), which a browser reads."""
    return strict_json.dumps(value)


def _open(head: dict[str, Any], last: str, opener: bytes = b"[") -> bytes:
    """`head` as a JSON object left open at a last field `last` (a list, by default) whose value follows."""
    return _json(head)[:-1] + (b"," if head else b"") + _json(last) + b":" + opener
