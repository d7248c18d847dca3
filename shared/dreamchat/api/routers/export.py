"""A copy of one's data: a pair's memory export and import, the whole account's export."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse

from dreamchat.api.deps import CurrentCaller
from dreamchat.api.errors import documented
from dreamchat.services.export import ExportService
from dreamchat.services.memory_import import MAX_IMPORT_BYTES, ImportService

IMPORT_PATH = "/api/ai-users/{user_id}/memory/import"
_STREAMED = {"description": "The document, streamed", "content": {"application/json": {}}}
_IMPORT_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {"type": "object", "description": "a memory export, version 1 (docs/memory-export.md)"}
            }
        },
    }
}

router = APIRouter(tags=["export"])


def get_exports(request: Request) -> ExportService:
    return request.app.state.exports


def get_imports(request: Request) -> ImportService:
    return request.app.state.imports


ExportsDep = Annotated[ExportService, Depends(get_exports)]
ImportsDep = Annotated[ImportService, Depends(get_imports)]


@router.get("/api/memory/{user_id}/export", responses={200: _STREAMED, **documented(401, 404)})
def export_memory(user_id: str, caller: CurrentCaller, exports: ExportsDep) -> StreamingResponse:
    """Everything this AI friend holds about the caller, as one JSON document (docs/memory-export.md)."""
    pieces = exports.pair(caller.id, user_id)
    return _download(pieces, f"dreamchat-memory-{user_id}.json")


@router.get("/api/auth/user/export", responses={200: _STREAMED, **documented(401, 429)})
def export_account(caller: CurrentCaller, exports: ExportsDep) -> StreamingResponse:
    """The caller's whole data: the account (no secrets), 关于我 and every AI friend's memory export (a few an hour)."""
    return _download(exports.account(caller.account), f"dreamchat-{caller.account.username}.json")


@router.post(
    "/api/ai-users/{user_id}/memory/import",
    responses=documented(400, 401, 404, 409, 413, 422, 429),
    openapi_extra=_IMPORT_BODY,
)
async def import_memory(
    user_id: str, request: Request, caller: CurrentCaller, imports: ImportsDep, replace: bool = False
) -> dict[str, Any]:
    """Import a memory export (at most 4 MiB) into a pair with no memories yet, or with `replace=true` over them
    (all or nothing: a document that fails leaves the pair as it was; a few imports an hour)."""
    upload = await request.body()
    imported = await run_in_threadpool(imports.import_memory, caller.id, user_id, upload, replace=replace)
    return {"imported": asdict(imported)}


def _download(pieces: Any, name: str) -> StreamingResponse:
    ascii_name = "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "_" for c in name)
    disposition = f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(name)}"
    headers = {"Cache-Control": "no-store", "Content-Disposition": disposition}
    return StreamingResponse(pieces, media_type="application/json", headers=headers)


LIMITS = {IMPORT_PATH: MAX_IMPORT_BYTES}
