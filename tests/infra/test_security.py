"""Least privilege, the app secret, and cdk-nag's AWS Solutions checks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk import aws_s3 as s3

from infra.app import build
from tests.infra.synth import CDK_JSON_CONTEXT, Synth

DATA_SERVICES = ("dynamodb", "s3", "sqs", "events", "secretsmanager", "sns")
POLICY_TYPES = {
    "AWS::IAM::Policy": ("PolicyDocument",),
    "AWS::S3::BucketPolicy": ("PolicyDocument",),
    "AWS::SQS::QueuePolicy": ("PolicyDocument",),
    "AWS::SNS::TopicPolicy": ("PolicyDocument",),
}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def statements(synth: Synth) -> Iterator[tuple[str, dict[str, Any]]]:
    for type_ in POLICY_TYPES:
        for logical_id, resource in synth.resources(type_).items():
            for statement in resource["Properties"]["PolicyDocument"]["Statement"]:
                yield logical_id, statement
    for logical_id, role in synth.resources("AWS::IAM::Role").items():
        for policy in role["Properties"].get("Policies", []):
            for statement in policy["PolicyDocument"]["Statement"]:
                yield logical_id, statement


def test_no_data_action_is_granted_on_every_resource(each: Synth) -> None:
    for logical_id, statement in statements(each):
        actions = as_list(statement.get("Action", []))
        data_actions = [action for action in actions if action.split(":")[0] in DATA_SERVICES]
        if data_actions:
            assert "*" not in as_list(statement.get("Resource")), (logical_id, data_actions)


def test_no_statement_allows_a_whole_service(each: Synth) -> None:
    for logical_id, statement in statements(each):
        if statement["Effect"] == "Allow":
            assert not any(action.endswith(":*") or action == "*" for action in as_list(statement["Action"])), (
                logical_id
            )


def test_only_x_ray_is_granted_on_every_resource(each: Synth) -> None:
    unscoped = {
        action
        for _, statement in statements(each)
        if statement["Effect"] == "Allow" and "*" in as_list(statement.get("Resource"))
        for action in as_list(statement["Action"])
    }
    assert unscoped == {"xray:PutTelemetryRecords", "xray:PutTraceSegments"}


def granted(synth: Synth, key: str) -> dict[str, set[str]]:
    """Logical ids each role may touch, by service: {'dynamodb': {'DataTable…'}, …}."""
    role_id = synth.function(key)[1]["Properties"]["Role"]["Fn::GetAtt"][0]
    policies = synth.resources("AWS::IAM::Policy", {"Properties": {"Roles": [{"Ref": role_id}]}})
    found: dict[str, set[str]] = {}
    for policy in policies.values():
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
            services = {action.split(":")[0] for action in as_list(statement["Action"])}
            for service in services & set(DATA_SERVICES):
                found.setdefault(service, set()).update(referenced_ids(statement["Resource"]))
    return found


def referenced_ids(value: Any) -> set[str]:
    text = json.dumps(value)
    return {token.split('"')[0] for token in text.split('"Ref": "')[1:]} | {
        token.split('"')[0] for token in text.split('"Fn::GetAtt": ["')[1:]
    }


RESOURCE_PREFIXES = (
    "DataTable",
    "DataIdempotencyTable",
    "DataDocuments",
    "MessagingBus",
    "MessagingHeartbeatQueue",
    "MessagingExtractQueue",
    "MessagingTopicEndedDlq",
    "MessagingOperatorTopic",
    "AppSecret",
)


def prefixes(ids: set[str]) -> set[str]:
    """Logical ids without their hash suffix, e.g. DataTableFDBAD0F2 -> DataTable."""
    return {next(p for p in RESOURCE_PREFIXES if logical_id.startswith(p)) for logical_id in ids}


EXPECTED_ACCESS = {
    "chat": {
        "dynamodb": {"DataTable"},
        "s3": {"DataDocuments"},
        "events": {"MessagingBus"},
        "sns": {"MessagingOperatorTopic"},  # the crisis protocol's escalations
    },
    "compress": {"dynamodb": {"DataTable", "DataIdempotencyTable"}, "sqs": {"MessagingTopicEndedDlq"}},
    "extract": {
        "dynamodb": {"DataTable", "DataIdempotencyTable"},
        "s3": {"DataDocuments"},
        "sqs": {"MessagingExtractQueue"},
        "events": {"MessagingBus"},
    },
    "extract-worker": {
        "dynamodb": {"DataTable", "DataIdempotencyTable"},
        "s3": {"DataDocuments"},
        "sqs": {"MessagingExtractQueue"},
    },
    "heartbeat-sweep": {
        "dynamodb": {"DataTable"},
        "sqs": {"MessagingHeartbeatQueue"},
        "events": {"MessagingBus"},
    },
    "heartbeat-worker": {
        "dynamodb": {"DataTable", "DataIdempotencyTable"},
        "s3": {"DataDocuments"},
        "sqs": {"MessagingHeartbeatQueue"},
        "events": {"MessagingBus"},
    },
}


@pytest.mark.parametrize("key", EXPECTED_ACCESS)
def test_each_function_touches_only_its_own_resources(dev: Synth, key: str) -> None:
    access = {service: prefixes(ids) for service, ids in granted(dev, key).items()}
    assert access == {**EXPECTED_ACCESS[key], "secretsmanager": {"AppSecret"}}


def test_the_heartbeat_worker_reads_documents_and_writes_only_media(dev: Synth) -> None:
    """A heartbeat may be a voice note: its bytes go under the pair's media/ folder, and nowhere else."""
    role_id = dev.function("heartbeat-worker")[1]["Properties"]["Role"]["Fn::GetAtt"][0]
    (policy,) = dev.resources("AWS::IAM::Policy", {"Properties": {"Roles": [{"Ref": role_id}]}}).values()
    s3_statements = [
        statement
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]
        if any(action.startswith("s3:") for action in as_list(statement["Action"]))
    ]
    by_actions = {tuple(sorted(as_list(statement["Action"]))): statement for statement in s3_statements}
    assert set(by_actions) == {("s3:GetBucket*", "s3:GetObject*", "s3:List*"), ("s3:DeleteObject", "s3:PutObject")}
    writes = by_actions[("s3:DeleteObject", "s3:PutObject")]["Resource"]
    assert writes["Fn::Join"][1][0]["Fn::GetAtt"][0].startswith("DataDocuments")
    assert writes["Fn::Join"][1][1] == "/pairs/*/media/*"


