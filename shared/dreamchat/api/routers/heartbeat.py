from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Path
from pydantic import Field

from dreamchat.api.deps import CurrentCaller, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.model_work import ModelPoolDep
from dreamchat.api.schemas import Body
from dreamchat.domain.heartbeat import MAX_BACKOFF, HeartbeatState, Prefs, remove_scheduled
from dreamchat.domain.models import PairId
from dreamchat.errors import NotFound
from dreamchat.services.container import Services
from dreamchat.services.heartbeat import Work

router = APIRouter(prefix="/api/heartbeat", tags=["heartbeat"], responses=documented(401))


class Configure(Body):
    enabled: bool | None = None
    night_start: int | None = Field(default=None, ge=0, le=23)
    night_end: int | None = Field(default=None, ge=0, le=23)
    daily_cap: int | None = Field(default=None, ge=0, le=100)
    quiet_minutes: int | None = Field(default=None, ge=0, le=1440)
    max_backoff: int | None = Field(default=None, ge=1, le=MAX_BACKOFF)
    pause_after_days: float | None = Field(default=None, gt=0, le=3650)


def _status(services: Services, account_id: str) -> dict[str, Any]:
    prefs = services.heartbeats.prefs(account_id)
    entries = []
    for ai_user, _ in services.ai_users.friends(account_id):
        pair = PairId(account_id=account_id, ai_user_id=ai_user.id)
        state = services.heartbeats.get(pair)
        relationship = services.memory.repo.relationship(pair)
        entries.append(
            {
                "ai_user_id": ai_user.id,
                "name": ai_user.name,
                "avatar": ai_user.avatar,
                "enabled": prefs.enabled,
                "level": relationship.level,
                "next_due": state.next_due,
                "next_kind": state.next_kind,
                "last_sent": state.last_sent_at,
                "unanswered": state.unanswered,
                "scheduled": [s.model_dump() for s in state.scheduled],
            }
        )
    return {"prefs": prefs.model_dump(), "ai_users": entries}


def reschedule_all(services: Services, account_id: str) -> None:
    """Plan every friend's next heartbeat again (the settings or the person's clock changed)."""
    for ai_user, _ in services.ai_users.friends(account_id):
        pair = PairId(account_id=account_id, ai_user_id=ai_user.id)
        relationship = services.memory.repo.relationship(pair)
        services.heartbeats.change(pair, ai_user, relationship, lambda state: state)


@router.get("/status")
def status(caller: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
    """Per AI user of the caller: enabled, level, next due, last sent, scheduled heartbeats."""
    return _status(services, caller.id)


@router.post("/configure", responses=documented(400, 413, 422))
def configure(body: Configure, caller: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
    """Change the caller's heartbeat settings (on/off, night window, caps)."""
    current = services.heartbeats.prefs(caller.id)
    prefs = Prefs.model_validate({**current.model_dump(), **body.model_dump(exclude_none=True)})
    services.heartbeats.save_prefs(caller.id, prefs)
    reschedule_all(services, caller.id)
    return _status(services, caller.id)


@router.post("/start")
def start(caller: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
    """Turn heartbeats on for the caller and plan the next one for every AI friend."""
    prefs = services.heartbeats.prefs(caller.id).model_copy(update={"enabled": True})
    services.heartbeats.save_prefs(caller.id, prefs)
    reschedule_all(services, caller.id)
    return _status(services, caller.id)


@router.post("/trigger/{user_id}", responses=documented(404, 422, 429, 503))
async def trigger(user_id: str, caller: CurrentCaller, services: ServicesDep, models: ModelPoolDep) -> dict[str, Any]:
    """Run one heartbeat now, whatever its timing, and say what happened."""
    return await models.call(caller.id, _trigger, services, caller.id, user_id)


def _trigger(services: Services, account_id: str, user_id: str) -> dict[str, Any]:
    pair = services.ai_users.pair(account_id, user_id)
    now = int(services.runtime.clock.now().timestamp())
    outcome = services.heartbeat.run(Work(pair.account_id, pair.ai_user_id, now), force=True)
    return {"status": outcome.status, "reason": outcome.reason, "messages": [m.model_dump() for m in outcome.messages]}


@router.get("/scheduled/{user_id}", responses=documented(404, 422))
def scheduled(user_id: str, caller: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
    """The daily heartbeats this AI friend has scheduled for the caller (its schedule tool), by time."""
    pair = services.ai_users.pair(caller.id, user_id)
    state = services.heartbeats.get(pair)
    return {"ai_user_id": user_id, "scheduled": [s.model_dump() for s in state.scheduled]}


@router.delete("/scheduled/{user_id}/{hour}/{minute}", responses=documented(404, 422))
def cancel_scheduled(
    user_id: str,
    caller: CurrentCaller,
    services: ServicesDep,
    hour: int = Path(ge=0, le=23),
    minute: int = Path(ge=0, le=59),
) -> dict[str, Any]:
    """Cancel the caller's scheduled heartbeat at hour:minute with this AI friend; 404 if there is none."""
    pair, ai_user = services.ai_users.companion(caller.id, user_id)
    relationship = services.memory.repo.relationship(pair)
    removed: list[bool] = []

    def edit(state: HeartbeatState) -> HeartbeatState:
        updated, found = remove_scheduled(state, hour, minute)
        removed.append(found)
        return updated

    state = services.heartbeats.change(pair, ai_user, relationship, edit)
    if not removed[-1]:
        raise NotFound(f"no scheduled heartbeat at {hour:02d}:{minute:02d}")
    return {"ai_user_id": user_id, "scheduled": [s.model_dump() for s in state.scheduled]}
