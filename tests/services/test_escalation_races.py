"""Escalations against what runs at the same time: two crisis messages of one pair at once open one
escalation (both flagged in it), and a takeover that lands while a heartbeat's words are being made
leaves no heartbeat stored after it."""

from __future__ import annotations

import dataclasses
import threading
import time
from typing import Any

import pytest

from dreamchat import keys
from dreamchat.domain.models import Account, PairId
from dreamchat.domain.moderation import STAFF_NOTICE
from dreamchat.services.container import Services
from tests.fakes.fake_llm import Reply
from tests.services.conftest import services_with_fake_llm

CRISIS = "我今晚就准备自杀"
OPERATOR = Account(id="acc_ops", username="ops", password_hash="-", created_at=0)


class Alerts:
    def __init__(self) -> None:
        self.sent: list[str] = []

    def escalation_opened(self, escalation_id: str, opened_at: int) -> None:
        self.sent.append(escalation_id)


class ReadTogether:
    """The store, holding the first `parties` reads of one key until all of them have read it: each of
    the racing writers sees what the others saw, before any of them writes."""

    def __init__(self, inner: Any, key: tuple[str, str], parties: int) -> None:
        self._inner, self._key = inner, key
        self._barrier = threading.Barrier(parties, timeout=10)
        self._held = parties
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def get(self, pk: str, sk: str) -> Any:
        found = self._inner.get(pk, sk)
        if (pk, sk) == self._key:
            with self._lock:
                hold, self._held = self._held > 0, self._held - 1
            if hold:
                self._barrier.wait()
        return found


def befriended(services: Services) -> tuple[PairId, Any]:
    ai_user = services.ai_users.create("acc_person", {"name": "小梦"})
    return services.ai_users.pair("acc_person", ai_user.id), ai_user


def in_threads(*work: Any) -> list[Any]:
    results: list[Any] = [None] * len(work)
    errors: list[BaseException] = []

    def run(index: int) -> None:
        try:
            results[index] = work[index]()
        except BaseException as error:  # noqa: BLE001 - handed to the test
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(work))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert errors == []
    return results


@pytest.mark.every_store
def test_two_crisis_messages_at_once_open_one_escalation(runtime, fake_llm) -> None:
    probe = services_with_fake_llm(runtime, fake_llm)
    pair, ai_user = befriended(probe)
    alerts = Alerts()
    racing = dataclasses.replace(runtime, store=ReadTogether(runtime.store.inner, keys.pair_escalation(pair), 2))
    racing.alerts = alerts
    services = services_with_fake_llm(racing, fake_llm)
    first, second = in_threads(*(lambda: services.chat.accept(pair, ai_user, CRISIS) for _ in range(2)))
    listed = services.escalations.listed("open", None, 10).items
    assert len(listed) == 1 and alerts.sent == [listed[0].id]
    assert sorted(listed[0].flagged) == sorted([first.id, second.id]) and listed[0].messages_flagged == 2
    assert services.referrals.year(2026)[2][1]["escalations_opened"] == 1


def test_a_takeover_during_a_heartbeat_leaves_no_heartbeat_stored(services, fake_llm) -> None:
    pair, ai_user = befriended(services)
    escalation = services.escalations.flag(pair, "m_flagged")
    fake_llm.script("deepseek-chat", Reply.slow(1.0, "在干嘛呢？想你了"))  # the heartbeat's words, slowly
    asked = len(fake_llm.requests)
    outcome, _ = in_threads(
        lambda: services.heartbeat.run_now(pair),
        lambda: take_over_once_asked(services, fake_llm, asked, escalation.id),
    )
    assert outcome.status == "skipped"
    messages, _ = services.repo.log.messages(pair, before=None, after=None, limit=50)
    assert [m for m in messages if m.kind == "heartbeat"] == []
    assert services.escalations.taken_over(pair)


def take_over_once_asked(services: Services, fake_llm, asked: int, escalation_id: str) -> None:
    """Take the chat over once the heartbeat's model call is under way."""
    deadline = time.monotonic() + 10
    while len(fake_llm.requests) == asked and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(fake_llm.requests) > asked, "the heartbeat never asked the model"
    services.escalations.take_over(OPERATOR, escalation_id)


def test_without_a_takeover_the_same_heartbeat_is_sent(services, fake_llm) -> None:
    """The control: the slow words are stored when no operator takes the chat over."""
    pair, _ = befriended(services)
    services.escalations.flag(pair, "m_flagged")  # open, not taken over: the AI still writes first
    fake_llm.script("deepseek-chat", Reply.slow(0.2, "在干嘛呢？想你了"))
    assert services.heartbeat.run_now(pair).status == "sent"


def test_a_takeover_during_a_chat_turn_stores_no_ai_reply_and_sends_the_staff_notice(services, fake_llm) -> None:
    pair, ai_user = befriended(services)
    person = services.chat.accept(pair, ai_user, CRISIS)  # opens the escalation; always answered
    [escalation] = services.escalations.listed("open", None, 10).items
    fake_llm.script("deepseek-chat", Reply.slow(1.0, "我在这里陪你，慢慢说。"))  # the reply, slowly
    asked = len(fake_llm.requests)
    events, _ = in_threads(
        lambda: services.chat.respond(pair, ai_user, person),
        lambda: take_over_once_asked(services, fake_llm, asked, escalation.id),
    )
    assert [type(e).__name__ for e in events] == ["SafetyNotice", "Notice", "Done"]
    assert (events[1].kind, events[1].text) == ("staff", STAFF_NOTICE) and not events[2].replied
    messages, _ = services.repo.log.messages(pair, before=None, after=None, limit=50)
    assert [m.role for m in messages] == ["user"]  # the AI's reply was not stored


def test_without_a_takeover_the_same_chat_turn_is_answered(services, fake_llm) -> None:
    """The control: the slow reply is stored when no operator takes the chat over."""
    pair, ai_user = befriended(services)
    person = services.chat.accept(pair, ai_user, CRISIS)
    fake_llm.script("deepseek-chat", Reply.slow(0.2, "我在这里陪你，慢慢说。"))
    events = services.chat.respond(pair, ai_user, person)
    assert "Sent" in [type(e).__name__ for e in events]
    messages, _ = services.repo.log.messages(pair, before=None, after=None, limit=50)
    assert [m.role for m in messages][-1] == "assistant"
