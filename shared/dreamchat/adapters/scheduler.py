"""The local stand-in for EventBridge schedules: runs each job every N seconds on a thread."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from dreamchat.logsafe import failure

log = logging.getLogger(__name__)


@dataclass
class Job:
    name: str
    every_seconds: float
    run: Callable[[], object]
    next_at: float = 0.0


class LocalScheduler:
    def __init__(self, jobs: list[Job], tick_seconds: float = 1.0) -> None:
        self._jobs = jobs
        self._tick = tick_seconds
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="dreamchat-scheduler", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def _loop(self) -> None:
        while not self._stop.wait(self._tick):
            now = time.monotonic()
            for job in self._jobs:
                if now >= job.next_at:
                    job.next_at = now + job.every_seconds
                    self._run(job)

    def _run(self, job: Job) -> None:
        try:
            job.run()
        except Exception as error:  # noqa: BLE001 - a failed sweep is logged and tried again next time
            log.error("scheduled job failed: %s", failure(error), extra={"job": job.name})
