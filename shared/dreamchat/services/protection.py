"""The person's protections as the other services ask about them: are they in minors' mode now, must a
guardian consent first, what daily limit holds (`dreamchat.domain.protection`)."""

from __future__ import annotations

from dataclasses import dataclass

from dreamchat.config import Settings
from dreamchat.domain.protection import Protection, daily_limit, is_minor, needs_consent
from dreamchat.ports import Clock
from dreamchat.services.storage.unit_of_work import Storage


@dataclass(frozen=True)
class Standing:
    """What holds for a person now."""

    protection: Protection
    minor: bool  # in minors' mode
    needs_consent: bool  # chat and heartbeats wait for a guardian's consent
    daily_minutes: int | None  # the minutes of chat a day allowed; None: no limit


class ProtectionService:
    def __init__(self, storage: Storage, clock: Clock, settings: Settings) -> None:
        self._storage = storage
        self._clock = clock
        self._settings = settings

    def get(self, account_id: str) -> Protection:
        with self._storage.begin() as uow:
            return uow.protections.get(account_id).entity

    def standing(self, account_id: str) -> Standing:
        protection, year = self.get(account_id), self.year()
        return Standing(
            protection,
            is_minor(protection, year),
            needs_consent(protection, year),
            daily_limit(protection, year, self._settings.minor_daily_minutes),
        )

    def year(self) -> int:
        return self._clock.now().year
