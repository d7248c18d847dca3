"""Environment settings from CDK context."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk import RemovalPolicy

from infra.settings import ContextGetter, settings_from_context, worker_concurrency


def context(**values: Any) -> ContextGetter:
    return values.get


def test_without_context_the_environment_is_dev_with_local_origins() -> None:
    settings = settings_from_context(context())
    assert settings.name == "dev"
    assert settings.prefix == "DreamChat-dev"
    assert settings.frontend_origins == ("http://localhost:8000", "http://127.0.0.1:8000")
    assert settings.removal_policy == RemovalPolicy.DESTROY


def test_prod_retains_data() -> None:
    settings = settings_from_context(context(env="prod", frontendOrigin="https://chat.example.com"))
    assert settings.removal_policy == RemovalPolicy.RETAIN
    assert settings.prefix == "DreamChat-prod"


def test_prod_refuses_to_guess_the_frontend_origin() -> None:
    with pytest.raises(ValueError, match="frontendOrigin"):
        settings_from_context(context(env="prod"))


def test_an_unknown_environment_is_refused() -> None:
    with pytest.raises(ValueError, match=r"env=dev\|prod"):
        settings_from_context(context(env="staging"))


def test_context_overrides_the_environment_defaults() -> None:
    settings = settings_from_context(
        context(
            frontendOrigin="https://a.example/, https://b.example",
            throttleRate="5",
            throttleBurst="9",
            timezone="Europe/Berlin",
            alarmEmail="ops@example.com",
        )
    )
    assert settings.frontend_origins == ("https://a.example", "https://b.example")
    assert (settings.throttle_rate, settings.throttle_burst) == (5.0, 9)
    assert settings.timezone == "Europe/Berlin"
    assert settings.alarm_email == "ops@example.com"


def test_empty_context_values_keep_the_defaults() -> None:
    assert settings_from_context(context(alarmEmail="", frontendOrigin="")).alarm_email is None


def test_extra_function_variables_come_as_json_or_as_a_mapping() -> None:
    from_cli = settings_from_context(context(functionEnvironment='{"DREAMCHAT_LLM_BASE_URL": "https://x"}'))
    from_json = settings_from_context(context(functionEnvironment={"DREAMCHAT_DEEPSEEK_CHAT_MODEL": "m"}))
    assert from_cli.function_environment == {"DREAMCHAT_LLM_BASE_URL": "https://x"}
    assert from_json.function_environment == {"DREAMCHAT_DEEPSEEK_CHAT_MODEL": "m"}


@pytest.mark.parametrize(
    "variables",
    [{"AWS_REGION": "x"}, {"DREAMCHAT_LLM_API_KEY": "sk-1"}, {"DREAMCHAT_JWT_SECRET": "s"}],
)
def test_extra_variables_are_dreamchat_settings_and_never_secrets(variables: dict[str, str]) -> None:
    with pytest.raises(ValueError):
        settings_from_context(context(functionEnvironment=variables))


def test_worker_concurrency_follows_the_expected_pairs() -> None:
    dev = settings_from_context(context())
    prod = settings_from_context(context(env="prod", frontendOrigin="https://chat.example.com"))
    million = settings_from_context(
        context(env="prod", frontendOrigin="https://chat.example.com", activePairs="1000000")
    )
    assert (dev.heartbeat_concurrency, dev.extract_concurrency) == (2, 2)  # the floor
    assert (prod.heartbeat_concurrency, prod.extract_concurrency) == (70, 35)
    # 1 M pairs × 5 heartbeats a day × 3 (peak) / 86,400 s × 4 s each = 695 busy workers
    assert (million.heartbeat_concurrency, million.extract_concurrency) == (695, 348)


def test_worker_concurrency_stays_within_what_sqs_allows() -> None:
    assert worker_concurrency(0, 5, 4) == 2
    assert worker_concurrency(10_000_000, 5, 4) == 1000


def test_operators_and_their_email_come_from_context() -> None:
    settings = settings_from_context(context(operators=" alice, bob ,,", operatorEmail="duty@example.com"))
    assert settings.operators == ("alice", "bob")
    assert settings.operator_email == "duty@example.com"
    assert settings_from_context(context(operators=["carol"])).operators == ("carol",)
    assert settings_from_context(context()).operators == () and settings_from_context(context()).operator_email is None
