"""Alarms on what really fails, in dev and prod alike (tests run on both)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.infra.synth import Synth

FUNCTIONS = ("chat", "compress", "extract", "extract-worker", "heartbeat-sweep", "heartbeat-worker")


def alarm(synth: Synth, name: str) -> Any:
    found = synth.resources("AWS::CloudWatch::Alarm", {"Properties": {"AlarmName": f"{synth.stack.stack_name}-{name}"}})
    assert len(found) == 1, f"no alarm {name}"
    return next(iter(found.values()))["Properties"]


@pytest.mark.parametrize("key", FUNCTIONS)
def test_any_error_of_a_function_raises_an_alarm(each: Synth, key: str) -> None:
    function_id, _ = each.function(key)
    properties = alarm(each, f"{key}-errors")
    assert (properties["Namespace"], properties["MetricName"]) == ("AWS/Lambda", "Errors")
    assert properties["Dimensions"] == [{"Name": "FunctionName", "Value": {"Ref": function_id}}]
    assert (properties["ComparisonOperator"], properties["Threshold"]) == ("GreaterThanThreshold", 0)


@pytest.mark.parametrize("key", FUNCTIONS)
def test_throttles_and_runs_near_the_timeout_raise_alarms(each: Synth, key: str) -> None:
    function_id, function = each.function(key)
    throttles = alarm(each, f"{key}-throttles")
    assert (throttles["MetricName"], throttles["Threshold"]) == ("Throttles", 0)
    slow = alarm(each, f"{key}-near-timeout")
    assert (slow["Namespace"], slow["MetricName"], slow["Statistic"]) == ("AWS/Lambda", "Duration", "Maximum")
    assert slow["Threshold"] == pytest.approx(function["Properties"]["Timeout"] * 1000 * 0.8)
    assert slow["Dimensions"] == [{"Name": "FunctionName", "Value": {"Ref": function_id}}]


def test_5xx_answers_of_the_chat_function_raise_an_alarm(each: Synth) -> None:
    properties = alarm(each, "chat-5xx")
    assert (properties["Namespace"], properties["MetricName"]) == ("DreamChat", "ChatServerErrors")
    service = each.function("chat")[1]["Properties"]["Environment"]["Variables"]["POWERTOOLS_SERVICE_NAME"]
    assert properties["Dimensions"] == [{"Name": "service", "Value": service}]
    assert (properties["ComparisonOperator"], properties["Threshold"]) == ("GreaterThanThreshold", 0)


def test_api_gateway_5xx_and_429_raise_alarms(each: Synth) -> None:
    (api_id,) = each.resources("AWS::ApiGatewayV2::Api")
    server = alarm(each, "api-5xx")
    assert (server["Namespace"], server["MetricName"]) == ("AWS/ApiGateway", "5xx")
    assert server["Dimensions"] == [{"Name": "ApiId", "Value": {"Ref": api_id}}]
    throttled = alarm(each, "api-429")
    assert (throttled["Namespace"], throttled["MetricName"]) == ("DreamChat", "Api429")
    (log_filter,) = each.resources("AWS::Logs::MetricFilter").values()
    assert log_filter["Properties"]["FilterPattern"] == '{ $.status = "429" }'
    assert log_filter["Properties"]["MetricTransformations"][0]["MetricName"] == "Api429"
    access_logs = each.resources("AWS::ApiGatewayV2::Stage")
    (stage,) = access_logs.values()
    destination = stage["Properties"]["AccessLogSettings"]["DestinationArn"]["Fn::GetAtt"][0]
    assert log_filter["Properties"]["LogGroupName"] == {"Ref": destination}


@pytest.mark.parametrize(("queue", "seconds"), [("HeartbeatQueue", 300), ("ExtractQueue", 900)])
def test_the_oldest_message_of_each_work_queue_is_watched(each: Synth, queue: str, seconds: int) -> None:
    name = {"HeartbeatQueue": "heartbeat-queue", "ExtractQueue": "extract-queue"}[queue]
    properties = alarm(each, f"{name}-oldest-message")
    assert properties["MetricName"] == "ApproximateAgeOfOldestMessage"
    assert properties["Threshold"] == seconds
    assert properties["Dimensions"][0]["Value"]["Fn::GetAtt"][0].startswith(f"Messaging{queue}")


@pytest.mark.parametrize(("name", "table"), [("table", "DataTable"), ("idempotency-table", "DataIdempotencyTable")])
def test_dynamodb_throttled_requests_raise_an_alarm(each: Synth, name: str, table: str) -> None:
    properties = alarm(each, f"{name}-throttles")
    watched = [m["MetricStat"]["Metric"] for m in properties["Metrics"] if "MetricStat" in m]
    assert {m["MetricName"] for m in watched} == {"ThrottledRequests"}
    assert {
        d["Value"]["Ref"].startswith(table) for m in watched for d in m["Dimensions"] if d["Name"] == "TableName"
    } == {True}
    assert {d["Value"] for m in watched for d in m["Dimensions"] if d["Name"] == "Operation"} >= {"Query", "PutItem"}


@pytest.mark.parametrize("name", ["topic-ended-dlq", "heartbeat-dlq", "extract-dlq"])
def test_any_message_in_a_dead_letter_queue_raises_an_alarm(each: Synth, name: str) -> None:
    properties = alarm(each, f"{name}-depth")
    assert properties["MetricName"] == "ApproximateNumberOfMessagesVisible"
    assert (properties["ComparisonOperator"], properties["Threshold"]) == ("GreaterThanThreshold", 0)
    assert properties["TreatMissingData"] == "notBreaching"


def test_every_dead_letter_queue_is_watched(each: Synth) -> None:
    watched = {
        alarm["Properties"]["Dimensions"][0]["Value"]["Fn::GetAtt"][0]
        for alarm in each.resources(
            "AWS::CloudWatch::Alarm",
            {"Properties": {"Namespace": "AWS/SQS", "MetricName": "ApproximateNumberOfMessagesVisible"}},
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
