"""Every memory an extraction returns is stored, and no fact of a compressed topic is ever in no tier
(issue 35 §1).

The attack: the extraction model returns several long-term memories for one topic (a birthday, a dog's
name, a job). Only the first was stored: the others found their source topic already flagged and were
dropped without a word ("1 条长期记忆" of 3), and the topic had left the tiers the context reads (its
summary is a retrieval unit only until it is extracted). Likewise a topic the model's answer left out was
flagged extracted with nothing made of it. What storage decides (a commit that loses its race halfway
through a topic's memories) runs on every store.
"""

from __future__ import annotations

import pytest

from dreamchat import keys
from dreamchat.domain.models import MidTermMemory, PairId
from dreamchat.ports import ConditionFailed, Operation, Put
from dreamchat.services.recall import units_of
from tests.fakes.fake_llm import Reply
from tests.services.conftest import answer_to

PAIR = PairId(account_id="acc1", ai_user_id="ai_1")
ZONE = "Asia/Shanghai"
TAGS = {"basic_emotion": "开心", "scene": "闲聊", "atmosphere": "轻松"}
NO_CORE = Reply.json({"create": False, "content": "", "importance": 3, "category": "其他"})
# one topic, three facts; another topic, one more
ABOUT_ME = ("生日是五月三号", "家里的狗叫旺财", "在杭州做设计师")
TRIP = ("下周三去北京出差",)


def compressed(services, fake_llm, clock, lines: list[str], facts: tuple[str, ...]) -> MidTermMemory:
    """A topic of `lines`, ended and compressed into a summary that states each of `facts`."""
    fake_llm.script("qwen-plus", Reply.json({"summary": "。".join(facts) + "。", "emotion_tags": TAGS}))
    for line in lines:
        services.topics.record(PAIR, "user", line)
        services.topics.record(PAIR, "assistant", answer_to(line))
        clock.advance(seconds=30)
    [mid] = services.compression.compress_now(PAIR)
    clock.advance(hours=2)
    return mid


def two_topics(services, fake_llm, clock) -> tuple[MidTermMemory, MidTermMemory]:
    about = compressed(
        services,
        fake_llm,
        clock,
        ["我的生日是五月三号，你要记住哦", "我家的狗叫旺财，是只柯基", "我在杭州做设计师，天天改图"],
        ABOUT_ME,
    )
    trip = compressed(services, fake_llm, clock, ["下周三我要去北京出差", "大概待三天"], TRIP)
    clock.advance(hours=25)
    return about, trip


def memory(title: str, points: tuple[str, ...] | list[str], *sources: str) -> dict:
    return {
        "title": title,
        "key_points": list(points),
        "detail_content": "；".join(points),
        "source_mid_ids": list(sources),
    }


def extract(services, fake_llm, *memories: dict):
    fake_llm.script("doubao-pro-32k", Reply.json({"memories": list(memories)}))
    fake_llm.script("deepseek-chat", NO_CORE)
    return services.extractor.extract(PAIR, ZONE)


def unread(services, facts: tuple[str, ...]) -> list[str]:
    """The facts no tier the context reads holds: no long-term key point, no summary not yet extracted."""
    units = units_of(services.repo.long_index(PAIR), services.repo.mid_terms(PAIR))
    return [fact for fact in facts if not any(fact in unit.text for unit in units)]


@pytest.mark.every_store
def test_three_memories_the_model_draws_from_one_topic_are_all_stored(services, runtime, fake_llm, clock) -> None:
    about, trip = two_topics(services, fake_llm, clock)
    birthday, dog, job = ABOUT_ME
    result = extract(
        services,
        fake_llm,
        memory("生日", [birthday], about.id),
        memory("宠物", [dog], about.id),
        memory("工作", [job], about.id),
        memory("出差", TRIP, trip.id),
    )

    assert sorted(e.title for e in result.long_term) == sorted(["生日", "宠物", "工作", "出差"])
    index = services.repo.long_index(PAIR)
    assert sorted(p for e in index for p in e.key_points) == sorted([*ABOUT_ME, *TRIP])
    assert len({e.id for e in index}) == 4  # three entries of one topic, each its own
    for entry in index:
        assert services.repo.detail(PAIR, entry).source_mid_ids in ([about.id], [trip.id])
    assert all(m.extracted_to_long for m in services.repo.mid_terms(PAIR))
    assert runtime.store.query_due(keys.due_partition("EXTRACT", keys.shard(PAIR)), "9999").items == []
    assert (result.considered, result.extracted) == (2, 2)
    assert extract(services, fake_llm).long_term == []  # nothing is extracted twice


