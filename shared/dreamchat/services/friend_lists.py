"""The lists of AI users a person sees: their own and befriended ones, the public ones, their
friendships a page at a time, and the friendships that ended because an AI user left their view."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from dreamchat.domain.discover import DEFAULT_CATEGORY, Listed, Search
from dreamchat.domain.models import AIUser, Friendship, PairId
from dreamchat.errors import BadRequest, Invalid, NotFound
from dreamchat.services.paging import MAX_LIMIT, Page, cursor_after, key_of, page_of
from dreamchat.services.storage.unit_of_work import Storage

EndedReason = Literal["no_longer_visible", "taken_down"]
DISCOVER_SCAN = 500  # listing entries one discover page reads at most, matching or not
EVERYONE = Search()


@dataclass(frozen=True)
class EndedFriendship:
    """A friendship that ended because its AI user left the person's view: which friend, and why."""

    ai_user_id: str
    name: str | None  # None when the AI user is gone
    reason: EndedReason


def visible_to(account_id: str, ai_user: AIUser | None) -> bool:
    """Its owner sees an AI user, everyone sees a public one (`AIUser.shown_to`)."""
    return ai_user is not None and ai_user.shown_to(account_id)


class FriendListService:
    def __init__(self, storage: Storage) -> None:
        self._storage = storage

    def listing(self, account_id: str, after: str | None = None, limit: int = MAX_LIMIT) -> Page[AIUser]:
        """The caller's own AI users and the public ones they befriended, by id; only a page's are loaded."""
        with self._storage.begin() as uow:
            ids = set(uow.ai_users.owned_by(account_id))
            ids |= {f.ai_user_id for f in uow.ai_users.friendships_of(account_id)}
        ids_page = page_of([(ai_user_id, ai_user_id) for ai_user_id in sorted(ids)], after, limit)
        found = [self._load(ai_user_id) for ai_user_id in ids_page.items]
        shown = [a for a in found if a is not None and visible_to(account_id, a)]
        return Page(shown, ids_page.cursor)

    def public(self, limit: int, cursor: str | None, search: Search = EVERYONE) -> Page[AIUser]:
        """Listed AI users the search matches, by id, at most `limit`. One page reads about `DISCOVER_SCAN`
        listing entries at most, so a rare match may leave it short (even empty) with a cursor to read on."""
        after, found, scanned = _listing_key(cursor), [], 0
        while scanned < DISCOVER_SCAN:
            with self._storage.begin() as uow:
                entries, more = uow.ai_users.public(limit, after)
            for index, entry in enumerate(entries):
                scanned, after = scanned + 1, entry.ai_user_id
                if (ai_user := self._matching(entry, search)) is not None:
                    found.append(ai_user)
                if len(found) == limit:
                    return Page(found, cursor_after(after) if more or index + 1 < len(entries) else None)
            if not more:
                return Page(found, None)
        return Page(found, cursor_after(after) if after else None)

    def _matching(self, entry: Listed, search: Search) -> AIUser | None:
        """The entry's AI user if it is listed and the search matches it (the entry's copy rules most out)."""
        if entry.name is not None and not search.matches(entry.name, entry.tags, entry.category or DEFAULT_CATEGORY):
            return None
        ai_user = self._load(entry.ai_user_id)
        if ai_user is None or not ai_user.listed or not search.matches(ai_user.name, ai_user.tags, ai_user.category):
            return None
        return ai_user

    def ended(self, account_id: str) -> list[EndedFriendship]:
        """Friendships that ended because the AI user is no longer visible to the caller, and why: an
        operator took it down, or its owner made it private or deleted it (or is suspended). Chat,
        heartbeats and memory views stop; the memory is kept, exporting and forgetting still work."""
        with self._storage.begin() as uow:
            friendships = uow.ai_users.friendships_of(account_id)
        found = [(f.ai_user_id, self._load(f.ai_user_id)) for f in friendships]
        return [
            EndedFriendship(ai_user_id, a.name if a else None, _why(a))
            for ai_user_id, a in found
            if not visible_to(account_id, a)
        ]

    def kept(self, account_id: str, ai_user_id: str) -> tuple[PairId, AIUser]:
        """The caller's pair with a befriended AI user (in its current generation) and the AI user, whether or
        not it is still visible to them: what a friendship that ended keeps (its memory, to export, its chat,
        to report a message of); NotFound unless they are friends."""
        with self._storage.pair(PairId(account_id=account_id, ai_user_id=ai_user_id)) as uow:
            if uow.friendship.get() is None:
                raise NotFound("AI user not found")
            pair = uow.pair
        ai_user = self._load(ai_user_id)
        if ai_user is None:
            raise NotFound("AI user not found")
        return pair, ai_user

    def friend_page(self, account_id: str, after: str | None, limit: int) -> Page[tuple[AIUser, Friendship]]:
        """A page of the caller's friendships by AI user id, each with its AI user while still visible."""
        with self._storage.begin() as uow:
            friendships = uow.ai_users.friendships_of(account_id)
        found = page_of([(f.ai_user_id, f) for f in friendships], after, limit)
        shown = [(self._load(f.ai_user_id), f) for f in found.items]
        return Page([(a, f) for a, f in shown if a is not None and visible_to(account_id, a)], found.cursor)

    def friends(self, account_id: str) -> list[tuple[AIUser, dict[str, Any]]]:
        """Befriended AI users still visible to the caller, with the friendship (since, last_read)."""
        with self._storage.begin() as uow:
            friendships = uow.ai_users.friendships_of(account_id)
        result = []
        for friendship in friendships:
            ai_user = self._load(friendship.ai_user_id)
            if ai_user is not None and visible_to(account_id, ai_user):
                result.append((ai_user, friendship.model_dump(exclude={"ai_user_id"})))
        return result

    def _load(self, ai_user_id: str) -> AIUser | None:
        with self._storage.begin() as uow:
            return uow.ai_users.get(ai_user_id)


def _listing_key(cursor: str | None) -> str | None:
    """The AI user id a discover cursor continues after; a forged one is a 400, as it has always been."""
    try:
        return key_of(cursor)
    except Invalid as error:
        raise BadRequest(str(error)) from error


def _why(ai_user: AIUser | None) -> EndedReason:
    return "taken_down" if ai_user is not None and ai_user.moderation is not None else "no_longer_visible"
