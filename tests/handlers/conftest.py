"""The AWS side under moto: table, idempotency table, bucket, bus (+ a capture queue for its
TopicEnded rule), heartbeat and extract queues and the secret; the handlers configured as the CDK stack does."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from dataclasses import dataclass

import boto3
import pytest
from moto import mock_aws

from dreamchat.adapters.dynamo_store import create_table
from tests.fakes.fake_llm import FakeLLMServer

REGION = "us-east-1"
HANDLERS = (
    "functions.chat.handler",
    "functions.compress.handler",
    "functions.extract.handler",
    "functions.heartbeat.handler",
)


@dataclass
class Cloud:
    topic_ended_queue: str
    heartbeat_queue: str
    extract_queue: str
    sqs: object
    dynamodb: object
    s3: object

    def receive(self, url: str) -> list[str]:
        found = self.sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=0)
        return [m["Body"] for m in found.get("Messages", [])]


def _aws_resources() -> Cloud:
    dynamodb = boto3.client("dynamodb", region_name=REGION)
    create_table(dynamodb, "dreamchat-test")
    dynamodb.create_table(
        TableName="dreamchat-idempotency",
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
    )
    s3 = boto3.client("s3", region_name=REGION)
    s3.create_bucket(Bucket="dreamchat-test-docs")
    sqs = boto3.client("sqs", region_name=REGION)
    capture = sqs.create_queue(QueueName="topic-ended-capture")["QueueUrl"]
    heartbeat = sqs.create_queue(QueueName="dreamchat-heartbeat")["QueueUrl"]
    extract = sqs.create_queue(QueueName="dreamchat-extract")["QueueUrl"]
    capture_arn = sqs.get_queue_attributes(QueueUrl=capture, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    events = boto3.client("events", region_name=REGION)
    events.create_event_bus(Name="dreamchat-test-bus")
    events.put_rule(
        Name="topic-ended",
        EventBusName="dreamchat-test-bus",
        EventPattern=json.dumps({"source": ["dreamchat"], "detail-type": ["TopicEnded"]}),
    )
    events.put_targets(
        Rule="topic-ended", EventBusName="dreamchat-test-bus", Targets=[{"Id": "compress", "Arn": capture_arn}]
    )
    return Cloud(capture, heartbeat, extract, sqs, dynamodb, s3)


@pytest.fixture
def cloud(monkeypatch, fake_llm: FakeLLMServer) -> Iterator[Cloud]:
    with mock_aws():
        resources = _aws_resources()
        secret = boto3.client("secretsmanager", region_name=REGION).create_secret(
            Name="dreamchat-test", SecretString=json.dumps({"jwt_secret": "x" * 48, "llm_api_key": "test-key"})
        )
        env = {
            "DREAMCHAT_STORAGE": "aws",
            "DREAMCHAT_TABLE": "dreamchat-test",
            "DREAMCHAT_IDEMPOTENCY_TABLE": "dreamchat-idempotency",
            "DREAMCHAT_BUCKET": "dreamchat-test-docs",
            "DREAMCHAT_EVENT_BUS": "dreamchat-test-bus",
            "DREAMCHAT_HEARTBEAT_QUEUE_URL": resources.heartbeat_queue,
            "DREAMCHAT_EXTRACT_QUEUE_URL": resources.extract_queue,
            "DREAMCHAT_SECRETS_ARN": secret["ARN"],
            "DREAMCHAT_LLM_BASE_URL": fake_llm.base_url,
            "DREAMCHAT_LLM_TIMEOUT_SECONDS": "2",
            "DREAMCHAT_LLM_MAX_RETRIES": "0",
            "DREAMCHAT_RUN_SCHEDULER": "false",
            "DREAMCHAT_EXTRACT_AFTER_HOURS": "0",
            "DREAMCHAT_BACKGROUND_ATTEMPTS": "1",
            "DREAMCHAT_HEARTBEAT_QUIET_MINUTES": "0",
            "POWERTOOLS_SERVICE_NAME": "dreamchat-test",
            "POWERTOOLS_METRICS_NAMESPACE": "DreamChat",
        }
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        for module in HANDLERS:  # every test starts with cold containers
            importlib.reload(importlib.import_module(module))
        yield resources
