from __future__ import annotations

from fastapi import APIRouter, Path, Response
from pydantic import Field

from dreamchat.api.deps import CompanionDep, CurrentCaller, ModelPoolDep, PairDep, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.pages import DEFAULT_LIMIT, Cursor, Limit, next_page, paged
from dreamchat.api.responses import HeartbeatStatusOut, MessageOut, ScheduledOut, ScheduleOut, TriggeredOut
from dreamchat.api.schemas import Body
from dreamchat.domain.heartbeat import MAX_BACKOFF, HeartbeatState
from dreamchat.services.views import HeartbeatStatusView

router = APIRouter(prefix="/api/heartbeat", tags=["heartbeat"], responses=documented(401))


class Configure(Body):
    enabled: bool | None = None
    night_start: int | None = Field(default=None, ge=0, le=23)
    night_end: int | None = Field(default=None, ge=0, le=23)
    daily_cap: int | None = Field(default=None, ge=0, le=100)
    quiet_minutes: int | None = Field(default=None, ge=0, le=1440)
    max_backoff: int | None = Field(default=None, ge=1, le=MAX_BACKOFF)
    pause_after_days: float | None = Field(default=None, gt=0, le=3650)


def _status(view: HeartbeatStatusView, response: Response) -> HeartbeatStatusOut:
    next_page(response, view.next_cursor)
    return HeartbeatStatusOut.of(view)


def _schedule(user_id: str, state: HeartbeatState) -> ScheduleOut:
    return ScheduleOut(ai_user_id=user_id, scheduled=[ScheduledOut.model_validate(s) for s in state.scheduled])


@router.get(
    "/status",
    response_model=HeartbeatStatusOut,
    responses={**paged("The settings and a page of AI friends"), **documented(422)},
)
def status(
    caller: CurrentCaller,
    services: ServicesDep,
    response: Response,
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
) -> HeartbeatStatusOut:
    """Per AI friend of the caller, a page at a time: enabled, level, next due, last sent, scheduled heartbeats."""
    return _status(services.views.heartbeat_status(caller.id, cursor, limit), response)


@router.post(
    "/configure",
    response_model=HeartbeatStatusOut,
    responses={**paged("The settings and the first page of AI friends"), **documented(400, 413, 422)},
)
def configure(body: Configure, caller: CurrentCaller, services: ServicesDep, response: Response) -> HeartbeatStatusOut:
    """Change the caller's heartbeat settings (on/off, night window, caps)."""
    view = services.person_settings.configure_heartbeats(caller.id, body.model_dump(exclude_none=True))
    return _status(view, response)


@router.post(
    "/start", response_model=HeartbeatStatusOut, responses=paged("The settings and the first page of AI friends")
)
def start(caller: CurrentCaller, services: ServicesDep, response: Response) -> HeartbeatStatusOut:
    """Turn heartbeats on for the caller and plan the next one for every AI friend."""
    return _status(services.person_settings.start_heartbeats(caller.id), response)


@router.post("/trigger/{user_id}", response_model=TriggeredOut, responses=documented(404, 422, 429, 503))
async def trigger(user_id: str, pair: PairDep, services: ServicesDep, pool: ModelPoolDep) -> TriggeredOut:
    """Run one heartbeat now, whatever its timing, and say what happened."""
    outcome = await pool.call(pair.account_id, services.heartbeat.run_now, pair)
    messages = [MessageOut.model_validate(m) for m in outcome.messages]
    return TriggeredOut(status=outcome.status, reason=outcome.reason, messages=messages)


@router.get("/scheduled/{user_id}", response_model=ScheduleOut, responses=documented(404, 422))
def scheduled(user_id: str, pair: PairDep, services: ServicesDep) -> ScheduleOut:
    """The daily heartbeats this AI friend has scheduled for the caller (its schedule tool), by time."""
    return _schedule(user_id, services.heartbeat_states.get(pair))


@router.delete("/scheduled/{user_id}/{hour}/{minute}", response_model=ScheduleOut, responses=documented(404, 422))
def cancel_scheduled(
    user_id: str,
    companion: CompanionDep,
    services: ServicesDep,
    hour: int = Path(ge=0, le=23),
    minute: int = Path(ge=0, le=59),
) -> ScheduleOut:
    """Cancel the caller's scheduled heartbeat at hour:minute with this AI friend; 404 if there is none."""
    state = services.person_settings.cancel_scheduled(companion.pair, companion.ai_user, hour, minute)
    return _schedule(user_id, state)