ANSWERS = {
    "three memories of one topic": lambda about, trip: [
        memory("生日", ABOUT_ME[:1], about.id),
        memory("宠物", ABOUT_ME[1:2], about.id),
        memory("工作", ABOUT_ME[2:], about.id),
        memory("出差", TRIP, trip.id),
    ],
    "one memory of both topics": lambda about, trip: [memory("近况", [*ABOUT_ME, *TRIP], about.id, trip.id)],
    "a topic left out": lambda about, trip: [memory("出差", TRIP, trip.id)],
    "only invented sources": lambda about, trip: [memory("近况", [*ABOUT_ME, *TRIP], "mid_invented")],
    "the same memory twice": lambda about, trip: [
        memory("关于我", ABOUT_ME, about.id),
        memory("关于我", ABOUT_ME, about.id),
        memory("出差", TRIP, trip.id),
    ],
    "overlapping sources": lambda about, trip: [
        memory("生日和出差", [ABOUT_ME[0], *TRIP], about.id, trip.id),
        memory("宠物和工作", ABOUT_ME[1:], about.id),
    ],
}


@pytest.mark.parametrize("answer", ANSWERS, ids=list(ANSWERS))
def test_no_fact_of_a_compressed_topic_is_ever_in_no_tier(services, fake_llm, clock, answer) -> None:
    facts = (*ABOUT_ME, *TRIP)
    about, trip = two_topics(services, fake_llm, clock)
    assert unread(services, facts) == []  # the summaries hold them

    extract(services, fake_llm, *ANSWERS[answer](about, trip))

    assert unread(services, facts) == []
    index = services.repo.long_index(PAIR)
    assert len({e.id for e in index}) == len(index)
    # what the model left out is the offline extraction's, marked degraded and owed to the model
    flagged = {m.id for m in services.repo.mid_terms(PAIR) if m.extracted_to_long}
    offline = [e for e in index if e.degraded]
    assert all(services.repo.detail(PAIR, e).source_mid_ids[0] not in flagged for e in offline)


def lose_the_race_of(monkeypatch, runtime, title: str) -> list[str]:
    """The first transaction that writes the long-term entry titled `title` fails as a lost race."""
    transact, lost = runtime.store.transact, []

    def racing(operations: list[Operation]) -> None:
        writes = [op.item for op in operations if isinstance(op, Put) and op.item["sk"].startswith(keys.LONG_PREFIX)]
        if not lost and any(item.get("title") == title for item in writes):
            lost.append(title)
            raise ConditionFailed("an old entry changed meanwhile")
        transact(operations)

    monkeypatch.setattr(runtime.store, "transact", racing)
    return lost


@pytest.mark.every_store
def test_a_memory_that_loses_its_race_leaves_its_topic_due_and_the_next_run_stores_it_once(
    monkeypatch, services, runtime, fake_llm, clock
) -> None:
    about, trip = two_topics(services, fake_llm, clock)
    answer = [
        memory("生日", ABOUT_ME[:1], about.id),
        memory("宠物", ABOUT_ME[1:2], about.id),
        memory("工作", ABOUT_ME[2:], about.id),
        memory("出差", TRIP, trip.id),
    ]
    lost = lose_the_race_of(monkeypatch, runtime, "宠物")

    first = extract(services, fake_llm, *answer)

    assert lost and sorted(e.title for e in first.long_term) == sorted(["生日", "工作", "出差"])
    # the topic is not flagged: its summary still holds the dog's name, and it is extracted again
    mids = {m.id: m for m in services.repo.mid_terms(PAIR)}
    assert not mids[about.id].extracted_to_long and mids[trip.id].extracted_to_long
    assert unread(services, (*ABOUT_ME, *TRIP)) == []

    again = extract(services, fake_llm, *answer[:3])

    assert [e.title for e in again.long_term] == ["宠物"]  # the two stored before are not stored twice
    index = services.repo.long_index(PAIR)
    assert sorted(e.title for e in index) == sorted(["生日", "宠物", "工作", "出差"])
    assert all(m.extracted_to_long for m in services.repo.mid_terms(PAIR))
