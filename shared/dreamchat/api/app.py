"""The FastAPI app factory shared by the local server and the chat Lambda."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

from dreamchat.adapters.scheduler import Job, LocalScheduler
from dreamchat.api.deadline import RequestDeadline
from dreamchat.api.errors import install_error_handlers
from dreamchat.api.limits import BodySizeLimit, StrictJson
from dreamchat.api.pages import NEXT_CURSOR
from dreamchat.api.routers import (
    admin,
    ai_users,
    auth,
    cards,
    chat,
    client_config,
    escalations,
    export,
    friends,
    health,
    heartbeat,
    media,
    memory,
    moderation,
    presence,
    profile,
    protection,
    push,
    reports,
    soul,
    web,
)
from dreamchat.config import Settings
from dreamchat.llm.gateway import OpenAIGateway
from dreamchat.llm.usage import CallRecord
from dreamchat.services.container import Services, build_services
from dreamchat.wiring import Runtime, build_runtime


def create_app(
    settings: Settings | None = None,
    runtime: Runtime | None = None,
    *,
    on_count: Callable[..., None] | None = None,
    on_model_call: Callable[[CallRecord], None] | None = None,
) -> FastAPI:
    """The app; `on_count` receives operational counts and `on_model_call` each model call's tokens and
    latency (the chat Lambda makes both metrics)."""
    settings = settings or Settings()
    runtime = runtime or build_runtime(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        background = _background(app.state.services) if settings.run_scheduler and settings.storage == "local" else []
        for part in background:
            part.start()
        yield
        for part in reversed(background):
            part.stop()
        app.state.services.model_pool.close()
        runtime.close()

    app = FastAPI(title="DreamChat Cloud", version="0.1.0", lifespan=lifespan)
    app.state.settings = settings
    app.state.runtime = runtime
    # built here, not by build_services, so that /api/health can show its usage figures
    app.state.gateway = (
        OpenAIGateway.from_settings(settings, on_call=on_model_call) if settings.llm_configured else None
    )
    app.state.services = build_services(runtime, gateway=app.state.gateway, on_count=on_count)
    if settings.starters:
        app.state.services.starters.on_start()
    app.state.cards = app.state.services.cards
    app.state.exports, app.state.imports = app.state.services.exports, app.state.services.imports
    install_error_handlers(app)
    for router in (
        health.router,
        client_config.router,
        auth.router,
        ai_users.router,
        cards.router,
        media.router,
        export.router,
        chat.router,
        friends.router,
        memory.router,
        soul.router,
        heartbeat.router,
        profile.router,
        protection.router,
        push.router,
        presence.router,
        reports.router,
        admin.router,
        escalations.router,  # before moderation: /api/admin/reports/crisis-referrals is not a report id
        moderation.router,
        web.router,
    ):
        app.include_router(router)
    app.add_middleware(StrictJson)  # inside BodySizeLimit: it reads a bounded body
    app.add_middleware(
        BodySizeLimit,
        larger={
            cards.IMPORT_PATH: cards.MAX_CARD_BYTES,
            media.UPLOAD_PATH: settings.media_body_max_bytes,
            **export.LIMITS,
        },
        # only where S3 takes files itself does a larger file have another way in
        hints={media.UPLOAD_PATH: media.TOO_LARGE_HINT} if app.state.services.media.signs_links else None,
    )
    app.add_middleware(
        RequestDeadline, turn_seconds=settings.chat_turn_seconds, reserve_seconds=settings.chat_reserve_seconds
    )
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_origins,
            allow_methods=["*"],
            allow_headers=["Authorization", "Content-Type"],
            expose_headers=[NEXT_CURSOR],  # a frontend on another origin follows the list's pages
        )
    return app


def _background(services: Services) -> list[Any]:
    """Locally, the event worker and the schedules EventBridge would run in AWS."""
    jobs = [
        Job("heartbeat-sweep", services.runtime.settings.heartbeat_sweep_seconds, services.heartbeat.sweep),
        Job("idle-topics", 600, services.topics.close_idle_topics),
        Job("compress-leftovers", 600, services.compression.compress_leftovers),
        Job("extract-sweep", 3600, services.extraction.sweep),
        Job("erase-again", 600, services.erasures.erase_again),
    ]
    return [services.runtime.bus, LocalScheduler(jobs)]
