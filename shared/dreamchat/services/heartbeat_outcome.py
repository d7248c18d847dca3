"""What one heartbeat run and one sweep come to (the heartbeat service's results)."""

from __future__ import annotations

from dataclasses import dataclass, field

from dreamchat.domain.models import Message


@dataclass
class SweepResult:
    due: int = 0
    reads: int = 0


@dataclass
class HeartbeatOutcome:
    status: str  # sent | skipped | not_due | duplicate | gone | abandoned, or not finished: failed | leased
    reason: str = ""
    messages: list[Message] = field(default_factory=list)
    moved_hours: float | None = None

    @property
    def finished(self) -> bool:
        """False when the work must come again (the model failed, or another run holds it)."""
        return self.status not in ("failed", "leased")
