"""Services on a runtime: the memory store by default, every adapter for a test marked `every_store`.

A service test runs on the memory store (milliseconds; it keeps the same contract, tests/contract).
Tests whose outcome depends on how storage behaves (races, conditions, the due index, erasure, what
an item holds on DynamoDB) are marked `every_store` (the rule is in tests/conftest.py): memory,
SQLite with a directory, DynamoDB and S3 under moto.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest
from moto import mock_aws

from dreamchat.adapters.blobs import DirectoryBlobStore
from dreamchat.adapters.events import LocalEventBus, LocalWorkQueue
from dreamchat.adapters.memory_store import MemoryItemStore
from dreamchat.adapters.sqlite_store import SqliteItemStore
from dreamchat.config import Settings
from dreamchat.llm.gateway import OpenAIGateway
from dreamchat.llm.memory_models import FallbackMemoryModels, LLMMemoryModels
from dreamchat.llm.offline import OfflineMemoryModels
from dreamchat.services.container import Services, build_services
from dreamchat.wiring import Runtime
from tests.conftest import make_dynamo, make_s3, queries_of_one_partition, transactions_without_table_copies
from tests.fakes.fake_llm import FakeLLMServer

ANSWER = "嗯嗯，我都记下来了，谢谢你愿意跟我说这些。"


@pytest.fixture
def runtime(request, tmp_path, clock, rng) -> Iterator[Runtime]:
    """The memory store with a directory for blobs; for a test marked `every_store`, each of `STORES`
    (SQLite with a directory, DynamoDB with S3)."""
    settings = Settings(data_dir=tmp_path, run_scheduler=False)
    bus = LocalEventBus(attempts=3, backoff_seconds=0)
    kind = getattr(request, "param", "memory")
    if kind == "memory":
        blobs = DirectoryBlobStore(tmp_path / "blobs")
        yield Runtime(settings, MemoryItemStore(clock), blobs, bus, clock, rng, LocalWorkQueue(bus))
    elif kind == "sqlite":
        store = SqliteItemStore(tmp_path / "items.db", clock)
        yield Runtime(settings, store, DirectoryBlobStore(tmp_path / "blobs"), bus, clock, rng, LocalWorkQueue(bus))
        store.close()
    else:
        # moto copies the whole table before each transaction and sorts it for each query: without that
        # work where it changes no answer, a test's cost no longer grows with the square of its items
        with mock_aws(), transactions_without_table_copies(), queries_of_one_partition():
            yield Runtime(
                settings, make_dynamo(clock, serialized=True), make_s3(), bus, clock, rng, LocalWorkQueue(bus)
            )


def llm_settings(server: FakeLLMServer, **overrides) -> Settings:
    return Settings(
        **{"llm_base_url": server.base_url, "llm_api_key": "test-key", "llm_timeout_seconds": 2, **overrides}
    )


def services_with_settings(runtime: Runtime, server: FakeLLMServer, attempts: int = 1, **overrides) -> Services:
    """Services on `runtime` whose settings are the fake model's with `overrides`, for what settings
    decide (budgets, sampling, reflection); each memory-model task makes `attempts` attempts."""
    fields = {"llm_timeout_seconds": 2, **overrides}
    settings = llm_settings(
        server,
        data_dir=runtime.settings.data_dir,
        run_scheduler=False,
        llm_max_retries=0,
        background_attempts=attempts,
        **fields,
    )
    gateway = OpenAIGateway.from_settings(settings, sleep=lambda _: None)
    models = FallbackMemoryModels(
        LLMMemoryModels(gateway), OfflineMemoryModels(), attempts=attempts, sleep=lambda _: None
    )
    return build_services(dataclasses.replace(runtime, settings=settings), gateway=gateway, memory_models=models)


def services_with_fake_llm(runtime: Runtime, server: FakeLLMServer, attempts: int = 2) -> Services:
    gateway = OpenAIGateway.from_settings(llm_settings(server), sleep=lambda _: None)
    models = FallbackMemoryModels(
        LLMMemoryModels(gateway), OfflineMemoryModels(), attempts=attempts, sleep=lambda _: None
    )
    return build_services(runtime, gateway=gateway, memory_models=models)


@pytest.fixture
def services(runtime, fake_llm) -> Services:
    return services_with_fake_llm(runtime, fake_llm)


@pytest.fixture
def offline_services(runtime) -> Services:
    offline = OfflineMemoryModels()
    return build_services(
        runtime, memory_models=FallbackMemoryModels(offline, offline, attempts=1, sleep=lambda _: None)
    )


def answer_to(said: str) -> str:
    """The AI's answer to a line `said`: as in a real chat, it makes most of the topic, so that a summary
    saying everything the person said keeps within the topic's share (`summary_budget`, 30 %)."""
    need = 3 * len(said)
    return (ANSWER * (need // len(ANSWER) + 1))[: max(need, len(ANSWER))]
