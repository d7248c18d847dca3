"""AI users (characters) and friendships: who may see, change, delete or talk to which. An AI user is
owned by its creator and private unless public; another account asking about a private one gets NotFound."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dreamchat import keys
from dreamchat.domain.models import AIUser, Friendship, PairId
from dreamchat.domain.moderation import publish_refusal
from dreamchat.domain.personas import first_problem
from dreamchat.errors import Conflict, Contended, Forbidden, Invalid, NotFound
from dreamchat.ports import BlobStore, Clock
from dreamchat.services.friend_lists import visible_to
from dreamchat.services.pairs import NOTHING, Erased, end_pair, erase_ai_user_blobs, erase_pair
from dreamchat.services.storage.unit_of_work import Storage, UnitOfWork, retry_on_conflict
from dreamchat.services.tombstones import ErasureService, Gone

log = logging.getLogger(__name__)

_NOT_FOUND = "AI user not found"


@dataclass(frozen=True)
class Caps:
    """What one account may hold: AI users it made, and friendships (its own AI users count too)."""

    ai_users: int = 100
    friends: int = 300


class AIUserService:
    def __init__(self, storage: Storage, blobs: BlobStore, clock: Clock, caps: Caps | None = None) -> None:
        self._caps = caps or Caps()
        self._storage = storage
        self._blobs = blobs
        self._clock = clock
        self._erasures = ErasureService(self._storage, blobs, clock)

    def create(self, owner_id: str, fields: dict[str, Any], *, ai_user_id: str | None = None) -> AIUser:
        """`ai_user_id`: one made by `new_ai_user_id` beforehand (a card import stores its blobs first)."""
        _refuse_unfit(fields)
        now = self._epoch()
        ai_user = AIUser(id=ai_user_id or new_ai_user_id(), owner_id=owner_id, created_at=now, updated_at=now, **fields)
        with self._storage.pair(PairId(account_id=owner_id, ai_user_id=ai_user.id)) as uow:
            if len(uow.ai_users.owned_by(owner_id)) >= self._caps.ai_users:
                raise Conflict(f"an account may make at most {self._caps.ai_users} AI users; delete one first")
            self._room_for_a_friend(uow, owner_id)
            uow.ai_users.add(ai_user)
            uow.friendship.add(now)
            uow.commit()
        return ai_user

    def visible(self, account_id: str, ai_user_id: str) -> AIUser:
        """The AI user if the caller owns it or it is public; NotFound otherwise."""
        ai_user = self._load(ai_user_id)
        if ai_user is None or not visible_to(account_id, ai_user):
            raise NotFound(_NOT_FOUND)
        return ai_user

    def owned(self, account_id: str, ai_user_id: str) -> AIUser:
        ai_user = self.visible(account_id, ai_user_id)
        if ai_user.owner_id != account_id:
            raise Forbidden("only the owner may change this AI user")
        return ai_user

    def update(self, account_id: str, ai_user_id: str, changes: dict[str, Any]) -> AIUser:
        """The owner's change, over the version read (an operator's takedown meanwhile stands); one taken
        down cannot be made public until an operator restores it."""
        self.owned(account_id, ai_user_id)
        _refuse_unfit(changes)

        def owners(current: AIUser) -> AIUser:
            if (refused := publish_refusal(current, changes.get("visibility"))) is not None:
                raise Forbidden(refused)
            return AIUser.model_validate({**current.model_dump(), **changes, "updated_at": self._epoch()})

        return self.change(ai_user_id, owners)

    def change(self, ai_user_id: str, decide: Callable[[AIUser], AIUser]) -> AIUser:
        """`decide` applied to the AI user as stored now, over the version read; NotFound when gone."""

        def write() -> AIUser:
            with self._storage.begin() as uow:
                read = uow.ai_users.read(ai_user_id)
                if read is None:
                    raise NotFound(_NOT_FOUND)
                changed = decide(read.entity)
                uow.ai_users.save(changed, read)
                uow.commit()
            return changed

        return retry_on_conflict(write)

    def delete(self, account_id: str, ai_user_id: str) -> Erased:
        """Delete the AI user and every pair it has, with every account."""
        self.owned(account_id, ai_user_id)
        return self._delete(ai_user_id, account_id)

    def befriend(self, account_id: str, ai_user_id: str) -> AIUser:
        ai_user = self.visible(account_id, ai_user_id)
        pair = PairId(account_id=account_id, ai_user_id=ai_user_id)
        with self._storage.pair(pair) as uow:
            if uow.friendship.get() is None:
                self._room_for_a_friend(uow, account_id)
                self._erasures.lift_pair(pair)
                uow.friendship.add(self._epoch())
                uow.commit()
        return ai_user

    def unfriend(self, account_id: str, ai_user_id: str, *, forget: bool) -> Erased:
        """End the friendship (`forget`: and erase the pair), whether or not the AI user is still visible.
        Forgetting ends the pair's generation first, so nothing computed in it lands in a friendship begun
        again at once; a befriending that won the race keeps its own record."""
        pair = self._friend_pair(account_id, ai_user_id)
        if forget:
            self._erasures.mark_pair(pair)
        with self._storage.pair(pair) as uow:
            uow.friendship.remove(member=forget)
            try:
                uow.commit()
            except Contended:
                self._lost_to_a_befriending(pair)  # or to another forget: then erase as it does
        return erase_pair(self._storage, self._blobs, pair) if forget else NOTHING

    def _lost_to_a_befriending(self, pair: PairId) -> None:
        """A forget whose generation ended meanwhile: if a new friendship began, it keeps its data
        (and must be writable: the tombstone goes); Contended."""
        with self._storage.pair(pair.seen_in(None)) as uow:
            if uow.friendship.get() is None:
                return
        self._erasures.lift_pair(pair)
        raise Contended("the friendship began again meanwhile; nothing was forgotten")

    def set_friendship(self, account_id: str, ai_user_id: str, changes: dict[str, bool]) -> dict[str, bool]:
        """Pin or mute one friend in the caller's chat list; NotFound unless they are friends."""
        pair = self.pair(account_id, ai_user_id)
        updated = self._change_friend(
            pair, lambda found: Friendship.model_validate({**found.model_dump(), **changes}) if changes else None
        )
        if updated is None:
            raise NotFound(_NOT_FOUND)
        return {"pinned": updated.pinned, "muted": updated.muted}

    def mark_read(self, account_id: str, ai_user_id: str, message_id: str) -> None:
        """Remember the newest message the person has seen (for unread counts)."""
        pair = PairId(account_id=account_id, ai_user_id=ai_user_id)
        try:
            self._change_friend(
                pair,
                lambda found: (
                    found.model_copy(update={"last_read": message_id}) if (found.last_read or "") < message_id else None
                ),
            )
        except Contended:  # the friendship kept changing: the next read of the chat marks it
            log.info("read mark skipped account=%s ai_user=%s", account_id, ai_user_id)

    def pair(self, account_id: str, ai_user_id: str) -> PairId:
        """The caller's pair with this AI user; NotFound unless they are friends and it is visible."""
        return self.companion(account_id, ai_user_id)[0]

    def companion(self, account_id: str, ai_user_id: str) -> tuple[PairId, AIUser]:
        """The caller's pair with this AI user (seen in its current generation), and the AI user."""
        ai_user = self.visible(account_id, ai_user_id)
        return self._friend_pair(account_id, ai_user_id), ai_user

    def _friend_pair(self, account_id: str, ai_user_id: str) -> PairId:
        """The caller's pair, in its current generation; NotFound unless they are friends."""
        with self._storage.pair(PairId(account_id=account_id, ai_user_id=ai_user_id)) as uow:
            if uow.friendship.get() is None:
                raise NotFound(_NOT_FOUND)
            return uow.pair

    def erase_account(self, account_id: str) -> Erased:
        """An account's AI users (with all their pairs) and its own pairs with others' AI users.

        Tombstones first: from then on nothing in flight can write to what is being erased."""
        self._erasures.mark(keys.account_pk(account_id))
        erased = NOTHING
        with self._storage.begin() as uow:
            owned = uow.ai_users.owned_by(account_id)
        for ai_user_id in owned:
            erased += self._delete(ai_user_id, account_id)
        with self._storage.begin() as uow:
            friendships = uow.ai_users.friendships_of(account_id)
        for friendship in friendships:
            pair = PairId(account_id=account_id, ai_user_id=friendship.ai_user_id)
            erased += end_pair(self._storage, self._blobs, self._erasures.mark_pair, pair)
        return erased

    def _delete(self, ai_user_id: str, owner_id: str) -> Erased:
        self._erasures.mark(keys.ai_user_pk(ai_user_id))
        erased = NOTHING
        with self._storage.begin() as uow:
            members = uow.ai_users.members(ai_user_id)
        for account_id in members:
            pair = PairId(account_id=account_id, ai_user_id=ai_user_id)
            erased += end_pair(self._storage, self._blobs, self._erasures.mark_pair, pair)
        with self._storage.begin() as uow:
            uow.ai_users.remove(ai_user_id, owner_id)
            uow.commit()
        return erased + erase_ai_user_blobs(self._blobs, ai_user_id)

    def _change_friend(self, pair: PairId, change: Callable[[Friendship], Friendship | None]) -> Friendship | None:
        """`change` applied to the friendship as stored now (None when there is none), over the version
        read: two at once both land, the read mark never moves back, an unfriend meanwhile stands."""

        def write() -> Friendship | None:
            with self._storage.pair(pair.seen_in(None)) as uow:  # the friendship as it is now, each time
                read = uow.friendship.get()
                if read is None:
                    return None
                changed = change(read.entity)
                if changed is None:
                    return read.entity
                uow.friendship.save(changed, read)
                try:
                    uow.commit()
                except Gone:  # a friendship begun again meanwhile: read it afresh
                    raise Contended("the friendship kept changing; try again") from None
            return changed

        return retry_on_conflict(write)

    def _load(self, ai_user_id: str) -> AIUser | None:
        with self._storage.begin() as uow:
            return uow.ai_users.get(ai_user_id)

    def _room_for_a_friend(self, uow: UnitOfWork, account_id: str) -> None:
        if len(uow.ai_users.friendships_of(account_id)) >= self._caps.friends:
            raise Conflict(f"an account may have at most {self._caps.friends} AI friends; remove one first")

    def _epoch(self) -> int:
        return int(self._clock.now().timestamp())


def _refuse_unfit(fields: dict[str, Any]) -> None:
    """Invalid (naming the field) when a name shows nothing or the greeting claims to be human."""
    found = first_problem(fields)
    if found is not None:
        raise Invalid(f"{found[0]}: {found[1]}")


def new_ai_user_id() -> str:
    return f"ai_{uuid.uuid4().hex[:16]}"
