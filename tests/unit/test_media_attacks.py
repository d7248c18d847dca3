"""Attacks on what a person may send: files built to break the reader (nested, cut, damaged, lying about their
size) are refused naming a rule, never a crash; the words a model gives for a voice note or a photo (garbage, a
flood, control characters) stay bounded plain text."""

from __future__ import annotations

import io
import struct
from pathlib import Path

import pytest
from PIL import Image

from dreamchat.adapters.media_files import inspect
from dreamchat.domain.bounds import MESSAGE_CHARS
from dreamchat.domain.media import MEDIA_WORDS_CHARS, Media, MediaProblem, heard, message_text, typed_beside

MEDIA = Path(__file__).resolve().parents[1] / "data" / "media"


def recording(name: str) -> bytes:
    return (MEDIA / name).read_bytes()


def refused(data: bytes) -> str:
    """The rule an upload breaks (any other exception fails the test: a crash is a 500)."""
    with pytest.raises(MediaProblem) as caught:
        inspect(data)
    return caught.value.rule


def _atom(name: bytes, body: bytes) -> bytes:
    return struct.pack(">I4s", 8 + len(body), name) + body


def _heic(size: tuple[int, int] = (64, 48)) -> bytes:
    from pillow_heif import register_heif_opener

    register_heif_opener()
    out = io.BytesIO()
    Image.new("RGB", size, "orange").save(out, format="HEIF")
    return out.getvalue()


# --- files built to break the reader ---------------------------------------------------------------------


def test_a_webm_nested_thousands_deep_is_refused_not_a_crash() -> None:
    header = recording("voice.webm")[:40]  # the EBML header: the bytes say WebM
    segment = bytes.fromhex("18538067") + b"\x01" + b"\xff" * 7  # a Segment of unknown size
    nested = bytes.fromhex("1f43b675") + b"\xff" + b"\xa0\xff" * 50_000  # block groups inside block groups
    assert refused(header[: header.index(bytes.fromhex("18538067"))] + segment + nested) == "decode"


def test_an_mp4_with_a_second_track_whose_header_is_empty_is_refused_not_a_crash() -> None:
    data, position, out = recording("voice.m4a"), 0, b""
    broken = _atom(
        b"trak", _atom(b"mdia", _atom(b"mdhd", b"") + _atom(b"minf", _atom(b"stbl", _atom(b"stts", b"\0" * 8))))
    )
    while position < len(data):  # the moov comes after the mdat here: its offsets stay right
        size, name = struct.unpack(">I4s", data[position : position + 8])
        chunk = data[position : position + size]
        out += _atom(b"moov", chunk[8:] + broken) if name == b"moov" else chunk
        position += size
    kept = inspect(out)  # the track that holds sound is measured; the broken one adds nothing
    assert kept.kind == "audio" and kept.duration_s is not None and 2.5 <= kept.duration_s <= 3.5


def test_an_ogg_whose_opus_header_is_cut_short_is_refused_not_a_crash() -> None:
    data = bytearray(recording("voice.ogg"))
    data[27] = 16  # the first page's segment table: the OpusHead packet is 16 bytes, not 19
    assert refused(bytes(data)) == "decode"


def test_a_jpeg_whose_exif_holds_text_where_numbers_belong_is_refused_not_a_crash() -> None:
    exif = Image.Exif()
    exif[0x0112], exif[0x010F] = 6, "cam"
    raw = exif.tobytes().replace(b"\x01\x0f\x00\x02", b"\x01\x43\x00\x02")  # Make's text under TileLength's tag
    out = io.BytesIO()
    Image.new("RGB", (64, 48), "orange").save(out, format="JPEG", exif=raw)
    assert refused(out.getvalue()) == "decode"


def test_a_heic_whose_height_grows_past_the_decoders_limit_is_refused_not_a_crash() -> None:
    data = bytearray(_heic())
    at = data.index(b"ispe") + 4 + 4 + 4  # after the box type and its version and flags: width, then height
    data[at] = 95  # the height's high byte: over a billion rows
    assert refused(bytes(data)) in ("pixels", "decode")


