"""Photos and voice notes: a person uploads one for an AI friend, and fetches it back."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, status
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response
from starlette.datastructures import UploadFile

from dreamchat.api.deps import CurrentCaller, PairDep, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.responses import MediaOut
from dreamchat.domain.media import IMAGE_MAX_BYTES
from dreamchat.errors import Invalid
from dreamchat.services.media import MediaService

# The whole request body: the largest file (a picture, 8 MB) and the form around it. A larger body is
# refused (413) by its Content-Length, or once that much was read, before the app sees it.
MAX_MEDIA_BODY_BYTES = IMAGE_MAX_BYTES + 64 * 1024
UPLOAD_PATH = "/api/ai-users/{user_id}/media"
_UPLOAD_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file"],
                    "properties": {"file": {"type": "string", "format": "binary"}},
                }
            }
        },
    }
}

router = APIRouter(prefix="/api", tags=["media"])


def get_media(services: ServicesDep) -> MediaService:
    return services.media


MediaDep = Annotated[MediaService, Depends(get_media)]


@router.post(
    "/ai-users/{user_id}/media",
    status_code=status.HTTP_201_CREATED,
    response_model=MediaOut,
    response_model_exclude_none=True,
    responses=documented(400, 401, 404, 413, 422, 429),  # 400: a malformed form
    openapi_extra=_UPLOAD_BODY,
)
async def upload_media(user_id: str, request: Request, pair: PairDep, media: MediaDep) -> Any:
    """Keep a photo or a voice note for this AI friend (the type read from the bytes; 422 naming the rule broken)."""
    data = await _file(request)
    return MediaOut.of(await run_in_threadpool(media.upload, pair, data))


@router.get(
    "/media/{media_id}",
    responses={200: {"description": "The file", "content": {"image/*": {}, "audio/*": {}}}, **documented(401, 404)},
    response_class=Response,
)
def get_media_file(media_id: str, caller: CurrentCaller, media: MediaDep) -> Response:
    """A photo or voice note of the caller's own pair (anyone else: 404)."""
    stored = media.read(caller.id, media_id)
    return Response(
        stored.data,
        media_type=stored.media.content_type,
        headers={"Cache-Control": "private, max-age=3600", "X-Content-Type-Options": "nosniff"},
    )


async def _file(request: Request) -> bytes:
    """The form field `file`."""
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "multipart/form-data":
        raise Invalid("send the file as multipart/form-data in the field `file`")
    async with request.form(max_files=1, max_fields=4) as form:
        file = form.get("file")
        if not isinstance(file, UploadFile):
            raise Invalid("send the file in the form field `file`")
        return await file.read()
