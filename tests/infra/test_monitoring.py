"""Alarms on what really fails, in dev and prod alike (tests run on both)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dreamchat import config as dreamchat_config
from infra.stacks.dashboard import MODEL_KEYS
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
    (log_filter,) = each.resources(
        "AWS::Logs::MetricFilter", {"Properties": {"FilterPattern": '{ $.status = "429" }'}}
    ).values()
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


def test_degraded_results_owed_for_longer_than_healing_takes_raise_an_alarm(each: Synth) -> None:
    properties = alarm(each, "degraded-owed")
    assert (properties["Namespace"], properties["MetricName"]) == ("DreamChat", "DegradedOwed")
    assert properties["Dimensions"] == [{"Name": "service", "Value": "dreamchat"}]  # the background functions'
    assert (properties["Period"], properties["Statistic"]) == (3600, "Minimum")  # the sweep emits it hourly
    # owed in 7 hourly points in a row: longer than the 6 h back-off cap plus a sweep, so not a healing outage
    assert (properties["EvaluationPeriods"], properties["Threshold"]) == (7, 0)
    assert properties["TreatMissingData"] == "notBreaching"


def test_the_dashboard_shows_degraded_results_stored_owed_and_healed(each: Synth) -> None:
    shown = lines(widget(each, "Degraded memory results: stored, owed, healed"))
    assert [line[1] for line in shown] == ["DegradedResults", "DegradedOwed", "DegradedHealed"]
    assert {tuple(line[2:4]) for line in shown} == {("service", "dreamchat")}


def test_every_alarm_notifies_the_alarm_topic(each: Synth) -> None:
    (topic_id,) = each.resources("AWS::SNS::Topic", {"Properties": {"DisplayName": f"{each.stack.stack_name} alarms"}})
    for properties in each.resources("AWS::CloudWatch::Alarm").values():
        assert properties["Properties"]["AlarmActions"] == [{"Ref": topic_id}]


def test_the_alarm_email_is_subscribed_only_when_configured(dev: Synth, prod: Synth) -> None:
    dev.template.resource_count_is("AWS::SNS::Subscription", 0)
    (alarm_topic,) = prod.resources("AWS::SNS::Topic", {"Properties": {"DisplayName": "DreamChat-prod alarms"}})
    prod.template.has_resource_properties(
        "AWS::SNS::Subscription", {"Protocol": "email", "Endpoint": "ops@example.com", "TopicArn": {"Ref": alarm_topic}}
    )


# The operator's dashboard


def dashboard(synth: Synth) -> dict[str, Any]:
    """The dashboard's body as JSON, each CloudFormation token (a Ref, a region) as "<token>"."""
    (resource,) = synth.resources("AWS::CloudWatch::Dashboard").values()
    body = resource["Properties"]["DashboardBody"]
    parts = body["Fn::Join"][1] if isinstance(body, dict) else [body]
    return json.loads("".join(part if isinstance(part, str) else "<token>" for part in parts))


def widget(synth: Synth, title: str) -> dict[str, Any]:
    found = [w["properties"] for w in dashboard(synth)["widgets"] if w["properties"].get("title") == title]
    assert len(found) == 1, f"no widget {title!r}"
    return found[0]


def lines(properties: dict[str, Any]) -> list[list[Any]]:
    return properties.get("metrics", [])


def test_the_stack_has_one_operator_dashboard(each: Synth) -> None:
    (resource,) = each.resources("AWS::CloudWatch::Dashboard").values()
    assert resource["Properties"]["DashboardName"] == f"{each.stack.stack_name}-operations"
    assert all(w["x"] + w["width"] <= 24 for w in dashboard(each)["widgets"])


def test_the_dashboard_shows_chat_turns_and_their_latency_percentiles(each: Synth) -> None:
    turns = lines(widget(each, "Chat turns"))
    assert turns[0][:4] == ["DreamChat", "ChatTurns", "service", "dreamchat-chat"]
    latency = lines(widget(each, "Chat turn latency (ms)"))
    assert [line[1] for line in latency][:1] == ["ChatTurnLatency"]
    assert {line[-1]["stat"] for line in latency} == {"p50", "p95"}


def test_the_dashboard_shows_errors_and_503s(each: Synth) -> None:
    shown = {line[-1]["label"] for line in lines(widget(each, "Errors and 503s"))}
    assert shown == {"chat 5xx answers", "503 answers", "429 answers", "API Gateway 5xx", "chat Lambda errors"}
    [api503] = each.resources(
        "AWS::Logs::MetricFilter", {"Properties": {"FilterPattern": '{ $.status = "503" }'}}
    ).values()
    assert api503["Properties"]["MetricTransformations"][0]["MetricName"] == "Api503"


def test_the_model_keys_of_the_dashboard_are_the_library_s() -> None:
    assert MODEL_KEYS == dreamchat_config.MODEL_KEYS


@pytest.mark.parametrize(
    ("title", "metric"),
    [
        ("Model calls per key", "ModelLatency"),
        ("Prompt tokens per key", "PromptTokens"),
        ("Cached prompt tokens per key", "CachedPromptTokens"),
    ],
)
def test_the_dashboard_sums_each_model_key_over_every_function(each: Synth, title: str, metric: str) -> None:
    expressions = [line[-1]["expression"] for line in lines(widget(each, title))]
    assert len(expressions) == len(MODEL_KEYS)
    for key, expression in zip(MODEL_KEYS, expressions, strict=True):
        assert expression.startswith("SUM(SEARCH('{DreamChat,ModelKey,service}")
        assert f'MetricName="{metric}"' in expression and f'ModelKey="{key}"' in expression


def test_the_dashboard_shows_the_cached_share_per_model_key(each: Synth) -> None:
    shown = lines(widget(each, "Cached share of prompt tokens per key"))
    shares = [line[-1] for line in shown if line[-1].get("visible", True)]  # the sums it divides are hidden
    assert [s["expression"] for s in shares] == [f"100 * cached_{key} / prompt_{key}" for key in MODEL_KEYS]


def test_the_dashboard_shows_heartbeats_and_crisis_referrals(each: Synth) -> None:
    heartbeats = {line[1] for line in lines(widget(each, "Heartbeats"))}
    assert heartbeats == {"HeartbeatsSent", "HeartbeatsSkipped", "HeartbeatsFailed", "HeartbeatsAbandoned"}
    [referrals] = lines(widget(each, "Crisis referrals"))
    assert referrals[:4] == ["DreamChat", "CrisisReferrals", "service", "dreamchat-chat"]


def test_the_dashboard_shows_every_alarm(each: Synth) -> None:
    status = widget(each, "Alarms")
    alarms = each.resources("AWS::CloudWatch::Alarm")
    assert len(status["alarms"]) == len(alarms)
    titles = {w["properties"].get("title", "") for w in dashboard(each)["widgets"]}
    kinds = ("errors", "throttles", "near-timeout", "answers", "dlq-depth", "oldest-message", "owed")
    tables = ("table-throttles", "idempotency-table-throttles")  # metric math: a widget each
    assert {t for t in titles if t.startswith("Alarm metrics")} == {f"Alarm metrics: {k}" for k in (*kinds, *tables)}
    shown = [w["properties"] for w in dashboard(each)["widgets"] if "Alarm metrics" in w["properties"].get("title", "")]
    graphed = sum(len(lines(p)) for p in shown if "annotations" not in p)
    own = sum(len(p["annotations"]["alarms"]) for p in shown if "annotations" in p)  # an alarm widget each
    assert graphed + own == len(alarms)
