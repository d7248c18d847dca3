"""Repositories of what an account keeps beside its pairs: its 关于我, locale and time zone, its Web
Push devices and switch, its conversation time, where its devices are looking (presence), and its
requests' Idempotency-Keys; and the erasure of a whole partition."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from dreamchat import keys
from dreamchat.domain.idempotency import KeyedRequest
from dreamchat.domain.presence import Seen
from dreamchat.domain.protection import Protection
from dreamchat.domain.push import PushSettings, Subscription
from dreamchat.domain.usage import Usage
from dreamchat.ports import TTL_ATTRIBUTE, ItemStore, KeyRange
from dreamchat.services.storage.records import Key, erase_partition
from dreamchat.services.storage.session import Session, Versioned, item, to_model, version_of

_LIST = ""  # where a device shows the chat list, not one chat


class AboutMe:
    """The person's own 关于我, given to every AI friend."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def get(self, account_id: str) -> str:
        """What the person wrote about themselves, empty when nothing."""
        found = self._session.get(keys.profile(account_id))
        return str(found.get("about_me") or "") if found else ""

    def save(self, account_id: str, about_me: str) -> None:
        self._session.put(item(keys.profile(account_id), {"about_me": about_me}))


class Protections:
    """The person's protections (`dreamchat.domain.protection.Protection`), changed over the version read."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def get(self, account_id: str) -> Versioned[Protection]:
        found = self._session.get(keys.protection(account_id))
        if found is None:
            return Versioned(Protection())
        return Versioned(to_model(Protection, found), version_of(found))

    def save(self, account_id: str, protection: Protection, over: Versioned[Protection]) -> None:
        self._session.put_over(item(keys.protection(account_id), protection.model_dump()), over)


class ConversationTimes:
    """The person's conversation time and reminders (`dreamchat.domain.usage.Usage`), over the version read."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def get(self, account_id: str) -> Versioned[Usage]:
        found = self._session.get(keys.conversation_time(account_id))
        if found is None:
            return Versioned(Usage())
        return Versioned(to_model(Usage, found), version_of(found))

    def save(self, account_id: str, usage: Usage, over: Versioned[Usage]) -> None:
        self._session.put_over(item(keys.conversation_time(account_id), usage.model_dump()), over)


class Choice:
    """One value the person may choose (their locale, their time zone): absent until chosen."""

    def __init__(self, session: Session, key: Callable[[str], Key], field: str) -> None:
        self._session = session
        self._key = key
        self._field = field

    def get(self, account_id: str) -> str | None:
        found = self._session.get(self._key(account_id))
        return str(found[self._field]) if found and found.get(self._field) else None

    def save(self, account_id: str, value: str | None) -> None:
        """Keep the value; None forgets it."""
        if value is None:
            self._session.delete(self._key(account_id))
        else:
            self._session.put(item(self._key(account_id), {self._field: value}))


class PushDevices:
    """An account's Web Push subscriptions, and which account each endpoint pushes for."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def of(self, account_id: str) -> list[Subscription]:
        found = self._session.query(keys.account_pk(account_id), KeyRange(prefix=keys.PUSH_PREFIX))
        return [Subscription.model_validate(each) for each in found]

    def has(self, account_id: str, subscription_id: str) -> bool:
        return self._session.get(keys.push_subscription(account_id, subscription_id)) is not None

    def owner(self, subscription_id: str) -> str | None:
        """The account the endpoint was last subscribed for."""
        found = self._session.get(keys.push_endpoint_owner(subscription_id))
        return str(found["account_id"]) if found is not None and found.get("account_id") is not None else None

    def add(self, account_id: str, subscription: Subscription) -> None:
        """The subscription, and its endpoint's owner: this account."""
        self._session.put(item(keys.push_subscription(account_id, subscription.id), subscription.model_dump()))
        self._session.put(item(keys.push_endpoint_owner(subscription.id), {"account_id": account_id}))

    def drop(self, account_id: str, subscription_id: str) -> None:
        """The account's subscription alone (its endpoint now pushes for another account)."""
        self._session.delete(keys.push_subscription(account_id, subscription_id))

    def remove(self, account_id: str, subscription_id: str) -> None:
        """The subscription, and its endpoint's owner while that is this account."""
        self.drop(account_id, subscription_id)
        if self.owner(subscription_id) == account_id:
            self._session.delete(keys.push_endpoint_owner(subscription_id))


