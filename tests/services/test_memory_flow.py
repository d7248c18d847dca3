"""The memory flow with the fake LLM server (what storage decides — races, the due index, the documents — on
every storage adapter)."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from dreamchat import keys
from dreamchat.domain.models import PairId
from dreamchat.events import TopicEnded
from tests.fakes.fake_llm import Reply

PAIR = PairId(account_id="acc1", ai_user_id="ai_1")
ZONE = "Asia/Shanghai"
SUMMARY = {
    "summary": "讨论周末去海边",
    "emotion_tags": {"basic_emotion": "开心", "scene": "闲聊", "atmosphere": "轻松"},
}


def chat(services, *lines, clock=None):
    for line in lines:
        services.topics.record(PAIR, "user", line)
        if clock:
            clock.advance(seconds=5)


def ended_topics(runtime) -> list[str]:
    topics = []
    while not runtime.bus._queue.empty():
        event, _ = runtime.bus._queue.get_nowait()
        runtime.bus._queue.task_done()
        assert event.detail_type == TopicEnded.detail_type
        topics.append(event.detail["topic_id"])
    return topics


def test_each_message_is_stored_with_a_second_precision_timestamp(services, clock) -> None:
    message = services.topics.record(PAIR, "user", "你好")
    assert message.timestamp == int(clock.now().timestamp())
    assert [m.content for m in services.repo.short_term(PAIR)] == ["你好"]
    assert services.repo.log.last_message(PAIR).id == message.id


@pytest.mark.every_store
def test_concurrent_sends_lose_nothing(services) -> None:
    barrier = threading.Barrier(10)

    def send(i: int) -> None:
        barrier.wait()
        services.topics.record(PAIR, "user", f"消息{i}")

    with ThreadPoolExecutor(max_workers=10) as pool:
        list(pool.map(send, range(10)))
    short = services.repo.short_term(PAIR)
    assert sorted(m.content for m in short) == sorted(f"消息{i}" for i in range(10))
    assert len({m.topic_id for m in short}) == 1


def test_an_idle_gap_closes_the_topic_with_the_next_message(services, runtime, clock) -> None:
    first = services.topics.record(PAIR, "user", "早上好")
    clock.advance(hours=6)
    second = services.topics.record(PAIR, "user", "我回来了")
    assert second.topic_id != first.topic_id
    assert ended_topics(runtime) == [first.topic_id]


def test_a_short_pause_keeps_the_topic(services, runtime, clock) -> None:
    first = services.topics.record(PAIR, "user", "早上好")
    clock.advance(hours=5, minutes=59)
    assert services.topics.record(PAIR, "user", "还在吗").topic_id == first.topic_id
    assert ended_topics(runtime) == []


@pytest.mark.every_store
def test_compression_stores_one_mid_term_memory_and_clears_the_topic(services, runtime, fake_llm, clock) -> None:
    fake_llm.script("qwen-plus", Reply.json(SUMMARY))
    chat(
        services, "这个周末我们去哪里玩呢？我想去一个可以看海的地方放松一下", "那就去海边吧，周六早上出发", clock=clock
    )
    topic = services.repo.short_term(PAIR)[0].topic_id
    services.topics.end_topic(PAIR, topic)
    mid = services.compression.compress(PAIR, topic)
    assert mid.summary == "讨论周末去海边" and mid.message_count == 2
    assert mid.time_precision == "hour" and mid.created_at % 3600 == 0
    assert mid.compression_ratio > 0.7 and not mid.degraded and not mid.extracted_to_long
    assert mid.emotion_tags.basic_emotion == "开心"
    assert services.repo.short_term(PAIR) == []
    assert [m.content for m in services.repo.log.messages(PAIR, before=None, after=None, limit=10)[0]][0].startswith(
        "这个周末"
    )
    prompt = json.dumps(fake_llm.requests_for("qwen-plus")[0].messages, ensure_ascii=False)
    assert "看海" in prompt


@pytest.mark.every_store
def test_a_topic_ended_three_times_yields_one_mid_term_memory(services, fake_llm) -> None:
    fake_llm.script("qwen-plus", Reply.json(SUMMARY), Reply.json(SUMMARY), Reply.json(SUMMARY))
    chat(services, "聊聊海边", "好啊")
    topic = services.repo.short_term(PAIR)[0].topic_id
    results = [services.compression.compress(PAIR, topic) for _ in range(3)]
    assert len({r.id for r in results}) == 1
    assert len(services.repo.mid_terms(PAIR)) == 1
    assert len(fake_llm.requests_for("qwen-plus")) == 1


@pytest.mark.every_store
def test_two_racing_workers_store_one_mid_term_memory(services, fake_llm) -> None:
    fake_llm.script("qwen-plus", Reply.json(SUMMARY), Reply.json({**SUMMARY, "summary": "另一个摘要"}))
    chat(services, "聊聊海边", "好啊")
    topic = services.repo.short_term(PAIR)[0].topic_id
    barrier = threading.Barrier(2)

    def work(_: int):
        barrier.wait()
        return services.compression.compress(PAIR, topic)

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(work, range(2)))
    stored = services.repo.mid_terms(PAIR)
    assert len(stored) == 1
    assert {r.summary for r in results} == {stored[0].summary}


@pytest.mark.every_store
def test_messages_arriving_during_compression_stay(services, fake_llm, clock) -> None:
    chat(services, "聊聊海边", "好啊")
    topic = services.repo.short_term(PAIR)[0].topic_id
    services.topics.end_topic(PAIR, topic)

    def summary_after_a_new_message(_body):
        services.topics.record(PAIR, "user", "对了，明天见")
        return Reply.json(SUMMARY)

    fake_llm.default = summary_after_a_new_message
    services.compression.compress(PAIR, topic)
    remaining = services.repo.short_term(PAIR)
    assert [m.content for m in remaining] == ["对了，明天见"]
    assert remaining[0].topic_id != topic


def test_an_invalid_label_is_repaired_then_mapped_to_the_closest(services, fake_llm) -> None:
    bad = {"summary": "聊天", "emotion_tags": {"basic_emotion": "高兴", "scene": "闲聊", "atmosphere": "轻松"}}
    fake_llm.script("qwen-plus", Reply.json(bad), Reply.json(bad))
    chat(services, "今天真高兴", "太好了")
    topic = services.repo.short_term(PAIR)[0].topic_id
    mid = services.compression.compress(PAIR, topic)
    assert mid.emotion_tags.basic_emotion == "开心"
    assert len(fake_llm.requests_for("qwen-plus")) == 2
    assert "basic_emotion" in json.dumps(fake_llm.requests_for("qwen-plus")[1].messages, ensure_ascii=False)


def test_a_failing_model_degrades_to_the_offline_summary_and_loses_nothing(services, fake_llm) -> None:
    fake_llm.default = lambda _body: Reply.error(500)
    chat(services, "我最近在学游泳，每周去三次游泳馆，教练说我进步很快", "真厉害")
    topic = services.repo.short_term(PAIR)[0].topic_id
    mid = services.compression.compress(PAIR, topic)
    assert mid.degraded is True
    assert mid.summary
    assert services.repo.short_term(PAIR) == []


def test_compress_now_ends_the_open_topic(services, runtime, fake_llm) -> None:
    fake_llm.script("qwen-plus", Reply.json(SUMMARY))
    chat(services, "聊聊海边", "好啊")
    produced = services.compression.compress_now(PAIR)
    assert len(produced) == 1
    assert services.topics.record(PAIR, "user", "新话题").topic_id != produced[0].topic_id


def _two_compressed_topics(services, fake_llm, clock) -> list:
    fake_llm.script("qwen-plus", Reply.json(SUMMARY), Reply.json({**SUMMARY, "summary": "聊了工作上的烦恼"}))
    chat(services, "周末去海边吧", "好")
    services.compression.compress_now(PAIR)
    clock.advance(hours=2)
    chat(services, "工作好累", "抱抱你")
    services.compression.compress_now(PAIR)
    return services.repo.mid_terms(PAIR)


def test_extraction_waits_for_the_threshold(services, fake_llm, clock) -> None:
    _two_compressed_topics(services, fake_llm, clock)
    assert services.extractor.extract(PAIR, ZONE).long_term == []
    assert fake_llm.requests_for("doubao-pro-32k") == []


@pytest.mark.every_store
def test_extraction_writes_detail_then_index_and_flags(services, runtime, fake_llm, clock) -> None:
    mids = _two_compressed_topics(services, fake_llm, clock)
    clock.advance(hours=25)
    fake_llm.script(
        "doubao-pro-32k",
        Reply.json(
            {
                "memories": [
                    {
                        "title": "周末出游计划",
                        "key_points": ["想去海边", "周六出发"],
                        "detail_content": "两人商量去海边",
                        "source_mid_ids": [mids[0].id],
                    },
                    {
                        "title": "工作压力",
                        "key_points": ["工作很累"],
                        "detail_content": "对方说工作好累",
                        "source_mid_ids": [mids[1].id, "mid_invented"],
                    },
                ]
            }
        ),
    )
    fake_llm.script("deepseek-chat", Reply.json({"create": False, "content": "", "importance": 3, "category": "其他"}))
    result = services.extractor.extract(PAIR, ZONE)
    assert [e.title for e in result.long_term] == ["周末出游计划", "工作压力"]
    entry = result.long_term[0]
    assert entry.detail_file == "2026-03-15_周末出游计划.json" and entry.time_precision == "day"
    detail = services.repo.detail(PAIR, entry)
    assert detail.source_mid_ids == [mids[0].id] and detail.emotion_tags.basic_emotion == "开心"
    # each document under its revision (the index entry names it): `<detail_file stem>.<revision>.json`
    assert runtime.blobs.list(keys.pair_blob_prefix(PAIR)) == [
        f"pairs/acc1/ai_1/long_term_details/2026-03-15_周末出游计划.{entry.detail_revision}.json",
        f"pairs/acc1/ai_1/long_term_details/2026-03-15_工作压力.{result.long_term[1].detail_revision}.json",
    ]
    assert all(m.extracted_to_long for m in services.repo.mid_terms(PAIR))
    assert services.extractor.extract(PAIR, ZONE).long_term == []
    assert len(fake_llm.requests_for("doubao-pro-32k")) == 1
    assert runtime.store.query_due(keys.due_partition("EXTRACT", keys.shard(PAIR)), "9999").items == []


def _extracted_by_the_model(fake_llm, mids) -> None:
    memories = [
        {"title": f"话题{i}", "key_points": [m.summary], "detail_content": m.summary, "source_mid_ids": [m.id]}
        for i, m in enumerate(mids)
    ]
    fake_llm.script("doubao-pro-32k", Reply.json({"memories": memories}))


def test_core_memory_is_admitted_only_by_the_rules(services, fake_llm, clock) -> None:
    _extracted_by_the_model(fake_llm, _two_compressed_topics(services, fake_llm, clock))
    clock.advance(hours=25)
    fake_llm.script(
        "deepseek-chat", Reply.json({"create": True, "content": "对方极度恐高", "importance": 9, "category": "禁忌"})
    )
    result = services.extractor.extract(PAIR, ZONE)
    assert [c.content for c in result.core] == ["对方极度恐高"]
    assert result.core[0].source == "ai"


def test_core_memory_below_importance_eight_is_refused(services, fake_llm, clock) -> None:
    _extracted_by_the_model(fake_llm, _two_compressed_topics(services, fake_llm, clock))
    clock.advance(hours=25)
    fake_llm.script(
        "deepseek-chat", Reply.json({"create": True, "content": "喜欢海边", "importance": 7, "category": "偏好"})
    )
    assert services.extractor.extract(PAIR, ZONE).core == []
    assert services.repo.core(PAIR) == []


def test_recall_finds_the_detail_document(services, fake_llm, clock) -> None:
    mids = _two_compressed_topics(services, fake_llm, clock)
    clock.advance(hours=25)
    fake_llm.script(
        "doubao-pro-32k",
        Reply.json(
            {
                "memories": [
                    {
                        "title": "周末出游计划",
                        "key_points": ["想去海边"],
                        "detail_content": "两人商量周六去海边看日出",
                        "source_mid_ids": [m.id for m in mids],
                    }
                ]
            }
        ),
    )
    services.extractor.extract(PAIR, ZONE)
    found = services.context.recall(PAIR, "还记得我们说去海边吗")
    assert [r.detail.detail_content for r in found] == ["两人商量周六去海边看日出"]


@pytest.mark.every_store
def test_an_idle_topic_is_closed_by_the_sweep_without_a_new_message(services, runtime, clock) -> None:
    first = services.topics.record(PAIR, "user", "晚点再聊")
    clock.advance(hours=5)
    services.topics.record(PAIR, "user", "还在吗")
    clock.advance(hours=5)
    assert services.topics.close_idle_topics() == 0  # the second message moved the check
    assert ended_topics(runtime) == []
    clock.advance(hours=1, seconds=1)
    assert services.topics.close_idle_topics() == 1
    assert ended_topics(runtime) == [first.topic_id]
    assert services.topics.close_idle_topics() == 0  # out of the index once ended
    assert services.topics.record(PAIR, "user", "我回来了").topic_id != first.topic_id


@pytest.mark.every_store
def test_a_topic_whose_event_was_lost_is_compressed_by_the_safety_net(services, runtime, fake_llm, clock) -> None:
    fake_llm.script("qwen-plus", Reply.json(SUMMARY))
    chat(services, "周末去海边吧", "好呀")
    topic = services.repo.short_term(PAIR)[0].topic_id
    services.topics.end_topic(PAIR, topic)
    assert ended_topics(runtime) == [topic]  # delivered nowhere: as if every retry had failed
    assert services.compression.compress_leftovers() == 0  # not before an hour has passed
    clock.advance(hours=1, seconds=1)
    assert services.compression.compress_leftovers() == 1
    assert [m.topic_id for m in services.repo.mid_terms(PAIR)] == [topic]
    assert services.compression.compress_leftovers() == 0


def test_a_normally_compressed_topic_leaves_no_leftover(services, runtime, fake_llm, clock) -> None:
    fake_llm.script("qwen-plus", Reply.json(SUMMARY))
    chat(services, "聊聊海边", "好")
    topic = services.repo.short_term(PAIR)[0].topic_id
    services.topics.end_topic(PAIR, topic)
    services.compression.compress(PAIR, topic)
    clock.advance(hours=2)
    assert services.compression.compress_leftovers() == 0
    assert len(fake_llm.requests_for("qwen-plus")) == 1
