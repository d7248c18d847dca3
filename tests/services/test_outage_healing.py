"""An hour of model outage, then recovery: every degraded result is owed, and healed by the next sweeps.

Four pairs chat through the hour. For its first half every provider fails, for the whole hour the
DeepSeek keys (reflection, core and relationship judgments) do: compressions, extractions, core
judgments, reflections and relationship judgments are answered offline and stored marked degraded.
The person edits one degraded summary and one degraded long-term entry meanwhile. Then the extraction
sweep runs hourly on the injected clock until nothing is owed: each degraded result is replaced in
place by the model's answer (or, for the two edits, the person's version stands), nothing is lost and
nothing is counted twice. On the memory store and on DynamoDB + S3 under moto.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from datetime import datetime, timedelta

import pytest

from dreamchat.config import Settings
from dreamchat.domain.core_memory import RELATIONSHIP_ID, split
from dreamchat.domain.models import Conversation, CoreMemory, MidTermMemory, PairId, RelationshipLevel
from dreamchat.domain.owed import Healed
from dreamchat.events import ExtractionDue
from dreamchat.llm.contracts import (
    CompressOutput,
    CoreJudgment,
    ExtractedMemory,
    ExtractOutput,
    RelationshipJudgment,
    SelfSoulReflection,
)
from dreamchat.llm.errors import LLMUnavailable
from dreamchat.llm.memory_models import TASK_KEYS, FallbackMemoryModels
from dreamchat.llm.offline import OfflineMemoryModels
from dreamchat.services.container import Services, build_services
from dreamchat.services.storage.unit_of_work import Storage
from tests.conftest import START

TAGS = {"basic_emotion": "开心", "scene": "闲聊", "atmosphere": "轻松"}
OUTAGE = START + timedelta(hours=24, minutes=10)  # a day after the first topics, so they are due for extraction
EVERY_KEY_BACK = OUTAGE + timedelta(minutes=30)
DEEPSEEK_BACK = OUTAGE + timedelta(minutes=60)
DEEPSEEK_KEYS = {"deepseek_chat", "deepseek_core_memory"}
# the AI's answer: a topic long enough for the model's summary to keep within its share (30 %)
REPLY = "真的吗？和我说说。我特别想知道后来怎么样了，你那时候是怎么想的，心情好不好，身边有没有人陪着你一起呢？"
TOPICS = {  # per topic of each pair, what the person says (a pair's number is appended)
    "A": "我下个月要去云南旅行",
    "B": "我最近在学做川菜",
    "C": "我养的猫生病了",
    "D": "我准备考研究生",
}


class OutageModels:
    """A model that answers every task deterministically, except while its provider is down: before
    `EVERY_KEY_BACK` every key fails, before `DEEPSEEK_BACK` the DeepSeek keys still do."""

    def __init__(self, clock) -> None:
        self._clock = clock
        self.answered: Counter[str] = Counter()

    def _up(self, task: str) -> None:
        now, key = self._clock.now(), TASK_KEYS[task]
        if OUTAGE <= now < EVERY_KEY_BACK or (key in DEEPSEEK_KEYS and OUTAGE <= now < DEEPSEEK_BACK):
            raise LLMUnavailable(f"{key} is down")
        self.answered[task] += 1

    def compress(self, conversations: list[Conversation], now: datetime) -> CompressOutput:
        self._up("compress")
        said = "；".join(c.content for c in conversations if c.role == "user")
        return CompressOutput.model_validate({"summary": f"模型摘要：{said}", "emotion_tags": TAGS})

    def extract(self, mids: list[MidTermMemory], now: datetime, related: object = ()) -> ExtractOutput:
        self._up("extract")
        memories = [
            ExtractedMemory(
                title=f"模型记忆{m.id[-8:]}",
                key_points=[f"要点：{m.summary}"],
                detail_content=f"详情：{m.summary}",
                source_mid_ids=[m.id],
            )
            for m in mids
        ]
        return ExtractOutput(memories=memories)

    def judge_core(self, new_items, existing: list[CoreMemory], now: datetime) -> CoreJudgment:
        self._up("judge_core")
        title, points = new_items[0]
        return CoreJudgment(create=True, content=f"记住：{points[0]}", importance=9, category="经历")

    def reflect(self, ai_name, base_soul, recent, current_self_soul, now) -> SelfSoulReflection:
        self._up("reflect")
        return SelfSoulReflection(changed=True, self_soul="我发现自己越来越在意对方的日常小事")

    def judge_relationship(self, current_level: RelationshipLevel, recent, now) -> RelationshipJudgment:
        self._up("judge_relationship")
        return RelationshipJudgment(level="关系较好", reason="聊得越来越多")


class CountingOffline(OfflineMemoryModels):
    """The offline provider, counting the degraded results it produces per task."""

    def __init__(self) -> None:
        self.degraded: Counter[str] = Counter()

    def compress(self, conversations, now):  # noqa: ANN001, ANN201 - as the parent
        self.degraded["compress"] += 1
        return super().compress(conversations, now)

    def extract(self, mids, now, related=()):  # noqa: ANN001, ANN201
        self.degraded["extract"] += 1
        return super().extract(mids, now, related)

    def judge_core(self, new_items, existing, now):  # noqa: ANN001, ANN201
        self.degraded["judge_core"] += 1
        return super().judge_core(new_items, existing, now)

    def reflect(self, ai_name, base_soul, recent, current_self_soul, now):  # noqa: ANN001, ANN201
        self.degraded["reflect"] += 1
        return super().reflect(ai_name, base_soul, recent, current_self_soul, now)

    def judge_relationship(self, current_level, recent, now):  # noqa: ANN001, ANN201
        self.degraded["judge_relationship"] += 1
        return super().judge_relationship(current_level, recent, now)


class ListQueue:
    def __init__(self) -> None:
        self.items: list[dict] = []

    def send(self, items: list[dict]) -> None:
        self.items.extend(json.loads(json.dumps(item)) for item in items)


@dataclasses.dataclass
class World:
    services: Services
    models: OutageModels
    offline: CountingOffline
    queue: ListQueue
    pairs: list[PairId]
    clock: object
    ever_owed: set[tuple[str, str, str]] = dataclasses.field(default_factory=set)
    healed: list[tuple[str, Healed]] = dataclasses.field(default_factory=list)  # by account

    def owed(self) -> set[tuple[str, str, str]]:
        found = set()
        for pair in self.pairs:
            with Storage(self.services.runtime.store).pair(pair) as uow:
                found |= {(pair.account_id, o.entity.kind, o.entity.subject) for o in uow.owed.all()}
        self.ever_owed |= found
        return found

    def at(self, moment: datetime) -> None:
        self.clock.advance(seconds=(moment - self.clock.now()).total_seconds())

    def topic(self, name: str) -> None:
        for i, pair in enumerate(self.pairs):
            self.services.topics.record(pair, "user", f"{TOPICS[name]}（{i}）")
            self.services.topics.record(pair, "assistant", REPLY)
            self.services.compression.compress_now(pair)
        self.owed()

    def sweep(self) -> int:
        """One extraction sweep and its work; how many pairs it sent."""
        pairs = self.services.extraction.sweep().pairs
        while self.queue.items:
            work = ExtractionDue.from_detail(self.queue.items.pop(0))
            outcome = self.services.extraction.run(work)
            self.healed += [(work.account_id, h) for h in outcome.healed]
        self.owed()
        return pairs


@pytest.fixture
def world(runtime, clock) -> World:
    settings = Settings(
        data_dir=runtime.settings.data_dir,
        run_scheduler=False,
        reflect_every_topics=2,
        judge_relationship_every_topics=2,
        self_soul_min_hours=0,
    )
    models, offline, queue = OutageModels(clock), CountingOffline(), ListQueue()
    services = build_services(
        dataclasses.replace(runtime, settings=settings, extract_queue=queue),
        memory_models=FallbackMemoryModels(models, offline, attempts=1, sleep=lambda _: None),
    )
    pairs = []
    for i in range(4):
        ai_user = services.ai_users.create(f"acc_{i}", {"name": "小梦", "base_soul": "温柔体贴的朋友"})
        pairs.append(PairId(account_id=f"acc_{i}", ai_user_id=ai_user.id))
    return World(services, models, offline, queue, pairs, clock)


@pytest.mark.parametrize("runtime", ["memory", "dynamodb"], indirect=True)
def test_an_hour_of_outage_is_healed_by_the_next_sweeps(world: World, capsys) -> None:
    services, (p0, p1, *_) = world.services, world.pairs
    the_hour_of_outage_staggered(world)
    degraded = dict(world.offline.degraded)
    assert set(degraded) == {"compress", "extract", "judge_core", "reflect", "judge_relationship"}
    owed_at_recovery = world.owed()
    assert owed_at_recovery  # the outage left work owed

    world.at(DEEPSEEK_BACK)
    sweeps = 0
    while world.owed() and sweeps < 8:
        world.sweep()
        sweeps += 1
        world.clock.advance(hours=1)
    assert world.owed() == set() and services.healing.owed() == 0
    assert sweeps <= 7  # within the back-off cap (6 h) and a sweep

    outcomes = Counter(h.outcome for _, h in world.healed)
    last = {(account, h.kind, h.subject): h.outcome for account, h in world.healed}  # each item's last redo
    edited = {
        (p0.account_id, "compress", mid_b_of(world)),
        (p1.account_id, "extract", services.repo.long_index(p1)[0].id),
    }
    assert {k for k, outcome in last.items() if outcome == "cancelled"} == edited
    assert {k for k, outcome in last.items() if outcome == "healed"} == world.ever_owed - edited
    # a day later the redone summaries are extracted by the model like any other
    world.clock.advance(hours=25)
    world.sweep()
    assert_nothing_lost_or_doubled(world)
    by_kind = Counter(kind for _, kind, _ in world.ever_owed)
    with capsys.disabled():
        print(
            f"\noutage on {type(services.runtime.store.inner).__name__}: degraded results {degraded}; "
            f"owed items by kind {dict(by_kind)}; redo outcomes {dict(outcomes)}; "
            f"sweeps after recovery {sweeps}; model answers {dict(world.models.answered)}"
        )


def mid_b_of(world: World) -> str:
    return next(m.id for m in world.services.repo.mid_terms(world.pairs[0]) if m.summary.startswith("我自己"))


def the_hour_of_outage_staggered(world: World) -> None:
    """Pairs 0 and 1 have their first topic at 12:00, pairs 2 and 3 at 13:00 (due for extraction an hour
    later); then the hour of outage."""
    services, (p0, p1, *_) = world.services, world.pairs
    for i, pair in enumerate(world.pairs):
        if i == 2:
            world.clock.advance(hours=1)
        services.topics.record(pair, "user", f"{TOPICS['A']}（{i}）")
        services.topics.record(pair, "assistant", REPLY)
        services.compression.compress_now(pair)
    world.at(OUTAGE + timedelta(minutes=5))
    world.topic("B")  # every key down: degraded summaries; 2nd topic: degraded reflections and judgments
    world.at(OUTAGE + timedelta(minutes=10))
    assert world.sweep() == 2  # pairs 0 and 1: degraded extractions (nothing judged from them)
    world.at(OUTAGE + timedelta(minutes=15))
    [entry] = services.repo.long_index(p1)
    assert entry.degraded
    services.memory_editor.long_term(p1, entry.id, False, {"key_points": ["我自己改的要点"]})
    world.at(OUTAGE + timedelta(minutes=20))
    mid_b = next(m for m in services.repo.mid_terms(p0) if m.degraded)
    services.memory_editor.mid_term(p0, mid_b.id, False, {"summary": "我自己写的摘要：在学川菜"})
    world.at(OUTAGE + timedelta(minutes=40))
    world.topic("C")  # compression is back; DeepSeek is not
    world.at(OUTAGE + timedelta(minutes=50))
    world.topic("D")  # 4th topic: reflections and judgments degraded again (owed once)
    world.at(OUTAGE + timedelta(minutes=55))
    world.sweep()  # pairs 2 and 3 extracted by the model, their core judgments degraded; owed summaries redone


def assert_nothing_lost_or_doubled(world: World) -> None:
    repo = world.services.repo
    for i, pair in enumerate(world.pairs):
        mids = repo.mid_terms(pair)
        assert len(mids) == 4 and len({m.id for m in mids}) == 4
        assert not any(m.degraded for m in mids) and all(m.extracted_to_long for m in mids)
        expected = {name: f"模型摘要：{said}（{i}）" for name, said in TOPICS.items()}
        if i == 0:
            expected["B"] = "我自己写的摘要：在学川菜"  # the person's edit stands
        assert sorted(m.summary for m in mids) == sorted(expected.values())
        entries = repo.long_index(pair)
        assert not any(e.degraded for e in entries)
        sources = [s for e in entries for s in repo.detail(pair, e).source_mid_ids]
        assert sorted(sources) == sorted(m.id for m in mids)  # each summary in exactly one entry
        for entry in entries:
            assert len(entry.key_points) == len(set(entry.key_points))
            detail = repo.detail(pair, entry)
            [mid] = [m for m in mids if m.id in detail.source_mid_ids]
            if i == 1 and entry.key_points == ["我自己改的要点"]:
                continue  # the person's edit stands
            assert entry.key_points == [f"要点：{mid.summary}"] and detail.detail_content == f"详情：{mid.summary}"
        if i == 1:
            assert [e.key_points for e in entries].count(["我自己改的要点"]) == 1
        with Storage(world.services.runtime.store).pair(pair) as uow:
            assert uow.long_terms.unjudged() == [] and uow.owed.all() == []
        core = repo.core(pair)
        assert len({c.id for c in core}) == len(core) and len({c.content for c in core}) == len(core)
        assert 1 <= sum(c.source == "ai" for c in core) <= 2  # the month's cap
        parts = split(core)  # exactly one change: the current entry and its one history entry
        assert [c.content for c in parts.history] == ["关系等级从「一般」变为「关系较好」：聊得越来越多"]
        assert parts.relationship is not None and parts.relationship.id == RELATIONSHIP_ID
        assert repo.relationship(pair).level == "关系较好"
        assert repo.self_soul(pair).self_soul == "我发现自己越来越在意对方的日常小事"
