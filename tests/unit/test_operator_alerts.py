"""Telling the operators of a new escalation: SNS (under moto, read back through a subscribed queue) when
the stack names the topic, a log line otherwise; either carries the escalation's id and time only."""

from __future__ import annotations

import json
import logging

import boto3

from dreamchat.adapters.alerts import LogAlerts, SnsAlerts
from dreamchat.config import Settings
from dreamchat.wiring import build_alerts

OPENED_AT = 1_773_576_000  # 2026-03-15 12:00 UTC


def test_a_new_escalation_is_published_to_the_topic_with_its_id_and_time_only(aws) -> None:
    sns, sqs = boto3.client("sns", region_name="us-east-1"), boto3.client("sqs", region_name="us-east-1")
    topic = sns.create_topic(Name="dreamchat-operators")["TopicArn"]
    queue = sqs.create_queue(QueueName="operators-inbox")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue_arn)
    alerts = build_alerts(Settings(operator_topic_arn=topic, aws_region="us-east-1"))
    assert isinstance(alerts, SnsAlerts)
    alerts.escalation_opened("esc_123", OPENED_AT)
    [received] = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10)["Messages"]
    envelope = json.loads(received["Body"])
    assert envelope["TopicArn"] == topic and envelope["Subject"] == "DreamChat: crisis escalation"
    assert envelope["Message"] == (
        "Crisis escalation esc_123 opened at 2026-03-15 12:00:00 UTC. Open it in the console (/admin)."
    )


def test_without_a_topic_a_new_escalation_is_a_log_line_of_ids(caplog) -> None:
    alerts = build_alerts(Settings())
    assert isinstance(alerts, LogAlerts)
    with caplog.at_level(logging.INFO):
        alerts.escalation_opened("esc_123", OPENED_AT)
    [record] = caplog.records
    assert record.getMessage() == "crisis escalation opened"
    assert (record.escalation_id, record.opened_at) == ("esc_123", OPENED_AT)
