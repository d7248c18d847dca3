"""The event bus, the two work queues (heartbeats, extraction), the dead-letter queues, and the
operators' alert topic (each new crisis escalation: its id and time, nothing anyone wrote)."""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_events as events
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from infra.settings import EnvironmentSettings
from infra.stacks.nag import acknowledge

MAX_RECEIVES = 3  # a work item that fails three times in a row goes to its DLQ


class Messaging(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        settings: EnvironmentSettings,
        worker_timeout: Duration,
        extract_worker_timeout: Duration,
    ) -> None:
        super().__init__(scope, id)
        self.bus = events.EventBus(self, "Bus", description=f"{settings.prefix}: TopicEnded and friends")
        self.topic_ended_dlq = _dead_letter_queue(self, "TopicEndedDlq")
        acknowledge(
            self.topic_ended_dlq,
            "SQS3",
            "This queue is itself a dead-letter queue: TopicEnded events that EventBridge could "
            "not deliver or that the compress function failed on after its retries.",
        )
        self.heartbeat_dlq = _dead_letter_queue(self, "HeartbeatDlq")
        self.heartbeat_queue = _work_queue(self, "HeartbeatQueue", worker_timeout, self.heartbeat_dlq)
        self.extract_dlq = _dead_letter_queue(self, "ExtractDlq")
        self.extract_queue = _work_queue(self, "ExtractQueue", extract_worker_timeout, self.extract_dlq)
        self.operator_topic = _operator_topic(self, settings)

    @property
    def dead_letter_queues(self) -> dict[str, sqs.Queue]:
        return {
            "topic-ended-dlq": self.topic_ended_dlq,
            "heartbeat-dlq": self.heartbeat_dlq,
            "extract-dlq": self.extract_dlq,
        }

    @property
    def work_queues(self) -> dict[str, sqs.Queue]:
        return {"heartbeat-queue": self.heartbeat_queue, "extract-queue": self.extract_queue}


def _work_queue(scope: Construct, id: str, worker_timeout: Duration, dlq: sqs.Queue) -> sqs.Queue:
    return sqs.Queue(
        scope,
        id,
        # AWS's advice for Lambda sources: six times the function timeout, so a message
        # is never redelivered while a throttled or retried batch is still being worked on.
        visibility_timeout=Duration.seconds(worker_timeout.to_seconds() * 6),
        dead_letter_queue=sqs.DeadLetterQueue(max_receive_count=MAX_RECEIVES, queue=dlq),
        encryption=sqs.QueueEncryption.SQS_MANAGED,
        enforce_ssl=True,
    )


def _operator_topic(scope: Construct, settings: EnvironmentSettings) -> sns.Topic:
    """Told of each new crisis escalation by the functions that may open one; e-mailed to
    `-c operatorEmail=…` when given (SNS asks the address to confirm first)."""
    topic = sns.Topic(scope, "OperatorTopic", display_name=f"{settings.prefix} crisis escalations", enforce_ssl=True)
    if settings.operator_email:
        topic.add_subscription(subscriptions.EmailSubscription(settings.operator_email))
    return topic


def _dead_letter_queue(scope: Construct, id: str) -> sqs.Queue:
    return sqs.Queue(
        scope,
        id,
        retention_period=Duration.days(14),  # the maximum: time to investigate and redrive
        encryption=sqs.QueueEncryption.SQS_MANAGED,
        enforce_ssl=True,
    )
