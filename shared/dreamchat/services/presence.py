"""Presence: which chat each of the person's devices shows right now.

A visible page says so every 30 s and when it is shown or hidden: one write each time, an item that
expires `DREAMCHAT_PRESENCE_SECONDS` later, so a device that vanished (closed, out of battery, offline)
stops counting by itself. Nothing here is kept longer than that, except one moment per friend's chat:
when it was last seen open (`last_seen`), from which that pair's timed heartbeat counts the person's
silence. It expires too, once it can no longer hold a heartbeat back (`LAST_SEEN_KEPT`), and erasing
the pair erases it. The route writes only for a friend's chat, so every item here is bounded.
"""

from __future__ import annotations

from dreamchat.domain.heartbeat import LONGEST_WAIT
from dreamchat.domain.presence import Seen
from dreamchat.ports import Clock
from dreamchat.services.storage.unit_of_work import Storage

__all__ = ["LAST_SEEN_KEPT", "MAX_DEVICES", "PresenceService", "Seen"]

# The moment a chat was last open only moves its next timed heartbeat, and none waits longer than this.
LAST_SEEN_KEPT = int(LONGEST_WAIT.total_seconds())
MAX_DEVICES = 50  # read at most this many (an account's own devices; more only by abuse of its own)


class PresenceService:
    def __init__(self, storage: Storage, clock: Clock, seconds: int) -> None:
        self._storage = storage
        self._clock = clock
        self._seconds = seconds

    def seen(self, account_id: str, device: str, ai_user_id: str | None) -> None:
        """The device shows this chat (None: the list) now; the caller checked it is a friend's."""
        now = self._clock.now().timestamp()
        with self._storage.begin() as uow:
            uow.presences.show(account_id, device, ai_user_id, now, int(now) + self._seconds)
            if ai_user_id:
                uow.presences.open(account_id, ai_user_id, int(now), int(now) + LAST_SEEN_KEPT)
            uow.commit()

    def left(self, account_id: str, device: str) -> None:
        """The device's page was hidden or closed: it shows nothing any more."""
        with self._storage.begin() as uow:
            uow.presences.leave(account_id, device)
            uow.commit()

    def last_seen(self, account_id: str, ai_user_id: str) -> float | None:
        """When a device of the account last showed the chat with this AI user (within one beat, 30 s), or None."""
        with self._storage.begin() as uow:
            return uow.presences.last_open(account_id, ai_user_id)

    def devices(self, account_id: str) -> list[Seen]:
        """The devices present now (expired items are never returned by the store)."""
        with self._storage.begin() as uow:
            return uow.presences.present(account_id, self._clock.now().timestamp(), MAX_DEVICES)
