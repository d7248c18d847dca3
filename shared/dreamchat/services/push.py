"""Web Push: the person's devices (subscriptions), their one switch (show the text or not), and what
is pushed — the messages an AI sends first (and an operator's, as staff: 工作人员), and a turn's reply that
lands while no device is open.

A push is sent after the messages are stored, within a short budget, to each device at once; a
push service's 404/410 deletes that subscription, a failure is tried again with back-off while the
budget lasts, and nothing here can fail or hold up the heartbeat or the turn that called it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from dreamchat import keys
from dreamchat.budget import Deadline
from dreamchat.config import Settings
from dreamchat.domain.models import AIUser, Message, PairId
from dreamchat.domain.moderation import STAFF_NAME
from dreamchat.domain.push import BadEndpoint, check_endpoint, notification, said
from dreamchat.errors import Invalid, Unavailable
from dreamchat.logsafe import failure
from dreamchat.ports import Clock
from dreamchat.services.presence import PresenceService
from dreamchat.services.push_parts import PushReport, PushSender, PushSettings, Subscription
from dreamchat.services.storage.unit_of_work import Storage, UnitOfWork

__all__ = ["PushReport", "PushSender", "PushService", "PushSettings", "Subscription"]

log = logging.getLogger(__name__)

MAX_SUBSCRIPTIONS = 10  # devices per account; an eleventh replaces the one subscribed longest ago
MIN_SEND_SECONDS = 0.3  # a POST given less than this is not started
BACKOFF_SECONDS = 0.5  # 0.5 s, then 1 s, ... between attempts at one device
FINISH_SECONDS = 1.0  # of a turn's deadline, kept for answering after the push


class PushService:
    def __init__(
        self,
        storage: Storage,
        presence: PresenceService,
        sender: PushSender | None,
        clock: Clock,
        settings: Settings,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._storage = storage
        self._presence = presence
        self._sender = sender
        self._clock = clock
        self._settings = settings
        self._rules = settings.push_rules
        self._sleep = sleep

    @property
    def enabled(self) -> bool:
        return self._sender is not None

    def public_key(self) -> str:
        return self._sender_or_unavailable().public_key

    def _sender_or_unavailable(self) -> PushSender:
        if self._sender is None:
            raise Unavailable("push notifications are not configured on this server")
        return self._sender

    # the person's devices

    def subscribe(self, account_id: str, endpoint: str, p256dh: str, auth: str) -> Subscription:
        """Keep one device's PushSubscription; the same endpoint again replaces it (also from another account)."""
        try:
            check_endpoint(endpoint, self._rules)
        except BadEndpoint as error:
            raise Invalid(str(error)) from None
        if not self._sender_or_unavailable().accepts(p256dh, auth):
            raise Invalid("the subscription's keys are not a P-256 key and a 16-byte auth secret")
        subscription_id = keys.push_subscription_id(endpoint)
        now = self._clock.now().timestamp()
        subscription = Subscription(id=subscription_id, endpoint=endpoint, p256dh=p256dh, auth=auth, created_at=now)
        with self._storage.begin() as uow:
            self._take_from_previous_owner(uow, account_id, subscription_id)
            others = [s for s in uow.push_devices.of(account_id) if s.id != subscription_id]
            for oldest in sorted(others, key=lambda s: s.created_at)[: max(0, len(others) - MAX_SUBSCRIPTIONS + 1)]:
                uow.push_devices.remove(account_id, oldest.id)
            uow.push_devices.add(account_id, subscription)
            uow.commit()
        log.info("push subscribed", extra={"subscription": subscription_id[:8], "devices": len(others) + 1})
        return subscription

    def unsubscribe(self, account_id: str, endpoint: str) -> bool:
        """Forget the device with this endpoint; False when this account had no such subscription."""
        subscription_id = keys.push_subscription_id(endpoint)
        with self._storage.begin() as uow:
            if not uow.push_devices.has(account_id, subscription_id):
                return False
            uow.push_devices.remove(account_id, subscription_id)
            uow.commit()
        return True

    def subscriptions(self, account_id: str) -> list[Subscription]:
        with self._storage.begin() as uow:
            return uow.push_devices.of(account_id)

    @staticmethod
    def _take_from_previous_owner(uow: UnitOfWork, account_id: str, subscription_id: str) -> None:
        """A device that changes hands (log out, another person logs in) stops pushing for the first."""
        owner = uow.push_devices.owner(subscription_id)
        if owner is not None and owner != account_id:
            uow.push_devices.drop(owner, subscription_id)

    # the person's switch

    def settings_of(self, account_id: str) -> PushSettings:
        with self._storage.begin() as uow:
            return uow.push_switches.get(account_id)

    def save_settings(self, account_id: str, wanted: PushSettings) -> PushSettings:
        with self._storage.begin() as uow:
            uow.push_switches.save(account_id, wanted)
            uow.commit()
        return wanted

    # what is pushed

    def after_heartbeat(self, pair: PairId, ai_user: AIUser, messages: list[Message]) -> PushReport:
        """The AI wrote first: pushed unless the person has that chat open."""
        deadline = Deadline.after(self._settings.push_budget_seconds)
        return self._guarded(pair, ai_user, messages, deadline, only_if_away=False)

    def after_turn(
        self, pair: PairId, ai_user: AIUser, messages: list[Message], deadline: Deadline | None = None
    ) -> PushReport:
        """A reply landed: pushed only when none of the person's devices shows the app."""
        budget = self._settings.push_budget_seconds
        if deadline is not None:
            budget = min(budget, deadline.remaining() - FINISH_SECONDS)
        return self._guarded(pair, ai_user, messages, Deadline.after(budget), only_if_away=True)

    def _guarded(
        self, pair: PairId, ai_user: AIUser, messages: list[Message], deadline: Deadline, *, only_if_away: bool
    ) -> PushReport:
        if self._sender is None or not messages:
            return PushReport(skipped="off" if self._sender is None else "nothing to push")
        try:
            report = self._notify(pair, ai_user, messages, deadline, only_if_away)
        except Exception as error:  # noqa: BLE001 - logged; a push never fails the heartbeat or turn that stored the messages
            log.error("push failed", extra={"ai_user_id": ai_user.id, "error": failure(error)})
            return PushReport(skipped="error")
        fields = {"sent": report.sent, "removed": report.removed, "failed": report.failed}
        log.info("push", extra={"ai_user_id": ai_user.id, "skipped": report.skipped, **fields})
        return report

    def _notify(
        self, pair: PairId, ai_user: AIUser, messages: list[Message], deadline: Deadline, only_if_away: bool
    ) -> PushReport:
        subscriptions = self.subscriptions(pair.account_id)
        if not subscriptions:
            return PushReport(skipped="no devices")
        with self._storage.pair(pair) as uow:
            friend = uow.friendship.get()
        if friend is None or friend.entity.muted:
            return PushReport(skipped="muted")
        present = self._presence.devices(pair.account_id)
        if only_if_away and present:
            return PushReport(skipped="present")
        if any(seen.ai_user_id == pair.ai_user_id for seen in present):
            return PushReport(skipped="present in this chat")
        if deadline.remaining() < MIN_SEND_SECONDS:
            return PushReport(skipped="no time left")
        shown = self.settings_of(pair.account_id).show_content
        last = messages[-1]
        note = notification(
            ai_user.id,
            STAFF_NAME if last.role == "staff" else ai_user.name,  # an operator's words are never the AI's
            ai_user.avatar,
            [said(m.content, m.media_kind) for m in messages],
            last.id,
            last.timestamp,
            show_content=shown,
        )
        payload = json.dumps(note.as_dict(), ensure_ascii=False).encode()
        return self._send_all(pair.account_id, subscriptions, payload, _topic(note.tag), deadline)

    def _send_all(
        self, account_id: str, subscriptions: list[Subscription], payload: bytes, topic: str, deadline: Deadline
    ) -> PushReport:
        report = PushReport()
        with ThreadPoolExecutor(max_workers=min(len(subscriptions), 4), thread_name_prefix="push") as pool:
            results = list(pool.map(lambda s: self._deliver(s, payload, topic, deadline), subscriptions))
        with self._storage.begin() as uow:
            for subscription, (outcome, attempts) in zip(subscriptions, results, strict=True):
                report.attempts.append(attempts)
                if outcome == "gone":
                    uow.push_devices.remove(account_id, subscription.id)
                    report.removed += 1
                elif outcome == "sent":
                    report.sent += 1
                else:
                    report.failed += 1
            uow.commit()
        return report

    def _deliver(self, subscription: Subscription, payload: bytes, topic: str, deadline: Deadline) -> tuple[str, int]:
        """One device: "sent", "gone" (404/410) or "failed", and how many POSTs it took."""
        sender = self._sender
        assert sender is not None
        ttl, attempts = self._settings.push_ttl_seconds, self._settings.push_attempts
        for attempt in range(1, attempts + 1):
            timeout = min(self._settings.push_timeout_seconds, deadline.remaining())
            if timeout < MIN_SEND_SECONDS:
                return "failed", attempt - 1
            delivery = sender.send(
                subscription.endpoint, subscription.p256dh, subscription.auth, payload, ttl=ttl, topic=topic,
                timeout=timeout,
            )  # fmt: skip
            if delivery.delivered or delivery.gone:
                return ("sent" if delivery.delivered else "gone"), attempt
            log.info("push refused", extra={"subscription": subscription.id[:8], "status": delivery.status})
            wait = max(BACKOFF_SECONDS * 2 ** (attempt - 1), delivery.retry_after or 0.0)
            if not delivery.retryable or attempt == attempts or wait + MIN_SEND_SECONDS > deadline.remaining():
                return "failed", attempt
            self._sleep(wait)
        return "failed", attempts


def _topic(tag: str) -> str:
    """RFC 8030 Topic: at most 32 base64url characters; one per friend."""
    return base64.urlsafe_b64encode(hashlib.sha256(tag.encode()).digest()[:24]).decode()
