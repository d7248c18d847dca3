"""What Web Push's use cases share: the sender port and the report of one notification (a device's
subscription and the person's switch are the domain's, `dreamchat.domain.push`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from dreamchat.domain.push import Delivery, PushSettings, Subscription

__all__ = ["PushReport", "PushSender", "PushSettings", "Subscription"]


class PushSender(Protocol):
    """Encrypts one payload for a subscription and POSTs it to the push service."""

    @property
    def public_key(self) -> str:
        """The VAPID public key, base64url (the application server key)."""
        ...

    def accepts(self, p256dh: str, auth: str) -> bool:
        """The browser's key is a P-256 point and its auth secret 16 bytes."""
        ...

    def send(
        self, endpoint: str, p256dh: str, auth: str, payload: bytes, *, ttl: int, topic: str, timeout: float
    ) -> Delivery: ...


@dataclass
class PushReport:
    """What became of one notification (for logs and tests: counts, never endpoints)."""

    skipped: str = ""
    sent: int = 0
    removed: int = 0
    failed: int = 0
    attempts: list[int] = field(default_factory=list)
