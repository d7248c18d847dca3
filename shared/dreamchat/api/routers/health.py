from __future__ import annotations

from fastapi import APIRouter, Request

from dreamchat.api.responses import HealthOut, UsageOut
from dreamchat.llm.usage import UsageTotals

router = APIRouter()


RETRIEVAL = {
    "api": "hybrid (BM25 + embeddings API)",
    "local": "hybrid (BM25 + local embedding model)",
    "bm25": "BM25 alone (no embedding model)",
}


@router.get("/api/health", response_model=HealthOut)
def health(request: Request) -> HealthOut:
    """Liveness, the storage mode, whether a model is configured, which retrieval runs, and this process's model usage."""
    settings = request.app.state.settings
    embedder = request.app.state.services.retriever.embedder
    gateway = request.app.state.gateway
    return HealthOut(
        status="ok",
        storage=settings.storage,
        llm="configured" if settings.llm_configured else "offline",
        retrieval=RETRIEVAL[embedder.kind],
        embedding_model=embedder.name.split(":", 1)[-1] if embedder.name else "none",
        usage={key: _figures(totals) for key, totals in sorted(gateway.usage.items())} if gateway else {},
    )


def _figures(totals: UsageTotals) -> UsageOut:
    """Counts only, since this process started: calls, tokens, and the share of prompt tokens the provider's cache served."""
    share = totals.cached_prompt_tokens / totals.prompt_tokens if totals.prompt_tokens else 0.0
    return UsageOut(
        calls=totals.calls,
        failures=totals.failures,
        prompt_tokens=totals.prompt_tokens,
        cached_prompt_tokens=totals.cached_prompt_tokens,
        completion_tokens=totals.completion_tokens,
        cached_share=round(share, 4),
    )
