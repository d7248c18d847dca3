"""The person's continuous use, kept per account: every message continues it, and a reply may
be preceded by the break reminder (`dreamchat.domain.sessions`)."""

from __future__ import annotations

from dreamchat import keys
from dreamchat.domain.sessions import Session, break_due, continued, reminded
from dreamchat.ports import Clock, ConditionFailed, ItemStore


class Sessions:
    def __init__(self, store: ItemStore, clock: Clock, reminder_minutes: int) -> None:
        self._store = store
        self._clock = clock
        self._minutes = reminder_minutes

    def continue_with_message(self, account_id: str) -> None:
        """The person sent a message now (a lost race is another message of the same moment)."""
        if self._minutes <= 0:
            return
        session, version = self._read(account_id)
        self._write(account_id, continued(session, self._now()), version)

    def break_reminder_due(self, account_id: str) -> bool:
        """True once per period of continuous use, for the reply that shows the reminder."""
        session, version = self._read(account_id)
        now = self._now()
        if session is None or not break_due(session, now, self._minutes):
            return False
        return self._write(account_id, reminded(session, now), version)

    def _read(self, account_id: str) -> tuple[Session | None, int | None]:
        found = self._store.get(*keys.session(account_id))
        if found is None:
            return None, None
        return Session.model_validate(found), found.get("version")

    def _write(self, account_id: str, session: Session, version: int | None) -> bool:
        pk, sk = keys.session(account_id)
        try:
            self._store.put_versioned({"pk": pk, "sk": sk, **session.model_dump()}, version)
        except ConditionFailed:
            return False
        return True

    def _now(self) -> int:
        return int(self._clock.now().timestamp())
