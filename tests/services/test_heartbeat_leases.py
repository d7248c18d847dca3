"""Attacks on the heartbeat fan-out: a worker killed mid-run, sweeps in a row, redeliveries,
a model that keeps failing. On every storage adapter (memory, SQLite, DynamoDB under moto)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from dreamchat.events import HeartbeatDue
from dreamchat.services.heartbeat import HeartbeatService
from tests.fakes.fake_llm import Reply
from tests.services.conftest import services_with_fake_llm
from tests.services.test_heartbeat_service import heartbeat_messages, make_pairs

pytestmark = pytest.mark.every_store


class Killed(BaseException):
    """What a Lambda timeout does to a run: it stops, and nothing after it runs (no except, no finally)."""


class CapturingQueue:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send(self, items: list[dict[str, Any]]) -> None:
        self.sent += items

    def take(self) -> list[HeartbeatDue]:
        work, self.sent = [HeartbeatDue.from_detail(item) for item in self.sent], []
        return work


@pytest.fixture
def queue() -> CapturingQueue:
    return CapturingQueue()


@pytest.fixture
def fanout(runtime, fake_llm, queue):
    fake_llm.default = lambda body: Reply.text("在干嘛呀")
    return services_with_fake_llm(replace(runtime, queue=queue), fake_llm)


def kill_during_the_model_call(monkeypatch) -> None:
    def die(*args: object, **kwargs: object) -> str:
        raise Killed

    monkeypatch.setattr(HeartbeatService, "_generate", die)


def test_a_worker_killed_mid_heartbeat_is_retried_after_its_lease_and_sends_exactly_once(
    fanout, queue, clock, monkeypatch
) -> None:
    [(pair, _)] = make_pairs(fanout, 1, "特别关心")
    clock.advance(minutes=30)
    assert fanout.heartbeat.sweep().due == 1
    [work] = queue.take()
    with monkeypatch.context() as patch:
        kill_during_the_model_call(patch)
        with pytest.raises(Killed):
            fanout.heartbeat.run(work)
    assert fanout.heartbeat.sweep().due == 0  # still leased: not enqueued again
    assert fanout.heartbeat.run(work).status == "leased"  # SQS delivered it twice: not finished, retried later
    clock.advance(seconds=fanout.runtime.settings.lease_seconds + 1)
    assert fanout.heartbeat.sweep().due == 1  # the lease lapsed: the sweep sends it again
    [retry] = queue.take()
    assert retry == work
    assert fanout.heartbeat.run(retry).status == "sent"
    assert fanout.heartbeat.run(work).status in ("duplicate", "not_due")  # the first message, redelivered late
    assert heartbeat_messages(fanout, pair) == ["在干嘛呀"]
    assert fanout.heartbeat.sweep().due == 0


def test_a_heartbeat_whose_every_attempt_dies_is_given_up_and_the_next_one_is_planned(
    fanout, queue, clock, monkeypatch
) -> None:
    [(pair, _)] = make_pairs(fanout, 1, "特别关心")
    clock.advance(minutes=30)
    fanout.heartbeat.sweep()
    [work] = queue.take()
    lease = fanout.runtime.settings.lease_seconds
    with monkeypatch.context() as patch:
        kill_during_the_model_call(patch)
        for _ in range(fanout.runtime.settings.lease_attempts):
            with pytest.raises(Killed):
                fanout.heartbeat.run(work)
            clock.advance(seconds=lease + 1)
    assert fanout.heartbeat.run(work).status == "abandoned"
    state = fanout.heartbeat_states.get(pair)
    assert state.last_run_due == work.due and state.next_due > work.due and state.lease_until is None
    assert fanout.heartbeat.run(work).status in ("duplicate", "not_due")
    assert heartbeat_messages(fanout, pair) == []


def test_a_failed_model_call_gives_the_lease_back_and_the_retry_sends(fanout, queue, clock, fake_llm) -> None:
    [(pair, _)] = make_pairs(fanout, 1, "特别关心")
    clock.advance(minutes=30)
    fanout.heartbeat.sweep()
    [work] = queue.take()
    retries = fanout.runtime.settings.llm_max_retries
    fake_llm.script("deepseek-chat", *[Reply.error(500)] * (retries + 1))
    failed = fanout.heartbeat.run(work)
    assert failed.status == "failed" and not failed.finished
    assert fanout.heartbeat.run(work).status == "sent"  # redelivered: no need to wait for the lease
    assert heartbeat_messages(fanout, pair) == ["在干嘛呀"]


def test_two_sweeps_in_a_row_enqueue_each_due_pair_once(fanout, queue, clock) -> None:
    make_pairs(fanout, 30, "特别关心")
    make_pairs(fanout, 10, "一般")
    clock.advance(hours=1)
    assert (fanout.heartbeat.sweep().due, fanout.heartbeat.sweep().due) == (30, 0)
    work = queue.take()
    assert len({(w.account_id, w.ai_user_id) for w in work}) == len(work) == 30
    assert {fanout.heartbeat.run(w).status for w in work} == {"sent"}
    clock.advance(minutes=1)
    assert fanout.heartbeat.sweep().due == 0  # each ran; the next heartbeats are not due yet


def test_the_person_writing_while_a_heartbeat_is_in_flight_keeps_it_leased(fanout, queue, clock) -> None:
    [(pair, ai_user)] = make_pairs(fanout, 1, "特别关心")
    clock.advance(minutes=30)
    fanout.heartbeat.sweep()
    fanout.chat.accept(pair, ai_user, "我在")
    assert fanout.heartbeat.sweep().due == 0
    [work] = queue.take()
    assert fanout.heartbeat.run(work).status == "not_due"
    state = fanout.heartbeat_states.get(pair)
    assert state.lease_until is None
