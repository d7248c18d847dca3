"""The six functions: runtime, handlers, tracing, logs and the environment they read."""

from __future__ import annotations

import json
from pathlib import Path

import aws_cdk as cdk
import pytest

from infra.app import build
from tests.infra.synth import CDK_JSON_CONTEXT, Synth

HANDLERS = {
    "chat": "handler.handler",
    "compress": "handler.handler",
    "extract": "handler.sweep",
    "extract-worker": "handler.worker",
    "heartbeat-sweep": "handler.sweep",
    "heartbeat-worker": "handler.worker",
}
ENVIRONMENT_NAMES = {
    "DREAMCHAT_STORAGE",
    "DREAMCHAT_AWS_REGION",
    "DREAMCHAT_TABLE",
    "DREAMCHAT_BUCKET",
    "DREAMCHAT_IDEMPOTENCY_TABLE",
    "DREAMCHAT_EVENT_BUS",
    "DREAMCHAT_HEARTBEAT_QUEUE_URL",
    "DREAMCHAT_EXTRACT_QUEUE_URL",
    "DREAMCHAT_SECRETS_MAX_AGE_SECONDS",
    "DREAMCHAT_SECRETS_ARN",
    "DREAMCHAT_CORS_ORIGINS",
    "DREAMCHAT_TIMEZONE",
    "DREAMCHAT_RUN_SCHEDULER",
    "POWERTOOLS_SERVICE_NAME",
    "POWERTOOLS_METRICS_NAMESPACE",
    "POWERTOOLS_LOGGER_LOG_EVENT",
    "POWERTOOLS_PARAMETERS_MAX_AGE",
    "OPENBLAS_NUM_THREADS",
}
MODEL_BUDGET = {"DREAMCHAT_LLM_TIMEOUT_SECONDS", "DREAMCHAT_LLM_MAX_RETRIES"}
OWN_NAMES = {  # each function's time budget (see tests/infra/test_budgets.py), and what fits its payload
    "chat": MODEL_BUDGET
    | {"DREAMCHAT_CHAT_TURN_SECONDS", "DREAMCHAT_OPERATOR_TOPIC_ARN", "DREAMCHAT_MEDIA_BODY_MAX_BYTES"},
    "compress": MODEL_BUDGET | {"DREAMCHAT_BACKGROUND_ATTEMPTS"},
    "extract": MODEL_BUDGET | {"DREAMCHAT_BACKGROUND_ATTEMPTS"},
    "extract-worker": MODEL_BUDGET | {"DREAMCHAT_BACKGROUND_ATTEMPTS"},
    "heartbeat-sweep": set(),
    "heartbeat-worker": MODEL_BUDGET | {"DREAMCHAT_HEARTBEAT_TURN_SECONDS"},
}


@pytest.mark.parametrize(("key", "handler"), HANDLERS.items())
def test_each_function_runs_its_handler_on_python_3_12_x86_with_tracing(each: Synth, key: str, handler: str) -> None:
    (layer_id,) = each.resources("AWS::Lambda::LayerVersion")
    properties = each.function(key)[1]["Properties"]
    assert properties["Handler"] == handler
    assert properties["Runtime"] == "python3.12"
    assert properties["Architectures"] == ["x86_64"]
    assert properties["TracingConfig"] == {"Mode": "Active"}
    assert properties["Layers"] == [{"Ref": layer_id}]


def test_the_layer_is_built_for_python_3_12_on_x86(each: Synth) -> None:
    each.template.has_resource_properties(
        "AWS::Lambda::LayerVersion",
        {"CompatibleRuntimes": ["python3.12"], "CompatibleArchitectures": ["x86_64"]},
    )


def test_the_chat_function_answers_within_the_http_api_timeout(each: Synth) -> None:
    assert each.function("chat")[1]["Properties"]["Timeout"] < 30


