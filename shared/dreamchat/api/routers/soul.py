from __future__ import annotations

from fastapi import APIRouter

from dreamchat.api.deps import CurrentCaller, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.model_work import ModelPoolDep
from dreamchat.api.responses import Judged, Reflected, RelationshipOut, SoulOut
from dreamchat.services.container import Services

router = APIRouter(prefix="/api", tags=["soul"], responses=documented(401, 404, 422))


@router.get("/soul/{user_id}", response_model=SoulOut)
def get_soul(user_id: str, caller: CurrentCaller, services: ServicesDep) -> SoulOut:
    """base_soul (the owner's), self_soul (the AI's own, for this pair) and the assembled persona."""
    return SoulOut.model_validate(services.soul.view(*services.ai_users.companion(caller.id, user_id)))


@router.post("/soul/{user_id}/update", response_model=Reflected, responses=documented(429, 503))
async def reflect(user_id: str, caller: CurrentCaller, services: ServicesDep, pool: ModelPoolDep) -> Reflected:
    """Let the AI reflect on recent conversations and update its self-image if it really changed."""
    return await pool.call(caller.id, _reflect, services, caller.id, user_id)


def _reflect(services: Services, account_id: str, user_id: str) -> Reflected:
    return Reflected.model_validate(services.soul.reflect(*services.ai_users.companion(account_id, user_id)))


@router.post("/relationship/{user_id}/judge", response_model=Judged, responses=documented(429, 503))
async def judge_relationship(user_id: str, caller: CurrentCaller, services: ServicesDep, pool: ModelPoolDep) -> Judged:
    """Let the AI judge the relationship level from recent conversations."""
    return await pool.call(caller.id, _judge, services, caller.id, user_id)


def _judge(services: Services, account_id: str, user_id: str) -> Judged:
    relationship, changed, degraded = services.soul.judge_relationship(
        *services.ai_users.companion(account_id, user_id)
    )
    return Judged(relationship=RelationshipOut.model_validate(relationship), changed=changed, degraded=degraded)
