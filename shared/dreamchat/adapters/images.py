"""Avatar pictures with Pillow: decoded, shrunk and re-encoded, so what we store and serve is pixels
and nothing else (no text chunks with the card's JSON, no EXIF, no colour profile, no GPS)."""

from __future__ import annotations

import io
from typing import Any

from dreamchat.domain.png_text import PngProblem, read_png_text
from dreamchat.ports import ImageProblem

AVATAR_SIDE = 512  # pixels, the longer side; the card image SillyTavern shows is 400 x 600
MAX_PIXELS = 25_000_000  # a larger picture is refused before it is decoded (a 4 MB PNG can claim far more)
# what decoding may cost (`PngText.decoded_bytes`): about 0.4 s of CPU; a 4096 x 4096 RGBA picture fits,
# a 5000 x 5000 16-bit one (0.9 s) does not
MAX_DECODED_BYTES = 128 * 1024 * 1024


class PillowAvatars:
    def avatar(self, image: bytes) -> bytes:
        # Imported here, not at module level: only an import needs it, and every cold start would pay.
        from PIL import Image

        frame = _decoded(image)
        frame.thumbnail((AVATAR_SIDE, AVATAR_SIDE), Image.Resampling.LANCZOS, reducing_gap=3.0)
        clean = Image.new(frame.mode, frame.size)  # a new image carries no info (text, EXIF, ICC) of the upload
        clean.paste(frame)
        out = io.BytesIO()
        clean.save(out, format="PNG")
        return out.getvalue()


def _decoded(image: bytes) -> Any:
    """The picture's first frame, RGB or RGBA; ImageProblem when it is too large or does not decode."""
    from PIL import Image, UnidentifiedImageError

    try:
        size = read_png_text(image)  # the header's size, before Pillow allocates anything for it
    except PngProblem as problem:
        raise ImageProblem(str(problem)) from problem
    if size.width * size.height > MAX_PIXELS:
        raise ImageProblem(f"the picture is {size.width} x {size.height} pixels; at most {MAX_PIXELS:,}")
    if size.decoded_bytes > MAX_DECODED_BYTES:
        raise ImageProblem(
            f"the picture ({size.width} x {size.height}, {size.bit_depth}-bit samples) would take "
            f"{size.decoded_bytes // 2**20} MiB to decode; at most {MAX_DECODED_BYTES // 2**20} MiB"
        )
    # What Pillow raises for a damaged or unreadable PNG (it has no one base class for them)
    broken = (UnidentifiedImageError, Image.DecompressionBombError, OSError, SyntaxError, ValueError, EOFError)
    try:
        picture = Image.open(io.BytesIO(image), formats=["PNG"])
    except broken as error:
        raise ImageProblem("the PNG's picture cannot be read") from error
    with picture:
        alpha = picture.mode in ("RGBA", "LA", "PA") or "transparency" in picture.info
        try:
            return picture.convert("RGBA" if alpha else "RGB")  # an animated PNG: its first frame
        except broken as error:
            raise ImageProblem("the PNG's picture cannot be decoded (its image data is damaged)") from error
