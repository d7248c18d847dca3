"""Event buses: EventBridge in AWS; locally an in-process queue drained by a worker thread."""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections import defaultdict
from typing import Any

from dreamchat.events import HeartbeatDue
from dreamchat.logsafe import failure
from dreamchat.ports import Event, EventHandler, StoreError

log = logging.getLogger(__name__)

EVENT_SOURCE = "dreamchat"


class EventBridgeBus:
    def __init__(self, client: Any, bus_name: str) -> None:
        self._client = client
        self._bus_name = bus_name

    def publish(self, event: Event) -> None:
        entry = {
            "Source": EVENT_SOURCE,
            "DetailType": event.detail_type,
            "Detail": json.dumps(event.detail),
            "EventBusName": self._bus_name,
        }
        response = self._client.put_events(Entries=[entry])
        if response.get("FailedEntryCount"):
            raise StoreError(f"EventBridge refused {event.detail_type}")


class LocalEventBus:
    """Delivers events to subscribers on a worker thread, retrying failures like EventBridge.

    Handlers must be idempotent: a failed delivery is retried up to `attempts` times.
    """

    def __init__(self, attempts: int = 3, backoff_seconds: float = 0.5) -> None:
        self._handlers: dict[str, list[EventHandler]] = defaultdict(list)
        self._queue: queue.Queue[tuple[Event, int] | None] = queue.Queue()
        self._attempts = attempts
        self._backoff = backoff_seconds
        self._worker: threading.Thread | None = None

    def subscribe(self, detail_type: str, handler: EventHandler) -> None:
        self._handlers[detail_type].append(handler)

    def publish(self, event: Event) -> None:
        self._queue.put((event, 1))

    def start(self) -> None:
        if self._worker is None:
            self._worker = threading.Thread(target=self._run, name="dreamchat-events", daemon=True)
            self._worker.start()

    def stop(self) -> None:
        if self._worker is not None:
            self._queue.put(None)
            self._worker.join(timeout=10)
            self._worker = None

    def drain(self) -> None:
        """Deliver everything queued on the calling thread (tests and one-shot scripts)."""
        while True:
            try:
                entry = self._queue.get_nowait()
            except queue.Empty:
                return
            if entry is not None:
                self._deliver(*entry, sleep=False)
            self._queue.task_done()

    def join(self) -> None:
        """Wait until the worker has delivered everything queued so far."""
        self._queue.join()

    def _run(self) -> None:
        while (entry := self._queue.get()) is not None:
            self._deliver(*entry, sleep=True)
            self._queue.task_done()
        self._queue.task_done()

    def _deliver(self, event: Event, attempt: int, *, sleep: bool) -> None:
        for handler in self._handlers[event.detail_type]:
            try:
                handler(event)
            except Exception as error:  # noqa: BLE001 - a failed handler is retried, never drops the event
                log.error(
                    "event handler failed: %s",
                    failure(error),
                    extra={"detail_type": event.detail_type, "attempt": attempt},
                )
                if attempt < self._attempts:
                    if sleep:
                        time.sleep(self._backoff * attempt)
                    self._queue.put((event, attempt + 1))
                return


class LocalWorkQueue:
    """Work items become events on the local bus, delivered by its worker thread."""

    def __init__(self, bus: LocalEventBus, detail_type: str = HeartbeatDue.detail_type) -> None:
        self._bus = bus
        self._detail_type = detail_type

    def send(self, items: list[dict[str, Any]]) -> None:
        for item in items:
            self._bus.publish(Event(self._detail_type, item))


class SqsWorkQueue:
    def __init__(self, client: Any, queue_url: str) -> None:
        self._client = client
        self._url = queue_url

    def send(self, items: list[dict[str, Any]]) -> None:
        for start in range(0, len(items), 10):
            batch = items[start : start + 10]
            entries = [{"Id": str(i), "MessageBody": json.dumps(item)} for i, item in enumerate(batch)]
            response = self._client.send_message_batch(QueueUrl=self._url, Entries=entries)
            if response.get("Failed"):
                raise StoreError(f"SQS refused {len(response['Failed'])} work items")


class MissingQueue:
    """Stands in when a work queue is not configured: sending says so."""

    def __init__(self, setting: str = "DREAMCHAT_HEARTBEAT_QUEUE_URL") -> None:
        self._setting = setting

    def send(self, items: list[dict[str, Any]]) -> None:
        raise StoreError(f"{self._setting} is not set; this work cannot fan out")
