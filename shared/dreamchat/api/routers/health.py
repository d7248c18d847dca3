from __future__ import annotations

from fastapi import APIRouter, Request

router = APIRouter()


RETRIEVAL = {
    "api": "hybrid (BM25 + embeddings API)",
    "local": "hybrid (BM25 + local embedding model)",
    "bm25": "BM25 alone (no embedding model)",
}


@router.get("/api/health")
def health(request: Request) -> dict[str, str]:
    """Liveness, the storage mode, whether a model is configured and which retrieval runs."""
    settings = request.app.state.settings
    embedder = request.app.state.services.memory.retriever.embedder
    return {
        "status": "ok",
        "storage": settings.storage,
        "llm": "configured" if settings.llm_configured else "offline",
        "retrieval": RETRIEVAL[embedder.kind],
        "embedding_model": embedder.name.split(":", 1)[-1] if embedder.name else "none",
    }
