"""Photos and voice notes: a person uploads one for an AI friend (through the app, or in AWS straight to S3
with a presigned POST), and fetches it back (the bytes, or in AWS a redirect to a presigned GET)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, status
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import RedirectResponse, Response
from starlette.datastructures import UploadFile

from dreamchat.api.deps import CurrentCaller, PairDep, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.responses import MediaOut, MediaUploadOut
from dreamchat.api.schemas import MediaUploadRequest
from dreamchat.errors import Invalid
from dreamchat.services.media import Link, MediaService

# The multipart route's body is refused (413) over DREAMCHAT_MEDIA_BODY_MAX_BYTES before the app reads it
# (`BodySizeLimit`); in AWS a larger file goes to S3 through the uploads route.
UPLOAD_PATH = "/api/ai-users/{user_id}/media"
PRESIGNED_PATH = "/api/ai-users/{user_id}/media/uploads"
TOO_LARGE_HINT = f"send a larger file straight to storage: POST {PRESIGNED_PATH}"
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


@router.post(
    "/ai-users/{user_id}/media/uploads",
    status_code=status.HTTP_201_CREATED,
    response_model=MediaUploadOut,
    responses=documented(401, 404, 409, 422, 429),  # 409: no S3 here (local mode), use the multipart route
)
def start_media_upload(user_id: str, body: MediaUploadRequest, pair: PairDep, media: MediaDep) -> Any:
    """A presigned S3 POST for one photo or voice note of the declared type and size (AWS only)."""
    return MediaUploadOut.of(media.start_upload(pair, body.content_type, body.size))


@router.post(
    "/ai-users/{user_id}/media/uploads/{media_id}/done",
    response_model=MediaOut,
    response_model_exclude_none=True,
    responses=documented(401, 404, 422),
)
def finish_media_upload(user_id: str, media_id: str, pair: PairDep, media: MediaDep) -> Any:
    """Check and keep a file posted to S3 now, as a message naming it would (422 naming the rule broken)."""
    return MediaOut.of(media.unsent(pair, media_id))


@router.get(
    "/media/{media_id}",
    responses={
        200: {"description": "The file (local mode)", "content": {"image/*": {}, "audio/*": {}}},
        302: {"description": "In AWS: to a presigned S3 GET, good for DREAMCHAT_MEDIA_URL_SECONDS"},
        **documented(401, 404),
    },
    response_class=Response,
)
def get_media_file(media_id: str, caller: CurrentCaller, media: MediaDep) -> Response:
    """A photo or voice note of the caller's own pair (anyone else: 404)."""
    found = media.fetch(caller.id, media_id)
    if isinstance(found, Link):  # the URL is the credential: never cached past its life, nor shared
        return RedirectResponse(found.url, status_code=302, headers={"Cache-Control": "private, no-store"})
    return Response(
        found.data,
        media_type=found.media.content_type,
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
