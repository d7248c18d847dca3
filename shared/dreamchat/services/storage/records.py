"""Repositories of what is not one pair's memory: AI users, accounts and their token families,
leases on background work, request-limit windows, tombstones, and the erasure of a partition."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from dreamchat import keys
from dreamchat.domain.discover import Listed
from dreamchat.domain.models import Account, AIUser, Friendship, TokenFamily
from dreamchat.domain.sessions import ContinuousUse
from dreamchat.ports import MAX_TRANSACTION_ITEMS, Delete, Item, ItemStore, KeyRange
from dreamchat.services.storage.session import Session, Versioned, due, item, to_model, version_of, without_due

Key = tuple[str, str]


@dataclass(frozen=True)
class Lease:
    """A claim on background work: held until `lease_until`, after `attempts` tries, or done."""

    lease_until: int
    attempts: int
    done: bool = False


class Claims:
    """Leases on work items, each written over the version read (of two claimants one wins)."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def get(self, key: Key) -> Versioned[Lease] | None:
        found = self._session.get(key)
        if found is None:
            return None
        return Versioned(Lease(found["lease_until"], found["attempts"], bool(found.get("done"))), version_of(found))

    def save(self, key: Key, lease: Lease, over: Versioned[Lease] | None, keep_until: int) -> Versioned[Lease]:
        """The lease over the one read (None: none may exist yet); as it is once committed."""
        return Versioned(lease, self._session.put_over(self._item(key, lease, keep_until), over))

    def finish(self, key: Key, lease: Lease, held: Versioned[Lease] | None, keep_until: int) -> None:
        """Done is final: written whatever happened to the lease meanwhile."""
        self._session.put_done(self._item(key, lease, keep_until), held.version if held else None)

    @staticmethod
    def _item(key: Key, lease: Lease, keep_until: int) -> Item:
        fields = {"lease_until": lease.lease_until, "attempts": lease.attempts, "done": lease.done}
        return item(key, {**fields, "expires_at": keep_until})


class RateWindows:
    """Request counts per fixed window, each count written over the one read."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def get(self, key: Key) -> Versioned[int]:
        found = self._session.get(key)
        return Versioned(int(found["count"]), version_of(found)) if found else Versioned(0)

    def save(self, key: Key, count: int, over: Versioned[int], expires_at: int) -> None:
        self._session.put_over(item(key, {"count": count, "expires_at": expires_at}), over)

    def forget(self, key: Key) -> None:
        self._session.delete(key)


class UsageSessions:
    """Each account's continuous use (the break reminder), written over the one read."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def get(self, account_id: str) -> Versioned[ContinuousUse] | None:
        found = self._session.get(keys.session(account_id))
        return Versioned(ContinuousUse.model_validate(found), version_of(found)) if found else None

    def save(self, account_id: str, usage: ContinuousUse, over: Versioned[ContinuousUse] | None) -> None:
        self._session.put_over(item(keys.session(account_id), usage.model_dump()), over)


class Accounts:
    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, account: Account) -> None:
        """The account and its username, both only if absent (a taken username fails the commit)."""
        self._session.put(item(keys.username(account.username), {"account_id": account.id}), if_absent=True)
        self._session.put(item(keys.account(account.id), account.model_dump()), if_absent=True)

    def get(self, account_id: str) -> Account | None:
        found = self._session.get(keys.account(account_id))
        return to_model(Account, found) if found else None

    def read(self, account_id: str) -> Versioned[Account] | None:
        """The account and the version it was read at, to change it over that version."""
        found = self._session.get(keys.account(account_id))
        return Versioned(to_model(Account, found), version_of(found)) if found else None

    def save(self, account: Account, over: Versioned[Account]) -> None:
        """Over the version read (of two operators at once, one wins); the username stays as it is."""
        key = keys.account(account.id)
        self._session.put_over({**self._session.read(key), **account.model_dump()}, over)

    def named(self, username: str) -> Account | None:
        """The account of a normalised username: by how it looks, else as registered before skeletons."""
        pointer = self._session.get(keys.username(username)) or self._session.get(keys.legacy_username(username))
        return self.get(pointer["account_id"]) if pointer else None


