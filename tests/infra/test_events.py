"""TopicEnded -> compress, the two schedules, the two work queues and their workers."""

from __future__ import annotations

import pytest
from aws_cdk.assertions import Match

from infra.settings import settings_from_context
from tests.infra.synth import Synth


def queue_id(synth: Synth, name: str) -> str:
    (found,) = [key for key in synth.resources("AWS::SQS::Queue") if key.startswith(f"Messaging{name}")]
    return found


def test_there_is_one_custom_event_bus(each: Synth) -> None:
    each.template.resource_count_is("AWS::Events::EventBus", 1)


def test_topic_ended_on_the_bus_invokes_compress_with_retries_and_a_dlq(each: Synth) -> None:
    compress_id, _ = each.function("compress")
    (bus_id,) = each.resources("AWS::Events::EventBus")
    each.template.has_resource_properties(
        "AWS::Events::Rule",
        {
            "EventBusName": {"Ref": bus_id},
            "EventPattern": {"source": ["dreamchat"], "detail-type": ["TopicEnded"]},
            "Targets": [
                Match.object_like(
                    {
                        "Arn": {"Fn::GetAtt": [compress_id, "Arn"]},
                        "RetryPolicy": {"MaximumRetryAttempts": 8, "MaximumEventAgeInSeconds": 86400},
                        "DeadLetterConfig": {"Arn": {"Fn::GetAtt": [queue_id(each, "TopicEndedDlq"), "Arn"]}},
                    }
                )
            ],
        },
    )


def test_events_compress_keeps_failing_on_land_in_the_same_dlq(each: Synth) -> None:
    compress_id, _ = each.function("compress")
    each.template.has_resource_properties(
        "AWS::Lambda::EventInvokeConfig",
        {
            "FunctionName": {"Ref": compress_id},
            "MaximumRetryAttempts": 2,
            "DestinationConfig": {
                "OnFailure": {"Destination": {"Fn::GetAtt": [queue_id(each, "TopicEndedDlq"), "Arn"]}}
            },
        },
    )


def test_eventbridge_may_send_to_the_topic_ended_dlq(each: Synth) -> None:
    each.template.has_resource_properties(
        "AWS::SQS::QueuePolicy",
        {
            "Queues": [{"Ref": queue_id(each, "TopicEndedDlq")}],
            "PolicyDocument": {
                "Statement": Match.array_with(
                    [Match.object_like({"Action": "sqs:SendMessage", "Principal": {"Service": "events.amazonaws.com"}})]
                )
            },
        },
    )


def test_the_heartbeat_sweep_runs_every_minute_and_extraction_every_hour(each: Synth) -> None:
    for key, rate in (("heartbeat-sweep", "rate(1 minute)"), ("extract", "rate(1 hour)")):
        function_id, _ = each.function(key)
        each.template.has_resource_properties(
            "AWS::Events::Rule",
            {
                "ScheduleExpression": rate,
                "EventBusName": Match.absent(),  # schedules only run on the default bus
                "Targets": [Match.object_like({"Arn": {"Fn::GetAtt": [function_id, "Arn"]}})],
            },
        )


def test_the_heartbeat_queue_redrives_to_its_dlq(each: Synth) -> None:
    each.template.has_resource_properties(
        "AWS::SQS::Queue",
        {
            "RedrivePolicy": {
                "deadLetterTargetArn": {"Fn::GetAtt": [queue_id(each, "HeartbeatDlq"), "Arn"]},
                "maxReceiveCount": 3,
            }
        },
    )


def test_a_message_stays_invisible_longer_than_the_worker_may_run(each: Synth) -> None:
    _, worker = each.function("heartbeat-worker")
    queue = each.resources("AWS::SQS::Queue")[queue_id(each, "HeartbeatQueue")]
    assert queue["Properties"]["VisibilityTimeout"] > worker["Properties"]["Timeout"]


