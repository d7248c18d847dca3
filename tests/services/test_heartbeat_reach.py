"""Heartbeats that reach the person: silence counted from their last presence, the offline demo's
lines with no model, and a heartbeat that closes its topic."""

from __future__ import annotations

from datetime import timedelta

import pytest

from dreamchat.domain.heartbeat import add_scheduled, person_wrote
from dreamchat.domain.models import ScheduledHeartbeat
from dreamchat.llm.offline import OFFLINE_MARK
from tests.fakes.fake_llm import Reply


def a_pair(services, level: str = "特别关心"):
    """A pair whose person last wrote now; 特别关心 writes first after 20 minutes of silence."""
    ai_user = services.ai_users.create("acc1", {"name": "小梦", "timezone": "Asia/Shanghai"})
    pair = services.ai_users.pair("acc1", ai_user.id)
    if level != "一般":
        services.soul.set_relationship(pair, ai_user, level, None, "")
    now = services.runtime.clock.now()
    services.heartbeat_states.change(pair, ai_user, services.repo.relationship(pair), lambda s: person_wrote(s, now))
    return pair, ai_user


def heartbeats_of(services, pair) -> list[str]:
    messages, _ = services.repo.log.messages(pair, before=None, after=None, limit=50)
    return [m.content for m in messages if m.kind == "heartbeat"]


def sweep(services, runtime) -> None:
    services.heartbeat.sweep()
    runtime.bus.drain()


@pytest.mark.every_store
def test_silence_counts_from_the_last_moment_the_person_was_present(services, runtime, fake_llm, clock) -> None:
    fake_llm.default = lambda body: Reply.text("在干嘛呢")
    pair, _ = a_pair(services)
    wrote = clock.now()
    clock.advance(minutes=15)
    services.presence.seen(pair.account_id, "phone", pair.ai_user_id)  # reading the chat, not writing
    clock.advance(minutes=1)
    services.presence.left(pair.account_id, "phone")
    clock.advance(minutes=5)  # 21 minutes after the message: due by the message alone
    sweep(services, runtime)
    assert heartbeats_of(services, pair) == [] and fake_llm.requests == []
    assert services.heartbeat_states.get(pair).next_due == int((wrote + timedelta(minutes=35)).timestamp())
    clock.advance(minutes=16)
    sweep(services, runtime)
    assert heartbeats_of(services, pair) == ["在干嘛呢"]


def test_no_timed_heartbeat_while_the_person_has_the_chat_open(services, runtime, fake_llm, clock) -> None:
    fake_llm.default = lambda body: Reply.text("在干嘛呢")
    pair, _ = a_pair(services)
    for _ in range(6):  # an hour with the chat open, as the page says every 30 s (here every 10 min)
        clock.advance(minutes=10)
        services.presence.seen(pair.account_id, "phone", pair.ai_user_id)
        sweep(services, runtime)
    assert heartbeats_of(services, pair) == []


def test_with_no_model_a_timed_heartbeat_sends_a_short_line_marked_offline(offline_services, runtime, clock) -> None:
    services = offline_services
    pair, _ = a_pair(services)
    clock.advance(minutes=30)
    sweep(services, runtime)
    [line] = heartbeats_of(services, pair)
    assert line.startswith(OFFLINE_MARK) and len(line) <= 40


@pytest.mark.every_store
def test_with_no_model_a_scheduled_heartbeat_sends_its_template(offline_services, runtime, clock) -> None:
    services = offline_services
    pair, ai_user = a_pair(services, "一般")  # 72 hours: only the scheduled one comes today
    entry = ScheduledHeartbeat(hour=20, minute=30, message_template="晚上好，今天累不累？")  # START: 20:00 Shanghai
    services.heartbeat_states.change(pair, ai_user, services.repo.relationship(pair), lambda s: add_scheduled(s, entry))
    clock.advance(minutes=30)  # the sweep runs every minute
    sweep(services, runtime)
    assert heartbeats_of(services, pair) == [OFFLINE_MARK + "晚上好，今天累不累？"]


def test_a_heartbeat_that_ends_the_topic_closes_it(services, runtime, fake_llm, clock) -> None:
    fake_llm.default = lambda body: Reply.text("早点休息哦，晚安\n[TOPIC_ENDED]")
    pair, ai_user = a_pair(services)
    services.chat.accept(pair, ai_user, "今天好累")
    clock.advance(minutes=30)
    sweep(services, runtime)
    assert heartbeats_of(services, pair) == ["早点休息哦，晚安"]
    state = services.repo.topic_state(pair)
    assert state is not None and state.ended