class TokenFamilies:
    """Refresh-token families: rotated over the version read, revoked whatever happened meanwhile."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def get(self, account_id: str, family: str) -> Versioned[TokenFamily] | None:
        found = self._session.get(keys.token_family(account_id, family))
        return Versioned(to_model(TokenFamily, found), version_of(found)) if found else None

    def save(self, tokens: TokenFamily, over: Versioned[TokenFamily] | None, expires_at: int) -> None:
        key = keys.token_family(tokens.account_id, tokens.family)
        written = {**self._session.read(key), **tokens.model_dump(), "expires_at": expires_at}
        self._session.put_over(written, over)

    def all(self, account_id: str) -> list[Versioned[TokenFamily]]:
        """Every token family of the account (every login it has had)."""
        found = self._session.query(keys.account_pk(account_id), KeyRange(prefix=keys.TOKEN_PREFIX))
        return [Versioned(to_model(TokenFamily, i), version_of(i)) for i in found]

    def revoke(self, read: Versioned[TokenFamily]) -> None:
        """Revocation must stick even if another request rotates meanwhile: written unconditionally."""
        key = keys.token_family(read.entity.account_id, read.entity.family)
        self._session.put({**self._session.read(key), "revoked": True})


class AIUsers:
    """AI users, who owns each, the public listing, and who has a pair with each."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def get(self, ai_user_id: str) -> AIUser | None:
        found = self._session.get(keys.ai_user(ai_user_id))
        return to_model(AIUser, found) if found else None

    def read(self, ai_user_id: str) -> Versioned[AIUser] | None:
        """The AI user and the version it was read at, to change it over that version."""
        found = self._session.get(keys.ai_user(ai_user_id))
        return Versioned(to_model(AIUser, found), version_of(found)) if found else None

    def add(self, ai_user: AIUser) -> None:
        self._session.put(item(keys.ai_user(ai_user.id), ai_user.model_dump()), if_absent=True)
        self._session.put(item(keys.owned(ai_user.owner_id, ai_user.id), {"ai_user_id": ai_user.id}))
        if ai_user.listed:
            self._list(ai_user)

    def save(self, ai_user: AIUser, over: Versioned[AIUser]) -> None:
        """Over the version read: an owner's edit and an operator's takedown at once, one wins."""
        self._session.put_over(item(keys.ai_user(ai_user.id), ai_user.model_dump()), over)
        self._list(ai_user)

    def remove(self, ai_user_id: str, owner_id: str) -> None:
        for key in (keys.ai_user(ai_user_id), keys.owned(owner_id, ai_user_id), keys.public_listing(ai_user_id)):
            self._session.delete(key)

    def owned_by(self, account_id: str) -> list[str]:
        return [
            i["ai_user_id"] for i in self._session.query(keys.account_pk(account_id), KeyRange(prefix=keys.OWNS_PREFIX))
        ]

    def friendships_of(self, account_id: str) -> list[Friendship]:
        found = self._session.query(keys.account_pk(account_id), KeyRange(prefix=keys.FRIEND_PREFIX))
        return [to_model(Friendship, i) for i in found]

    def members(self, ai_user_id: str) -> list[str]:
        """The accounts that have a pair with the AI user."""
        found = self._session.query(keys.ai_user_pk(ai_user_id), KeyRange(prefix=keys.PAIR_MEMBER_PREFIX))
        return [i["account_id"] for i in found]

    def public(self, limit: int, after: str | None) -> tuple[list[Listed], bool]:
        """Up to `limit` entries of the public listing after the AI user id `after`, by id, and whether
        more follow: what a search reads before loading an AI user."""
        start = keys.public_listing(after)[1] if after else None
        page = self._session.store.query(keys.PUBLIC_PK, KeyRange(start=start), limit=limit + 2)
        entries = [_listed(i) for i in page.items if i["ai_user_id"] != after]
        return entries[:limit], len(entries) > limit

    def _list(self, ai_user: AIUser) -> None:
        if ai_user.listed:
            shown = {"name": ai_user.name, "tags": ai_user.tags, "category": ai_user.category}
            self._session.put(item(keys.public_listing(ai_user.id), {"ai_user_id": ai_user.id, **shown}))
        else:
            self._session.delete(keys.public_listing(ai_user.id))


def _listed(found: Item) -> Listed:
    """A listing entry; one written before entries named what a search reads holds only the id."""
    if "name" not in found:
        return Listed(found["ai_user_id"])
    return Listed(found["ai_user_id"], found["name"], tuple(found.get("tags") or ()), found.get("category"))


class Tombstones:
    """Left by an erasure, in the due index `ERASE#00` until its second erasure."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def mark(self, owner: str, keep_until: int, again: str) -> None:
        key = keys.tombstone(owner)
        fields = {"owner": owner, "expires_at": keep_until, **due(keys.ERASE_DUE_KIND, 0, keys.due_sort(again, key[0]))}
        self._session.put(item(key, fields))

    def lift(self, owner: str) -> None:
        self._session.delete(keys.tombstone(owner))

    def due(self, until: str) -> Iterator[str]:
        """The owners whose second erasure is due by `until`, page by page from the due index."""
        cursor = None
        while True:
            page = self._session.store.query_due(keys.due_partition(keys.ERASE_DUE_KIND, 0), until, cursor=cursor)
            yield from (self._session.remember(found)["owner"] for found in page.items)
            if (cursor := page.cursor) is None:
                return

    def erased_again(self, owner: str) -> None:
        """A due tombstone (read by `due`) leaves the index: its second erasure ran."""
        self._session.put(without_due(self._session.read(keys.tombstone(owner))))


def erase_partition(store: ItemStore, pk: str) -> int:
    """Delete every item of a partition, a transaction's worth at a time; how many."""
    erased = 0
    while True:
        page = store.query(pk, limit=MAX_TRANSACTION_ITEMS)
        if not page.items:
            return erased
        store.transact([Delete(found["pk"], found["sk"]) for found in page.items])
        erased += len(page.items)
