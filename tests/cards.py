"""Character cards written for the tests: real-shaped V1, V2 and V3 cards, one with a lorebook, one with
macros, and PNGs that carry them (whole, or broken in every way a file breaks)."""

from __future__ import annotations

import base64
import copy
import io
import json
import struct
import zlib
from typing import Any

from PIL import Image, PngImagePlugin

LOREBOOK = {
    "name": "雾港设定集",
    "description": "",
    "scan_depth": 4,
    "token_budget": 512,
    "recursive_scanning": False,
    "extensions": {},
    "entries": [
        {
            "keys": ["灯塔", "lighthouse"],
            "content": "雾港的灯塔已经熄灭十年，{{char}}每晚都去那里。",
            "extensions": {"position": 0, "depth": 4},
            "enabled": True,
            "insertion_order": 100,
            "case_sensitive": False,
            "name": "灯塔",
            "priority": 10,
            "id": 0,
            "comment": "",
            "selective": False,
            "secondary_keys": [],
            "constant": False,
            "position": "before_char",
        },
        {
            "keys": ["旧书店"],
            "content": "港口旧书店的老板是{{char}}的舅舅。",
            "extensions": {},
            "enabled": False,
            "insertion_order": 200,
        },
    ],
}


def v2_card() -> dict[str, Any]:
    """A real-shaped V2 card (as SillyTavern exports one: the V1 fields mirrored at the top level)."""
    data = {
        "name": "林雾",
        "description": "{{char}}是雾港一家旧书店的店员，二十四岁，说话轻声细语。",
        "personality": "安静、细心，偶尔冒出冷笑话。",
        "scenario": "{{user}}推开书店的门，风铃响了一声。",
        "first_mes": "*抬起头* 欢迎光临，{{user}}。今天想找什么书？",
        "mes_example": "<START>\n{{user}}: 有推荐吗？\n{{char}}: 这本《雾中港》，我读了三遍。",
        "creator_notes": "适合慢节奏的日常聊天。",
        "system_prompt": "",
        "post_history_instructions": "",
        "alternate_greetings": ["*正在整理书架* 啊，{{user}}，你来啦。", "今天下雨，店里只有我们两个。"],
        "character_book": copy.deepcopy(LOREBOOK),
        "tags": ["日常", "治愈", "书店"],
        "creator": "mist",
        "character_version": "1.2",
        "extensions": {
            "talkativeness": "0.5",
            "fav": False,
            "world": "雾港",
            "depth_prompt": {"prompt": "", "depth": 4},
        },
    }
    top = {key: data[key] for key in ("name", "description", "personality", "scenario", "first_mes", "mes_example")}
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": data, **top, "create_date": "2025-1-2"}


def v3_card() -> dict[str, Any]:
    data = {
        "name": "Captain Mara Vell",
        "nickname": "Mara",
        "description": "{{char}} commands the airship Kestrel. She trusts {{user}} with the maps.",
        "personality": "Bold, dry humour, fiercely loyal.",
        "scenario": "Above the storm line, {{user}} is the new navigator.",
        "first_mes": "Welcome aboard, {{user}}. I'm {{char}}. Don't touch the red lever.",
        "mes_example": "",
        "creator_notes": "Best with long replies.",
        "creator_notes_multilingual": {"en": "Best with long replies.", "zh": "适合长回复。"},
        "system_prompt": "You are {{char}}. Never break character.",
        "post_history_instructions": "Stay in character.",
        "alternate_greetings": [],
        "group_only_greetings": ["Crew, gather round."],
        "tags": ["adventure", "airship", "Adventure"],
        "creator": "skywright",
        "character_version": "3",
        "extensions": {"chub": {"full_path": "skywright/mara"}},
        "assets": [{"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png"}],
        "source": ["https://example.org/mara"],
        "creation_date": 1700000000,
        "modification_date": 1710000000,
    }
    return {"spec": "chara_card_v3", "spec_version": "3.0", "data": data}


