from __future__ import annotations

from fastapi import APIRouter, Request

router = APIRouter()


@router.get("/api/health")
def health(request: Request) -> dict[str, str]:
    """Liveness, the storage mode and whether a model is configured."""
    settings = request.app.state.settings
    return {
        "status": "ok",
        "storage": settings.storage,
        "llm": "configured" if settings.llm_configured else "offline",
    }
