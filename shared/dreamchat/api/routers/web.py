"""The browser client: `/` and `/static/...`, plain files from `dreamchat/web` (no build step)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

import dreamchat
from dreamchat.errors import NotFound

WEB_DIR = (Path(dreamchat.__file__).parent / "web").resolve()

MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".webmanifest": "application/manifest+json",
}

# Avatars may be any image URL the person chose; everything else comes from this origin.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data: https: http:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)

router = APIRouter(include_in_schema=False)


@router.api_route("/", methods=["GET", "HEAD"])
def index() -> FileResponse:
    """The single page of the client; it routes itself with `#/...`."""
    return _file(WEB_DIR / "index.html", {"Content-Security-Policy": CSP, "Referrer-Policy": "no-referrer"})


@router.api_route("/static/{path:path}", methods=["GET", "HEAD"])
def static(path: str) -> FileResponse:
    """One file of the client; nothing outside the web folder is reachable."""
    target = (WEB_DIR / path).resolve()
    if not target.is_relative_to(WEB_DIR) or not target.is_file() or target.suffix not in MEDIA_TYPES:
        raise NotFound("no such file")
    return _file(target)


def _file(path: Path, headers: dict[str, str] | None = None) -> FileResponse:
    # no-cache still lets the browser reuse a file after an ETag check; a new version shows at once
    common = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}
    return FileResponse(path, media_type=MEDIA_TYPES[path.suffix], headers={**common, **(headers or {})})
