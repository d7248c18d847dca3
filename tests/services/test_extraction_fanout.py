"""Extraction through the work queue: the sweep leases what it enqueues, and two racing workers
fed every work item twice (SQS delivers at least once) extract each pair once.

500 pairs on SQLite and on the memory store; 100 on DynamoDB + S3 under moto, where every request
costs about 4 ms of moto's own work (19 requests a pair): 500 pairs took 83 s there, 100 take about
7 s, and each pair is raced the same way (its two deliveries side by side), every one of the 16
due-index shards holding several. moto copies the whole table before every TransactWriteItems, which
made 60 pairs take minutes; `transactions_without_table_copies` skips the copy when no condition of
the transaction can fail (then there is nothing to roll back). `FANOUT_PAIRS` sets the count on moto
(`FANOUT_PAIRS=500` for the full run).
The queue is in memory here because moto's SQS receive is quadratic in the queue's length; the
SQS adapter itself is exercised by tests/handlers.
"""

from __future__ import annotations

import json
import os
import queue
import threading
from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest
from moto import mock_aws

from dreamchat import keys
from dreamchat.adapters.blobs import DirectoryBlobStore
from dreamchat.adapters.dynamo_store import DynamoItemStore
from dreamchat.adapters.events import LocalEventBus
from dreamchat.adapters.memory_store import MemoryItemStore
from dreamchat.adapters.sqlite_store import SqliteItemStore
from dreamchat.config import Settings
from dreamchat.domain.models import EmotionTags, MidTermMemory, PairId
from dreamchat.events import ExtractionDue
from dreamchat.llm.memory_models import FallbackMemoryModels
from dreamchat.llm.offline import OfflineMemoryModels
from dreamchat.ports import ConditionFailed, KeyRange, Put
from dreamchat.services.container import Services, build_services
from dreamchat.services.storage.unit_of_work import Storage
from dreamchat.wiring import Runtime
from tests.conftest import make_dynamo, make_s3, queries_of_one_partition, transactions_without_table_copies

MOTO_PAIRS = int(os.environ.get("FANOUT_PAIRS", "100"))
TAGS = EmotionTags(basic_emotion="开心", scene="闲聊", atmosphere="轻松")


class CountingModels(OfflineMemoryModels):
    """The offline models, counting which mid-term memories each extraction was given."""

    def __init__(self) -> None:
        self.extracted: Counter[str] = Counter()
        self._lock = threading.Lock()

    def extract(self, mids: list[MidTermMemory], now: datetime, related=()):  # noqa: ANN001, ANN201 - as the parent
        with self._lock:
            self.extracted.update(m.id for m in mids)
        return super().extract(mids, now, related)


class DuplicatingQueue:
    """SQS delivers at least once: every work item arrives twice, to whichever worker asks first."""

    def __init__(self) -> None:
        self.items: queue.Queue[str] = queue.Queue()
        self.outcomes: list[str] = []

    def send(self, items: list[dict]) -> None:
        for item in items:  # the two copies side by side, so the two workers take them at once
            self.items.put(json.dumps(item))
            self.items.put(json.dumps(item))


@pytest.fixture(params=["dynamodb", "sqlite", "memory"])
def cloud(request, tmp_path, clock, rng) -> Iterator[tuple[Services, CountingModels, DuplicatingQueue]]:
    with mock_aws(), transactions_without_table_copies(), queries_of_one_partition():
        work = DuplicatingQueue()
        settings = Settings(data_dir=tmp_path, run_scheduler=False)
        if request.param == "dynamodb":
            store, blobs = make_dynamo(clock, serialized=True), make_s3()
        elif request.param == "sqlite":
            store, blobs = SqliteItemStore(tmp_path / "items.db", clock), DirectoryBlobStore(tmp_path / "blobs")
        else:
            store, blobs = MemoryItemStore(clock), DirectoryBlobStore(tmp_path / "blobs")
        runtime = Runtime(settings, store, blobs, LocalEventBus(), clock, rng, extract_queue=work)
        models = CountingModels()
        services = build_services(
            runtime, memory_models=FallbackMemoryModels(models, models, attempts=1, sleep=lambda _: None)
        )
        yield services, models, work


def due_pairs(services: Services, count: int) -> list[PairId]:
    """`count` pairs, each with one mid-term memory two days old (past the 24 h threshold)."""
    created = int((services.runtime.clock.now() - timedelta(days=2)).timestamp())
    pairs = []
    for i in range(count):
        pair = PairId(account_id=f"acct{i:04d}", ai_user_id="ai_x")
        mid = MidTermMemory(
            id=f"mid_{i:04d}",
            topic_id=f"topic_{i:04d}",
            summary=f"第{i}次聊到去海边看日出",
            emotion_tags=TAGS,
            message_count=4,
            created_at=created,
            compression_ratio=0.7,
        )
        with Storage(services.runtime.store).pair(pair) as uow:
            uow.mid_terms.add(mid, None)
            uow.commit()
        pairs.append(pair)
    return pairs