def test_the_chat_function_may_sign_media_links_for_the_documents_bucket(dev: Synth) -> None:
    """A presigned GET or POST carries the signer's rights: the chat role reads, puts (with tags, as the
    upload form sets them) and deletes the bucket's objects, and no other bucket's."""
    role_id = dev.function("chat")[1]["Properties"]["Role"]["Fn::GetAtt"][0]
    (policy,) = dev.resources("AWS::IAM::Policy", {"Properties": {"Roles": [{"Ref": role_id}]}}).values()
    s3_actions = {
        action
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]
        for action in as_list(statement["Action"])
        if action.startswith("s3:")
    }
    assert {"s3:GetObject*", "s3:PutObject", "s3:PutObjectTagging", "s3:DeleteObject*"} <= s3_actions
    assert prefixes(granted(dev, "chat")["s3"]) == {"DataDocuments"}


def test_the_secret_holds_a_generated_jwt_secret(each: Synth) -> None:
    each.template.has_resource_properties(
        "AWS::SecretsManager::Secret",
        {
            "GenerateSecretString": {
                "GenerateStringKey": "jwt_secret",
                "SecretStringTemplate": "{}",
                "PasswordLength": 64,
                "ExcludePunctuation": True,
            }
        },
    )
    each.template.has_output("SecretArn", {})


def test_cdk_nag_reports_nothing_unacknowledged(each: Synth) -> None:
    report = json.loads((each.outdir / "validation-report.json").read_text())
    violations = [v for plugin in report["pluginReports"] for v in plugin.get("violations", [])]
    assert violations == []


def test_the_app_fails_its_synth_on_any_new_finding(tmp_path: Path) -> None:
    app = cdk.App(context={**CDK_JSON_CONTEXT, "bundle": "false"}, outdir=str(tmp_path))
    s3.Bucket(build(app), "Careless")  # no TLS-only policy, no access logs
    with pytest.raises(RuntimeError, match=r"AwsSolutions-S10"):
        app.synth()


def acknowledgments(synth: Synth) -> Iterator[tuple[str, str, str]]:
    key = cdk.Validations.ACKNOWLEDGED_RULES_METADATA_KEY
    for construct in synth.stack.node.find_all():
        for entry in construct.node.metadata:
            if entry.type == key:
                for rule, reason in entry.data.items():
                    yield construct.node.path, rule, reason


def test_every_acknowledgment_is_justified(each: Synth) -> None:
    found = list(acknowledgments(each))
    assert found, "expected the acknowledgments made in infra/stacks"
    for path, rule, reason in found:
        assert rule.startswith("AwsSolutions::AwsSolutions-"), (path, rule)
        assert len(reason.split()) >= 12, (path, rule, reason)


def test_no_data_wildcard_hides_behind_an_acknowledgment(each: Synth) -> None:
    acknowledged_resources = {rule for _, rule, _ in acknowledgments(each) if "IAM5[Resource::" in rule}
    allowed = ("[Resource::*]", "/index/*]", "/*]")
    assert all(rule.endswith(allowed) for rule in acknowledged_resources), acknowledged_resources
