from __future__ import annotations

import pytest
from pydantic import ValidationError

from dreamchat.adapters.private import signing_secret
from dreamchat.config import Settings


def test_defaults_are_local_and_offline() -> None:
    settings = Settings()
    assert settings.storage == "local"
    assert str(settings.data_dir) == ".dreamchat"
    assert settings.timezone == "Asia/Shanghai"
    assert settings.llm_configured is False


def test_settings_come_from_dreamchat_variables(monkeypatch) -> None:
    monkeypatch.setenv("DREAMCHAT_TABLE", "t1")
    monkeypatch.setenv("DREAMCHAT_DEEPSEEK_CHAT_MODEL", "deepseek-v3.2")
    monkeypatch.setenv("DREAMCHAT_FAREWELL_KEYWORDS", '["再见", "拜"]')
    settings = Settings()
    assert settings.table == "t1"
    assert settings.model_override("deepseek_chat", "model") == "deepseek-v3.2"
    assert settings.farewell_keywords == ["再见", "拜"]


def test_aws_mode_requires_a_jwt_secret() -> None:
    with pytest.raises(ValidationError, match="JWT_SECRET"):
        Settings(storage="aws")
    assert Settings(storage="aws", jwt_secret="s" * 32).storage == "aws"


def test_local_mode_creates_and_keeps_a_jwt_secret(tmp_path) -> None:
    first = signing_secret(Settings(data_dir=tmp_path))
    assert len(first) >= 32
    assert signing_secret(Settings(data_dir=tmp_path)) == first
    assert (tmp_path / "jwt_secret").stat().st_mode & 0o077 == 0


def test_every_setting_is_documented_in_the_settings_page() -> None:
    from pathlib import Path

    from dreamchat.config import MEDIA_KEYS, MODEL_KEYS

    readme = (Path(__file__).parents[2] / "docs" / "settings.md").read_text()
    per_key = [
        f"{key}_" for key in (*MODEL_KEYS, *MEDIA_KEYS)
    ]  # documented once as DREAMCHAT_<KEY>_BASE_URL / _API_KEY / _MODEL
    names = [f"DREAMCHAT_{n.upper()}" for n in Settings.model_fields if not n.startswith(tuple(per_key))]
    assert [name for name in names if name not in readme] == []
    assert all(key.upper() in readme for key in (*MODEL_KEYS, *MEDIA_KEYS))


def test_lists_may_be_comma_separated(monkeypatch) -> None:
    monkeypatch.setenv("DREAMCHAT_FAREWELL_KEYWORDS", "再见, 拜拜,see you")
    monkeypatch.setenv("DREAMCHAT_CORS_ORIGINS", "https://a.example.com")
    settings = Settings()
    assert settings.farewell_keywords == ["再见", "拜拜", "see you"]
    assert settings.cors_origins == ["https://a.example.com"]


def test_the_reply_draw_is_on_by_default(monkeypatch) -> None:
    monkeypatch.delenv("DREAMCHAT_REPLY_DECISION", raising=False)  # tests/conftest.py turns it off for the rest
    assert Settings().reply_decision == "draw"
