"""The heartbeat sweep and runs over many pairs (the sweep and a redelivery on every storage adapter)."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from dreamchat.config import Settings
from dreamchat.domain.heartbeat import person_wrote
from dreamchat.domain.models import PairId
from dreamchat.events import HeartbeatDue
from dreamchat.llm.gateway import OpenAIGateway
from dreamchat.services.container import build_services
from tests.fakes.fake_llm import Reply

CHAT_MODEL = "deepseek-chat"


def make_pairs(services, count: int, level: str) -> list[tuple[PairId, object]]:
    pairs = []
    for i in range(count):
        account = f"acc{len(level)}{level.encode().hex()[:6]}x{i}"
        ai_user = services.ai_users.create(account, {"name": f"AI{i}", "timezone": "Asia/Shanghai"})
        pair = services.ai_users.pair(account, ai_user.id)
        if level != "一般":
            services.soul.set_relationship(pair, ai_user, level, None, "")
        relationship = services.repo.relationship(pair)
        services.heartbeat_states.change(
            pair, ai_user, relationship, lambda s: person_wrote(s, services.runtime.clock.now())
        )
        pairs.append((pair, ai_user))
    return pairs


def heartbeat_messages(services, pair: PairId) -> list[str]:
    messages, _ = services.repo.log.messages(pair, before=None, after=None, limit=50)
    return [m.content for m in messages if m.kind == "heartbeat"]


@pytest.mark.every_store
def test_the_sweep_runs_exactly_the_due_pairs_once_each(services, runtime, fake_llm, clock) -> None:
    fake_llm.default = lambda body: Reply.text("在干嘛呢？想你了")
    close = make_pairs(services, 12, "特别关心")  # 20 minutes
    normal = make_pairs(services, 12, "一般")  # 72 hours
    clock.advance(hours=1)
    first = services.heartbeat.sweep()
    second = services.heartbeat.sweep()  # the first sweep leased what it enqueued
    assert (first.due, second.due) == (12, 0)
    runtime.bus.drain()
    for pair, _ in close:
        assert heartbeat_messages(services, pair) == ["在干嘛呢？想你了"]
    for pair, _ in normal:
        assert heartbeat_messages(services, pair) == []
    assert services.heartbeat.sweep().due == 0


def test_the_sweep_reads_only_the_due_index(services, runtime, fake_llm, clock) -> None:
    make_pairs(services, 5, "一般")
    clock.advance(hours=1)
    result = services.heartbeat.sweep()
    assert result.due == 0
    assert result.reads == 16  # one query per shard, whatever the number of pairs


@pytest.mark.every_store
def test_a_work_item_delivered_twice_sends_once(services, runtime, fake_llm, clock) -> None:
    fake_llm.default = lambda body: Reply.text("早呀")
    [(pair, _)] = make_pairs(services, 1, "特别关心")
    clock.advance(minutes=30)
    state = services.heartbeat_states.get(pair)
    work = HeartbeatDue(pair.account_id, pair.ai_user_id, state.next_due)
    assert services.heartbeat.run(work).status == "sent"
    assert services.heartbeat.run(work).status in ("duplicate", "not_due")
    assert heartbeat_messages(services, pair) == ["早呀"]


def test_heartbeat_ok_sends_nothing_and_moves_on(services, runtime, fake_llm, clock) -> None:
    fake_llm.default = lambda body: Reply.text("HEARTBEAT_OK")
    [(pair, _)] = make_pairs(services, 1, "特别关心")
    clock.advance(minutes=30)
    services.heartbeat.sweep()
    runtime.bus.drain()
    assert heartbeat_messages(services, pair) == []
    state = services.heartbeat_states.get(pair)
    assert state.last_run_at == int(clock.now().timestamp()) and state.next_due > state.last_run_at
    assert state.unanswered == 0


def test_the_person_writing_after_the_sweep_cancels_the_run(services, runtime, fake_llm, clock) -> None:
    [(pair, ai_user)] = make_pairs(services, 1, "特别关心")
    clock.advance(minutes=30)
    services.heartbeat.sweep()
    services.chat.accept(pair, ai_user, "我回来啦")
    runtime.bus.drain()
    assert heartbeat_messages(services, pair) == []
    assert fake_llm.requests == []


def test_a_sent_heartbeat_is_an_ordinary_ai_message_and_the_trigger_is_not_stored(
    services, runtime, fake_llm, clock
) -> None:
    fake_llm.default = lambda body: Reply.text("今天降温了\n记得多穿点")
    [(pair, ai_user)] = make_pairs(services, 1, "特别关心")
    services.chat.accept(pair, ai_user, "我今天有点感冒")
    clock.advance(minutes=30)
    services.heartbeat.sweep()
    runtime.bus.drain()
    messages, _ = services.repo.log.messages(pair, before=None, after=None, limit=10)
    assert [(m.role, m.content, m.kind) for m in messages] == [
        ("user", "我今天有点感冒", "chat"),
        ("assistant", "今天降温了", "heartbeat"),
        ("assistant", "记得多穿点", "heartbeat"),
    ]
    assert all(m.delay_ms > 0 for m in messages[1:])
    assert [m.content for m in services.repo.short_term(pair)] == ["我今天有点感冒", "今天降温了", "记得多穿点"]
    request = fake_llm.requests_for(CHAT_MODEL)[0].messages
    assert request[-1]["role"] == "system" and "心跳" in request[-1]["content"]
    state = services.heartbeat_states.get(pair)
    assert state.unanswered == 1 and state.sent_today == 1


def test_the_same_words_are_not_sent_twice_within_a_day(services, runtime, fake_llm, clock) -> None:
    fake_llm.default = lambda body: Reply.text("在吗")
    [(pair, _)] = make_pairs(services, 1, "特别关心")
    clock.advance(minutes=30)
    now = int(clock.now().timestamp())
    assert services.heartbeat.run(HeartbeatDue(pair.account_id, pair.ai_user_id, now), force=True).status == "sent"
    clock.advance(hours=2)
    again = services.heartbeat.run(HeartbeatDue(pair.account_id, pair.ai_user_id, now + 1), force=True)
    assert again.status == "skipped" and "24 hours" in again.reason
    assert heartbeat_messages(services, pair) == ["在吗"]


def test_a_removed_friend_gets_no_heartbeat(services, runtime, fake_llm, clock) -> None:
    [(pair, _)] = make_pairs(services, 1, "特别关心")
    services.ai_users.unfriend(pair.account_id, pair.ai_user_id, forget=False)
    clock.advance(minutes=30)
    services.heartbeat.sweep()
    runtime.bus.drain()
    assert fake_llm.requests == []


def test_a_heartbeat_whose_model_hangs_fails_at_its_deadline(runtime, fake_llm, clock) -> None:
    settings = runtime.settings.model_copy(update={"heartbeat_turn_seconds": 1.5})
    gateway = OpenAIGateway.from_settings(
        Settings(llm_base_url=fake_llm.base_url, llm_api_key="test-key", llm_timeout_seconds=60, llm_max_retries=3),
        sleep=lambda _: None,
    )
    services = build_services(replace(runtime, settings=settings), gateway=gateway)
    [(pair, _)] = make_pairs(services, 1, "特别关心")
    clock.advance(minutes=30)
    fake_llm.default = lambda body: Reply.slow(3600)
    state = services.heartbeat_states.get(pair)
    started = time.monotonic()
    outcome = services.heartbeat.run(HeartbeatDue(pair.account_id, pair.ai_user_id, state.next_due or 0), force=True)
    assert outcome.status == "failed" and time.monotonic() - started < 2.5
    assert heartbeat_messages(services, pair) == []
