"""The page's Content-Security-Policy lets photos and voice notes show (issue 41): the client fetches them with the
login and plays them from blob: URLs; in AWS that fetch follows a 302 to a presigned S3 GET, whose origin the
policy must allow to be connected to (a blocked redirect is a photo that never shows)."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient

from dreamchat.adapters.blobs import S3BlobStore
from dreamchat.api.routers.web import content_security_policy
from dreamchat.config import Settings
from dreamchat.wiring import s3_client

SECRET = "a-test-secret-of-at-least-32-characters!"


@pytest.fixture(autouse=True)
def signing_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Presigning is local arithmetic, but boto3 wants some keys to do it with."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")


def signed_origin(settings: Settings) -> str:
    """The origin of a presigned media GET as the app's own S3 client signs it (no network)."""
    url = S3BlobStore(s3_client(settings), settings.bucket).download_url("pairs/a/b/media/m1", "image/jpeg", 300)
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def directives(policy: str) -> dict[str, list[str]]:
    return {name: values for name, *values in (part.split() for part in policy.split(";") if part.strip())}


def test_the_page_may_show_blob_images_and_play_blob_audio_and_connects_only_home_locally(client: TestClient) -> None:
    for path in ("/", "/admin", "/sw.js"):
        policy = directives(client.get(path).headers["content-security-policy"])
        assert policy["connect-src"] == ["'self'"], path
        assert "blob:" in policy["img-src"] and policy["media-src"] == ["'self'", "blob:"], path
        assert policy["script-src"] == ["'self'"] and policy["frame-ancestors"] == ["'none'"], path


@pytest.mark.parametrize("region", ["us-east-1", "eu-west-1", "ap-northeast-1"])
def test_in_aws_the_presigned_media_url_boto3_signs_is_an_origin_the_page_may_fetch(region: str) -> None:
    settings = Settings(storage="aws", bucket="dreamchat-documents-abc123", aws_region=region, jwt_secret=SECRET)
    connect = directives(content_security_policy(settings))["connect-src"]
    assert signed_origin(settings) in connect, connect
    assert "https:" not in connect and "*" not in " ".join(connect)  # that bucket, not any host


def test_a_stand_in_endpoint_is_the_origin_then() -> None:
    settings = Settings(storage="aws", bucket="docs", aws_endpoint_url="http://localhost:4566", jwt_secret=SECRET)
    assert signed_origin(settings) in directives(content_security_policy(settings))["connect-src"]
