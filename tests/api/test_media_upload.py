"""Photos and voice notes through the API: each accepted type is kept and served back to its own person
only; a wrong type, a recording too long (or lying about its length), a file too big is 422 naming the
rule with nothing stored; uploads have a per-account budget; forgetting the friend and deleting the
account erase the record and the bytes. What is stored and erased runs on every store."""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from fastapi.testclient import TestClient
from PIL import Image

from dreamchat import keys
from dreamchat.api.app import create_app
from dreamchat.domain.models import PairId
from dreamchat.wiring import Runtime
from tests.api.conftest import Person, register
from tests.services.conftest import runtime  # noqa: F401 (the fixture: memory, or every store)

MEDIA = Path(__file__).resolve().parents[1] / "data" / "media"
VOICES = {"voice.webm": "audio/webm", "voice.ogg": "audio/ogg", "voice.m4a": "audio/mp4", "voice.mp3": "audio/mpeg"}


def picture(fmt: str, size: tuple[int, int] = (320, 240), mode: str = "RGB") -> bytes:
    out = io.BytesIO()
    colour = {"RGBA": (200, 120, 40, 128), "1": 1}.get(mode, (200, 120, 40))
    Image.new(mode, size, colour).save(out, format=fmt)
    return out.getvalue()


@dataclass
class World:
    client: TestClient
    runtime: Runtime
    alice: Person
    ai: dict

    def upload(self, data: bytes, name: str = "f.bin", person: Person | None = None, ai_user_id: str | None = None):
        person = person or self.alice
        files = {"file": (name, data, "application/octet-stream")}  # the type is read from the bytes
        return person.post(f"/api/ai-users/{ai_user_id or self.ai['id']}/media", files=files)

    def kept(self, account_id: str | None = None, ai_user_id: str | None = None) -> tuple[int, int]:
        """(media records, media blobs) of a pair: alice's with her AI user unless named."""
        pair = PairId(account_id=account_id or self.alice.id, ai_user_id=ai_user_id or self.ai["id"])
        records = [i for i in self.runtime.store.query(keys.media_pk(pair)).items if i["sk"].startswith("MEDIA#")]
        blobs = [k for k in self.runtime.blobs.list(keys.pair_blob_prefix(pair)) if "/media/" in k]
        return len(records), len(blobs)


@contextmanager
def world_of(base: Runtime, **settings) -> Iterator[World]:
    changed = base.settings.model_copy(update=settings)
    with TestClient(create_app(changed, dataclasses.replace(base, settings=changed))) as client:
        alice = register(client, "alice")
        yield World(client, base, alice, alice.create_ai_user(name="小梦", visibility="public"))


@pytest.fixture
def world(runtime: Runtime) -> Iterator[World]:  # noqa: F811 (the fixture imported above)
    with world_of(runtime) as built:
        yield built


@dataclass(frozen=True)
class Served:
    status_code: int
    content_type: str
    content: bytes


def served(person: Person, media_id: str) -> Served:
    """What the person gets for a media id: the bytes locally; with S3 the 302 is followed to its presigned
    GET, which moto answers (the app's own test client would send it to the app)."""
    response = person.get(f"/api/media/{media_id}", follow_redirects=False)
    if response.status_code != 302:
        return Served(response.status_code, response.headers.get("content-type", ""), response.content)
    assert response.headers["cache-control"] == "private, no-store"
    fetched = requests.get(response.headers["location"], timeout=5)
    return Served(fetched.status_code, fetched.headers.get("content-type", ""), fetched.content)


def refused(response, rule: str) -> None:
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == f"media_{rule}" and error["message"].startswith(f"{rule}:")


# --- kept and served back -------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(VOICES))
def test_each_kind_of_voice_note_is_kept_with_its_length_and_served_back_as_it_was(world: World, name: str) -> None:
    data = (MEDIA / name).read_bytes()
    response = world.upload(data, name="x.txt")  # the name says nothing
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["kind"] == "audio" and 2.5 <= body["duration_s"] <= 3.5
    assert "width" not in body and "height" not in body
    served = world.alice.get(f"/api/media/{body['media_id']}")
    assert served.status_code == 200 and served.content == data
    assert served.headers["content-type"] == VOICES[name]
    assert served.headers["cache-control"].startswith("private")
    assert world.kept() == (1, 1)


