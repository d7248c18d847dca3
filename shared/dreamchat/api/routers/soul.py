from __future__ import annotations

from fastapi import APIRouter

from dreamchat.api.deps import CompanionDep, ModelPoolDep, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.responses import JudgedOut, ReflectedOut, RelationshipOut, SoulOut

router = APIRouter(prefix="/api", tags=["soul"], responses=documented(401, 404, 422))


@router.get("/soul/{user_id}", response_model=SoulOut)
def get_soul(user_id: str, companion: CompanionDep, services: ServicesDep) -> SoulOut:
    """base_soul (the owner's), self_soul (the AI's own, for this pair) and the assembled persona."""
    return SoulOut.model_validate(services.soul.view(companion.pair, companion.ai_user))


@router.post("/soul/{user_id}/update", response_model=ReflectedOut, responses=documented(429, 503))
async def reflect(user_id: str, companion: CompanionDep, services: ServicesDep, pool: ModelPoolDep) -> ReflectedOut:
    """Let the AI reflect on recent conversations and update its self-image if it really changed."""
    pair = companion.pair
    return ReflectedOut.model_validate(await pool.call(pair.account_id, services.soul.reflect, pair, companion.ai_user))


@router.post("/relationship/{user_id}/judge", response_model=JudgedOut, responses=documented(429, 503))
async def judge_relationship(
    user_id: str, companion: CompanionDep, services: ServicesDep, pool: ModelPoolDep
) -> JudgedOut:
    """Let the AI judge the relationship level from recent conversations."""
    pair = companion.pair
    judged = await pool.call(pair.account_id, services.soul.judge_relationship, pair, companion.ai_user)
    relationship, changed, degraded = judged
    return JudgedOut(relationship=RelationshipOut.model_validate(relationship), changed=changed, degraded=degraded)
