"""The one place that reads the environment: every setting is a `DREAMCHAT_*` variable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BeforeValidator, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from dreamchat.crisis_data import default_help_lines
from dreamchat.domain import bounds, heartbeat
from dreamchat.domain.help_lines import CrisisResource, parse_resources
from dreamchat.domain.media import IMAGE_MAX_BYTES
from dreamchat.domain.owed import Backoff
from dreamchat.domain.push import DEFAULT_ALLOWED_ENDPOINTS, EndpointRule, parse_rules

MODEL_KEYS = (
    "deepseek_chat",
    "deepseek_reasoner",
    "qwen_short_to_mid",
    "doubao_mid_to_long",
    "deepseek_core_memory",
)
# the roles that hear, speak and see (issue 41): each configured like a model key, none required
MEDIA_KEYS = ("speech_to_text", "text_to_speech", "vision")
# the whole multipart body of the largest file (a picture) and the form around it
MEDIA_BODY_MAX_BYTES = IMAGE_MAX_BYTES + 64 * 1024

DEFAULT_EXIT_KEYWORDS = ("退出陪伴", "停止服务", "stop talking to me")
DEFAULT_FAREWELLS = [
    "再见",
    "拜拜",
    "下次聊",
    "晚安",
    "回头聊",
    "明天见",
    "先睡了",
    "去睡了",
    "bye",
    "goodbye",
    "good night",
]


def _word_list(value: object) -> object:
    """A list from the environment: JSON (`["a","b"]`) or comma-separated (`a,b`)."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text.startswith("["):
        return json.loads(text)
    return [part.strip() for part in text.split(",") if part.strip()]


WordList = Annotated[list[str], NoDecode, BeforeValidator(_word_list)]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="DREAMCHAT_", extra="ignore")

    # storage and infrastructure
    storage: Literal["local", "aws"] = "local"
    data_dir: Path = Path(".dreamchat")
    table: str = "dreamchat"
    bucket: str = "dreamchat"
    event_bus: str = "dreamchat"
    heartbeat_queue_url: str | None = None
    extract_queue_url: str | None = None
    aws_endpoint_url: str | None = None
    aws_region: str = "us-east-1"
    secrets_arn: str | None = None
    secrets_max_age_seconds: int = Field(default=300, ge=0)
    idempotency_table: str | None = None
    timezone: str = "Asia/Shanghai"
    cors_origins: WordList = Field(default_factory=list)
    run_scheduler: bool = True
    starters: bool = True  # seed the shipped starter characters at start-up (`StarterService.seed`)

    # accounts
    jwt_secret: SecretStr | None = None
    jwt_previous_secret: SecretStr | None = None
    jwt_rotated_at: int | None = None
    jwt_rotation_minutes: float = Field(default=60.0, ge=0)
    allow_registration: bool = True
    access_token_minutes: int = Field(default=15, ge=1)
    refresh_token_days: int = Field(default=30, ge=1)
    login_attempts: int = Field(default=5, ge=1)
    login_window_minutes: int = Field(default=15, ge=1)
    auth_requests_per_minute: int = Field(default=20, ge=1)
    password_hash_workers: int = Field(default=2, ge=1)
    trusted_proxies: WordList = Field(default_factory=list)

    # language models: defaults for every key, then per-key overrides
    llm_base_url: str | None = None
    llm_api_key: SecretStr | None = None
    llm_timeout_seconds: float = Field(default=60.0, gt=0)
    llm_max_retries: int = Field(default=3, ge=0)
    deepseek_chat_base_url: str | None = None
    deepseek_chat_api_key: SecretStr | None = None
    deepseek_chat_model: str | None = None
    deepseek_reasoner_base_url: str | None = None
    deepseek_reasoner_api_key: SecretStr | None = None
    deepseek_reasoner_model: str | None = None
    qwen_short_to_mid_base_url: str | None = None
    qwen_short_to_mid_api_key: SecretStr | None = None
    qwen_short_to_mid_model: str | None = None
    doubao_mid_to_long_base_url: str | None = None
    doubao_mid_to_long_api_key: SecretStr | None = None
    doubao_mid_to_long_model: str | None = None
    deepseek_core_memory_base_url: str | None = None
    deepseek_core_memory_api_key: SecretStr | None = None
    deepseek_core_memory_model: str | None = None
    speech_to_text_base_url: str | None = None
    speech_to_text_api_key: SecretStr | None = None
    speech_to_text_model: str | None = None
    text_to_speech_base_url: str | None = None
    text_to_speech_api_key: SecretStr | None = None
    text_to_speech_model: str | None = None
    vision_base_url: str | None = None
    vision_api_key: SecretStr | None = None
    vision_model: str | None = None

    # embeddings (the sixth role): the same pattern, then a local model or BM25 alone
    embedding_provider: Literal["auto", "api", "local", "none"] = "auto"
    embedding_base_url: str | None = None
    embedding_api_key: SecretStr | None = None
    embedding_model: str | None = None
    embedding_dimensions: int | None = Field(default=None, ge=64, le=4096)
    embedding_timeout_seconds: float = Field(default=5.0, gt=0)
    embedding_batch: int = Field(default=10, ge=1, le=2048)
    embedding_cooldown_seconds: float = Field(default=60.0, ge=0)

    # memory
    topic_idle_hours: float = Field(default=6.0, gt=0)
    topic_max_messages: int = Field(default=80, ge=2)
    farewell_keywords: WordList = Field(default_factory=lambda: list(DEFAULT_FAREWELLS))
    extract_after_hours: float = Field(default=24.0, ge=0)
    memory_tokens: int = Field(default=1700, ge=100)
    recent_memory_tokens: int = Field(default=1250, ge=100)
    turn_memory_tokens: int = Field(default=400, ge=0)
    background_attempts: int = Field(default=3, ge=1)
    background_retry_seconds: float = Field(default=2.0, ge=0)
    heartbeat_turn_seconds: float = Field(default=60.0, gt=0)
    lease_seconds: int = Field(default=900, ge=1)
    lease_attempts: int = Field(default=3, ge=1)
    heal_backoff_seconds: int = Field(default=1800, ge=1)
    heal_backoff_max_seconds: int = Field(default=21600, ge=1)

    # chat
    reply_decision: Literal["draw", "model"] = "draw"
    warm_start_messages: int = Field(default=10, ge=0, le=1000)
    max_delay_seconds: float = Field(default=2400.0, ge=0)
    messages_per_minute: int = Field(default=30, ge=1)
    tool_rounds: int = Field(default=4, ge=1)
    chat_turn_seconds: float = Field(default=25.0, gt=0)
    chat_reserve_seconds: float = Field(default=3.0, ge=0)
    model_concurrency: int = Field(default=64, ge=1)
    model_calls_per_minute: int = Field(default=30, ge=1)
    # the chat model reads `image_url` parts: the photo a message carries goes to it beside its description
    chat_accepts_images: bool = False
    search_provider: Literal["searxng", "bocha", "tavily"] = "searxng"
    search_url: str | None = None
    search_api_key: SecretStr | None = None
    search_results: int = Field(default=5, ge=1, le=10)
    self_soul_min_hours: float = Field(default=6.0, ge=0)
    reflect_every_topics: int = Field(default=5, ge=0)
    judge_relationship_every_topics: int = Field(default=3, ge=0)
    quality_sample_share: float = Field(default=0.02, ge=0, le=1)

    # what one account may hold
    max_ai_users: int = Field(default=100, ge=1, le=10_000)
    max_friends: int = Field(default=300, ge=1, le=10_000)
    max_person_core_memories: int = Field(default=50, ge=1, le=bounds.CORE_MEMORIES)
    memory_imports_per_hour: int = Field(default=10, ge=1, le=10_000)
    card_uploads_per_minute: int = Field(default=20, ge=1, le=10_000)
    media_uploads_per_minute: int = Field(default=20, ge=1, le=10_000)
    # in AWS, what one request can carry: API Gateway takes 10 MB, Lambda's event 6 MB with the body in base64
    media_body_max_bytes: int = Field(default=MEDIA_BODY_MAX_BYTES, ge=64 * 1024, le=MEDIA_BODY_MAX_BYTES)
    media_url_seconds: int = Field(default=300, ge=10, le=3600)  # a presigned S3 download or upload stays good
    # the media roles' calls an account's messages may make; past them the words are owed, the message still goes
    speech_to_text_per_minute: int = Field(default=10, ge=1, le=10_000)
    vision_per_minute: int = Field(default=10, ge=1, le=10_000)
    account_exports_per_hour: int = Field(default=6, ge=1, le=10_000)

    # the person comes first: crisis protocol and break reminders
    crisis_locale: str = Field(default="zh-CN", min_length=1, max_length=35)
    crisis_resources: dict[str, list[dict[str, str]]] | None = None  # JSON: locale → resources
    crisis_checkin_minutes: int = Field(default=60, ge=5, le=24 * 60)
    break_reminder_minutes: int = Field(default=120, ge=0, le=24 * 60)

    # protections: minors' mode, AI reminders, a way out
    minor_daily_minutes: int = Field(default=60, ge=1, le=24 * 60)
    dependence_hours: float = Field(default=4, gt=0, le=24)
    exit_keywords: WordList = Field(default_factory=lambda: list(DEFAULT_EXIT_KEYWORDS))

    # running the service: operators, reports, crisis escalations
    operators: WordList = Field(default_factory=list)  # usernames, comma-separated
    report_response_hours: int = Field(default=72, ge=1, le=24 * 30)
    operator_topic_arn: str | None = None  # SNS topic told of a new escalation (AWS); locally a log line

    # heartbeat (defaults of every account; each account may change its own)
    heartbeat_daily_cap: int = Field(default=heartbeat.DAILY_CAP, ge=0)
    heartbeat_quiet_minutes: int = Field(default=heartbeat.QUIET_MINUTES, ge=0)
    heartbeat_max_backoff: int = Field(default=heartbeat.BACKOFF, ge=1, le=heartbeat.MAX_BACKOFF)
    heartbeat_pause_days: float = Field(default=heartbeat.PAUSE_AFTER_DAYS, gt=0)
    heartbeat_sweep_seconds: int = Field(default=60, ge=1, le=3600)  # local mode's sweep (AWS: every minute)

    # web push and presence
    vapid_private_key: SecretStr | None = None
    push_contact: str = Field(
        default="mailto:admin@dreamchat.invalid", pattern=r"^(mailto:[^@\s]+@[^@\s]+|https://\S+)$"
    )
    push_allowed_endpoints: WordList = Field(default_factory=lambda: list(DEFAULT_ALLOWED_ENDPOINTS))
    push_timeout_seconds: float = Field(default=3.0, gt=0, le=30)
    push_attempts: int = Field(default=3, ge=1, le=10)
    push_budget_seconds: float = Field(default=6.0, gt=0, le=60)
    push_ttl_seconds: int = Field(default=43200, ge=0, le=2419200)
    presence_seconds: int = Field(default=75, ge=10, le=3600)

    @model_validator(mode="after")
    def _aws_needs_a_secret(self) -> Settings:
        if self.storage == "aws" and self.jwt_secret is None and self.secrets_arn is None:
            raise ValueError("DREAMCHAT_JWT_SECRET (or DREAMCHAT_SECRETS_ARN) is required when DREAMCHAT_STORAGE=aws")
        return self

    @model_validator(mode="after")
    def _resources_are_valid(self) -> Settings:
        if self.crisis_resources is not None:
            parse_resources(self.crisis_resources)  # a ValueError names what is wrong
        return self

    @model_validator(mode="after")
    def _push_endpoints_are_valid(self) -> Settings:
        parse_rules(self.push_allowed_endpoints)  # a ValueError names the malformed prefix
        return self

    @property
    def push_rules(self) -> tuple[EndpointRule, ...]:
        """Where a push subscription's endpoint may point (DREAMCHAT_PUSH_ALLOWED_ENDPOINTS)."""
        return parse_rules(self.push_allowed_endpoints)

    @property
    def crisis_table(self) -> dict[str, tuple[CrisisResource, ...]]:
        """The help lines shown to a person in crisis, per locale (the defaults, or the operator's table)."""
        if self.crisis_resources is None:
            return dict(default_help_lines())
        return parse_resources(self.crisis_resources)

    def model_override(self, key: str, field: str) -> str | None:
        """The per-key override `DREAMCHAT_<KEY>_<FIELD>` for one model key, if set."""
        value = getattr(self, f"{key}_{field}")
        return value.get_secret_value() if isinstance(value, SecretStr) else value

    @property
    def heal_backoff(self) -> Backoff:
        """How long owed work (a degraded result) waits before each new attempt."""
        return Backoff(self.heal_backoff_seconds, max(self.heal_backoff_seconds, self.heal_backoff_max_seconds))

    @property
    def llm_configured(self) -> bool:
        """True when any model key has an API key; with none, the offline provider answers."""
        if self.llm_api_key is not None:
            return True
        return any(self.model_override(key, "api_key") for key in MODEL_KEYS)