def test_the_worker_reads_the_queue_and_reports_failed_items(each: Synth) -> None:
    worker_id, _ = each.function("heartbeat-worker")
    each.template.has_resource_properties(
        "AWS::Lambda::EventSourceMapping",
        {
            "EventSourceArn": {"Fn::GetAtt": [queue_id(each, "HeartbeatQueue"), "Arn"]},
            "FunctionName": {"Ref": worker_id},
            "FunctionResponseTypes": ["ReportBatchItemFailures"],
            "ScalingConfig": {"MaximumConcurrency": Match.any_value()},
        },
    )


def test_every_queue_is_encrypted_and_tls_only(each: Synth) -> None:
    queues = each.resources("AWS::SQS::Queue")
    assert len(queues) == 5  # topic-ended DLQ; heartbeat and extract queues, each with its DLQ
    for queue in queues.values():
        assert queue["Properties"]["SqsManagedSseEnabled"] is True
    policies = each.resources("AWS::SQS::QueuePolicy").values()
    denied = [
        policy["Properties"]["Queues"][0]["Ref"]
        for policy in policies
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]
        if statement["Effect"] == "Deny" and statement["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    ]
    assert sorted(denied) == sorted(queues)


def test_the_heartbeat_sweep_is_never_retried_late(each: Synth) -> None:
    sweep_id, _ = each.function("heartbeat-sweep")
    each.template.has_resource_properties(
        "AWS::Lambda::EventInvokeConfig",
        {"FunctionName": {"Ref": sweep_id}, "MaximumRetryAttempts": 0, "MaximumEventAgeInSeconds": 60},
    )
    each.template.has_resource_properties(
        "AWS::Events::Rule",
        {
            "ScheduleExpression": "rate(1 minute)",
            "Targets": [
                Match.object_like({"RetryPolicy": {"MaximumRetryAttempts": 0, "MaximumEventAgeInSeconds": 60}})
            ],
        },
    )


def test_the_extract_queue_redrives_to_its_dlq_and_outlasts_its_worker(each: Synth) -> None:
    each.template.has_resource_properties(
        "AWS::SQS::Queue",
        {
            "RedrivePolicy": {
                "deadLetterTargetArn": {"Fn::GetAtt": [queue_id(each, "ExtractDlq"), "Arn"]},
                "maxReceiveCount": 3,
            }
        },
    )
    _, worker = each.function("extract-worker")
    queue = each.resources("AWS::SQS::Queue")[queue_id(each, "ExtractQueue")]
    assert queue["Properties"]["VisibilityTimeout"] == 6 * worker["Properties"]["Timeout"]


@pytest.mark.parametrize(
    ("key", "queue", "batch"), [("heartbeat-worker", "HeartbeatQueue", 5), ("extract-worker", "ExtractQueue", 1)]
)
def test_each_worker_reads_its_queue_at_the_concurrency_sized_for_the_environment(
    each: Synth, key: str, queue: str, batch: int
) -> None:
    settings = settings_from_context(each.stack.node.try_get_context)
    concurrency = settings.heartbeat_concurrency if key == "heartbeat-worker" else settings.extract_concurrency
    worker_id, _ = each.function(key)
    each.template.has_resource_properties(
        "AWS::Lambda::EventSourceMapping",
        {
            "EventSourceArn": {"Fn::GetAtt": [queue_id(each, queue), "Arn"]},
            "FunctionName": {"Ref": worker_id},
            "BatchSize": batch,
            "FunctionResponseTypes": ["ReportBatchItemFailures"],
            "ScalingConfig": {"MaximumConcurrency": concurrency},
        },
    )


def test_prod_workers_are_sized_for_its_expected_pairs(prod: Synth) -> None:
    mappings = prod.resources("AWS::Lambda::EventSourceMapping").values()
    assert sorted(m["Properties"]["ScalingConfig"]["MaximumConcurrency"] for m in mappings) == [35, 70]


@pytest.mark.parametrize("key", ["heartbeat-sweep", "extract"])
def test_a_sweep_runs_one_at_a_time(each: Synth, key: str) -> None:
    _, sweep = each.function(key)
    assert sweep["Properties"]["ReservedConcurrentExecutions"] == 1


def test_workers_have_no_reserved_concurrency(each: Synth) -> None:
    for key in ("heartbeat-worker", "extract-worker", "chat"):
        assert "ReservedConcurrentExecutions" not in each.function(key)[1]["Properties"]