def work_the_queue(services: Services, work: DuplicatingQueue) -> None:
    """One worker: take, run, and put back what did not finish (another run held it)."""
    while True:
        try:
            body = work.items.get_nowait()
        except queue.Empty:
            return
        outcome = services.extraction.run(ExtractionDue.from_detail(json.loads(body)))
        work.outcomes.append(outcome.status)
        if not outcome.finished:
            work.items.put(body)


def test_due_pairs_through_the_queue_with_two_racing_workers_are_each_extracted_once(cloud) -> None:
    services, models, work = cloud
    on_moto = isinstance(services.runtime.store.inner, DynamoItemStore)  # the runtime's store is the tombstone guard
    count = MOTO_PAIRS if on_moto else 500
    pairs = due_pairs(services, count)
    assert len({keys.shard(pair) for pair in pairs}) == keys.DUE_SHARDS  # the sweep reads every shard
    assert services.extraction.sweep().pairs == count
    assert services.extraction.sweep().pairs == 0  # leased: the second sweep enqueues nothing
    assert work.items.qsize() == 2 * count
    workers = [threading.Thread(target=work_the_queue, args=(services, work)) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=600)
    assert work.items.empty()
    assert Counter(work.outcomes)["extracted"] == count and Counter(work.outcomes)["duplicate"] >= 1
    assert models.extracted == Counter({f"mid_{i:04d}": 1 for i in range(count)})
    for pair in pairs:
        assert len(services.repo.long_index(pair)) == 1
        assert [m.extracted_to_long for m in services.repo.mid_terms(pair)] == [True]
    services.runtime.clock.advance(seconds=services.runtime.settings.lease_seconds + 1)
    assert services.extraction.sweep().pairs == 0  # nothing left due once the leases lapse


def test_an_extraction_killed_mid_run_is_redone_after_its_lease(cloud, monkeypatch) -> None:
    services, models, queued = cloud
    [pair] = due_pairs(services, 1)
    services.extraction.sweep()
    work = ExtractionDue.from_detail(json.loads(queued.items.get_nowait()))

    class Killed(BaseException):
        pass

    with monkeypatch.context() as patch:
        patch.setattr(services.extractor, "extract", lambda *a, **k: (_ for _ in ()).throw(Killed()))
        with pytest.raises(Killed):
            services.extraction.run(work)
    assert services.extraction.run(work).status == "leased"
    assert services.extraction.sweep().pairs == 0
    services.runtime.clock.advance(seconds=services.runtime.settings.lease_seconds + 1)
    assert services.extraction.run(work).status == "extracted"  # the redelivery after the lease
    assert services.extraction.run(work).status == "duplicate"
    assert len(services.repo.long_index(pair)) == 1
    assert services.extraction.sweep().pairs == 0
    assert models.extracted == Counter({"mid_0000": 1})


def test_without_table_copies_a_failed_transaction_still_writes_nothing(clock) -> None:
    with mock_aws(), transactions_without_table_copies():
        store = make_dynamo(clock)
        store.put({"pk": "A", "sk": "1", "version": 1})
        store.transact([Put({"pk": "B", "sk": "1"}), Put({"pk": "A", "sk": "1", "version": 2}, expected_version=1)])
        assert store.get("A", "1")["version"] == 2
        with pytest.raises(ConditionFailed):
            store.transact([Put({"pk": "C", "sk": "1"}), Put({"pk": "A", "sk": "1", "version": 9}, expected_version=5)])
        assert store.get("C", "1") is None and store.get("A", "1")["version"] == 2


def test_queries_of_one_partition_answer_as_moto_does(clock) -> None:
    with mock_aws():
        store = make_dynamo(clock)
        for pk in ("A", "B", "C"):
            for i in range(7):
                store.put({"pk": pk, "sk": f"MSG#{i}", "due_pk": "D", "due_sk": f"{i}#{pk}"})
            store.put({"pk": pk, "sk": "OTHER"})

        def answers() -> list[list[dict]]:
            found = []
            for descending in (False, True):
                for key in (KeyRange(), KeyRange(prefix="MSG#"), KeyRange(start="MSG#2", end="MSG#5")):
                    cursor = None
                    while True:
                        page = store.query("B", key, limit=2, descending=descending, cursor=cursor)
                        found.append(page.items)
                        if (cursor := page.cursor) is None:
                            break
            found.append(store.query("NONE").items)
            found.append(store.query_due("D", "4", limit=5).items)
            return found

        plain = answers()
        with queries_of_one_partition():
            assert answers() == plain