@pytest.mark.parametrize("name", ["voice.webm", "voice.ogg", "voice.m4a", "voice.mp3"])
@pytest.mark.parametrize("keep", [0.05, 0.3, 0.6, 0.9])
def test_a_recording_cut_anywhere_is_kept_for_what_it_holds_or_refused(name: str, keep: float) -> None:
    data = recording(name)
    try:
        kept = inspect(data[: int(len(data) * keep)])
    except MediaProblem as problem:
        assert problem.rule in ("type", "decode", "duration")
    else:
        assert kept.kind == "audio" and kept.duration_s is not None and 0 < kept.duration_s <= 3.5


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP", "HEIF"])
@pytest.mark.parametrize("keep", [0.1, 0.5, 0.9])
def test_a_picture_cut_anywhere_is_refused_or_kept_re_encoded(fmt: str, keep: float) -> None:
    whole = _heic((320, 240)) if fmt == "HEIF" else _picture(fmt)
    try:
        kept = inspect(whole[: int(len(whole) * keep)])
    except MediaProblem as problem:
        assert problem.rule in ("type", "decode")
    else:
        assert kept.content_type in ("image/jpeg", "image/png")


def _picture(fmt: str) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (320, 240), "orange").save(out, format=fmt)
    return out.getvalue()


def test_a_jpeg_with_a_web_page_after_it_is_kept_as_a_picture_only() -> None:
    polyglot = _picture("JPEG") + b"<html><script>alert(document.cookie)</script></html>"
    kept = inspect(polyglot)
    assert kept.content_type == "image/jpeg" and b"<script" not in kept.data  # re-encoded: only pixels remain


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        b"GIF89a" + b"\x00" * 64,
    ],
    ids=["empty", "svg", "gif"],
)
def test_an_empty_file_an_svg_and_a_gif_are_refused_by_type(data: bytes) -> None:
    assert refused(data) == "type"


def test_an_animated_gif_is_refused_by_type() -> None:
    out = io.BytesIO()
    frames = [Image.new("RGB", (32, 32), colour) for colour in ("red", "blue")]
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)
    assert refused(out.getvalue()) == "type"


def test_a_png_bomb_is_refused_before_it_is_decoded() -> None:
    out = io.BytesIO()
    Image.new("1", (10_000, 10_000)).save(out, format="PNG")  # 100 M pixels in a few kilobytes
    assert len(out.getvalue()) < 100_000 and refused(out.getvalue()) == "pixels"


# --- the words a model gives ----------------------------------------------------------------------------


def voice(text: str = "") -> Media:
    return Media(id="m1", account_id="a", ai_user_id="b", kind="audio", content_type="audio/ogg", size=1, created_at=0)


def test_a_flood_of_words_from_a_model_is_kept_bounded() -> None:
    done = heard(voice(), "啊" * 1_000_000)
    assert len(done.text) <= MEDIA_WORDS_CHARS and done.text_state == "done"
    assert len(message_text(done)) <= MESSAGE_CHARS


def test_the_media_words_give_way_to_what_the_person_typed_so_the_message_fits() -> None:
    done = heard(voice(), "啊" * 1_000_000)
    typed = "我" * (MESSAGE_CHARS - 100)
    text = message_text(done, typed)
    assert len(text) <= MESSAGE_CHARS and text.endswith(typed) and text.startswith("[语音] 啊")


def test_control_characters_from_a_model_are_dropped_and_the_words_kept() -> None:
    done = heard(voice(), "今天\x00好\x1b[31m累\x07\u0085")
    assert done.text == "今天好[31m累"


def test_typed_words_beside_an_owed_note_are_read_back_whatever_the_words_become() -> None:
    owed = voice()
    assert typed_beside(owed, message_text(owed, "路上录的")) == "路上录的"
    assert message_text(heard(owed, "说" * 5000), "路上录的").endswith(" 路上录的")
