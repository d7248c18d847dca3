"""The person's protections as the other services ask about them: are they in minors' mode now, must a
guardian consent first, what daily limit holds (`dreamchat.domain.protection`); the person's own change of
them (`change`, over the version read); whether they may befriend or talk with an AI user now (`admit`,
`held`: a romantic partner in minors' mode, a minor before a guardian's consent). The callers let a crisis
or distress through whatever these say. The emergency contact is read for the operators and the export,
never for a prompt."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dreamchat.config import Settings
from dreamchat.domain.models import AIUser, PairId
from dreamchat.domain.protection import (
    REFUSALS,
    EmergencyContact,
    Protection,
    change_problem,
    changed,
    daily_limit,
    is_minor,
    needs_consent,
    suggests_emergency_contact,
    withheld,
)
from dreamchat.errors import Invalid, Protected
from dreamchat.ports import Clock
from dreamchat.services.storage.unit_of_work import Storage, retry_on_conflict


@dataclass(frozen=True)
class Standing:
    """What holds for a person now."""

    protection: Protection
    minor: bool  # in minors' mode
    needs_consent: bool  # chat and heartbeats wait for a guardian's consent
    daily_minutes: int | None  # the minutes of chat a day allowed; None: no limit
    suggests_contact: bool = False  # over 60 (by birth year) without an emergency contact: the settings suggest one


class ProtectionService:
    def __init__(self, storage: Storage, clock: Clock, settings: Settings) -> None:
        self._storage = storage
        self._clock = clock
        self._settings = settings

    def get(self, account_id: str) -> Protection:
        with self._storage.begin() as uow:
            return uow.protections.get(account_id).entity

    def standing(self, account_id: str) -> Standing:
        return self._standing(self.get(account_id))

    def change(self, account_id: str, changes: Mapping[str, Any]) -> Standing:
        """Write the fields `changes` names over the version read; Invalid (naming the field) for a birth
        year before 1900 or in the future, or what a person under 18 cannot change (`change_problem`)."""
        year, at = self.year(), int(self._clock.now().timestamp())

        def write() -> Protection:
            with self._storage.begin() as uow:
                read = uow.protections.get(account_id)
                after = changed(read.entity, changes, at)
                problem = change_problem(read.entity, after, set(changes), year, self._settings.minor_daily_minutes)
                if problem is not None:
                    raise Invalid(problem)
                uow.protections.save(account_id, after, read)
                uow.commit()
            return after

        return self._standing(retry_on_conflict(write))

    def admit(self, account_id: str, ai_user: AIUser, *, befriending: bool = False) -> None:
        """Protected (403 with its code) unless the person may talk with (or `befriending`, befriend) this AI
        user now. Never asked for a crisis or distress."""
        code = withheld(self.get(account_id), self.year(), ai_user.romance, talking=not befriending)
        if code is not None:
            raise Protected(code, REFUSALS[code])

    def held(self, pair: PairId, ai_user: AIUser) -> str | None:
        """Why the AI user may not write first to the person now (a heartbeat), or None."""
        code = withheld(self.get(pair.account_id), self.year(), ai_user.romance)
        return None if code is None else f"{code}: {REFUSALS[code]}"

    def minor(self, account_id: str) -> bool:
        """In minors' mode now: the model is told to keep it age-appropriate."""
        return is_minor(self.get(account_id), self.year())

    def emergency_contact(self, account_id: str) -> EmergencyContact | None:
        """For an operator with a crisis escalation, and the account's export: never for a prompt."""
        return self.get(account_id).emergency_contact

    def year(self) -> int:
        return self._clock.now().year

    def _standing(self, protection: Protection) -> Standing:
        year = self.year()
        return Standing(
            protection,
            is_minor(protection, year),
            needs_consent(protection, year),
            daily_limit(protection, year, self._settings.minor_daily_minutes),
            suggests_emergency_contact(protection, year),
        )
