"""Attacks on compressions that go the way of an ended topic (Compression.compress), kept as tests.

- One topic compressed by two paths at once (its TopicEnded and the person's compress-now, both in
  the model call): only the call whose write stored the memory records it, reflects and judges.
- A pair erased while its leftover compression's quality judgment is in flight: the figures' write
  falls on the tombstone, and the hourly sweep must go on to the next leftover.
"""

from __future__ import annotations

import threading

import pytest

from tests.fakes.fake_llm import Reply
from tests.services.conftest import services_with_settings

pytestmark = pytest.mark.every_store

SUMMARY = {
    "summary": "讨论周末去海边",
    "emotion_tags": {"basic_emotion": "开心", "scene": "闲聊", "atmosphere": "轻松"},
}


def test_one_topic_compressed_by_two_paths_at_once_is_counted_once(runtime, fake_llm) -> None:
    services = services_with_settings(runtime, fake_llm, llm_timeout_seconds=10)
    ai_user = services.ai_users.create("acc_twice", {"name": "小梦"})
    pair = services.ai_users.pair("acc_twice", ai_user.id)
    services.topics.record(pair, "user", "周末去海边吧")
    services.topics.record(pair, "assistant", "好呀")
    topic = services.repo.short_term(pair)[0].topic_id
    services.topics.end_topic(pair, topic)  # TopicEnded is on its way to the compress function

    both_waiting = threading.Barrier(2, timeout=8)

    def respond(body: dict) -> Reply:
        if body.get("model") == "qwen-plus":
            both_waiting.wait()  # the two compressions are in flight at once
            return Reply.json(SUMMARY)
        return Reply.json({"score": 80})

    fake_llm.default = respond
    errors: list[BaseException] = []

    def run(work) -> None:
        try:
            work()
        except BaseException as error:  # noqa: BLE001
            errors.append(error)

    threads = [
        threading.Thread(target=run, args=(lambda: services.compression.compress(pair, topic),)),  # the TopicEnded
        threading.Thread(target=run, args=(lambda: services.compression.compress_now(pair),)),  # the person's tap
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)

    assert errors == []
    assert [m.topic_id for m in services.repo.mid_terms(pair)] == [topic]
    assert services.quality.figures(pair).compressions == 1


def test_an_erasure_during_a_leftovers_quality_judgment_does_not_kill_the_sweep(runtime, fake_llm) -> None:
    services = services_with_settings(runtime, fake_llm, llm_timeout_seconds=10, quality_sample_share=1.0)

    pairs = {}
    for account, text in [("acc_a", "周末去海边看日出"), ("acc_b", "晚上去吃火锅庆祝")]:
        ai_user = services.ai_users.create(account, {"name": "小梦"})
        pair = services.ai_users.pair(account, ai_user.id)
        services.topics.record(pair, "user", text)
        topic = services.repo.short_term(pair)[0].topic_id
        services.topics.end_topic(pair, topic)  # its TopicEnded is never delivered
        pairs[account] = (pair, ai_user.id, topic, text)

    erased: list[str] = []

    def respond(body: dict) -> Reply:
        if body.get("model") == "qwen-plus":
            return Reply.json(SUMMARY)
        prompt = str(body.get("messages"))
        for account, (_pair, ai_user_id, _topic, text) in pairs.items():
            if text in prompt and not erased:  # the person deletes this chat while it is judged
                services.ai_users.unfriend(account, ai_user_id, forget=True)
                erased.append(account)
        return Reply.json({"score": 80})

    fake_llm.default = respond
    runtime.clock.advance(hours=1, seconds=1)

    done = services.compression.compress_leftovers()  # must not raise

    assert erased, "the quality judgment was not asked for"
    survivor = next(a for a in pairs if a not in erased)
    pair, _, topic, _ = pairs[survivor]
    assert [m.topic_id for m in services.repo.mid_terms(pair)] == [topic]
    assert done == 2
