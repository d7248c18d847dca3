"""Web Push from heartbeats and turns, through a real push service on loopback that checks each push's
VAPID token and decrypts it with the device's own keys. Subscriptions, presence (TTL), the endpoint's
owner and a heartbeat stored once are storage behaviour: those tests run on every store; what a
notification says and when none is sent, on memory."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dreamchat.domain.heartbeat import person_wrote
from dreamchat.domain.models import PairId
from dreamchat.events import HeartbeatDue
from tests.fakes.fake_llm import Reply
from tests.fakes.fake_push import Device, FakePushService
from tests.services.conftest import services_with_settings


@pytest.fixture
def push_service() -> Iterator[FakePushService]:
    with FakePushService() as service:
        yield service


@pytest.fixture
def services(runtime, fake_llm, push_service):
    built = services_with_settings(runtime, fake_llm, push_allowed_endpoints=[push_service.prefix])
    push_service.server_key = built.push.public_key()
    built.push._sleep = lambda seconds: None  # back-off without waiting
    return built


def befriended(services, account: str = "acc-push", name: str = "小梦"):
    ai_user = services.ai_users.create(account, {"name": name, "avatar": "🌙", "timezone": "Asia/Shanghai"})
    pair = services.ai_users.pair(account, ai_user.id)
    services.soul.set_relationship(pair, ai_user, "特别关心", None, "")  # a heartbeat every 20 minutes
    relationship = services.repo.relationship(pair)
    services.heartbeat_states.change(
        pair, ai_user, relationship, lambda s: person_wrote(s, services.runtime.clock.now())
    )
    return pair, ai_user


def subscribe(services, pair: PairId, device: Device) -> None:
    sub = device.subscription
    services.push.subscribe(pair.account_id, sub["endpoint"], sub["keys"]["p256dh"], sub["keys"]["auth"])


def run_heartbeat(services, pair: PairId, clock, *, then=lambda: None, minutes: int = 30):
    clock.advance(minutes=minutes)
    then()  # what happens just before the heartbeat runs
    state = services.heartbeat_states.get(pair)
    return services.heartbeat.run(HeartbeatDue(pair.account_id, pair.ai_user_id, state.next_due))


def heartbeat_texts(services, pair: PairId) -> list[str]:
    messages, _ = services.repo.log.messages(pair, before=None, after=None, limit=50)
    return [m.content for m in messages if m.kind == "heartbeat"]


@pytest.mark.every_store
def test_a_heartbeat_pushes_once_to_every_device_with_the_name_and_the_text(
    services, fake_llm, push_service, clock
) -> None:
    fake_llm.default = lambda body: Reply.text("在干嘛呢？想你了")
    pair, ai_user = befriended(services)
    phone, laptop = push_service.device(), push_service.device()
    subscribe(services, pair, phone)
    subscribe(services, pair, laptop)
    outcome = run_heartbeat(services, pair, clock)
    assert outcome.status == "sent"
    assert push_service.problems == []
    for device in (phone, laptop):
        [push] = push_service.pushes_to(device)
        assert push.payload["name"] == "小梦"
        assert push.payload["avatar"] == "🌙"
        assert push.payload["body"] == "在干嘛呢？想你了"
        assert push.payload["tag"] == f"chat-{ai_user.id}"
        assert push.payload["url"] == f"/#/chat/{ai_user.id}"
        assert push.payload["message_id"] == outcome.messages[-1].id
        assert push.headers["urgency"] == "high"
    assert len(push_service.attempts) == 2


def test_several_messages_of_one_heartbeat_are_one_notification(services, fake_llm, push_service, clock) -> None:
    fake_llm.default = lambda body: Reply.text("早呀\n\n今天降温了，记得加衣服")
    pair, _ = befriended(services)
    phone = push_service.device()
    subscribe(services, pair, phone)
    outcome = run_heartbeat(services, pair, clock)
    assert len(outcome.messages) == 2
    [push] = push_service.received
    assert push.payload["body"] == "早呀\n今天降温了，记得加衣服"
    assert push.payload["count"] == 2


def test_hidden_content_puts_no_word_of_the_message_in_the_payload(services, fake_llm, push_service, clock) -> None:
    from dreamchat.services.push import PushSettings

    fake_llm.default = lambda body: Reply.text("我梦见我们去看海了")
    pair, _ = befriended(services)
    phone = push_service.device()
    subscribe(services, pair, phone)
    services.push.save_settings(pair.account_id, PushSettings(show_content=False))
    run_heartbeat(services, pair, clock)
    [push] = push_service.received
    assert push.payload["body"] == "发来一条消息"
    assert push.payload["name"] == "小梦"
    assert "海" not in str(push.payload)


@pytest.mark.every_store
def test_a_410_removes_the_subscription_and_the_other_device_still_gets_it(
    services, fake_llm, push_service, clock
) -> None:
    fake_llm.default = lambda body: Reply.text("在吗")
    pair, _ = befriended(services)
    gone, kept = push_service.device(), push_service.device()
    subscribe(services, pair, gone)
    subscribe(services, pair, kept)
    push_service.answer(gone, 410)
    run_heartbeat(services, pair, clock)
    assert [s.endpoint for s in services.push.subscriptions(pair.account_id)] == [kept.endpoint]
    assert len(push_service.pushes_to(kept)) == 1
    assert [status for token, status in push_service.attempts if token == gone.token] == [410]  # never retried


@pytest.mark.every_store
def test_a_500_is_retried_and_the_heartbeat_is_stored_once(services, fake_llm, push_service, clock) -> None:
    fake_llm.default = lambda body: Reply.text("今天过得怎么样")
    pair, _ = befriended(services)
    phone = push_service.device()
    subscribe(services, pair, phone)
    push_service.answer(phone, 500, 503)
    outcome = run_heartbeat(services, pair, clock)
    assert outcome.status == "sent"
    assert [status for _, status in push_service.attempts] == [500, 503, 201]
    assert len(push_service.received) == 1
    assert heartbeat_texts(services, pair) == ["今天过得怎么样"]
    assert len(services.push.subscriptions(pair.account_id)) == 1  # a failure is not a gone device


def test_a_push_service_that_keeps_failing_never_fails_the_heartbeat(services, fake_llm, push_service, clock) -> None:
    fake_llm.default = lambda body: Reply.text("想你了")
    pair, _ = befriended(services)
    phone = push_service.device()
    subscribe(services, pair, phone)
    push_service.answer(phone, 500, 500, 500, 500)
    outcome = run_heartbeat(services, pair, clock)
    assert outcome.status == "sent"
    assert len(push_service.attempts) == services.runtime.settings.push_attempts == 3
    assert heartbeat_texts(services, pair) == ["想你了"]
    state = services.heartbeat_states.get(pair)
    assert state.next_due is not None  # the run was recorded: the next heartbeat is planned


def test_a_muted_friend_pushes_nothing(services, fake_llm, push_service, clock) -> None:
    fake_llm.default = lambda body: Reply.text("在吗")
    pair, ai_user = befriended(services)
    subscribe(services, pair, push_service.device())
    services.ai_users.set_friendship(pair.account_id, ai_user.id, {"muted": True})
    assert run_heartbeat(services, pair, clock).status == "sent"  # muting stops pushes, not heartbeats
    assert push_service.attempts == []


@pytest.mark.every_store
def test_a_person_present_in_that_chat_gets_no_push_but_one_on_the_list_does(
    services, fake_llm, push_service, clock
) -> None:
    fake_llm.default = lambda body: Reply.text("在吗")
    pair, ai_user = befriended(services)
    subscribe(services, pair, push_service.device())
    run_heartbeat(services, pair, clock, then=lambda: services.presence.seen(pair.account_id, "tab-1", ai_user.id))
    assert push_service.attempts == []
    fake_llm.default = lambda body: Reply.text("你去哪啦")
    back_on_the_list = lambda: services.presence.seen(pair.account_id, "tab-1", None)  # noqa: E731
    run_heartbeat(services, pair, clock, then=back_on_the_list, minutes=90)  # after an unanswered one: later
    assert [p.payload["body"] for p in push_service.received] == ["你去哪啦"]


@pytest.mark.every_store
def test_presence_lapses_by_itself(services, fake_llm, push_service, clock) -> None:
    fake_llm.default = lambda body: Reply.text("在吗")
    pair, ai_user = befriended(services)
    subscribe(services, pair, push_service.device())
    services.presence.seen(pair.account_id, "tab-1", ai_user.id)
    clock.advance(seconds=services.runtime.settings.presence_seconds + 1)
    assert services.presence.devices(pair.account_id) == []
    run_heartbeat(services, pair, clock)
    assert len(push_service.received) == 1


@pytest.mark.every_store
def test_a_turn_pushes_only_when_no_device_is_present(services, fake_llm, push_service, clock) -> None:
    fake_llm.default = lambda body: Reply.text("我也是！")
    pair, ai_user = befriended(services)
    subscribe(services, pair, push_service.device())
    services.presence.seen(pair.account_id, "phone", None)  # the list is open: the badge shows it
    person = services.chat.accept(pair, ai_user, "今天好开心")
    services.chat.respond(pair, ai_user, person)
    assert push_service.attempts == []
    services.presence.left(pair.account_id, "phone")  # the person switched apps mid-turn
    person = services.chat.accept(pair, ai_user, "你呢")
    services.chat.respond(pair, ai_user, person)
    [push] = push_service.received
    assert push.payload["body"] == "我也是！"


@pytest.mark.every_store
def test_an_endpoint_subscribed_by_another_account_pushes_for_that_account_only(
    services, fake_llm, push_service, clock
) -> None:
    fake_llm.default = lambda body: Reply.text("在吗")
    first, _ = befriended(services, "acc-first")
    second, _ = befriended(services, "acc-second")
    shared = push_service.device()
    subscribe(services, first, shared)
    subscribe(services, second, shared)  # the first person logged out without unsubscribing
    assert services.push.subscriptions(first.account_id) == []
    run_heartbeat(services, first, clock)
    assert push_service.attempts == []
    services.push.unsubscribe(second.account_id, shared.endpoint)
    assert services.push.subscriptions(second.account_id) == []