@pytest.mark.parametrize("key", HANDLERS)
def test_each_function_reads_the_whole_dreamchat_environment(each: Synth, key: str) -> None:
    variables = each.function(key)[1]["Properties"]["Environment"]["Variables"]
    given = {"DREAMCHAT_LLM_BASE_URL", "DREAMCHAT_OPERATORS"}  # from context (the prod synth's)
    assert set(variables) - given == ENVIRONMENT_NAMES | OWN_NAMES[key]
    assert variables["DREAMCHAT_STORAGE"] == "aws"
    assert variables["DREAMCHAT_RUN_SCHEDULER"] == "false"
    assert variables["POWERTOOLS_METRICS_NAMESPACE"] == "DreamChat"
    assert variables["POWERTOOLS_SERVICE_NAME"] == f"dreamchat-{key}"
    assert variables["POWERTOOLS_LOGGER_LOG_EVENT"] == "false"
    assert variables["OPENBLAS_NUM_THREADS"] == "1"


def test_the_environment_points_at_this_stacks_resources(each: Synth) -> None:
    variables = each.function("chat")[1]["Properties"]["Environment"]["Variables"]
    refs = {name: value["Ref"] for name, value in variables.items() if isinstance(value, dict)}
    assert refs["DREAMCHAT_TABLE"].startswith("DataTable")
    assert refs["DREAMCHAT_IDEMPOTENCY_TABLE"].startswith("DataIdempotencyTable")
    assert refs["DREAMCHAT_BUCKET"].startswith("DataDocuments")
    assert refs["DREAMCHAT_EVENT_BUS"].startswith("MessagingBus")
    assert refs["DREAMCHAT_HEARTBEAT_QUEUE_URL"].startswith("MessagingHeartbeatQueue")
    assert refs["DREAMCHAT_SECRETS_ARN"].startswith("AppSecret")
    assert refs["DREAMCHAT_AWS_REGION"] == "AWS::Region"


def test_cors_origins_and_timezone_come_from_the_environment_settings(prod: Synth) -> None:
    variables = prod.function("chat")[1]["Properties"]["Environment"]["Variables"]
    assert json.loads(variables["DREAMCHAT_CORS_ORIGINS"]) == ["https://chat.example.com"]
    assert variables["DREAMCHAT_TIMEZONE"] == "Asia/Shanghai"


@pytest.mark.parametrize("key", HANDLERS)
def test_extra_variables_from_context_reach_every_function(dev: Synth, prod: Synth, key: str) -> None:
    assert "DREAMCHAT_LLM_BASE_URL" not in dev.function(key)[1]["Properties"]["Environment"]["Variables"]
    variables = prod.function(key)[1]["Properties"]["Environment"]["Variables"]
    assert variables["DREAMCHAT_LLM_BASE_URL"] == "https://llm.example.com/v1"


@pytest.mark.parametrize("key", HANDLERS)
def test_each_function_logs_to_its_own_group_with_retention(dev: Synth, prod: Synth, key: str) -> None:
    for synth, days in ((dev, 14), (prod, 90)):
        log_group_id = synth.function(key)[1]["Properties"]["LoggingConfig"]["LogGroup"]["Ref"]
        log_group = synth.resources("AWS::Logs::LogGroup")[log_group_id]
        assert log_group["Properties"]["RetentionInDays"] == days


@pytest.mark.parametrize("key", HANDLERS)
def test_no_role_carries_an_aws_managed_policy(each: Synth, key: str) -> None:
    role_id = each.function(key)[1]["Properties"]["Role"]["Fn::GetAtt"][0]
    assert "ManagedPolicyArns" not in each.resources("AWS::IAM::Role")[role_id]["Properties"]


def test_function_names_carry_the_environment(dev: Synth, prod: Synth) -> None:
    assert dev.function("chat")[1]["Properties"]["FunctionName"] == "DreamChat-dev-chat"
    assert prod.function("chat")[1]["Properties"]["FunctionName"] == "DreamChat-prod-chat"
    assert (dev.stack.stack_name, prod.stack.stack_name) == ("DreamChat-dev", "DreamChat-prod")


def test_extra_variables_may_not_replace_what_the_stack_sets(tmp_path: Path) -> None:
    context = {**CDK_JSON_CONTEXT, "bundle": "false", "functionEnvironment": {"DREAMCHAT_TABLE": "other"}}
    with pytest.raises(ValueError, match="DREAMCHAT_TABLE"):
        build(cdk.App(context=context, outdir=str(tmp_path)))
