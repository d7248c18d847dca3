"""Builds the adapters named by the settings. Called when an app or handler is built, never at import."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dreamchat.adapters.events import LocalEventBus, LocalWorkQueue, MissingQueue
from dreamchat.adapters.private import vapid_private_key
from dreamchat.adapters.push import VapidKey, WebPushSender, new_private_key
from dreamchat.adapters.search import NoSearch, WebSearch, bocha, searxng, tavily
from dreamchat.config import Settings
from dreamchat.events import ExtractionDue
from dreamchat.ports import (
    BlobStore,
    Clock,
    EventBus,
    ItemStore,
    OperatorAlerts,
    RandomSource,
    WorkQueue,
)


@dataclass
class Runtime:
    settings: Settings
    store: ItemStore
    blobs: BlobStore
    bus: EventBus
    clock: Clock
    random: RandomSource
    queue: WorkQueue | None = None  # heartbeat work
    extract_queue: WorkQueue | None = None  # extraction work; the local bus when None locally
    alerts: OperatorAlerts | None = None  # who tells the operators of a new escalation; from the settings when None
    closers: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        from dreamchat.services.tombstones import TombstoneGuard

        if not isinstance(self.store, TombstoneGuard):  # erased data stays erased, whoever writes
            self.store = TombstoneGuard(self.store)

    def close(self) -> None:
        for close in reversed(self.closers):
            close()


def build_runtime(settings: Settings, *, clock: Clock | None = None, random: RandomSource | None = None) -> Runtime:
    from dreamchat.adapters.runtime import SystemClock, SystemRandom

    clock = clock or SystemClock()
    random = random or SystemRandom()
    if settings.storage == "aws":
        return _aws_runtime(settings, clock, random)
    return _local_runtime(settings, clock, random)


def _local_runtime(settings: Settings, clock: Clock, random: RandomSource) -> Runtime:
    from dreamchat.adapters.blobs import DirectoryBlobStore
    from dreamchat.adapters.events import LocalEventBus, LocalWorkQueue
    from dreamchat.adapters.sqlite_store import SqliteItemStore

    store = SqliteItemStore(settings.data_dir / "dreamchat.db", clock)
    bus = LocalEventBus(attempts=settings.background_attempts)
    blobs = DirectoryBlobStore(settings.data_dir / "blobs")
    runtime = Runtime(settings, store, blobs, bus, clock, random, LocalWorkQueue(bus))
    runtime.closers += [store.close, bus.stop]
    return runtime


def aws_client(settings: Settings, service: str, config: Any = None) -> Any:
    import boto3

    return boto3.client(service, region_name=settings.aws_region, endpoint_url=settings.aws_endpoint_url, config=config)


def s3_client(settings: Settings) -> Any:
    """S3 signing with SigV4 (the links `S3BlobStore` hands out name the bucket's own region)."""
    from botocore.config import Config

    return aws_client(settings, "s3", Config(signature_version="s3v4"))


def _aws_runtime(settings: Settings, clock: Clock, random: RandomSource) -> Runtime:
    from dreamchat.adapters.blobs import S3BlobStore
    from dreamchat.adapters.dynamo_store import DynamoItemStore
    from dreamchat.adapters.events import EventBridgeBus, SqsWorkQueue
    from dreamchat.adapters.jieba_dictionary import use_prebuilt_dictionary

    use_prebuilt_dictionary()

    store = DynamoItemStore(aws_client(settings, "dynamodb"), settings.table, clock)
    blobs = S3BlobStore(s3_client(settings), settings.bucket)
    bus = EventBridgeBus(aws_client(settings, "events"), settings.event_bus)
    sqs = aws_client(settings, "sqs")
    queue, extract_queue = (
        SqsWorkQueue(sqs, url) if url else None for url in (settings.heartbeat_queue_url, settings.extract_queue_url)
    )
    return Runtime(settings, store, blobs, bus, clock, random, queue, extract_queue)


def build_search(settings: Settings) -> WebSearch | NoSearch:
    """The configured provider: SearXNG needs its instance's URL, Bocha and Tavily an API key."""
    key = settings.search_api_key.get_secret_value() if settings.search_api_key else None
    if settings.search_provider == "searxng":
        return searxng(settings.search_url, key) if settings.search_url else NoSearch()
    if key is None:
        return NoSearch()
    return (bocha if settings.search_provider == "bocha" else tavily)(key, settings.search_url)


def build_push(settings: Settings) -> WebPushSender | None:
    """The Web Push sender with this server's VAPID key; None (push off) in aws mode without one."""
    private_key = vapid_private_key(settings, new_private_key)
    return WebPushSender(VapidKey(private_key), settings.push_contact) if private_key else None


def extract_queue(runtime: Runtime) -> WorkQueue:
    """SQS in AWS; locally the bus's worker thread, like heartbeats."""
    if runtime.extract_queue is not None:
        return runtime.extract_queue
    if isinstance(runtime.bus, LocalEventBus):
        return LocalWorkQueue(runtime.bus, ExtractionDue.detail_type)
    return MissingQueue("DREAMCHAT_EXTRACT_QUEUE_URL")


def build_alerts(settings: Settings) -> OperatorAlerts:
    """SNS when the stack names the operators' topic (`DREAMCHAT_OPERATOR_TOPIC_ARN`), else a log line."""
    from dreamchat.adapters.alerts import LogAlerts, SnsAlerts

    if settings.operator_topic_arn:
        return SnsAlerts(aws_client(settings, "sns"), settings.operator_topic_arn)
    return LogAlerts()
