from __future__ import annotations

from fastapi import APIRouter, Path, Response
from pydantic import Field

from dreamchat.api.deps import CurrentCaller, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.model_work import ModelPoolDep
from dreamchat.api.pages import DEFAULT_LIMIT, Cursor, Limit, next_page, paged
from dreamchat.api.responses import HeartbeatStatus, MessageOut, Schedule, ScheduledOut, Triggered
from dreamchat.api.schemas import Body
from dreamchat.domain.heartbeat import MAX_BACKOFF, HeartbeatState, Prefs, remove_scheduled
from dreamchat.domain.models import PairId
from dreamchat.errors import NotFound
from dreamchat.events import HeartbeatDue
from dreamchat.services.container import Services

router = APIRouter(prefix="/api/heartbeat", tags=["heartbeat"], responses=documented(401))


class Configure(Body):
    enabled: bool | None = None
    night_start: int | None = Field(default=None, ge=0, le=23)
    night_end: int | None = Field(default=None, ge=0, le=23)
    daily_cap: int | None = Field(default=None, ge=0, le=100)
    quiet_minutes: int | None = Field(default=None, ge=0, le=1440)
    max_backoff: int | None = Field(default=None, ge=1, le=MAX_BACKOFF)
    pause_after_days: float | None = Field(default=None, gt=0, le=3650)


def _status(
    services: Services, account_id: str, response: Response, cursor: str | None = None, limit: int = DEFAULT_LIMIT
) -> HeartbeatStatus:
    view = services.views.heartbeat_status(account_id, cursor, limit)
    next_page(response, view.next_cursor)
    return HeartbeatStatus.of(view)


def _schedule(user_id: str, state: HeartbeatState) -> Schedule:
    return Schedule(ai_user_id=user_id, scheduled=[ScheduledOut.model_validate(s) for s in state.scheduled])


def reschedule_all(services: Services, account_id: str) -> None:
    """Plan every friend's next heartbeat again (the settings or the person's clock changed)."""
    for ai_user, _ in services.friend_lists.friends(account_id):
        pair = PairId(account_id=account_id, ai_user_id=ai_user.id)
        relationship = services.memory.repo.relationship(pair)
        services.heartbeat_states.change(pair, ai_user, relationship, lambda state: state)


@router.get(
    "/status",
    response_model=HeartbeatStatus,
    responses={**paged("The settings and a page of AI friends"), **documented(422)},
)
def status(
    caller: CurrentCaller,
    services: ServicesDep,
    response: Response,
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
) -> HeartbeatStatus:
    """Per AI friend of the caller, a page at a time: enabled, level, next due, last sent, scheduled heartbeats."""
    return _status(services, caller.id, response, cursor, limit)


@router.post(
    "/configure",
    response_model=HeartbeatStatus,
    responses={**paged("The settings and the first page of AI friends"), **documented(400, 413, 422)},
)
def configure(body: Configure, caller: CurrentCaller, services: ServicesDep, response: Response) -> HeartbeatStatus:
    """Change the caller's heartbeat settings (on/off, night window, caps)."""
    current = services.heartbeat_states.prefs(caller.id)
    prefs = Prefs.model_validate({**current.model_dump(), **body.model_dump(exclude_none=True)})
    services.heartbeat_states.save_prefs(caller.id, prefs)
    reschedule_all(services, caller.id)
    return _status(services, caller.id, response)


@router.post("/start", response_model=HeartbeatStatus, responses=paged("The settings and the first page of AI friends"))
def start(caller: CurrentCaller, services: ServicesDep, response: Response) -> HeartbeatStatus:
    """Turn heartbeats on for the caller and plan the next one for every AI friend."""
    prefs = services.heartbeat_states.prefs(caller.id).model_copy(update={"enabled": True})
    services.heartbeat_states.save_prefs(caller.id, prefs)
    reschedule_all(services, caller.id)
    return _status(services, caller.id, response)


@router.post("/trigger/{user_id}", response_model=Triggered, responses=documented(404, 422, 429, 503))
async def trigger(user_id: str, caller: CurrentCaller, services: ServicesDep, pool: ModelPoolDep) -> Triggered:
    """Run one heartbeat now, whatever its timing, and say what happened."""
    return await pool.call(caller.id, _trigger, services, caller.id, user_id)


def _trigger(services: Services, account_id: str, user_id: str) -> Triggered:
    pair = services.ai_users.pair(account_id, user_id)
    now = int(services.runtime.clock.now().timestamp())
    outcome = services.heartbeat.run(HeartbeatDue(pair.account_id, pair.ai_user_id, now), force=True)
    messages = [MessageOut.model_validate(m) for m in outcome.messages]
    return Triggered(status=outcome.status, reason=outcome.reason, messages=messages)


@router.get("/scheduled/{user_id}", response_model=Schedule, responses=documented(404, 422))
def scheduled(user_id: str, caller: CurrentCaller, services: ServicesDep) -> Schedule:
    """The daily heartbeats this AI friend has scheduled for the caller (its schedule tool), by time."""
    pair = services.ai_users.pair(caller.id, user_id)
    return _schedule(user_id, services.heartbeat_states.get(pair))


@router.delete("/scheduled/{user_id}/{hour}/{minute}", response_model=Schedule, responses=documented(404, 422))
def cancel_scheduled(
    user_id: str,
    caller: CurrentCaller,
    services: ServicesDep,
    hour: int = Path(ge=0, le=23),
    minute: int = Path(ge=0, le=59),
) -> Schedule:
    """Cancel the caller's scheduled heartbeat at hour:minute with this AI friend; 404 if there is none."""
    pair, ai_user = services.ai_users.companion(caller.id, user_id)
    relationship = services.memory.repo.relationship(pair)
    removed: list[bool] = []

    def edit(state: HeartbeatState) -> HeartbeatState:
        updated, found = remove_scheduled(state, hour, minute)
        removed.append(found)
        return updated

    state = services.heartbeat_states.change(pair, ai_user, relationship, edit)
    if not removed[-1]:
        raise NotFound(f"no scheduled heartbeat at {hour:02d}:{minute:02d}")
    return _schedule(user_id, state)
