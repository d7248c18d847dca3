"""Character cards: import one as a new AI user, export an AI user as one; the uploaded avatars."""

from __future__ import annotations

import base64
from dataclasses import asdict
from typing import Annotated, Any, Literal
from urllib.parse import quote

from fastapi import APIRouter, Depends, Query, Request, status
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException

from dreamchat.api.deps import CurrentCaller
from dreamchat.api.errors import documented
from dreamchat.api.json_response import StrictJSONResponse
from dreamchat.api.responses import AIUserOut, ImportedAIUserOut
from dreamchat.errors import Invalid
from dreamchat.services.cards import CardService, Preview

# The whole request body. Lambda takes at most 6 MB per synchronous request, and API Gateway sends
# a binary body base64-encoded (4 bytes for 3), so about 4.4 MB is the most an upload can be in AWS.
MAX_CARD_BYTES = 4 * 1024 * 1024
IMPORT_PATH = "/api/ai-users/import"
_UPLOAD_TYPES = ("application/json", "image/png", "application/octet-stream")
_IMPORT_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file"],
                    "properties": {"file": {"type": "string", "format": "binary"}},
                }
            },
            "application/json": {"schema": {"type": "object", "description": "a character card (V1, V2 or V3)"}},
            "image/png": {"schema": {"type": "string", "format": "binary"}},
        },
    }
}

router = APIRouter(prefix="/api/ai-users", tags=["ai-users"])


def get_cards(request: Request) -> CardService:
    return request.app.state.cards


CardsDep = Annotated[CardService, Depends(get_cards)]


@router.post(
    "/import",
    status_code=status.HTTP_201_CREATED,
    response_model=ImportedAIUserOut,
    responses={
        200: {"description": "With `preview=true`: what would be created; nothing is stored"},
        **documented(400, 401, 404, 413, 415, 422, 429),  # 404: the account was erased meanwhile
    },
    openapi_extra=_IMPORT_BODY,
)
async def import_card(request: Request, caller: CurrentCaller, cards: CardsDep, preview: bool = False) -> Any:
    """Import a character card (V1/V2/V3, JSON or PNG, at most 4 MiB) as a new private AI user (previews
    and imports count against the account's card budget: 429 beyond)."""
    upload = await _upload(request)
    if preview:
        found = await run_in_threadpool(cards.preview, caller.id, upload)
        avatar = f"data:image/png;base64,{base64.b64encode(found.avatar_png).decode()}" if found.avatar_png else None
        return StrictJSONResponse(
            {"preview": {**found.fields, "avatar": avatar or found.fields["avatar"]}, **_imported(found)}
        )
    ai_user, found = await run_in_threadpool(cards.import_card, caller.id, upload)
    return ImportedAIUserOut.model_validate({**AIUserOut.of(ai_user, caller.id).model_dump(), **_imported(found)})


@router.get(
    "/{user_id}/card",
    responses={
        200: {
            "description": "A V2 character card",
            "content": {"application/json": {}, "image/png": {"schema": {"type": "string", "format": "binary"}}},
        },
        **documented(401, 404, 422),
    },
)
def export_card(
    user_id: str,
    request: Request,
    caller: CurrentCaller,
    cards: CardsDep,
    format: Literal["json", "png"] | None = Query(default=None),
) -> Response:
    """The AI user as a V2 character card (owner only): JSON, or PNG for `Accept: image/png` or `format=png`."""
    headers = {"Cache-Control": "no-store"}
    if format == "png" or (format is None and _prefers_png(request.headers.get("accept", ""))):
        name, png = cards.export_png(caller.id, user_id)
        return Response(png, media_type="image/png", headers=headers | _attachment(name, "png"))
    card = cards.export(caller.id, user_id)
    return StrictJSONResponse(card, headers=headers | _attachment(card["data"]["name"], "json"))


@router.get(
    "/{user_id}/avatar/{token}",
    responses={200: {"description": "The picture", "content": {"image/png": {}}}, **documented(404)},
    response_class=Response,
)
def avatar(user_id: str, token: str, cards: CardsDep) -> Response:
    """An uploaded avatar (no login: `<img>` sends none; the URL holds a random token)."""
    return Response(
        cards.avatar(user_id, token),
        media_type="image/png",
        headers={"Cache-Control": "private, max-age=31536000, immutable", "X-Content-Type-Options": "nosniff"},
    )


async def _upload(request: Request) -> bytes:
    """The card's bytes: the form field `file`, or the whole body sent as JSON or PNG."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind == "multipart/form-data":
        async with request.form(max_files=1, max_fields=4) as form:
            file = form.get("file")
            if not isinstance(file, UploadFile):
                raise Invalid("send the card as a file in the form field `file`")
            return await file.read()
    if kind in _UPLOAD_TYPES:
        return await request.body()
    raise HTTPException(
        status.HTTP_415_UNSUPPORTED_MEDIA_TYPE,
        "send the card as multipart/form-data (field `file`), application/json or image/png",
    )


def _imported(found: Preview) -> dict[str, Any]:
    return {"imported": {"spec": found.spec, "cuts": [asdict(c) for c in found.cuts], "unused": found.unused}}


def _prefers_png(accept: str) -> bool:
    """Whether an Accept header asks for PNG over JSON (`*/*`, none or a tie: JSON)."""
    weights: dict[str, float] = {}
    for part in accept.split(","):
        media, _, parameters = part.partition(";")
        weight = 1.0
        for parameter in parameters.split(";"):
            name, _, value = parameter.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        media = media.strip().lower()
        weights[media] = max(weights.get(media, 0.0), weight)
    png = weights.get("image/png", weights.get("image/*", 0.0))
    json = weights.get("application/json", weights.get("application/*", 0.0))
    return png > 0 and png > json


def _attachment(name: str, extension: str) -> dict[str, str]:
    """A download named after the character (RFC 6266: an ASCII fallback, then the UTF-8 name)."""
    ascii_name = "".join(c if c.isascii() and (c.isalnum() or c in "-_ ") else "_" for c in name).strip() or "card"
    return {
        "Content-Disposition": f"attachment; filename=\"{ascii_name}.{extension}\"; filename*=UTF-8''{quote(name)}.{extension}"
    }
