"""The browser client: `/` (and the operator console at `/admin`, the same page) and `/static/...`, plain files from `dreamchat/web` (no build step), and the
installable app's two files at the root: `/manifest.webmanifest` and `/sw.js` (a service worker
controls only paths under its own, so it is served from `/` for the scope `/`)."""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, Response

import dreamchat
from dreamchat.config import Settings
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

router = APIRouter(include_in_schema=False)


def content_security_policy(settings: Settings) -> str:
    """Avatars may be any image URL the person chose; everything else comes from this origin. Photos and voice
    notes are fetched with the login and shown from blob: URLs the page makes (views/media_bubbles.js); in AWS
    that fetch follows `GET /api/media/{id}`'s 302 to a presigned S3 GET, so the bucket may be connected to."""
    connect = " ".join(["'self'", *_media_origins(settings)])
    return (
        f"default-src 'self'; script-src 'self'; style-src 'self'; connect-src {connect}; "
        "img-src 'self' data: blob: https: http:; media-src 'self' blob:; object-src 'none'; base-uri 'none'; "
        "frame-ancestors 'none'"
    )


def _media_origins(settings: Settings) -> list[str]:
    """Where a presigned media GET points: the S3 bucket's virtual host (global and regional), or the endpoint
    a test or LocalStack stands in with."""
    if settings.storage != "aws":
        return []
    if settings.aws_endpoint_url:
        parts = urlsplit(settings.aws_endpoint_url)
        return [f"{parts.scheme}://{parts.netloc}", f"{parts.scheme}://{settings.bucket}.{parts.netloc}"]
    bucket, region = settings.bucket, settings.aws_region
    return [f"https://{bucket}.s3.amazonaws.com", f"https://{bucket}.s3.{region}.amazonaws.com"]


def _csp(request: Request) -> str:
    return content_security_policy(request.app.state.settings)


@router.api_route("/", methods=["GET", "HEAD"])
def index(request: Request) -> FileResponse:
    """The single page of the client; it routes itself with `#/...`."""
    return _file(WEB_DIR / "index.html", {"Content-Security-Policy": _csp(request), "Referrer-Policy": "no-referrer"})


@router.api_route("/admin", methods=["GET", "HEAD"])
def admin(request: Request) -> FileResponse:
    """The operator console: the same page, which shows the console when opened at `/admin` (the API
    under `/api/admin/...` decides who may use it; the page only asks)."""
    return index(request)


@router.api_route("/manifest.webmanifest", methods=["GET", "HEAD"])
def manifest() -> FileResponse:
    """The web app manifest: name, icons, standalone display, theme colours."""
    return _file(WEB_DIR / "manifest.webmanifest")


@router.api_route("/sw.js", methods=["GET", "HEAD"])
def service_worker(request: Request) -> Response:
    """The service worker, with the app shell it keeps for offline use and a version that changes
    with any file of the shell (so a changed client installs a new worker)."""
    version, shell = _shell()
    text = (WEB_DIR / "sw.js").read_text(encoding="utf-8")
    text = text.replace('"__VERSION__"', json.dumps(version)).replace('["__SHELL__"]', json.dumps(shell))
    headers = {
        "Cache-Control": "no-cache",
        "X-Content-Type-Options": "nosniff",
        "Service-Worker-Allowed": "/",
        "Content-Security-Policy": _csp(request),
    }
    return Response(text, media_type=MEDIA_TYPES[".js"], headers=headers)


@cache
def _shell() -> tuple[str, list[str]]:
    """Every file the client is made of, as the URLs the page asks for, and a hash of their bytes."""
    files = sorted(
        path
        for path in WEB_DIR.rglob("*")
        if path.is_file()
        and path.suffix in MEDIA_TYPES
        and path.name not in ("index.html", "sw.js", "manifest.webmanifest")
    )
    digest = hashlib.sha256()
    for path in [WEB_DIR / "index.html", WEB_DIR / "manifest.webmanifest", *files]:
        digest.update(path.relative_to(WEB_DIR).as_posix().encode() + b"\0" + path.read_bytes())
    urls = ["/", "/manifest.webmanifest", *(f"/static/{p.relative_to(WEB_DIR).as_posix()}" for p in files)]
    return digest.hexdigest()[:16], urls


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
