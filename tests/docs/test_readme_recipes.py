"""The README's "real models" recipes do what they say, read as a shell would read their `export` lines."""

from __future__ import annotations

import re
from pathlib import Path

from dreamchat.config import MEDIA_KEYS, MODEL_KEYS, Settings
from dreamchat.llm.registry import ARK_URL, DASHSCOPE_URL, DEEPSEEK_URL, build_registry

README = Path(__file__).parents[2] / "README.md"
EXPORT = re.compile(r"^export (DREAMCHAT_[A-Z0-9_]+)=(\S+)", re.MULTILINE)


def recipe(after: str) -> dict[str, str]:
    """The variables of the first shell block after the line that starts with `after`."""
    text = README.read_text(encoding="utf-8")
    block = text[text.index(after) :].split("```sh\n", 1)[1].split("```", 1)[0]
    return {name.removeprefix("DREAMCHAT_").lower(): value for name, value in EXPORT.findall(block)}


def test_one_deepseek_key_serves_every_role_and_no_embeddings_call_goes_to_deepseek() -> None:
    settings = Settings(_env_file=None, **recipe("**One DeepSeek key"))  # type: ignore[call-arg]
    models = build_registry(settings)
    assert not any(models[role].configured for role in MEDIA_KEYS)  # DeepSeek neither hears, speaks nor sees
    assert {key: (models[key].base_url, models[key].api_key) for key in MODEL_KEYS} == {
        key: (DEEPSEEK_URL, "sk-...") for key in MODEL_KEYS
    }
    assert {models[key].model for key in MODEL_KEYS} <= {"deepseek-chat", "deepseek-reasoner"}
    assert settings.llm_configured
    assert settings.embedding_provider == "local"


def test_a_qwen_and_a_doubao_key_take_their_roles_and_leave_deepseek_the_rest() -> None:
    variables = recipe("**One DeepSeek key") | recipe("**Add a Qwen key") | recipe("**Add a Doubao key")
    models = build_registry(Settings(_env_file=None, **variables))  # type: ignore[call-arg]
    assert (models["qwen_short_to_mid"].base_url, models["qwen_short_to_mid"].model) == (DASHSCOPE_URL, "qwen-plus")
    assert models["doubao_mid_to_long"].base_url == ARK_URL
    others = {key for key in MODEL_KEYS} - {"qwen_short_to_mid", "doubao_mid_to_long"}
    assert {models[key].base_url for key in others} == {DEEPSEEK_URL}
    assert variables["embedding_base_url"] == DASHSCOPE_URL