@pytest.mark.every_store
def test_a_big_photo_is_kept_shrunk_to_1600_px_and_served_as_jpeg(world: World) -> None:
    response = world.upload(picture("JPEG", (2400, 1200)))
    assert response.status_code == 201, response.text
    body = response.json()
    assert (body["kind"], body["width"], body["height"]) == ("image", 1600, 800) and "duration_s" not in body
    photo = served(world.alice, body["media_id"])
    assert photo.status_code == 200 and photo.content_type == "image/jpeg"
    assert Image.open(io.BytesIO(photo.content)).size == (1600, 800)
    assert world.kept() == (1, 1)


@pytest.mark.parametrize(
    ("data", "kept_as"),
    [
        (picture("PNG", mode="RGBA"), "image/png"),  # transparency kept
        (picture("PNG"), "image/jpeg"),
        (picture("WEBP"), "image/jpeg"),
    ],
)
def test_other_pictures_are_kept_re_encoded(world: World, data: bytes, kept_as: str) -> None:
    response = world.upload(data)
    assert response.status_code == 201, response.text
    assert (response.json()["width"], response.json()["height"]) == (320, 240)
    served = world.alice.get(f"/api/media/{response.json()['media_id']}")
    assert served.headers["content-type"] == kept_as
    assert Image.open(io.BytesIO(served.content)).size == (320, 240)


# --- refused, nothing stored ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("clip.webm", "type"),  # a video
        ("long.webm", "duration"),
        ("long.ogg", "duration"),
        ("long.m4a", "duration"),
        ("long.mp3", "duration"),
        ("liar.webm", "duration"),
        ("liar.ogg", "duration"),
        ("liar.m4a", "duration"),
        ("liar.mp3", "duration"),
    ],
)
def test_a_video_or_a_recording_over_60_s_even_one_lying_about_it_is_refused(world: World, name: str, rule: str):
    refused(world.upload((MEDIA / name).read_bytes(), name="voice.webm"), rule)
    assert world.kept() == (0, 0)


def test_text_named_as_a_picture_is_refused_by_its_bytes(world: World) -> None:
    refused(world.upload("就是一段文字".encode() * 100, name="cat.jpg"), "type")
    assert world.kept() == (0, 0)


def test_a_voice_note_over_2_mb_is_refused(world: World) -> None:
    padded = (MEDIA / "voice.mp3").read_bytes() + b"\0" * (2 * 1024 * 1024)
    refused(world.upload(padded), "size")
    assert world.kept() == (0, 0)


def test_a_picture_over_8_mb_is_refused_by_its_rule_and_a_larger_body_before_it_is_read(world: World) -> None:
    header = picture("PNG")
    refused(world.upload(header + b"\0" * (8 * 1024 * 1024 + 1 - len(header))), "size")
    too_big = world.upload(header + b"\0" * (9 * 1024 * 1024))
    assert too_big.status_code == 413 and too_big.json()["error"]["code"] == "payload_too_large"
    assert world.kept() == (0, 0)


def test_a_picture_claiming_a_huge_canvas_is_refused(world: World) -> None:
    refused(world.upload(picture("PNG", (8000, 8000), mode="1")), "pixels")
    assert world.kept() == (0, 0)


def test_an_upload_without_the_file_field_is_refused(world: World) -> None:
    response = world.alice.post(f"/api/ai-users/{world.ai['id']}/media", files={"photo": ("a", b"x", "image/png")})
    assert response.status_code == 422 and world.kept() == (0, 0)


# --- only the pair's own person -------------------------------------------------------------------


