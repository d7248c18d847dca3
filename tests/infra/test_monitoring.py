"""Alarms on every dead-letter queue and on every function's errors."""

from __future__ import annotations

from typing import Any

import pytest

from tests.infra.synth import Synth

FUNCTIONS = ("chat", "compress", "extract", "heartbeat-sweep", "heartbeat-worker")


def alarm(synth: Synth, name: str) -> Any:
    found = synth.resources(
        "AWS::CloudWatch::Alarm", {"Properties": {"AlarmName": f"{synth.stack.stack_name}-{name}"}}
    )
    assert len(found) == 1, f"no alarm {name}"
    return next(iter(found.values()))["Properties"]


@pytest.mark.parametrize("key", FUNCTIONS)
def test_any_error_of_a_function_raises_an_alarm(each: Synth, key: str) -> None:
    function_id, _ = each.function(key)
    properties = alarm(each, f"{key}-errors")
    assert (properties["Namespace"], properties["MetricName"]) == ("AWS/Lambda", "Errors")
    assert properties["Dimensions"] == [{"Name": "FunctionName", "Value": {"Ref": function_id}}]
    assert (properties["ComparisonOperator"], properties["Threshold"]) == ("GreaterThanThreshold", 0)


@pytest.mark.parametrize("name", ["topic-ended-dlq", "heartbeat-dlq"])
def test_any_message_in_a_dead_letter_queue_raises_an_alarm(each: Synth, name: str) -> None:
    properties = alarm(each, f"{name}-depth")
    assert properties["MetricName"] == "ApproximateNumberOfMessagesVisible"
    assert (properties["ComparisonOperator"], properties["Threshold"]) == ("GreaterThanThreshold", 0)
    assert properties["TreatMissingData"] == "notBreaching"


def test_every_dead_letter_queue_is_watched(each: Synth) -> None:
    watched = {
        alarm["Properties"]["Dimensions"][0]["Value"]["Fn::GetAtt"][0]
        for alarm in each.resources(
            "AWS::CloudWatch::Alarm", {"Properties": {"Namespace": "AWS/SQS"}}
        ).values()
    }
    dead_letter_queues = {key for key in each.resources("AWS::SQS::Queue") if "Dlq" in key}
    assert watched == dead_letter_queues


def test_every_alarm_notifies_the_alarm_topic(each: Synth) -> None:
    (topic_id,) = each.resources("AWS::SNS::Topic")
    for properties in each.resources("AWS::CloudWatch::Alarm").values():
        assert properties["Properties"]["AlarmActions"] == [{"Ref": topic_id}]


def test_the_alarm_email_is_subscribed_only_when_configured(dev: Synth, prod: Synth) -> None:
    dev.template.resource_count_is("AWS::SNS::Subscription", 0)
    prod.template.has_resource_properties(
        "AWS::SNS::Subscription", {"Protocol": "email", "Endpoint": "ops@example.com"}
    )
