"""A degraded result is owed work, never done work: it never sets `extracted_to_long` or `core_judged`,
it is recorded once in the due index `HEAL#<shard>`, and the sweep redoes it with back-off."""

from __future__ import annotations

import dataclasses

import pytest

from dreamchat import keys
from dreamchat.config import Settings
from dreamchat.domain.models import PairId
from dreamchat.events import ExtractionDue
from dreamchat.llm.errors import LLMUnavailable
from dreamchat.llm.memory_models import FallbackMemoryModels
from dreamchat.llm.offline import OfflineMemoryModels
from dreamchat.services.container import Services, build_services
from dreamchat.services.storage.unit_of_work import Storage
from tests.services.test_outage_healing import REPLY, ListQueue, OutageModels

PAIR = PairId(account_id="acc_owed", ai_user_id="ai_owed")


class Switch(OutageModels):
    """The scripted models of the outage test, down while `down` says so."""

    def __init__(self, clock) -> None:
        super().__init__(clock)
        self.down = False

    def _up(self, task: str) -> None:
        if self.down:
            raise LLMUnavailable("down")
        self.answered[task] += 1


@pytest.fixture
def world(runtime, clock) -> tuple[Services, Switch, ListQueue]:
    settings = Settings(data_dir=runtime.settings.data_dir, run_scheduler=False, reflect_every_topics=0)
    settings = settings.model_copy(update={"judge_relationship_every_topics": 0})
    models, queue = Switch(clock), ListQueue()
    services = build_services(
        dataclasses.replace(runtime, settings=settings, extract_queue=queue),
        memory_models=FallbackMemoryModels(models, OfflineMemoryModels(), attempts=1, sleep=lambda _: None),
    )
    return services, models, queue


def a_topic(services: Services, text: str) -> str:
    services.topics.record(PAIR, "user", text)
    services.topics.record(PAIR, "assistant", REPLY)
    [mid] = services.compression.compress_now(PAIR)
    return mid.id


def stored(services: Services, sk: str) -> dict:
    return services.runtime.store.get(keys.pair_pk(PAIR), sk)


def owed(services: Services) -> list:
    with Storage(services.runtime.store).pair(PAIR) as uow:
        return [read.entity for read in uow.owed.all()]


def due(services: Services, kind: str) -> list[dict]:
    return services.runtime.store.query_due(keys.due_partition(kind, keys.shard(PAIR)), "~").items


@pytest.mark.every_store
def test_a_degraded_extraction_never_sets_extracted_to_long_and_is_not_extracted_twice(world, clock) -> None:
    services, models, _ = world
    mid_id = a_topic(services, "我下个月要去云南旅行")
    models.down = True
    first = services.extractor.extract(PAIR, "Asia/Shanghai", force=True)
    assert first.degraded and [e.degraded for e in first.long_term] == [True]
    [mid] = services.repo.mid_terms(PAIR)
    assert mid.extracted_to_long is False and due(services, "EXTRACT") == []  # out of the index, not done
    [work] = owed(services)
    assert (work.kind, work.subject, work.sources) == ("extract", first.long_term[0].id, [mid_id])
    assert [found["sk"] for found in due(services, "HEAL")] == [keys.owed("extract", first.long_term[0].id)]
    again = services.extractor.extract(PAIR, "Asia/Shanghai", force=True)  # still down: nothing extracted twice
    assert again.long_term == [] and len(services.repo.long_index(PAIR)) == 1


@pytest.mark.every_store
def test_a_degraded_core_judgment_never_sets_core_judged_and_degraded_entries_wait(world, clock) -> None:
    services, models, _ = world
    a_topic(services, "我下个月要去云南旅行")
    models.down = True
    services.extractor.extract(PAIR, "Asia/Shanghai", force=True)
    [entry] = services.repo.long_index(PAIR)
    assert stored(services, keys.long_term(entry.id))["core_judged"] is False  # an offline entry is not judged
    assert [w.kind for w in owed(services)] == ["extract"]  # and no judgment is owed for it yet
    models.down = False
    [healed] = services.healing.heal(PAIR, force=True)
    assert (healed.kind, healed.outcome) == ("extract", "healed")
    models.down = True
    assert services.core_judge.judge(PAIR, "Asia/Shanghai") == []
    assert stored(services, keys.long_term(entry.id))["core_judged"] is False
    assert [w.kind for w in owed(services)] == ["judge_core"]
    models.down = False
    [judged] = services.healing.heal(PAIR, force=True)
    assert (judged.kind, judged.outcome) == ("judge_core", "healed")
    assert stored(services, keys.long_term(entry.id))["core_judged"] is True and owed(services) == []
    assert [c.content for c in services.repo.core(PAIR)] == ["记住：要点：模型摘要：我下个月要去云南旅行"]


@pytest.mark.every_store
def test_a_redo_replaces_the_offline_result_in_place(world, clock) -> None:
    services, models, _ = world
    models.down = True
    mid_id = a_topic(services, "我最近在学做川菜")
    offline = stored(services, keys.mid_term(mid_id.replace("mid_", "topic_")))
    assert offline["degraded"] is True and "due_pk" not in offline  # due for extraction only once redone
    services.extractor.extract(PAIR, "Asia/Shanghai", force=True)
    assert services.repo.long_index(PAIR) == []  # a summary owed is not extracted
    models.down = False
    [redone] = services.healing.heal(PAIR, force=True)
    assert redone.outcome == "healed"
    healed = stored(services, keys.mid_term(mid_id.replace("mid_", "topic_")))
    assert (healed["id"], healed["degraded"], healed["summary"]) == (mid_id, False, "模型摘要：我最近在学做川菜")
    assert healed["version"] == offline["version"] + 1  # one write, over the version read
    assert healed["due_pk"].startswith("EXTRACT#") and owed(services) == []
    assert len(services.repo.mid_terms(PAIR)) == 1


def test_the_sweep_backs_off_per_item_and_stores_the_attempts(world, clock) -> None:
    services, models, queue = world
    models.down = True
    a_topic(services, "我养的猫生病了")
    backoff = services.runtime.settings.heal_backoff
    waits = []
    for attempt in range(1, 5):
        [work] = owed(services)
        clock.advance(seconds=work.due_at - int(clock.now().timestamp()) - 1)
        assert services.extraction.sweep().healing == 0  # a second early: not picked up
        clock.advance(seconds=1)
        swept = services.extraction.sweep()
        assert (swept.healing, swept.owed) == (1, 1)
        assert services.extraction.sweep().healing == 0  # leased while its worker runs
        [outcome] = [services.extraction.run(ExtractionDue.from_detail(item)) for item in queue.items]
        queue.items.clear()
        assert [h.outcome for h in outcome.healed] == ["degraded"]
        [after] = owed(services)
        assert after.attempts == attempt
        waits.append(after.due_at - int(clock.now().timestamp()))
    assert waits == [backoff.delay(n) for n in range(1, 5)] == [3600, 7200, 14400, 21600]
    models.down = False
    clock.advance(seconds=waits[-1])
    assert services.extraction.sweep().healing == 1
    [outcome] = [services.extraction.run(ExtractionDue.from_detail(item)) for item in queue.items]
    assert [h.outcome for h in outcome.healed] == ["healed"] and services.healing.owed() == 0


def test_a_worker_out_of_time_starts_no_redo_and_leaves_the_work_owed(world, clock) -> None:
    services, models, _ = world
    models.down = True
    a_topic(services, "我准备考研究生")
    models.down = False
    [before] = owed(services)
    assert services.healing.heal(PAIR, force=True, has_time=lambda: False) == []
    assert owed(services) == [before] and models.answered["compress"] == 0
