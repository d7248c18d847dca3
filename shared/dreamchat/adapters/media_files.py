"""A person's upload read from its bytes, never its name: its type (filetype), a photo decoded, turned
upright, shrunk to `IMAGE_MAX_SIDE` and re-encoded without its metadata (Pillow, HEIC by pillow-heif), a
voice note's length measured (mutagen for Ogg, MP4 and MP3; WebM by its blocks, below).

A file that lies about its length is measured more than one way and the longest length is the one checked:
the length its header declares, and what its content says (Ogg's last granule position, the time of WebM's
last block, MP3's and MP4's size over their bitrate).
"""

from __future__ import annotations

import io
import struct
from typing import Any

from dreamchat.domain.media import (
    IMAGE_MAX_SIDE,
    Inspected,
    MediaProblem,
    check_duration,
    check_pixels,
    check_size,
    fitted,
    kind_of,
)

# what the bytes are (filetype's name) → the type we keep; WebM and MP4 are the containers browsers record
# audio in, and filetype calls them video until their tracks are read
_TYPES = {
    "image/jpeg": "image/jpeg",
    "image/png": "image/png",
    "image/webp": "image/webp",
    "image/heic": "image/heic",
    "image/heif": "image/heic",
    "video/webm": "audio/webm",
    "audio/webm": "audio/webm",
    "audio/ogg": "audio/ogg",
    "audio/opus": "audio/ogg",
    "audio/mp4": "audio/mp4",
    "audio/x-m4a": "audio/mp4",
    "audio/aac": "audio/mp4",
    "video/mp4": "audio/mp4",
    "audio/mpeg": "audio/mpeg",
}
JPEG_QUALITY = 85


def inspect(data: bytes) -> Inspected:
    """The upload as it is kept; MediaProblem naming the rule it breaks."""
    import filetype

    guessed = filetype.guess_mime(data[:8192]) if data else None
    content_type = _TYPES.get(guessed or "")
    if content_type is None:
        raise MediaProblem("type", "the file is not a JPEG, PNG, WebP or HEIC picture, nor WebM, Ogg, MP4 or MP3 audio")
    kind = kind_of(content_type)
    check_size(kind, len(data))
    return _picture(data) if kind == "image" else _recording(data, content_type)


