"""`GET /api/client-config` answers, without a token, the constants the web client used to retype: each is
the value of its one home on the server, and the client's JS no longer spells them."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient

from dreamchat.domain import accounts, bounds
from dreamchat.domain.discover import CATEGORIES
from dreamchat.domain.emotions import LABELS
from dreamchat.domain.heartbeat import Night, Prefs, night_window
from dreamchat.domain.media import AUDIO_MAX_BYTES, AUDIO_MAX_SECONDS, IMAGE_MAX_BYTES, IMAGE_MAX_SIDE
from dreamchat.services.memory_import import MAX_IMPORT_BYTES

WEB = Path(__file__).resolve().parents[2] / "shared" / "dreamchat" / "web"


def test_the_client_config_is_public_and_reads_each_constant_from_its_home(client: TestClient) -> None:
    response = client.get("/api/client-config")
    assert response.status_code == 200
    body = response.json()
    assert body["night"] == {
        "usual": as_hours(night_window(False, Prefs())),
        "night_owl": as_hours(night_window(True, Prefs())),
    }
    assert body["night"]["usual"] == {"start": 23, "end": 7}
    assert body["emotions"] == {kind: list(labels) for kind, labels in LABELS.items()}
    assert list(body["emotions"]) == ["basic_emotion", "scene", "atmosphere"]
    limits = body["limits"]
    assert limits["message_chars"] == bounds.MESSAGE_CHARS
    assert limits["core_chars"] == bounds.CORE_CHARS and limits["base_soul_chars"] == bounds.BASE_SOUL_CHARS
    assert limits["importance"] == {"min": 1, "max": 10}
    assert limits["password_chars"] == {"min": accounts.MIN_PASSWORD, "max": accounts.MAX_PASSWORD}
    assert limits["daily_cap"] == {"min": 0, "max": 100} and limits["quiet_minutes"] == {"min": 0, "max": 24 * 60}
    assert limits["memory_import_bytes"] == MAX_IMPORT_BYTES
    assert (limits["tag_chars"], limits["tags"]) == (bounds.TAG_CHARS, bounds.TAGS)
    assert body["categories"] == list(CATEGORIES)  # discover (issue 40), in the order the screen shows them
    assert body["voice_replies"] == ["never", "sometimes", "always"] and limits["voice_id_chars"] == bounds.VOICE_CHARS
    assert (limits["report_reason_chars"], limits["note_chars"], limits["suspension_reason_chars"]) == (
        bounds.REPORT_REASON_CHARS,
        bounds.NOTE_CHARS,
        bounds.SUSPENSION_REASON_CHARS,
    )


def test_the_web_client_spells_no_emotion_label_and_no_night_window() -> None:
    sources = {path.name: path.read_text(encoding="utf-8") for path in WEB.rglob("*.js")}
    labels = [label for kinds in LABELS.values() for label in kinds]
    retyped = {name for name, text in sources.items() if any(f'"{label}"' in text for label in labels)}
    assert retyped == set()
    nights = {name for name, text in sources.items() if re.search(r"23:00|02:00–10:00|: 23\b", text)}
    assert nights == set()


def test_the_web_client_spells_no_category() -> None:
    """The discover screen and the editor read the categories from the server."""
    sources = {path.name: path.read_text(encoding="utf-8") for path in WEB.rglob("*.js")}
    assert {name for name, text in sources.items() if any(f'"{c}"' in text for c in CATEGORIES)} == set()


def test_the_web_client_spells_no_moderation_bound() -> None:
    """The report form and the console check the server's bounds, never a copy of them."""
    sources = {path.name: path.read_text(encoding="utf-8") for path in WEB.rglob("*.js")}
    bound = rf"\b({bounds.REPORT_REASON_CHARS}|{bounds.NOTE_CHARS}|{bounds.SUSPENSION_REASON_CHARS})\b"
    retyped = {name for name, text in sources.items() if re.search(rf"_chars\W+{bound}", text)}
    assert retyped == set()


def test_the_media_bounds_come_from_the_media_rules_and_the_client_spells_none_of_them(client: TestClient) -> None:
    """The recorder stops at the server's longest voice note and photos shrink to its side (issue 41)."""
    limits = client.get("/api/client-config").json()["limits"]
    assert (limits["voice_seconds"], limits["voice_bytes"]) == (AUDIO_MAX_SECONDS, AUDIO_MAX_BYTES)
    assert (limits["image_side"], limits["image_bytes"]) == (IMAGE_MAX_SIDE, IMAGE_MAX_BYTES)
    sources = {path.name: path.read_text(encoding="utf-8") for path in WEB.rglob("*.js")}
    bound = rf"\b({IMAGE_MAX_SIDE}|{int(AUDIO_MAX_SECONDS)} ?秒|{IMAGE_MAX_BYTES // 2**20} ?MB|{AUDIO_MAX_BYTES // 2**20} ?MB)"
    assert {name for name, text in sources.items() if re.search(bound, text)} == set()


def as_hours(night: Night) -> dict[str, int]:
    return {"start": night.start, "end": night.end}
