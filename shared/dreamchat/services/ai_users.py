"""AI users (characters) and friendships: who may see, change, delete or talk to which.

An AI user is owned by the account that created it and is private unless public. Any other
account asking about a private one gets NotFound, exactly as if it did not exist.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import Any

from dreamchat import keys
from dreamchat.domain.models import AIUser, PairId
from dreamchat.errors import Conflict, Forbidden, NotFound
from dreamchat.ports import (
    BlobStore,
    Clock,
    ConditionFailed,
    Delete,
    Item,
    ItemStore,
    KeyRange,
    Put,
    query_all,
)
from dreamchat.services.pairs import NOTHING, Erased, erase_ai_user_blobs, erase_pair
from dreamchat.services.tombstones import Erasures

log = logging.getLogger(__name__)

_NOT_FOUND = "AI user not found"
_INTERNAL = ("pk", "sk", "version", "expires_at")
_FRIEND_WRITE_ATTEMPTS = 5


class AIUserService:
    def __init__(self, store: ItemStore, blobs: BlobStore, clock: Clock) -> None:
        self._store = store
        self._blobs = blobs
        self._clock = clock
        self._erasures = Erasures(store, blobs, clock)

    def create(self, owner_id: str, fields: dict[str, Any], *, ai_user_id: str | None = None) -> AIUser:
        """`ai_user_id`: one made by `new_ai_user_id` beforehand (a card import stores its blobs first)."""
        now = self._epoch()
        ai_user = AIUser(id=ai_user_id or new_ai_user_id(), owner_id=owner_id, created_at=now, updated_at=now, **fields)
        self._store.transact(
            [
                Put(_item(keys.ai_user(ai_user.id), ai_user.model_dump()), if_absent=True),
                Put(_item(keys.owned(owner_id, ai_user.id), {"ai_user_id": ai_user.id})),
                *self._friendship(owner_id, ai_user.id, now),
                *self._listing(ai_user),
            ]
        )
        return ai_user

    def visible(self, account_id: str, ai_user_id: str) -> AIUser:
        """The AI user if the caller owns it or it is public; NotFound otherwise."""
        ai_user = self._load(ai_user_id)
        if ai_user is None or (ai_user.owner_id != account_id and ai_user.visibility != "public"):
            raise NotFound(_NOT_FOUND)
        return ai_user

    def owned(self, account_id: str, ai_user_id: str) -> AIUser:
        ai_user = self.visible(account_id, ai_user_id)
        if ai_user.owner_id != account_id:
            raise Forbidden("only the owner may change this AI user")
        return ai_user

    def update(self, account_id: str, ai_user_id: str, changes: dict[str, Any]) -> AIUser:
        current = self.owned(account_id, ai_user_id)
        updated = AIUser.model_validate({**current.model_dump(), **changes, "updated_at": self._epoch()})
        operations: list[Put | Delete] = [Put(_item(keys.ai_user(updated.id), updated.model_dump()))]
        operations += self._listing(updated) or [Delete(*keys.public_listing(updated.id))]
        self._store.transact(operations)
        return updated

    def delete(self, account_id: str, ai_user_id: str) -> Erased:
        """Delete the AI user and every pair it has, with every account."""
        self.owned(account_id, ai_user_id)
        return self._delete(ai_user_id, account_id)

    def listing(self, account_id: str) -> list[AIUser]:
        """The caller's own AI users and the public ones they befriended."""
        ids = {item["ai_user_id"] for item in self._all(keys.account_pk(account_id), keys.OWNS_PREFIX)}
        ids |= {item["ai_user_id"] for item in self._all(keys.account_pk(account_id), keys.FRIEND_PREFIX)}
        found = [self._load(ai_user_id) for ai_user_id in sorted(ids)]
        return [a for a in found if a and (a.owner_id == account_id or a.visibility == "public")]

    def public(self, limit: int, cursor: str | None) -> tuple[list[AIUser], str | None]:
        page = self._store.query(keys.PUBLIC_PK, limit=limit, cursor=cursor)
        found = [self._load(item["ai_user_id"]) for item in page.items]
        return [a for a in found if a and a.visibility == "public"], page.cursor

    def befriend(self, account_id: str, ai_user_id: str) -> AIUser:
        ai_user = self.visible(account_id, ai_user_id)
        if self._store.get(*keys.friend(account_id, ai_user_id)) is None:
            self._erasures.lift_pair(PairId(account_id=account_id, ai_user_id=ai_user_id))
            self._store.transact(self._friendship(account_id, ai_user_id, self._epoch()))
        return ai_user

    def unfriend(self, account_id: str, ai_user_id: str, *, forget: bool) -> Erased:
        pair = self.pair(account_id, ai_user_id)
        self._store.delete(*keys.friend(account_id, ai_user_id))
        if not forget:
            return NOTHING
        self._erasures.mark_pair(pair)
        erased = erase_pair(self._store, self._blobs, pair)
        self._store.delete(*keys.pair_member(ai_user_id, account_id))
        return erased

    def friends(self, account_id: str) -> list[tuple[AIUser, dict[str, Any]]]:
        """Befriended AI users still visible to the caller, with the friendship (since, last_read)."""
        result = []
        for item in self._all(keys.account_pk(account_id), keys.FRIEND_PREFIX):
            ai_user = self._load(item["ai_user_id"])
            if ai_user and (ai_user.owner_id == account_id or ai_user.visibility == "public"):
                result.append(
                    (
                        ai_user,
                        {
                            "since": item["since"],
                            "last_read": item.get("last_read"),
                            "pinned": bool(item.get("pinned")),
                            "muted": bool(item.get("muted")),
                        },
                    )
                )
        return result

    def set_friendship(self, account_id: str, ai_user_id: str, changes: dict[str, bool]) -> dict[str, bool]:
        """Pin or mute one friend in the caller's chat list; NotFound unless they are friends."""
        self.pair(account_id, ai_user_id)
        updated = self._change_friend(account_id, ai_user_id, lambda found: changes)
        if updated is None:
            raise NotFound(_NOT_FOUND)
        return {"pinned": bool(updated.get("pinned")), "muted": bool(updated.get("muted"))}

    def claim_greeting(self, pair: PairId) -> bool:
        """True once per pair, whoever asks at the same moment (two tabs opening a new chat): the
        opening message is stored by the one request whose conditional write made the claim."""
        return self._store.put_if_absent({"pk": keys.pair_pk(pair), "sk": keys.GREETED_SK})

    def mark_read(self, account_id: str, ai_user_id: str, message_id: str) -> None:
        """Remember the newest message the person has seen (for unread counts)."""
        try:
            self._change_friend(
                account_id,
                ai_user_id,
                lambda found: {"last_read": message_id} if (found.get("last_read") or "") < message_id else None,
            )
        except Conflict:  # the friendship kept changing: the next read of the chat marks it
            log.info("read mark skipped account=%s ai_user=%s", account_id, ai_user_id)

    def pair(self, account_id: str, ai_user_id: str) -> PairId:
        """The caller's pair with this AI user; NotFound unless they are friends and it is visible."""
        return self.companion(account_id, ai_user_id)[0]

    def companion(self, account_id: str, ai_user_id: str) -> tuple[PairId, AIUser]:
        """The caller's pair with this AI user, and the AI user, read once."""
        ai_user = self.visible(account_id, ai_user_id)
        if self._store.get(*keys.friend(account_id, ai_user_id)) is None:
            raise NotFound(_NOT_FOUND)
        return PairId(account_id=account_id, ai_user_id=ai_user_id), ai_user

    def erase_account(self, account_id: str) -> Erased:
        """An account's AI users (with all their pairs) and its own pairs with others' AI users.

        Tombstones first: from then on nothing in flight can write to what is being erased."""
        self._erasures.mark(keys.account_pk(account_id))
        erased = NOTHING
        for item in self._all(keys.account_pk(account_id), keys.OWNS_PREFIX):
            erased += self._delete(item["ai_user_id"], account_id)
        for item in self._all(keys.account_pk(account_id), keys.FRIEND_PREFIX):
            pair = PairId(account_id=account_id, ai_user_id=item["ai_user_id"])
            self._erasures.mark_pair(pair)
            erased += erase_pair(self._store, self._blobs, pair)
            self._store.transact(
                [Delete(item["pk"], item["sk"]), Delete(*keys.pair_member(item["ai_user_id"], account_id))]
            )
        return erased

    def _delete(self, ai_user_id: str, owner_id: str) -> Erased:
        self._erasures.mark(keys.ai_user_pk(ai_user_id))
        erased = NOTHING
        for member in self._all(keys.ai_user_pk(ai_user_id), keys.PAIR_MEMBER_PREFIX):
            pair = PairId(account_id=member["account_id"], ai_user_id=ai_user_id)
            self._erasures.mark_pair(pair)
            erased += erase_pair(self._store, self._blobs, pair)
            self._store.transact(
                [Delete(*keys.friend(pair.account_id, ai_user_id)), Delete(member["pk"], member["sk"])]
            )
        self._store.transact(
            [
                Delete(*keys.ai_user(ai_user_id)),
                Delete(*keys.owned(owner_id, ai_user_id)),
                Delete(*keys.public_listing(ai_user_id)),
            ]
        )
        return erased + erase_ai_user_blobs(self._blobs, ai_user_id)

    def _friendship(self, account_id: str, ai_user_id: str, now: int) -> list[Put | Delete]:
        return [
            Put(
                _item(
                    keys.friend(account_id, ai_user_id),
                    {"ai_user_id": ai_user_id, "since": now, "version": _first_version()},
                )
            ),
            Put(_item(keys.pair_member(ai_user_id, account_id), {"account_id": account_id, "since": now})),
        ]

    def _change_friend(
        self, account_id: str, ai_user_id: str, change: Callable[[Item], dict[str, Any] | None]
    ) -> Item | None:
        """Apply `change` to the friendship as it is stored now; None when there is none.

        Pin, mute and the read mark are written over the version they were computed from, so two
        of them at once both land, the read mark never moves back, and a write racing an unfriend
        cannot bring the friendship back (the version condition needs the item to exist). Each
        friendship starts at a random version, so a write computed from an unfriended one never
        lands on the next. An item stored before friendships had versions gets its first one, on
        the condition that it still has none.
        """
        for _ in range(_FRIEND_WRITE_ATTEMPTS):
            found = self._store.get(*keys.friend(account_id, ai_user_id))
            if found is None:
                return None
            changes = change(found)
            if not changes:
                return found
            updated = {**found, **changes}
            try:
                if "version" in found:
                    self._store.put_versioned(updated, found["version"])
                else:
                    self._store.transact([Put({**updated, "version": _first_version()}, if_unversioned=True)])
            except ConditionFailed:
                continue
            return updated
        raise Conflict("the friendship kept changing; try again")

    def _listing(self, ai_user: AIUser) -> list[Put | Delete]:
        if ai_user.visibility != "public":
            return []
        return [Put(_item(keys.public_listing(ai_user.id), {"ai_user_id": ai_user.id}))]

    def _load(self, ai_user_id: str) -> AIUser | None:
        item = self._store.get(*keys.ai_user(ai_user_id))
        return AIUser.model_validate({k: v for k, v in item.items() if k not in _INTERNAL}) if item else None

    def _all(self, pk: str, prefix: str) -> list[Item]:
        return query_all(self._store, pk, KeyRange(prefix=prefix))

    def _epoch(self) -> int:
        return int(self._clock.now().timestamp())


def new_ai_user_id() -> str:
    return f"ai_{uuid.uuid4().hex[:16]}"


def _first_version() -> int:
    """A friendship's first version: random (52 bits), so no two friendships of one pair share versions."""
    return uuid.uuid4().int >> 76


def _item(key: tuple[str, str], fields: dict[str, Any]) -> dict[str, Any]:
    return {"pk": key[0], "sk": key[1], **fields}
