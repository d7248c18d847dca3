"""Per-environment settings, read from CDK context (`-c env=prod -c frontendOrigin=...`)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from aws_cdk import RemovalPolicy
from aws_cdk import aws_logs as logs

ContextGetter = Callable[[str], Any]
SECRET_SUFFIXES = ("_API_KEY", "_SECRET")

# How much background work a pair makes, and what one item costs a worker (docs/deploy.md):
HEARTBEATS_PER_PAIR_PER_DAY = 5  # the default daily cap: the most one pair can be due
EXTRACTIONS_PER_PAIR_PER_DAY = 1  # one sweep round per pair and day once it has new mid-term memories
HEARTBEAT_SECONDS = 4  # one heartbeat, nearly all of it the model's answer
EXTRACTION_SECONDS = 10  # one pair: extraction and the core-memory judgment
PEAK_FACTOR = 3  # the busiest hour against the day's average (people chat in the evening)
MIN_CONCURRENCY, MAX_CONCURRENCY = 2, 1000  # what an SQS event source's MaximumConcurrency allows


def worker_concurrency(active_pairs: int, per_pair_per_day: float, seconds_each: float) -> int:
    """Little's law at the peak: busy workers = items due per second × seconds per item."""
    per_second = active_pairs * per_pair_per_day / 86400 * PEAK_FACTOR
    return max(MIN_CONCURRENCY, min(MAX_CONCURRENCY, math.ceil(per_second * seconds_each)))


@dataclass(frozen=True)
class EnvironmentSettings:
    name: str
    frontend_origins: tuple[str, ...]
    throttle_rate: float  # steady requests per second on the HTTP API's default stage
    throttle_burst: int
    log_retention: logs.RetentionDays
    retain_data: bool  # tables, buckets, secret and logs outlive the stack
    active_pairs: int  # expected (person, AI user) pairs in use: sizes the background workers
    timezone: str = "Asia/Shanghai"
    alarm_email: str | None = None
    operator_email: str | None = None  # subscribed to the operators' alert topic (each new crisis escalation)
    operators: tuple[str, ...] = ()  # usernames of the operators: the API's DREAMCHAT_OPERATORS
    # Extra non-secret DREAMCHAT_* variables, e.g. DREAMCHAT_LLM_BASE_URL or a model name.
    function_environment: Mapping[str, str] = field(default_factory=dict)

    @property
    def heartbeat_concurrency(self) -> int:
        """Heartbeat worker invocations at once: enough for the peak, and a cap that protects the model."""
        return worker_concurrency(self.active_pairs, HEARTBEATS_PER_PAIR_PER_DAY, HEARTBEAT_SECONDS)

    @property
    def extract_concurrency(self) -> int:
        return worker_concurrency(self.active_pairs, EXTRACTIONS_PER_PAIR_PER_DAY, EXTRACTION_SECONDS)

    @property
    def prefix(self) -> str:
        return f"DreamChat-{self.name}"

    @property
    def removal_policy(self) -> RemovalPolicy:
        return RemovalPolicy.RETAIN if self.retain_data else RemovalPolicy.DESTROY


DEFAULTS = {
    "dev": EnvironmentSettings(
        name="dev",
        frontend_origins=("http://localhost:8000", "http://127.0.0.1:8000"),
        throttle_rate=20,
        throttle_burst=40,
        log_retention=logs.RetentionDays.TWO_WEEKS,
        retain_data=False,
        active_pairs=1_000,
    ),
    "prod": EnvironmentSettings(
        name="prod",
        frontend_origins=(),  # no sensible default: `-c frontendOrigin=https://...` is required
        throttle_rate=200,
        throttle_burst=400,
        log_retention=logs.RetentionDays.THREE_MONTHS,
        retain_data=True,
        active_pairs=100_000,
    ),
}


def settings_from_context(get: ContextGetter) -> EnvironmentSettings:
    """The named environment's defaults with any context overrides applied."""
    name = get("env") or "dev"
    if name not in DEFAULTS:
        raise ValueError(f"unknown environment {name!r}; use -c env=" + "|".join(DEFAULTS))
    settings = replace(DEFAULTS[name], **_overrides(get))
    if not settings.frontend_origins:
        raise ValueError(f"{name} needs -c frontendOrigin=https://your.frontend (comma-separate several)")
    return settings


def _overrides(get: ContextGetter) -> dict[str, Any]:
    readers: dict[str, tuple[str, Callable[[Any], Any]]] = {
        "frontendOrigin": ("frontend_origins", _origins),
        "throttleRate": ("throttle_rate", float),
        "throttleBurst": ("throttle_burst", int),
        "timezone": ("timezone", str),
        "alarmEmail": ("alarm_email", str),
        "operatorEmail": ("operator_email", str),
        "operators": ("operators", _names),
        "activePairs": ("active_pairs", int),
        "functionEnvironment": ("function_environment", _function_environment),
    }
    given = {key: get(key) for key in readers}
    return {name: read(given[key]) for key, (name, read) in readers.items() if given[key] not in (None, "")}


def _origins(value: str) -> tuple[str, ...]:
    return tuple(origin.strip().rstrip("/") for origin in str(value).split(",") if origin.strip())


def _names(value: str | list[str]) -> tuple[str, ...]:
    """Comma-separated (from `-c`) or a list (from cdk.json)."""
    names = str(value).split(",") if isinstance(value, str) else [str(name) for name in value]
    return tuple(name.strip() for name in names if name.strip())


def _function_environment(value: str | Mapping[str, str]) -> dict[str, str]:
    """A JSON object (from `-c`) or a mapping (from cdk.json) of DREAMCHAT_* variables."""
    variables = json.loads(value) if isinstance(value, str) else dict(value)
    if not isinstance(variables, dict):
        raise ValueError("functionEnvironment must be a JSON object")
    strays = sorted(name for name in variables if not name.startswith("DREAMCHAT_"))
    if strays:
        raise ValueError(f"functionEnvironment takes DREAMCHAT_* variables only, not {strays}")
    secrets = sorted(name for name in variables if name.endswith(SECRET_SUFFIXES))
    if secrets:
        raise ValueError(f"{secrets} belong in the app secret, not in plain environment variables")
    return {name: str(value) for name, value in variables.items()}
