"""The referral report (SB 243): per UTC month, how often the crisis protocol fired, help lines were shown,
escalations were opened and taken over (`dreamchat.domain.moderation.CRISIS_COUNTS`). Numbers only: no
id, no text. A count is one more over the month's version read; a count that cannot be written is
logged and lost, never the chat turn or the operator's action that made it."""

from __future__ import annotations

import logging
from datetime import UTC

from dreamchat.domain.moderation import counted, month_of, months_of, report_row
from dreamchat.logsafe import failure
from dreamchat.ports import Clock
from dreamchat.services.storage.unit_of_work import Storage, retry_on_conflict

log = logging.getLogger(__name__)


class ReferralService:
    def __init__(self, storage: Storage, clock: Clock) -> None:
        self._storage = storage
        self._clock = clock

    def count(self, name: str) -> None:
        """One more `name` this month."""
        month = month_of(self._clock.now())

        def add() -> None:
            with self._storage.begin() as uow:
                read = uow.crisis_counts.get(month)
                uow.crisis_counts.save(month, counted(read.entity, name), read)
                uow.commit()

        try:
            retry_on_conflict(add)
        except Exception as error:  # noqa: BLE001 - logged; a count never fails what it counts
            log.error("crisis count lost", extra={"count": name, "month": month, "error": failure(error)})

    def year(self, year: int) -> list[tuple[str, dict[str, int]]]:
        """The year's twelve months, each with every count (zeros included)."""
        with self._storage.begin() as uow:
            return [(month, report_row(uow.crisis_counts.get(month).entity)) for month in months_of(year)]

    def report(self, year: int | None) -> tuple[int, list[tuple[str, dict[str, int]]]]:
        """The referral report of a year: the one asked for, else this one (UTC, by the clock)."""
        chosen = year if year is not None else self._clock.now().astimezone(UTC).year
        return chosen, self.year(chosen)