@pytest.mark.every_store
def test_another_account_can_neither_upload_to_a_pair_it_lacks_nor_read_anothers_media(world: World) -> None:
    bob = register(world.client, "bob")
    mine = world.upload((MEDIA / "voice.ogg").read_bytes()).json()["media_id"]
    assert world.upload((MEDIA / "voice.ogg").read_bytes(), person=bob).status_code == 404  # not his friend
    assert world.upload(picture("PNG"), ai_user_id="ai_nobody").status_code == 404
    assert bob.get(f"/api/media/{mine}").status_code == 404
    # befriended, bob has his own pair: alice's media is still not his
    assert bob.post(f"/api/friends/{world.ai['id']}").status_code == 201
    assert bob.get(f"/api/media/{mine}").status_code == 404
    assert world.upload((MEDIA / "voice.ogg").read_bytes(), person=bob).status_code == 201
    for nonsense in ("nothing", "md.x", f"{mine}x"):
        assert world.alice.get(f"/api/media/{nonsense}").status_code == 404
    assert world.client.get(f"/api/media/{mine}").status_code == 401
    assert world.kept() == (1, 1) and world.kept(bob.id) == (1, 1)


def test_uploads_beyond_the_accounts_budget_are_429(runtime: Runtime) -> None:  # noqa: F811
    voice = (MEDIA / "voice.webm").read_bytes()
    with world_of(runtime, media_uploads_per_minute=2) as world:
        assert [world.upload(voice).status_code for _ in range(2)] == [201, 201]
        limited = world.upload(voice)
        assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1
        assert world.kept() == (2, 2)
        runtime.clock.advance(seconds=61)
        assert world.upload(voice).status_code == 201


# --- erased with the pair and the account --------------------------------------------------------


@pytest.mark.every_store
def test_forgetting_the_friend_erases_its_media_records_and_bytes(world: World) -> None:
    bob = register(world.client, "bob")
    assert bob.post(f"/api/friends/{world.ai['id']}").status_code == 201
    ids = [
        world.upload(data, person=bob).json()["media_id"]
        for data in (picture("PNG"), (MEDIA / "voice.m4a").read_bytes())
    ]
    mine = world.upload(picture("JPEG")).json()["media_id"]
    assert world.kept(bob.id) == (2, 2)
    assert bob.delete(f"/api/friends/{world.ai['id']}", params={"forget": "true"}).status_code == 200
    assert world.kept(bob.id) == (0, 0)
    assert all(bob.get(f"/api/media/{media_id}").status_code == 404 for media_id in ids)
    assert served(world.alice, mine).status_code == 200 and world.kept() == (1, 1)


@pytest.mark.every_store
def test_deleting_the_account_erases_its_media(world: World) -> None:
    bob = register(world.client, "bob")
    assert bob.post(f"/api/friends/{world.ai['id']}").status_code == 201
    world.upload((MEDIA / "voice.webm").read_bytes(), person=bob)
    world.upload(picture("PNG"))
    assert world.kept(bob.id) == (1, 1) and world.kept() == (1, 1)
    assert bob.delete("/api/auth/user").status_code == 200
    assert world.kept(bob.id) == (0, 0) and world.kept() == (1, 1)
    assert world.alice.delete("/api/auth/user").status_code == 200
    assert world.kept() == (0, 0)
    assert not [key for key in world.runtime.blobs.list("") if "/media/" in key]


@pytest.mark.every_store
def test_the_account_export_lists_each_friends_media_without_its_bytes(world: World) -> None:
    photo = world.upload(picture("JPEG", (2400, 1200))).json()["media_id"]
    world.runtime.clock.advance(seconds=1)
    voice = world.upload((MEDIA / "voice.ogg").read_bytes()).json()["media_id"]
    exported = world.alice.get("/api/auth/user/export")
    assert exported.status_code == 200, exported.text
    (friend,) = exported.json()["friends"]
    listed = {m["id"]: m for m in friend["media"]}
    assert list(listed) == [photo, voice]  # oldest first
    assert (listed[photo]["kind"], listed[photo]["width"], listed[photo]["content_type"]) == (
        "image",
        1600,
        "image/jpeg",
    )
    assert listed[voice]["kind"] == "audio" and 2.5 <= listed[voice]["duration_s"] <= 3.5
    assert listed[voice]["size"] == len((MEDIA / "voice.ogg").read_bytes())
    assert listed[photo]["text"] == "" and listed[photo]["text_state"] == "owed"
    assert "account_id" not in listed[photo] and "data" not in listed[photo]
