"""Presence: which chat each of the person's devices shows right now.

A visible page says so every 30 s and when it is shown or hidden: one write each time, an item that
expires `DREAMCHAT_PRESENCE_SECONDS` later, so a device that vanished (closed, out of battery, offline)
stops counting by itself. Nothing here is kept longer than that, except one moment per friend's chat:
when it was last seen open (`last_seen`), from which that pair's timed heartbeat counts the person's
silence. It expires too, once it can no longer hold a heartbeat back (`LAST_SEEN_KEPT`), and erasing
the pair erases it. The route writes only for a friend's chat, so every item here is bounded.
"""

from __future__ import annotations

from dataclasses import dataclass

from dreamchat import keys
from dreamchat.domain.heartbeat import LONGEST_WAIT
from dreamchat.ports import TTL_ATTRIBUTE, Clock, ItemStore, KeyRange

LIST = ""  # the chat list, not one chat
# The moment a chat was last open only moves its next timed heartbeat, and none waits longer than this.
LAST_SEEN_KEPT = int(LONGEST_WAIT.total_seconds())
MAX_DEVICES = 50  # read at most this many (an account's own devices; more only by abuse of its own)


@dataclass(frozen=True)
class Seen:
    device: str
    ai_user_id: str | None  # None: the chat list


class Presence:
    def __init__(self, store: ItemStore, clock: Clock, seconds: int) -> None:
        self._store = store
        self._clock = clock
        self._seconds = seconds

    def seen(self, account_id: str, device: str, ai_user_id: str | None) -> None:
        """The device shows this chat (None: the list) now; the caller checked it is a friend's."""
        pk, sk = keys.presence(account_id, device)
        now = self._clock.now().timestamp()
        where = ai_user_id or LIST
        self._store.put({"pk": pk, "sk": sk, "where": where, "at": now, TTL_ATTRIBUTE: int(now) + self._seconds})
        if ai_user_id:
            pk, sk = keys.last_present(account_id, ai_user_id)
            self._store.put({"pk": pk, "sk": sk, "at": int(now), TTL_ATTRIBUTE: int(now) + LAST_SEEN_KEPT})

    def left(self, account_id: str, device: str) -> None:
        """The device's page was hidden or closed: it shows nothing any more."""
        self._store.delete(*keys.presence(account_id, device))

    def last_seen(self, account_id: str, ai_user_id: str) -> float | None:
        """When a device of the account last showed the chat with this AI user (within one beat, 30 s), or None."""
        found = self._store.get(*keys.last_present(account_id, ai_user_id))
        return float(found["at"]) if found else None

    def devices(self, account_id: str) -> list[Seen]:
        """The devices present now (expired items are never returned by the store)."""
        page = self._store.query(keys.account_pk(account_id), KeyRange(prefix=keys.PRESENCE_PREFIX), limit=MAX_DEVICES)
        now = self._clock.now().timestamp()
        return [
            Seen(item["sk"].removeprefix(keys.PRESENCE_PREFIX), str(item["where"]) or None)
            for item in page.items
            if int(item.get(TTL_ATTRIBUTE, 0)) > now
        ]