def _picture(data: bytes) -> Inspected:
    from PIL import Image, ImageOps, UnidentifiedImageError
    from pillow_heif import register_heif_opener

    register_heif_opener()
    # what a damaged file raises on the way: Pillow's own errors, a damaged EXIF rewritten when the picture is
    # turned upright (struct.error), and libheif's, which pillow-heif raises as RuntimeError (a HEIC whose
    # decoded size passes libheif's own limit among them)
    broken = (
        UnidentifiedImageError,
        Image.DecompressionBombError,
        OSError,
        SyntaxError,
        ValueError,
        EOFError,
        struct.error,
        RuntimeError,
    )
    try:
        with Image.open(io.BytesIO(data), formats=["JPEG", "PNG", "WEBP", "HEIF"]) as picture:
            # Pillow refuses a canvas far over its own limit when it opens the file; ours is lower
            check_pixels(*picture.size)  # from the header, before a pixel is decoded
            # a JPEG decodes at 1/2, 1/4 or 1/8 of its size when that still covers the kept size: a 48 MP
            # photo then takes a sixteenth of the memory and time (no effect on other formats)
            picture.draft("RGB", (IMAGE_MAX_SIDE, IMAGE_MAX_SIDE))
            if picture.mode not in ("P", "1"):  # shrunk before the copies below (a palette resizes only crudely)
                picture.thumbnail((IMAGE_MAX_SIDE, IMAGE_MAX_SIDE), Image.Resampling.LANCZOS)
            upright = ImageOps.exif_transpose(picture)
            alpha = upright.mode in ("RGBA", "LA", "PA") or "transparency" in upright.info
            frame = upright.convert("RGBA" if alpha else "RGB")  # an animated picture: its first frame
    except MediaProblem:
        raise  # a ValueError too: not to be taken for a file that cannot be read
    except Image.DecompressionBombError as error:
        raise MediaProblem("pixels", "the picture has too many pixels") from error
    except broken as error:
        raise MediaProblem("decode", "the picture cannot be read") from error
    if fitted(*frame.size) != frame.size:
        frame = frame.resize(fitted(*frame.size), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    if alpha:
        frame.save(out, format="PNG", optimize=True)  # a new image: no EXIF, GPS, text or colour profile
    else:
        frame.save(out, format="JPEG", quality=JPEG_QUALITY, optimize=True)
    width, height = frame.size
    return Inspected("image", "image/png" if alpha else "image/jpeg", out.getvalue(), width, height)


def _recording(data: bytes, content_type: str) -> Inspected:
    seconds = _webm_seconds(data) if content_type == "audio/webm" else _tagged_seconds(data, content_type)
    check_duration(seconds)
    return Inspected("audio", content_type, data, duration_s=round(seconds, 1))


def _tagged_seconds(data: bytes, content_type: str) -> float:
    """The longest length mutagen reads from the declared header and the content."""
    import mutagen
    from mutagen.mp3 import MP3
    from mutagen.mp4 import MP4
    from mutagen.oggopus import OggOpus
    from mutagen.oggvorbis import OggVorbis

    options: dict[str, list[Any]] = {
        "audio/ogg": [OggOpus, OggVorbis],
        "audio/mp4": [MP4],
        "audio/mpeg": [MP3],
    }
    try:
        audio = mutagen.File(io.BytesIO(data), options=options[content_type])
    except (mutagen.MutagenError, ValueError, EOFError, OverflowError, IndexError, struct.error) as error:
        raise MediaProblem("decode", "the recording cannot be read") from error
    if audio is None or audio.info is None:
        raise MediaProblem("decode", "the recording cannot be read")
    if content_type == "audio/mp4" and _has_video(audio):
        raise MediaProblem("type", "a video is not a voice message")
    declared = float(audio.info.length or 0.0)
    if isinstance(audio, OggOpus):
        return max(declared, _opus_seconds(data))
    if isinstance(audio, MP3):
        return max(declared, _mp3_seconds(data))
    if isinstance(audio, MP4) and (by_table := _mp4_seconds(data)) > 0:
        return max(declared, by_table)
    bitrate = float(getattr(audio.info, "bitrate", 0) or 0)
    by_size = len(data) * 8 / bitrate if bitrate > 0 and content_type != "audio/ogg" else 0.0
    return max(declared, by_size)


def mp3_seconds(data: bytes) -> float:
    """How long MP3 bytes play (the AI's voice as the text-to-speech role made it), frame by frame, to 0.1 s;
    0 for bytes with no MPEG frame in them."""
    return round(_mp3_seconds(data), 1)


def _mp3_seconds(data: bytes) -> float:
    """The sum of the MPEG frames' lengths, frame by frame (an Xing header's frame count can lie)."""
    from mutagen.mp3 import HeaderNotFoundError, MPEGFrame

    stream = io.BytesIO(data)
    if data[:3] == b"ID3" and len(data) >= 10:  # ID3v2: a syncsafe size after a 10-byte header
        stream.seek(10 + sum((byte & 0x7F) << (7 * (3 - i)) for i, byte in enumerate(data[6:10])))
    total = 0.0
    try:
        while stream.tell() < len(data):
            frame = MPEGFrame(stream)
            samples = 384 if frame.layer == 1 else 576 if frame.version >= 2 and frame.layer == 3 else 1152
            total += samples / frame.sample_rate
    except (HeaderNotFoundError, EOFError, ValueError, IndexError, KeyError):
        pass  # trailing tags or a cut-off frame: what came before counts
    return total


def _mp4_seconds(data: bytes) -> float:
    """The longest track by its sample table (each sample's duration), not by its header's duration."""
    from mutagen.mp4 import MP4StreamInfoError
    from mutagen.mp4._atom import AtomError, Atoms

    stream = io.BytesIO(data)
    longest = 0.0
    try:
        for track in Atoms(stream)[b"moov"].findall(b"trak"):
            ok, header = track[b"mdia", b"mdhd"].read(stream)
            ok_table, table = track[b"mdia", b"minf", b"stbl", b"stts"].read(stream)
            if not (ok and ok_table):
                continue
            scale = struct.unpack(">I", header[12:16] if header[0] == 0 else header[20:24])[0]
            (count,) = struct.unpack(">I", table[4:8])
            ticks = sum(n * d for n, d in struct.iter_unpack(">II", table[8 : 8 + 8 * count]))
            longest = max(longest, ticks / scale if scale else 0.0)
    except (AtomError, MP4StreamInfoError, KeyError, IndexError, struct.error, EOFError):
        pass  # a fragmented or damaged file: its header and its size over its bitrate are what count
    return longest


# Opus (RFC 6716, 3.1): a packet's first byte says how long each frame is and how many frames it holds
_OPUS_FRAME_MS = (10, 20, 40, 60) * 3 + (10, 20) * 2 + (2.5, 5, 10, 20) * 4


def _opus_seconds(data: bytes) -> float:
    """The sum of the packets' lengths: what an Ogg Opus file holds, whatever its granule positions say."""
    from mutagen import MutagenError
    from mutagen.ogg import OggPage

    stream, total_ms, packets = io.BytesIO(data), 0.0, 0
    try:
        while stream.tell() < len(data):
            page = OggPage(stream)
            for index, packet in enumerate(page.packets):
                if index == 0 and page.continued:
                    continue  # the rest of a packet that began on the page before
                packets += 1
                if packets > 2 and packet:  # the first two are the OpusHead and OpusTags headers
                    total_ms += _OPUS_FRAME_MS[packet[0] >> 3] * _opus_frames(packet)
    except (MutagenError, EOFError, ValueError, IndexError):
        pass  # a cut-off last page: what came before it counts
    return total_ms / 1000


def _opus_frames(packet: bytes) -> int:
    code = packet[0] & 0x03
    if code == 0:
        return 1
    if code in (1, 2):
        return 2
    return packet[1] & 0x3F if len(packet) > 1 else 0


def _has_video(audio: Any) -> bool:
    codec = str(getattr(audio.info, "codec", "") or "")
    return codec.startswith(("avc", "hev", "hvc", "vp0", "av01", "mp4v"))


# WebM (EBML): the element ids walked to measure a recording by its blocks
_SEGMENT, _INFO, _TRACKS, _CLUSTER = 0x18538067, 0x1549A966, 0x1654AE6B, 0x1F43B675
_TIMECODE_SCALE, _DURATION, _TRACK_ENTRY, _TRACK_TYPE = 0x2AD7B1, 0x4489, 0xAE, 0x83
_CLUSTER_TIME, _SIMPLE_BLOCK, _BLOCK_GROUP, _BLOCK = 0xE7, 0xA3, 0xA0, 0xA1
_TOP_LEVEL = {_INFO, _TRACKS, _CLUSTER, 0x114D9B74, 0x1C53BB6B, 0x1254C367, 0x1941A469, 0x1043A770}
_VIDEO_TRACK = 1
_FRAME_MS = 20  # a block is a frame of about this length; the last one's end is the recording's end
# a recording's elements nest a few deep (Segment > Tracks > TrackEntry, Cluster > BlockGroup > Block); a file
# nested deeper is built to exhaust the walk's stack, not recorded
_MAX_DEPTH = 8


def _webm_seconds(data: bytes) -> float:
    """The longest of the declared duration and the end of the last block.

    No well-kept Python library measures a WebM by its blocks (they read the header's Duration, which
    browsers' recorders leave out and a liar sets as it likes), so this walks the few elements it needs."""
    try:
        walk = _Walk(data)
        walk.run()
    except (IndexError, ValueError) as error:
        raise MediaProblem("decode", "the recording cannot be read") from error
    if walk.video:
        raise MediaProblem("type", "a video is not a voice message")
    tick_ms = walk.timecode_scale / 1_000_000
    last_block = walk.last_tick * tick_ms + _FRAME_MS if walk.blocks else 0.0
    return max(walk.declared * tick_ms, last_block) / 1000


class _Walk:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.timecode_scale = 1_000_000  # nanoseconds a tick, the default
        self.declared = 0.0
        self.cluster_time = 0
        self.last_tick = 0.0
        self.blocks = 0
        self.video = False

    def run(self) -> None:
        position = 0
        while position < len(self.data):
            element, size, start = self._header(position)
            end = len(self.data) if size is None else min(start + size, len(self.data))
            if element == _SEGMENT:
                self._children(start, end, 1)
            position = end

    def _children(self, position: int, end: int, depth: int) -> None:
        if depth > _MAX_DEPTH:
            raise ValueError("nested deeper than a recording is")
        while position < end:
            element, size, start = self._header(position)
            stop = end if size is None else min(start + size, end)
            if element in (_INFO, _TRACKS, _TRACK_ENTRY, _BLOCK_GROUP):
                self._children(start, stop, depth + 1)
            elif element == _CLUSTER:
                stop = self._cluster(start, stop if size is not None else end, depth + 1)
            else:
                self._leaf(element, self.data[start:stop])
            position = stop

    def _cluster(self, position: int, end: int, depth: int) -> int:
        """The cluster's blocks; a cluster of unknown size (a live recording's) ends at the next top-level id."""
        while position < end:
            element, size, start = self._header(position)
            if element in _TOP_LEVEL:
                return position
            stop = end if size is None else min(start + size, end)
            if element == _BLOCK_GROUP:
                self._children(start, stop, depth + 1)
            else:
                self._leaf(element, self.data[start:stop])
            position = stop
        return end

    def _leaf(self, element: int, body: bytes) -> None:
        if element == _TIMECODE_SCALE:
            self.timecode_scale = int.from_bytes(body, "big") or self.timecode_scale
        elif element == _DURATION and len(body) in (4, 8):
            self.declared = struct.unpack(">f" if len(body) == 4 else ">d", body)[0]
        elif element == _TRACK_TYPE:
            self.video = self.video or int.from_bytes(body, "big") == _VIDEO_TRACK
        elif element == _CLUSTER_TIME:
            self.cluster_time = int.from_bytes(body, "big")
        elif element in (_SIMPLE_BLOCK, _BLOCK) and body:
            track_length = _vint_length(body[0])
            relative = int.from_bytes(body[track_length : track_length + 2], "big", signed=True)
            self.last_tick = max(self.last_tick, float(self.cluster_time + relative))
            self.blocks += 1

    def _header(self, position: int) -> tuple[int, int | None, int]:
        """(id, size or None when unknown, where the body starts)."""
        id_length = _vint_length(self.data[position])
        element = int.from_bytes(self.data[position : position + id_length], "big")
        size_at = position + id_length
        size_length = _vint_length(self.data[size_at])
        raw = int.from_bytes(self.data[size_at : size_at + size_length], "big")
        value = raw & ((1 << (7 * size_length)) - 1)
        unknown = value == (1 << (7 * size_length)) - 1
        return element, None if unknown else value, size_at + size_length


def _vint_length(first: int) -> int:
    for length in range(1, 9):
        if first & (0x80 >> (length - 1)):
            return length
    raise ValueError("not an EBML number")