def v1_card() -> dict[str, Any]:
    return {
        "name": "Old Tom",
        "description": "A retired sailor who tells tall tales.",
        "personality": "grumpy but kind",
        "scenario": "",
        "first_mes": "Sit down, <USER>, and I'll tell ye about the whale.",
        "mes_example": "",
        "avatar": "none",
        "chat": "Old Tom - 2023-5-1",
        "talkativeness": "0.4",
    }


def macro_card() -> dict[str, Any]:
    """Every macro we resolve, in every spelling, in the fields we use."""
    return {
        "spec": "chara_card_v2",
        "spec_version": "2.0",
        "data": {
            "name": "小满",
            "description": "{{char}}是{{user}}的青梅竹马。<BOT>记得{{USER}}的生日。{{// 作者的备注 }}{{ Char }}爱吃桃子。",
            "personality": "<user>说什么{{char}}都当真。",
            "scenario": "",
            "first_mes": "{{user}}！我是{{char}}，<bot>等你好久了。{{comment: 打招呼}}",
            "mes_example": "{{char}}: 这一句原样保留 {{user}}",
            "tags": [],
            "extensions": {},
        },
    }


def picture(size: tuple[int, int] = (600, 900), *, alpha: bool = False) -> Image.Image:
    """A picture with something in it (two gradients), so a shrunk avatar shows it was not blanked."""
    red = Image.linear_gradient("L").resize(size)
    green = Image.radial_gradient("L").resize(size)
    bands = [red, green, Image.new("L", size, 200)] + ([Image.new("L", size, 230)] if alpha else [])
    return Image.merge("RGBA" if alpha else "RGB", bands)


def png_bytes(image: Image.Image, texts: dict[str, str] | None = None) -> bytes:
    """The picture as a PNG with these tEXt chunks (and a private one, to show metadata is stripped)."""
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "GPS 31.2,121.5 from the author's phone")
    for keyword, text in (texts or {}).items():
        info.add_text(keyword, text)
    out = io.BytesIO()
    image.save(out, format="PNG", pnginfo=info)
    return out.getvalue()


def encoded(card: dict[str, Any]) -> str:
    return base64.b64encode(json.dumps(card, ensure_ascii=False).encode()).decode()


def card_png(card: dict[str, Any], keyword: str = "chara", image: Image.Image | None = None) -> bytes:
    return png_bytes(image or picture(), {keyword: encoded(card)})


def chunks(png: bytes) -> list[tuple[int, bytes, bytes]]:
    """(offset, type, body) of every chunk, for breaking a PNG in one precise place."""
    found, offset = [], 8
    while offset < len(png):
        (length,) = struct.unpack_from(">I", png, offset)
        kind = png[offset + 4 : offset + 8]
        found.append((offset, kind, png[offset + 8 : offset + 8 + length]))
        offset += 12 + length
    return found


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def with_bad_crc(png: bytes, kind: bytes = b"tEXt") -> bytes:
    offset, found, body = next(c for c in chunks(png) if c[1] == kind)
    end = offset + 8 + len(body)
    return png[:end] + bytes(b ^ 0xFF for b in png[end : end + 4]) + png[end + 4 :]


def with_text_chunk(png: bytes, keyword: str, text: bytes) -> bytes:
    """`png` with one more tEXt chunk before IEND (the PNG otherwise untouched)."""
    return png[:-12] + chunk(b"tEXt", keyword.encode("latin-1") + b"\0" + text) + png[-12:]


def damaged_pixels(card: dict[str, Any]) -> bytes:
    """A PNG whose chunks are whole (CRCs right) but whose IDAT is not zlib data."""
    png = card_png(card)
    parts = [png[:8]]
    for _, kind, body in chunks(png):
        parts.append(chunk(kind, b"\x78\x9c" + b"\xff" * 40 if kind == b"IDAT" else body))
    return b"".join(parts)


def pixel_bomb(card: dict[str, Any]) -> bytes:
    """A small PNG whose header claims 30,000 x 30,000 pixels."""
    header = struct.pack(">IIBBBBB", 30_000, 30_000, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\0" * 1000)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"tEXt", b"chara\0" + encoded(card).encode())
        + chunk(b"IDAT", pixels)
        + chunk(b"IEND", b"")
    )
