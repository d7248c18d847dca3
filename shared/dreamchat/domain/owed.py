"""Owed work: a background memory step whose model kept failing, stored offline and marked
`degraded`, to be redone once the model answers again (and then replaced in place).

One record per pair and subject: a compression per mid-term memory, an extraction per long-term
entry (with the mid-term memories it came from), and at most one core judgment, one reflection and
one relationship judgment per pair. Each is retried with an exponential back-off, capped. Beside them,
the vectors an import could not make within its request (`embed`, one per pair, due at once), and the
words of a voice note or photo its model could not give when it was sent (`media`, one per record, due at once).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from dreamchat.domain.models import Entity

OwedKind = Literal["media", "compress", "extract", "judge_core", "reflect", "judge_relationship", "embed"]
# the order a pair's owed work is redone in: a voice note's or photo's words first (the message they
# belong to may still be summarised), a summary before what is extracted from it, the long-term entries
# before the core judgment that reads them
OWED_ORDER: tuple[OwedKind, ...] = (
    "media",
    "compress",
    "extract",
    "judge_core",
    "reflect",
    "judge_relationship",
    "embed",
)
RedoOutcome = Literal["healed", "degraded", "cancelled", "contended"]


class OwedWork(Entity):
    kind: OwedKind
    # the mid-term memory (compress), long-term entry (extract) or media record (media); "" for the pair's own
    subject: str = ""
    sources: list[str] = Field(default_factory=list)  # an extraction's mid-term memories
    # an extraction's: the old key points (references) its offline result marked superseded; one no
    # longer marked when the redo comes was undone by the person, and the redo does not mark it again
    made_past: list[str] = Field(default_factory=list)
    since: int  # when the offline result was stored (epoch seconds)
    attempts: int = Field(default=0, ge=0)  # redo attempts so far
    due_at: int  # the next attempt, by the back-off


@dataclass(frozen=True)
class Backoff:
    """Exponential back-off per owed item: `base_seconds` doubled per attempt, at most `max_seconds`."""

    base_seconds: int = 1800
    max_seconds: int = 21600

    def delay(self, attempts: int) -> int:
        """Seconds to wait after `attempts` attempts (0: just recorded)."""
        return min(self.max_seconds, self.base_seconds * (1 << min(attempts, 32)))

    def first(
        self,
        kind: OwedKind,
        now: int,
        subject: str = "",
        sources: tuple[str, ...] = (),
        made_past: tuple[str, ...] = (),
    ) -> OwedWork:
        """The record of a degraded result stored at `now`."""
        return OwedWork(
            kind=kind,
            subject=subject,
            sources=list(sources),
            made_past=list(made_past),
            since=now,
            due_at=now + self.delay(0),
        )

    def attempted(self, work: OwedWork, now: int) -> OwedWork:
        """The record once one more attempt starts at `now`: counted, and the next one backed off."""
        attempts = work.attempts + 1
        return work.model_copy(update={"attempts": attempts, "due_at": now + self.delay(attempts)})


@dataclass(frozen=True)
class Healed:
    """What one redo did: `healed` (replaced), `degraded` (the model failed again: still owed),
    `cancelled` (a person's edit, a deletion or a newer result made it moot) or `contended` (changed
    meanwhile: tried again later)."""

    kind: OwedKind
    subject: str
    outcome: RedoOutcome
