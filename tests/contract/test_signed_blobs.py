"""S3 signs links for one object and a short time; a directory signs nothing (moto).

moto answers a presigned GET and a presigned POST but enforces neither the expiry nor the POST policy,
so those are read from what was signed: the URL's `X-Amz-Date` and `X-Amz-Expires`, the policy's
expiration and conditions (S3 refuses any form that breaks them).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from moto import mock_aws

from dreamchat.adapters.blobs import DirectoryBlobStore, S3BlobStore
from dreamchat.ports import SignedBlobs
from tests.conftest import make_s3

PENDING = {"state": "pending"}


@pytest.fixture
def s3() -> Iterator[S3BlobStore]:
    with mock_aws():
        yield make_s3()


def policy_of(fields: dict[str, str]) -> dict:
    return json.loads(base64.b64decode(fields["policy"]))


def test_s3_signs_links_and_a_directory_does_not(s3: S3BlobStore, tmp_path: Path) -> None:
    assert isinstance(s3, SignedBlobs)
    assert not isinstance(DirectoryBlobStore(tmp_path), SignedBlobs)


def test_a_download_url_fetches_that_object_with_its_type_for_the_seconds_asked(s3: S3BlobStore) -> None:
    s3.put("pairs/a/u/media/m1", b"OggS-voice", "audio/ogg")
    s3.put("pairs/a/u/media/m2", b"another", "audio/ogg")
    before = datetime.now(UTC).replace(microsecond=0)
    url = s3.download_url("pairs/a/u/media/m1", "audio/ogg", 300)
    parts = urlsplit(url)
    query = {name: values[0] for name, values in parse_qs(parts.query).items()}
    assert parts.scheme == "https" and parts.hostname == "dreamchat.s3.amazonaws.com"
    assert parts.path == "/pairs/a/u/media/m1"
    assert query["X-Amz-Algorithm"] == "AWS4-HMAC-SHA256" and query["X-Amz-Expires"] == "300"
    signed_at = datetime.strptime(query["X-Amz-Date"], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    assert before <= signed_at <= before + timedelta(seconds=5)
    assert query["response-content-type"] == "audio/ogg"
    assert query["response-cache-control"] == "private, max-age=300"
    fetched = requests.get(url, timeout=5)
    assert fetched.status_code == 200 and fetched.content == b"OggS-voice"
    assert fetched.headers["content-type"] == "audio/ogg"


def test_an_upload_form_pins_the_key_the_type_the_tag_and_the_size(s3: S3BlobStore) -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    form = s3.upload_form("pairs/a/u/uploads/m1", "image/png", 1234, 300, PENDING)
    assert form.url == "https://dreamchat.s3.amazonaws.com/"
    tagging = "<Tagging><TagSet><Tag><Key>state</Key><Value>pending</Value></Tag></TagSet></Tagging>"
    assert form.fields["key"] == "pairs/a/u/uploads/m1"
    assert form.fields["Content-Type"] == "image/png" and form.fields["tagging"] == tagging
    policy = policy_of(form.fields)
    conditions = policy["conditions"]
    assert {"key": "pairs/a/u/uploads/m1"} in conditions and {"bucket": "dreamchat"} in conditions
    assert {"Content-Type": "image/png"} in conditions and {"tagging": tagging} in conditions
    assert ["content-length-range", 1, 1234] in conditions
    expires = datetime.strptime(policy["expiration"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    assert before + timedelta(seconds=300) <= expires <= before + timedelta(seconds=305)
    posted = requests.post(form.url, data=form.fields, files={"file": ("x", b"\x89PNG-bytes")}, timeout=5)
    assert posted.status_code == 204
    assert s3.get("pairs/a/u/uploads/m1") == b"\x89PNG-bytes"


def test_tags_are_escaped_in_the_form(s3: S3BlobStore) -> None:
    form = s3.upload_form("k/x", "image/png", 10, 60, {"a&b": "<c>"})
    assert "<Key>a&amp;b</Key><Value>&lt;c&gt;</Value>" in form.fields["tagging"]


@pytest.mark.parametrize("key", ["../escape", "/abs", "a//b"])
def test_links_are_never_signed_for_a_key_that_could_escape(s3: S3BlobStore, key: str) -> None:
    with pytest.raises(ValueError):
        s3.download_url(key, "image/png", 60)
    with pytest.raises(ValueError):
        s3.upload_form(key, "image/png", 10, 60, PENDING)
