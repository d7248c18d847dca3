"""The media rules (dreamchat.domain.media) and an upload read from its bytes (adapters/media_files.py):
real recordings made with ffmpeg (tests/data/media/README.md), pictures made here with Pillow."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import pytest
from PIL import Image

from dreamchat.adapters.media_files import inspect
from dreamchat.domain.crisis import QUIET, Verdict
from dreamchat.domain.media import (
    AUDIO_MAX_BYTES,
    IMAGE_MAX_SIDE,
    Media,
    MediaProblem,
    fitted,
    heard,
    message_text,
    owed_words,
    photo_verdict,
    stronger,
    typed_beside,
    unheard,
)

MEDIA = Path(__file__).resolve().parents[1] / "data" / "media"


def recording(name: str) -> bytes:
    return (MEDIA / name).read_bytes()


def picture(size: tuple[int, int], fmt: str, mode: str = "RGB", **save: object) -> bytes:
    if fmt == "HEIF":
        from pillow_heif import register_heif_opener

        register_heif_opener()
    out = io.BytesIO()
    Image.new(mode, size, "orange").save(out, format=fmt, **save)
    return out.getvalue()


def media(kind: str, text: str = "", state: str = "owed") -> Media:
    return Media.model_validate(
        {
            "id": "m1",
            "account_id": "a",
            "ai_user_id": "b",
            "kind": kind,
            "content_type": "x",
            "size": 1,
            "created_at": 0,
            "text": text,
            "text_state": state,
        }
    )


@pytest.mark.parametrize(
    ("name", "content_type"),
    [("voice.webm", "audio/webm"), ("voice.ogg", "audio/ogg"), ("voice.m4a", "audio/mp4"), ("voice.mp3", "audio/mpeg")],
)
def test_a_short_recording_of_each_type_is_kept_with_its_length(name, content_type) -> None:
    kept = inspect(recording(name))
    assert (kept.kind, kept.content_type) == ("audio", content_type)
    assert kept.duration_s == pytest.approx(3.0, abs=0.15)
    assert kept.data == recording(name)


@pytest.mark.parametrize("name", ["long.webm", "long.ogg", "long.m4a", "long.mp3"])
def test_a_recording_over_a_minute_is_refused(name) -> None:
    with pytest.raises(MediaProblem) as refused:
        inspect(recording(name))
    assert refused.value.rule == "duration"


@pytest.mark.parametrize("name", ["liar.webm", "liar.ogg", "liar.m4a", "liar.mp3"])
def test_a_recording_whose_header_claims_five_seconds_but_holds_75_is_refused(name) -> None:
    with pytest.raises(MediaProblem) as refused:
        inspect(recording(name))
    assert refused.value.rule == "duration"


def test_a_video_is_not_a_voice_message() -> None:
    with pytest.raises(MediaProblem) as refused:
        inspect(recording("clip.webm"))
    assert refused.value.rule == "type"


@pytest.mark.parametrize(
    "data",
    [b"", b"hello, this is text", b"%PDF-1.7\n" + bytes(100), b"GIF89a" + bytes(100), b"\xff\xd8\xff" + bytes(50)],
)
def test_what_is_not_an_accepted_picture_or_recording_is_refused_by_its_bytes(data) -> None:
    with pytest.raises(MediaProblem) as refused:
        inspect(data)
    assert refused.value.rule in ("type", "decode", "size")


def test_a_recording_over_two_megabytes_is_refused_before_it_is_read() -> None:
    with pytest.raises(MediaProblem) as refused:
        inspect(recording("voice.ogg") + bytes(AUDIO_MAX_BYTES))
    assert refused.value.rule == "size"


def test_a_cut_off_recording_counts_what_it_holds() -> None:
    data = recording("voice.ogg")
    kept = inspect(data[: len(data) * 2 // 3])
    assert 0.5 < (kept.duration_s or 0) < 2.5


@pytest.mark.parametrize(
    ("fmt", "mode", "kept_as"),
    [
        ("JPEG", "RGB", "image/jpeg"),
        ("PNG", "RGBA", "image/png"),
        ("WEBP", "RGB", "image/jpeg"),
        ("HEIF", "RGB", "image/jpeg"),
    ],
)
def test_a_picture_is_shrunk_to_1600_pixels_and_kept_as_jpeg_or_png(fmt, mode, kept_as) -> None:
    kept = inspect(picture((3200, 1800), fmt, mode))
    assert (kept.kind, kept.content_type, kept.width, kept.height) == ("image", kept_as, IMAGE_MAX_SIDE, 900)
    assert Image.open(io.BytesIO(kept.data)).size == (IMAGE_MAX_SIDE, 900)


def test_a_small_picture_keeps_its_size() -> None:
    kept = inspect(picture((640, 480), "JPEG"))
    assert (kept.width, kept.height) == (640, 480)


def test_a_photo_is_turned_upright_and_loses_its_exif() -> None:
    exif = Image.Exif()
    exif[0x0112] = 6  # rotated 90° clockwise
    exif[0x010F] = "PhoneMaker"
    kept = inspect(picture((400, 200), "JPEG", exif=exif.tobytes()))
    assert (kept.width, kept.height) == (200, 400)
    assert not Image.open(io.BytesIO(kept.data)).getexif()


def test_a_large_photo_on_its_side_is_decoded_scaled_down_and_still_kept_upright_at_1600(monkeypatch) -> None:
    """A phone's 48 MP JPEG decodes at a fraction of its size (the draft), so an upload takes tens of MB, not
    hundreds; the kept picture is the same 1600 px, upright."""
    exif = Image.Exif()
    exif[0x0112] = 6
    data = picture((6400, 4800), "JPEG", exif=exif.tobytes())
    decoded: list[tuple[int, int]] = []
    convert = Image.Image.convert

    def seen(image: Image.Image, *args, **kwargs) -> Image.Image:
        decoded.append(image.size)
        return convert(image, *args, **kwargs)

    monkeypatch.setattr(Image.Image, "convert", seen)
    kept = inspect(data)
    assert (kept.width, kept.height) == (1200, IMAGE_MAX_SIDE)
    assert decoded and max(decoded[0]) <= 3200  # decoded at half size or less (the draft), never at 6400


def _png_claiming(width: int, height: int) -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")
    )


def test_a_small_file_claiming_a_huge_canvas_is_refused_before_it_is_decoded() -> None:
    with pytest.raises(MediaProblem) as refused:
        inspect(_png_claiming(60_000, 60_000))
    assert refused.value.rule == "pixels"


def test_a_damaged_picture_is_refused() -> None:
    data = picture((800, 600), "PNG")
    with pytest.raises(MediaProblem) as refused:
        inspect(data[:200])
    assert refused.value.rule == "decode"


def test_the_kept_size_keeps_the_proportions() -> None:
    assert fitted(4000, 3000) == (1600, 1200)
    assert fitted(1000, 5000) == (320, 1600)
    assert fitted(1600, 10) == (1600, 10)


def test_the_words_for_a_voice_note_and_a_photo() -> None:
    assert message_text(media("audio", "今天好累", "done")) == "[语音] 今天好累"
    assert message_text(media("audio")) == "[语音（未转写）]"
    assert message_text(media("image", "一只橘猫趴在窗台上", "done"), "看！") == "[图片：一只橘猫趴在窗台上] 看！"
    assert message_text(media("image")) == "[图片：一张图片]"


def test_the_typed_words_are_read_back_beside_the_media_words() -> None:
    unheard_note = media("audio")
    assert typed_beside(unheard_note, "[语音（未转写）] 路上录的") == "路上录的"
    assert typed_beside(unheard_note, "[语音（未转写）]") == ""
    assert typed_beside(unheard_note, "我自己改过了") is None  # the person's edit made it theirs
    done = heard(unheard_note, "今天好累")
    assert (done.text, done.text_state, done.flagged) == ("今天好累", "done", False)
    assert (
        message_text(done, typed_beside(unheard_note, "[语音（未转写）] 路上录的") or "") == "[语音] 今天好累 路上录的"
    )
    assert heard(media("image"), "桌上有药片", "pills").flagged


def test_owed_words_and_an_unheard_voice_note_are_told_from_the_message() -> None:
    assert owed_words("audio", "[语音（未转写）] 你好") and not unheard("audio", "[语音（未转写）] 你好")
    assert unheard("audio", "[语音（未转写）]") and not unheard("image", "[语音（未转写）]")
    assert owed_words("image", "[图片：一张图片]") and not owed_words("image", "[图片：一只猫]")
    assert not owed_words(None, "[语音（未转写）]") and not owed_words("audio", "[语音] 你好")


@pytest.mark.parametrize(
    ("concern", "distressed", "crisis", "distress"),
    [
        ("self_harm", False, True, True),
        ("crisis", False, True, True),
        ("weapon", False, False, True),  # an everyday knife: careful, not the protocol
        ("pills", False, False, True),
        ("pills", True, True, True),  # the means at hand beside distress: the protocol
        ("weapon", True, True, True),
        (None, True, False, False),
        ("nonsense", False, False, False),
    ],
)
def test_what_a_photo_adds_to_the_crisis_check(concern, distressed, crisis, distress) -> None:
    verdict = photo_verdict(concern, distressed)
    assert (verdict.crisis, verdict.distress) == (crisis, distress)
    assert verdict.by == ("vision" if distress else None)


def test_the_stronger_verdict_of_the_words_and_the_photo_stands() -> None:
    words_crisis, words_distress = Verdict(True, True, "lexicon"), Verdict(False, True, "classifier")
    photo_crisis, photo_distress = Verdict(True, True, "vision"), Verdict(False, True, "vision")
    assert stronger(words_crisis, photo_crisis) == words_crisis
    assert stronger(words_distress, photo_crisis) == photo_crisis
    assert stronger(words_distress, photo_distress) == words_distress
    assert stronger(QUIET, photo_distress) == photo_distress
    assert stronger(words_distress, QUIET) == words_distress


def test_a_note_heard_with_nothing_said_is_not_called_unheard() -> None:
    from dreamchat.domain.media import Media, heard, message_text, owed_words, unheard

    note = Media(
        id="md1.ai", account_id="a", ai_user_id="ai", kind="audio", content_type="audio/webm", size=1, created_at=0
    )
    assert message_text(note) == "[语音（未转写）]" and owed_words("audio", message_text(note))
    silent = heard(note, "  ")
    assert message_text(silent, "喂？") == "[语音：没有听到说话] 喂？"
    assert not owed_words("audio", message_text(silent)) and not unheard("audio", message_text(silent))
