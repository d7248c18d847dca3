"""The person's continuous use, kept per account: every message continues it (and is told to `on_message`:
the conversation time, `dreamchat.services.usage`), and a reply may be preceded by the break reminder
(`dreamchat.domain.sessions`)."""

from __future__ import annotations

from collections.abc import Callable

from dreamchat.domain.sessions import break_due, continued, reminded
from dreamchat.ports import Clock
from dreamchat.services.storage.unit_of_work import Storage


class SessionService:
    def __init__(
        self,
        storage: Storage,
        clock: Clock,
        reminder_minutes: int,
        on_message: Callable[[str], None] = lambda account_id: None,
    ) -> None:
        self._storage = storage
        self._clock = clock
        self._minutes = reminder_minutes
        self._on_message = on_message

    def continue_with_message(self, account_id: str) -> None:
        """The person sent a message now (a lost race is another message of the same moment)."""
        self._on_message(account_id)
        if self._minutes <= 0:
            return
        with self._storage.begin() as uow:
            read = uow.usage.get(account_id)
            uow.usage.save(account_id, continued(read.entity if read else None, self._now()), read)
            uow.committed()

    def break_reminder_due(self, account_id: str) -> bool:
        """True once per period of continuous use, for the reply that shows the reminder."""
        now = self._now()
        with self._storage.begin() as uow:
            read = uow.usage.get(account_id)
            if read is None or not break_due(read.entity, now, self._minutes):
                return False
            uow.usage.save(account_id, reminded(read.entity, now), read)
            return uow.committed()

    def _now(self) -> int:
        return int(self._clock.now().timestamp())
