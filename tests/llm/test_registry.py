"""Model keys resolve from the environment: per-key override, then the shared default, then the provider."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from dreamchat.config import MEDIA_KEYS, MODEL_KEYS, Settings
from dreamchat.llm.gateway import OpenAIGateway
from dreamchat.llm.registry import ARK_URL, DASHSCOPE_URL, DEEPSEEK_URL, OPENAI_URL, build_registry
from tests.fakes.fake_llm import FakeLLMServer


def test_every_key_defaults_to_its_provider_and_model() -> None:
    registry = build_registry(Settings())
    assert set(registry) == {*MODEL_KEYS, *MEDIA_KEYS}
    assert [(c.base_url, c.model, c.temperature) for c in registry.values()] == [
        (DEEPSEEK_URL, "deepseek-chat", 1.0),
        (DEEPSEEK_URL, "deepseek-reasoner", 1.0),
        (DASHSCOPE_URL, "qwen-plus", 0.3),
        (ARK_URL, "doubao-pro-32k", 0.3),
        (DEEPSEEK_URL, "deepseek-chat", 0.2),
        (OPENAI_URL, "gpt-4o-mini-transcribe", 0.0),
        (OPENAI_URL, "gpt-4o-mini-tts", 1.0),
        (DASHSCOPE_URL, "qwen-vl-plus", 0.2),
    ]


def test_with_no_api_key_anywhere_no_key_is_configured() -> None:
    assert not any(config.configured for config in build_registry(Settings()).values())


def test_the_shared_base_url_and_key_apply_to_every_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DREAMCHAT_LLM_BASE_URL", "http://proxy.local/v1")
    monkeypatch.setenv("DREAMCHAT_LLM_API_KEY", "shared")
    monkeypatch.setenv("DREAMCHAT_LLM_TIMEOUT_SECONDS", "7")
    registry = build_registry(Settings())
    for key in MODEL_KEYS:
        assert (registry[key].base_url, registry[key].api_key, registry[key].timeout) == (
            "http://proxy.local/v1",
            "shared",
            7.0,
        )


def test_the_media_roles_take_only_their_own_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DREAMCHAT_LLM_BASE_URL", "http://proxy.local/v1")
    monkeypatch.setenv("DREAMCHAT_LLM_API_KEY", "shared")
    monkeypatch.setenv("DREAMCHAT_VISION_API_KEY", "eyes")
    monkeypatch.setenv("DREAMCHAT_VISION_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("DREAMCHAT_VISION_MODEL", "qwen-vl-max")
    registry = build_registry(Settings())
    assert not registry["speech_to_text"].configured and not registry["text_to_speech"].configured
    assert registry["speech_to_text"].base_url == OPENAI_URL
    assert (registry["vision"].base_url, registry["vision"].model, registry["vision"].api_key) == (
        "http://127.0.0.1:9/v1",
        "qwen-vl-max",
        "eyes",
    )


def test_a_per_key_override_beats_the_shared_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DREAMCHAT_LLM_BASE_URL", "http://proxy.local/v1")
    monkeypatch.setenv("DREAMCHAT_LLM_API_KEY", "shared")
    monkeypatch.setenv("DREAMCHAT_QWEN_SHORT_TO_MID_BASE_URL", "http://qwen.local/v1")
    monkeypatch.setenv("DREAMCHAT_QWEN_SHORT_TO_MID_API_KEY", "qwen-key")
    monkeypatch.setenv("DREAMCHAT_QWEN_SHORT_TO_MID_MODEL", "qwen-max")
    registry = build_registry(Settings())
    qwen, chat = registry["qwen_short_to_mid"], registry["deepseek_chat"]
    assert (qwen.base_url, qwen.api_key, qwen.model) == ("http://qwen.local/v1", "qwen-key", "qwen-max")
    assert (chat.base_url, chat.api_key, chat.model) == ("http://proxy.local/v1", "shared", "deepseek-chat")


def test_a_key_without_a_base_url_keeps_its_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DREAMCHAT_DOUBAO_MID_TO_LONG_API_KEY", "ark-key")
    doubao = build_registry(Settings())["doubao_mid_to_long"]
    assert (doubao.base_url, doubao.api_key, doubao.configured) == (ARK_URL, "ark-key", True)


def test_the_api_key_never_appears_in_a_config_repr(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DREAMCHAT_LLM_API_KEY", "sk-very-secret")
    assert "sk-very-secret" not in repr(build_registry(Settings()))


def test_the_sdk_sends_each_keys_own_model_and_api_key(fake_llm: FakeLLMServer) -> None:
    settings = Settings(
        llm_base_url=fake_llm.base_url,
        llm_api_key=SecretStr("shared"),
        deepseek_core_memory_api_key=SecretStr("core-key"),
        deepseek_core_memory_model="core-model",
    )
    gateway = OpenAIGateway.from_settings(settings)
    gateway.complete("deepseek_core_memory", [{"role": "user", "content": "hi"}])
    gateway.complete("qwen_short_to_mid", [{"role": "user", "content": "hi"}])
    core, qwen = fake_llm.requests
    assert (core.model, core.headers["authorization"]) == ("core-model", "Bearer core-key")
    assert (qwen.model, qwen.headers["authorization"]) == ("qwen-plus", "Bearer shared")
    assert qwen.body["temperature"] == 0.3