class PushSwitches:
    """The person's one push switch (show the text or not)."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def get(self, account_id: str) -> PushSettings:
        found = self._session.get(keys.push_settings(account_id))
        return PushSettings(show_content=bool(found.get("show_content", True))) if found else PushSettings()

    def save(self, account_id: str, wanted: PushSettings) -> None:
        self._session.put(item(keys.push_settings(account_id), wanted.model_dump()))


class Presences:
    """Which chat each device shows, each item expiring by itself; and when each friend's chat was
    last open."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def show(self, account_id: str, device: str, ai_user_id: str | None, at: float, until: int) -> None:
        """The device shows this chat (None: the list) at `at`, until `until` unless it says so again."""
        fields = {"where": ai_user_id or _LIST, "at": at, TTL_ATTRIBUTE: until}
        self._session.put(item(keys.presence(account_id, device), fields))

    def open(self, account_id: str, ai_user_id: str, at: int, keep_until: int) -> None:
        """The chat with this AI user was open at `at` (kept until `keep_until`)."""
        self._session.put(item(keys.last_present(account_id, ai_user_id), {"at": at, TTL_ATTRIBUTE: keep_until}))

    def forget_open(self, account_id: str, ai_user_id: str) -> None:
        self._session.delete(keys.last_present(account_id, ai_user_id))

    def leave(self, account_id: str, device: str) -> None:
        self._session.delete(keys.presence(account_id, device))

    def last_open(self, account_id: str, ai_user_id: str) -> float | None:
        found = self._session.get(keys.last_present(account_id, ai_user_id))
        return float(found["at"]) if found else None

    def present(self, account_id: str, now: float, limit: int) -> list[Seen]:
        """At most `limit` devices present at `now` (an item past its expiry, not yet deleted, is not)."""
        page = self._session.store.query(
            keys.account_pk(account_id), KeyRange(prefix=keys.PRESENCE_PREFIX), limit=limit
        )
        return [
            Seen(found["sk"].removeprefix(keys.PRESENCE_PREFIX), str(found["where"]) or None)
            for found in page.items
            if int(found.get(TTL_ATTRIBUTE, 0)) > now
        ]


class IdempotencyKeys:
    """Requests' Idempotency-Keys, per account: claimed only while absent, kept until `keep_until`."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def get(self, account_id: str, key: str) -> KeyedRequest | None:
        found = self._session.get(keys.idempotency(account_id, key))
        if found is None:
            return None
        answer = json.loads(found["result"]) if found["done"] else None
        return KeyedRequest(found["fingerprint"], bool(found["done"]), answer)

    def claim(self, account_id: str, key: str, fingerprint: str, keep_until: int) -> None:
        """The key for this request, only if no request holds it (else the commit fails)."""
        fields = {"fingerprint": fingerprint, "done": False, "expires_at": keep_until}
        self._session.put(item(keys.idempotency(account_id, key), fields), if_absent=True)

    def answer(self, account_id: str, key: str, fingerprint: str, answer: Any, keep_until: int) -> None:
        result = json.dumps(answer, ensure_ascii=False)
        fields = {"fingerprint": fingerprint, "done": True, "result": result, "expires_at": keep_until}
        self._session.put(item(keys.idempotency(account_id, key), fields))

    def release(self, account_id: str, key: str) -> None:
        self._session.delete(keys.idempotency(account_id, key))


def erase(store: ItemStore, pk: str, also: tuple[Key, ...] = ()) -> int:
    """Delete every item of a partition and the single items `also` names, a transaction's worth at
    a time; how many (those of `also` counted whether stored or not)."""
    erased = erase_partition(store, pk)
    for key in also:
        store.delete(*key)
    return erased + len(also)
