"""All services of one app or handler, built once from the runtime's adapters."""

from __future__ import annotations

from dataclasses import dataclass

from dreamchat.services.ai_users import AIUserService
from dreamchat.services.auth import AuthService
from dreamchat.wiring import Runtime


@dataclass
class Services:
    runtime: Runtime
    auth: AuthService
    ai_users: AIUserService


def build_services(runtime: Runtime) -> Services:
    return Services(
        runtime=runtime,
        auth=AuthService(runtime.store, runtime.clock, runtime.settings),
        ai_users=AIUserService(runtime.store, runtime.blobs, runtime.clock),
    )
