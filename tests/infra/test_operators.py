"""What operators need in AWS: who they are (`-c operators=…`) and the alert topic a new crisis
escalation is published to (`-c operatorEmail=…` subscribes an address)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest

from infra.app import build
from tests.infra.synth import CDK_JSON_CONTEXT, Synth
from tests.infra.test_functions import HANDLERS
from tests.infra.test_security import as_list, statements

ALERTED = {"chat"}  # the functions whose work may open a crisis escalation


def operator_topic(synth: Synth) -> str:
    name = f"{synth.stack.stack_name} crisis escalations"
    (topic_id,) = synth.resources("AWS::SNS::Topic", {"Properties": {"DisplayName": name}})
    return topic_id


def variables(synth: Synth, key: str) -> dict[str, Any]:
    return synth.function(key)[1]["Properties"]["Environment"]["Variables"]


def role_policies(synth: Synth, key: str) -> dict[str, Any]:
    role_id = synth.function(key)[1]["Properties"]["Role"]["Fn::GetAtt"][0]
    return synth.resources("AWS::IAM::Policy", {"Properties": {"Roles": [{"Ref": role_id}]}})


def test_the_operator_topic_takes_only_tls(each: Synth) -> None:
    topic_id = operator_topic(each)
    (policy,) = each.resources("AWS::SNS::TopicPolicy", {"Properties": {"Topics": [{"Ref": topic_id}]}}).values()
    (statement,) = policy["Properties"]["PolicyDocument"]["Statement"]
    assert statement["Effect"] == "Deny"
    assert statement["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}


def test_the_stack_names_the_topic_for_subscriptions_made_by_hand(each: Synth) -> None:
    each.template.has_output("OperatorTopicArn", {"Value": {"Ref": operator_topic(each)}})


def test_the_operator_email_is_subscribed_only_when_given(dev: Synth, prod: Synth) -> None:
    dev_topic, prod_topic = operator_topic(dev), operator_topic(prod)
    assert not dev.resources("AWS::SNS::Subscription", {"Properties": {"TopicArn": {"Ref": dev_topic}}})
    (subscription,) = prod.resources(
        "AWS::SNS::Subscription", {"Properties": {"TopicArn": {"Ref": prod_topic}}}
    ).values()
    assert subscription["Properties"]["Protocol"] == "email"
    assert subscription["Properties"]["Endpoint"] == "duty@example.com"


@pytest.mark.parametrize("key", HANDLERS)
def test_the_topic_reaches_exactly_the_functions_that_may_open_an_escalation(each: Synth, key: str) -> None:
    topic_id = operator_topic(each)
    arn = variables(each, key).get("DREAMCHAT_OPERATOR_TOPIC_ARN")
    publish = [
        statement
        for policy in role_policies(each, key).values()
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]
        if any(action.startswith("sns:") for action in as_list(statement["Action"]))
    ]
    if key in ALERTED:
        assert arn == {"Ref": topic_id}
        assert [(s["Effect"], s["Action"], s["Resource"]) for s in publish] == [
            ("Allow", "sns:Publish", {"Ref": topic_id})
        ]
    else:
        assert arn is None and publish == []


def test_nobody_else_may_publish_to_the_topic(each: Synth) -> None:
    topic_id = operator_topic(each)
    allowed = [
        logical_id
        for logical_id, statement in statements(each)
        if statement["Effect"] == "Allow" and {"Ref": topic_id} in as_list(statement.get("Resource"))
    ]
    chat_roles = {policy_id for policy_id in role_policies(each, "chat")}
    assert allowed and set(allowed) <= chat_roles


def test_the_operators_named_in_context_reach_the_api(dev: Synth, prod: Synth) -> None:
    assert "DREAMCHAT_OPERATORS" not in variables(dev, "chat")
    assert variables(prod, "chat")["DREAMCHAT_OPERATORS"] == "alice,bob"
    assert all("DREAMCHAT_OPERATORS" not in variables(prod, key) for key in HANDLERS if key != "chat")


@pytest.mark.parametrize("name", ["DREAMCHAT_OPERATORS", "DREAMCHAT_OPERATOR_TOPIC_ARN"])
def test_extra_variables_may_not_name_the_operators_or_their_topic(tmp_path: Path, name: str) -> None:
    context = {**CDK_JSON_CONTEXT, "bundle": "false", "functionEnvironment": {name: "x"}}
    with pytest.raises(ValueError, match=name):
        build(cdk.App(context=context, outdir=str(tmp_path)))
