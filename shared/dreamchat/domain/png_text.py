"""The parts of a PNG file a character card needs, read and written as bytes: nothing is decoded
but the chunk structure (lengths, types, CRCs) and the tEXt chunks; the picture itself is left to
the image adapter, and only after this reader found the file whole.

A character card is a PNG with its JSON, base64-encoded, in a tEXt chunk (keyword `chara` for
V2, `ccv3` for V3).
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_HEADER = struct.Struct(">I4s")
_IHDR = struct.Struct(">IIBBBBB")
_MAX_CHUNK = 2**31 - 1  # the PNG spec's own bound on a chunk's length
_TEXT_TYPES = (b"tEXt", b"zTXt", b"iTXt")
# samples per pixel by colour type: grey, RGB, palette, grey + alpha, RGBA
_SAMPLES = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
_DECODED_SAMPLES = 4  # the picture is then converted to 8-bit RGB or RGBA: counted as RGBA


class PngProblem(ValueError):
    """The bytes are not a whole, well-formed PNG; the message says where it breaks."""


@dataclass(frozen=True)
class PngText:
    """What the reader found: the picture's size and sample format, and every tEXt chunk, first one per keyword."""

    width: int
    height: int
    texts: dict[str, bytes] = field(default_factory=dict)
    bit_depth: int = 8
    colour_type: int = 6

    @property
    def decoded_bytes(self) -> int:
        """What decoding the picture costs in memory (its samples as stored, then as 8-bit RGBA): the
        measure of its CPU cost too, declared by the header before a byte of it is inflated."""
        stored = self.width * self.height * _SAMPLES.get(self.colour_type, 4) * self.bit_depth // 8
        return stored + self.width * self.height * _DECODED_SAMPLES


def is_png(data: bytes) -> bool:
    return data.startswith(SIGNATURE)


def read_png_text(data: bytes) -> PngText:
    """The size and the tEXt chunks of a PNG, after checking every chunk's length and CRC up to IEND."""
    if not is_png(data):
        raise PngProblem("not a PNG file (the signature is missing)")
    chunks = list(_chunks(data))
    if not chunks or chunks[0][0] != b"IHDR":
        raise PngProblem("the PNG does not start with an IHDR chunk")
    if len(chunks[0][1]) != _IHDR.size:
        raise PngProblem("the PNG's IHDR chunk has the wrong length")
    width, height, bit_depth, colour_type = _IHDR.unpack(chunks[0][1])[:4]
    if width == 0 or height == 0:
        raise PngProblem("the PNG says its picture is empty (0 pixels wide or high)")
    if colour_type not in _SAMPLES or bit_depth not in (1, 2, 4, 8, 16):
        raise PngProblem(f"the PNG's IHDR names no PNG format (bit depth {bit_depth}, colour type {colour_type})")
    texts: dict[str, bytes] = {}
    for kind, body in chunks:
        if kind == b"tEXt" and b"\x00" in body:
            keyword, _, text = body.partition(b"\x00")
            texts.setdefault(keyword.decode("latin-1"), text)
    return PngText(width, height, texts, bit_depth, colour_type)


def with_text(png: bytes, keyword: str, text: bytes) -> bytes:
    """The PNG with one tEXt chunk `keyword` holding `text` (before IEND, as SillyTavern writes it);
    text chunks of the same keyword are dropped, so a card never carries two versions of itself."""
    kept = [
        (kind, body)
        for kind, body in _chunks(png)
        if not (kind in _TEXT_TYPES and body.split(b"\x00", 1)[0] == keyword.encode("latin-1"))
    ]
    chunks = [*kept[:-1], (b"tEXt", keyword.encode("latin-1") + b"\x00" + text), kept[-1]]
    return SIGNATURE + b"".join(_chunk(kind, body) for kind, body in chunks)


def solid_png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A picture of one colour: the card image of an AI user without an uploaded avatar."""
    row = b"\x00" + bytes(rgb) * width  # filter type 0, then the pixels
    header = _IHDR.pack(width, height, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlacing
    pixels = zlib.compress(row * height, 9)
    return SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", pixels) + _chunk(b"IEND", b"")


def _chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    """Every chunk from the signature to IEND, each checked; a file that ends early is refused."""
    found, offset = [], len(SIGNATURE)
    while True:
        if offset + _HEADER.size > len(data):
            raise PngProblem(f"the PNG is truncated: it ends at byte {len(data)} before its IEND chunk")
        length, kind = _HEADER.unpack_from(data, offset)
        if length > _MAX_CHUNK or not kind.isalpha():
            raise PngProblem(f"the PNG has a malformed chunk header at byte {offset}")
        start, end = offset + _HEADER.size, offset + _HEADER.size + length
        if end + 4 > len(data):
            raise PngProblem(
                f"the PNG is truncated: chunk {kind.decode('ascii')} at byte {offset} declares {length} bytes, "
                f"{max(len(data) - start, 0)} are left"
            )
        body = data[start:end]
        (crc,) = struct.unpack_from(">I", data, end)
        if zlib.crc32(kind + body) != crc:
            raise PngProblem(
                f"the PNG's {kind.decode('ascii')} chunk at byte {offset} has a bad CRC (the file is damaged)"
            )
        found.append((kind, body))
        if kind == b"IEND":
            return found
        offset = end + 4


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
