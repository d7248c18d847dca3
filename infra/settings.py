"""Per-environment settings, read from CDK context (`-c env=prod -c frontendOrigin=...`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from aws_cdk import RemovalPolicy
from aws_cdk import aws_logs as logs

ContextGetter = Callable[[str], Any]
SECRET_SUFFIXES = ("_API_KEY", "_SECRET")


@dataclass(frozen=True)
class EnvironmentSettings:
    name: str
    frontend_origins: tuple[str, ...]
    throttle_rate: float  # steady requests per second on the HTTP API's default stage
    throttle_burst: int
    log_retention: logs.RetentionDays
    retain_data: bool  # tables, buckets, secret and logs outlive the stack
    heartbeat_concurrency: int  # worker invocations at once: protects the model's rate limits
    timezone: str = "Asia/Shanghai"
    alarm_email: str | None = None
    # Extra non-secret DREAMCHAT_* variables, e.g. DREAMCHAT_LLM_BASE_URL or a model name.
    function_environment: Mapping[str, str] = field(default_factory=dict)

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
        heartbeat_concurrency=2,
    ),
    "prod": EnvironmentSettings(
        name="prod",
        frontend_origins=(),  # no sensible default: `-c frontendOrigin=https://...` is required
        throttle_rate=200,
        throttle_burst=400,
        log_retention=logs.RetentionDays.THREE_MONTHS,
        retain_data=True,
        heartbeat_concurrency=10,
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
        "functionEnvironment": ("function_environment", _function_environment),
    }
    given = {key: get(key) for key in readers}
    return {name: read(given[key]) for key, (name, read) in readers.items() if given[key] not in (None, "")}


def _origins(value: str) -> tuple[str, ...]:
    return tuple(origin.strip().rstrip("/") for origin in str(value).split(",") if origin.strip())


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
