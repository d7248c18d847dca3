"""The five model keys of the spec and the three media roles, resolved from `Settings` into one
`ModelConfig` each.

Precedence for each key: `DREAMCHAT_<KEY>_BASE_URL` > `DREAMCHAT_LLM_BASE_URL` > the provider
default; the same for the API key (no default); the model is `DREAMCHAT_<KEY>_MODEL` or the default.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dreamchat.config import MEDIA_KEYS, MODEL_KEYS, Settings

DEEPSEEK_URL = "https://api.deepseek.com"
DASHSCOPE_URL = "https://dashscope.aliyuncs.com/compatible-mode/v1"
ARK_URL = "https://ark.cn-beijing.volces.com/api/v3"
OPENAI_URL = "https://api.openai.com/v1"


@dataclass(frozen=True)
class ModelConfig:
    """Everything needed to call one model key."""

    key: str
    base_url: str
    model: str
    # repr=False: a config printed in a log or a traceback must not carry the secret
    api_key: str | None = field(repr=False)
    timeout: float
    temperature: float

    @property
    def configured(self) -> bool:
        """True when there is an API key to call this model with."""
        return bool(self.api_key)


@dataclass(frozen=True)
class _Default:
    base_url: str
    model: str
    temperature: float


DEFAULTS: dict[str, _Default] = {
    "deepseek_chat": _Default(DEEPSEEK_URL, "deepseek-chat", 1.0),
    "deepseek_reasoner": _Default(DEEPSEEK_URL, "deepseek-reasoner", 1.0),
    "qwen_short_to_mid": _Default(DASHSCOPE_URL, "qwen-plus", 0.3),
    "doubao_mid_to_long": _Default(ARK_URL, "doubao-pro-32k", 0.3),
    "deepseek_core_memory": _Default(DEEPSEEK_URL, "deepseek-chat", 0.2),
    # the media roles: DeepSeek neither hears, speaks nor sees; these speak the same protocol
    "speech_to_text": _Default(OPENAI_URL, "gpt-4o-mini-transcribe", 0.0),
    "text_to_speech": _Default(OPENAI_URL, "gpt-4o-mini-tts", 1.0),
    "vision": _Default(DASHSCOPE_URL, "qwen-vl-plus", 0.2),
}


def build_registry(settings: Settings) -> dict[str, ModelConfig]:
    """One `ModelConfig` per model key, with the environment's overrides applied."""
    return {key: _resolve(settings, key) for key in (*MODEL_KEYS, *MEDIA_KEYS)}


def _resolve(settings: Settings, key: str) -> ModelConfig:
    """A media role takes only its own settings: the shared key and URL are a chat provider's, which
    rarely hears, speaks or sees, and a role sent there would fail on every voice note."""
    default = DEFAULTS[key]
    shared = key in MODEL_KEYS
    shared_key = settings.llm_api_key.get_secret_value() if settings.llm_api_key and shared else None
    shared_url = settings.llm_base_url if shared else None
    return ModelConfig(
        key=key,
        base_url=settings.model_override(key, "base_url") or shared_url or default.base_url,
        model=settings.model_override(key, "model") or default.model,
        api_key=settings.model_override(key, "api_key") or shared_key,
        timeout=settings.llm_timeout_seconds,
        temperature=default.temperature,
    )
