"""Media where the blob store is S3 (moto): `GET /api/media/{id}` redirects to a presigned GET of that one
object for DREAMCHAT_MEDIA_URL_SECONDS; a file too large for the Lambda's payload goes straight to S3
through a presigned POST (`POST /api/ai-users/{id}/media/uploads`) and is checked like a multipart upload
when it is claimed (`…/done`, or a message naming it through `MediaService.unsent`); locally the uploads
route is 409 and the multipart route takes every file.

moto enforces neither a presigned URL's expiry nor a POST policy: what S3 would enforce is read from
what was signed (tests/contract/test_signed_blobs.py covers the adapter itself).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from moto import mock_aws

from dreamchat import keys
from dreamchat.adapters.events import LocalEventBus, LocalWorkQueue
from dreamchat.adapters.memory_store import MemoryItemStore
from dreamchat.config import Settings
from dreamchat.domain.models import PairId
from dreamchat.errors import MediaRefused, NotFound
from dreamchat.wiring import Runtime
from tests.api.conftest import Person, register
from tests.api.test_media_upload import MEDIA, World, picture, refused, world_of
from tests.conftest import make_s3
from tests.services.conftest import runtime  # noqa: F401 (the fixture: the memory store and a directory)

VOICE = (MEDIA / "voice.ogg").read_bytes()


@pytest.fixture
def s3_runtime(tmp_path: Path, clock, rng) -> Iterator[Runtime]:
    """The memory item store with S3 (moto) for blobs: what decides the media routes is the blob store."""
    settings = Settings(data_dir=tmp_path, run_scheduler=False, starters=False)
    bus = LocalEventBus(attempts=3, backoff_seconds=0)
    with mock_aws():
        yield Runtime(settings, MemoryItemStore(clock), make_s3(), bus, clock, rng, LocalWorkQueue(bus))


@pytest.fixture
def aws(s3_runtime: Runtime) -> Iterator[World]:
    with world_of(s3_runtime) as built:
        yield built


def query_of(url: str) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}


def start(world: World, content_type: str, size: int, person: Person | None = None, ai_user_id: str | None = None):
    person = person or world.alice
    body = {"content_type": content_type, "size": size}
    return person.post(f"/api/ai-users/{ai_user_id or world.ai['id']}/media/uploads", json=body)


def post_to_s3(started: dict, data: bytes) -> None:
    posted = requests.post(started["url"], data=started["fields"], files={"file": ("f", data)}, timeout=5)
    assert posted.status_code == 204, posted.text


def done(world: World, media_id: str, person: Person | None = None):
    return (person or world.alice).post(f"/api/ai-users/{world.ai['id']}/media/uploads/{media_id}/done")


def pending(world: World, account_id: str | None = None) -> list[str]:
    pair = PairId(account_id=account_id or world.alice.id, ai_user_id=world.ai["id"])
    return [key for key in world.runtime.blobs.list(keys.pair_blob_prefix(pair)) if "/uploads/" in key]


# --- signed downloads -----------------------------------------------------------------------------


def test_a_media_item_is_a_302_to_a_presigned_get_of_its_own_key_for_300_seconds(aws: World) -> None:
    media_id = aws.upload(VOICE).json()["media_id"]
    answer = aws.alice.get(f"/api/media/{media_id}", follow_redirects=False)
    assert answer.status_code == 302 and answer.content == b""
    assert answer.headers["cache-control"] == "private, no-store"
    location = answer.headers["location"]
    assert urlsplit(location).path == f"/pairs/{aws.alice.id}/{aws.ai['id']}/media/{media_id}"
    signed = query_of(location)
    assert signed["X-Amz-Expires"] == "300" and signed["response-content-type"] == "audio/ogg"
    fetched = requests.get(location, timeout=5)
    assert fetched.status_code == 200 and fetched.content == VOICE
    assert fetched.headers["content-type"] == "audio/ogg"


def test_the_links_life_is_the_setting(s3_runtime: Runtime) -> None:
    with world_of(s3_runtime, media_url_seconds=60) as world:
        media_id = world.upload(VOICE).json()["media_id"]
        location = world.alice.get(f"/api/media/{media_id}", follow_redirects=False).headers["location"]
        assert query_of(location)["X-Amz-Expires"] == "60"
        assert start(world, "image/png", 1000).json()["expires_in"] == 60


def test_another_account_gets_404_and_no_link(aws: World) -> None:
    media_id = aws.upload(VOICE).json()["media_id"]
    bob = register(aws.client, "bob")
    assert bob.post(f"/api/friends/{aws.ai['id']}").status_code == 201  # his own pair with the same AI user
    for asking in (bob.get(f"/api/media/{media_id}", follow_redirects=False),):
        assert asking.status_code == 404 and "location" not in asking.headers
    assert aws.client.get(f"/api/media/{media_id}", follow_redirects=False).status_code == 401
    for nonsense in ("nothing", f"{media_id}x", media_id.replace(aws.ai["id"], "ai_other")):
        assert aws.alice.get(f"/api/media/{nonsense}", follow_redirects=False).status_code == 404


def test_locally_the_bytes_are_served_and_there_are_no_presigned_uploads(runtime: Runtime) -> None:  # noqa: F811
    with world_of(runtime) as world:
        media_id = world.upload(VOICE).json()["media_id"]
        answer = world.alice.get(f"/api/media/{media_id}", follow_redirects=False)
        assert answer.status_code == 200 and answer.content == VOICE
        refused_here = start(world, "image/png", 1000)
        assert refused_here.status_code == 409
        error = refused_here.json()["error"]
        assert error["code"] == "presigned_uploads_unavailable" and "/media" in error["message"]
        assert done(world, media_id).json()["media_id"] == media_id  # a kept, unsent item: as it is


# --- presigned uploads ----------------------------------------------------------------------------


def test_a_large_photo_goes_to_s3_and_is_kept_checked_when_done(aws: World) -> None:
    photo = picture("PNG", (2400, 1800))
    answer = start(aws, "image/png", len(photo))
    assert answer.status_code == 201, answer.text
    started = answer.json()
    media_id = started["media_id"]
    assert set(started) == {"media_id", "url", "fields", "expires_in"} and started["expires_in"] == 300
    key = f"pairs/{aws.alice.id}/{aws.ai['id']}/uploads/{media_id}"
    assert started["fields"]["key"] == key and started["fields"]["Content-Type"] == "image/png"
    assert "<Key>state</Key><Value>pending</Value>" in started["fields"]["tagging"]
    policy = json.loads(base64.b64decode(started["fields"]["policy"]))
    assert ["content-length-range", 1, len(photo)] in policy["conditions"] and {"key": key} in policy["conditions"]
    post_to_s3(started, photo)
    assert aws.kept() == (0, 0) and pending(aws) == [key]  # nothing is a media item until it is checked
    kept = done(aws, media_id)
    assert kept.status_code == 200, kept.text
    assert kept.json() == {"media_id": media_id, "kind": "image", "width": 1600, "height": 1200}
    assert aws.kept() == (1, 1) and pending(aws) == []
    location = aws.alice.get(f"/api/media/{media_id}", follow_redirects=False).headers["location"]
    assert requests.get(location, timeout=5).content[:3] == b"\xff\xd8\xff"  # kept as JPEG, shrunk
    assert done(aws, media_id).json()["media_id"] == media_id  # again: the same item, still unsent


def test_a_message_naming_a_pending_upload_claims_it_through_unsent(aws: World) -> None:
    started = start(aws, "audio/ogg; codecs=opus", len(VOICE)).json()
    assert started["fields"]["Content-Type"] == "audio/ogg"  # the parameters dropped
    post_to_s3(started, VOICE)
    media = aws.client.app.state.services.media  # what the chat route calls for a message's media_id
    pair = PairId(account_id=aws.alice.id, ai_user_id=aws.ai["id"])
    claimed = media.unsent(pair, started["media_id"])
    assert claimed.kind == "audio" and claimed.id == started["media_id"] and claimed.message_id is None
    assert aws.kept() == (1, 1) and pending(aws) == []
    assert media.unsent(pair, started["media_id"]) == claimed


@pytest.mark.parametrize(
    ("declared", "data", "rule"),
    [
        ("image/png", "就是一段文字".encode() * 50, "type"),  # the bytes are not a picture
        ("audio/ogg", (MEDIA / "long.ogg").read_bytes(), "duration"),
        ("audio/webm", (MEDIA / "liar.webm").read_bytes(), "duration"),  # lies about its length
        ("image/png", picture("PNG", (8000, 8000), mode="1"), "pixels"),
    ],
)
def test_a_pending_upload_that_breaks_a_rule_is_refused_and_nothing_is_kept(
    aws: World, declared: str, data: bytes, rule: str
) -> None:
    started = start(aws, declared, len(data)).json()
    post_to_s3(started, data)
    refused(done(aws, started["media_id"]), rule)
    assert aws.kept() == (0, 0) and pending(aws) == []
    assert done(aws, started["media_id"]).status_code == 404  # gone, not refused again


def test_unsent_raises_media_refused_for_a_bad_pending_upload(aws: World) -> None:
    started = start(aws, "image/jpeg", 100).json()
    post_to_s3(started, b"not a picture at all" * 5)
    pair = PairId(account_id=aws.alice.id, ai_user_id=aws.ai["id"])
    with pytest.raises(MediaRefused) as refusal:
        aws.client.app.state.services.media.unsent(pair, started["media_id"])
    assert refusal.value.code == "media_type" and aws.kept() == (0, 0)


@pytest.mark.parametrize(
    ("content_type", "size", "rule"),
    [
        ("video/mp4", 1000, "type"),
        ("text/plain", 10, "type"),
        ("image/png", 8 * 1024 * 1024 + 1, "size"),
        ("audio/mpeg", 2 * 1024 * 1024 + 1, "size"),
        ("image/png", 0, "size"),
    ],
)
def test_a_declared_type_or_size_no_upload_may_have_is_refused_before_signing(
    aws: World, content_type: str, size: int, rule: str
) -> None:
    refused(start(aws, content_type, size), rule)


def test_the_largest_picture_may_be_declared(aws: World) -> None:
    assert start(aws, "image/heic", 8 * 1024 * 1024).status_code == 201


def test_an_upload_is_signed_only_for_a_pair_of_the_caller(aws: World) -> None:
    bob = register(aws.client, "bob")
    assert start(aws, "image/png", 100, person=bob).status_code == 404  # not his friend
    assert start(aws, "image/png", 100, ai_user_id="ai_nobody").status_code == 404
    started = start(aws, "image/png", len(picture("PNG"))).json()
    post_to_s3(started, picture("PNG"))
    assert bob.post(f"/api/friends/{aws.ai['id']}").status_code == 201
    assert done(aws, started["media_id"], person=bob).status_code == 404  # his pair has no such upload
    pair = PairId(account_id=bob.id, ai_user_id=aws.ai["id"])
    with pytest.raises(NotFound):
        aws.client.app.state.services.media.unsent(pair, started["media_id"])
    assert pending(aws) != [] and aws.kept(bob.id) == (0, 0)  # alice's upload untouched


def test_presigned_uploads_count_against_the_accounts_budget(s3_runtime: Runtime) -> None:
    with world_of(s3_runtime, media_uploads_per_minute=2) as world:
        assert [start(world, "image/png", 100).status_code for _ in range(2)] == [201, 201]
        limited = start(world, "image/png", 100)
        assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1


def test_a_pending_upload_is_erased_with_the_friend_and_the_account(aws: World) -> None:
    started = start(aws, "audio/ogg", len(VOICE)).json()
    post_to_s3(started, VOICE)
    assert len(pending(aws)) == 1
    assert aws.alice.delete(f"/api/friends/{aws.ai['id']}", params={"forget": "true"}).status_code == 200
    assert pending(aws) == []
    assert aws.alice.post(f"/api/friends/{aws.ai['id']}").status_code == 201
    post_to_s3(start(aws, "audio/ogg", len(VOICE)).json(), VOICE)
    assert len(pending(aws)) == 1
    assert aws.alice.delete("/api/auth/user").status_code == 200
    assert pending(aws) == [] and aws.runtime.blobs.list("pairs/") == []


# --- the multipart route within the Lambda's payload -----------------------------------------------


def test_in_aws_a_body_over_the_setting_is_413_pointing_to_the_uploads_route(s3_runtime: Runtime) -> None:
    with world_of(s3_runtime, media_body_max_bytes=4 * 1024 * 1024) as world:
        header = picture("PNG")
        too_big = world.upload(header + b"\0" * (4 * 1024 * 1024 - len(header)))
        assert too_big.status_code == 413
        error = too_big.json()["error"]
        assert error["code"] == "payload_too_large" and "/media/uploads" in error["message"]
        assert world.upload(VOICE).status_code == 201
        assert world.kept() == (1, 1)


def test_locally_the_413_names_no_route_this_server_lacks(runtime: Runtime) -> None:  # noqa: F811
    with world_of(runtime, media_body_max_bytes=1024 * 1024) as world:
        too_big = world.upload(b"\0" * (1024 * 1024 + 1))
        assert too_big.status_code == 413 and "uploads" not in too_big.json()["error"]["message"]
