"""What invokes each background function: the TopicEnded rule, two schedules, the queue."""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_destinations as destinations
from aws_cdk.aws_lambda_event_sources import SqsEventSource
from constructs import Construct

from infra.settings import EnvironmentSettings
from infra.stacks.functions import Functions
from infra.stacks.messaging import Messaging

TOPIC_ENDED = events.EventPattern(source=["dreamchat"], detail_type=["TopicEnded"])
DELIVERY_RETRIES = 8  # EventBridge -> Lambda delivery (throttling, service errors)
COMPRESS_RETRIES = 2  # Lambda's own retries when compress raises
HEARTBEAT_BATCH_SIZE = 5
EXTRACT_BATCH_SIZE = 1  # one pair takes a worker up to minutes: a batch would wait behind it


class Triggers(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        settings: EnvironmentSettings,
        functions: Functions,
        messaging: Messaging,
    ) -> None:
        super().__init__(scope, id)
        self._topic_ended(functions["compress"], messaging)
        # The heartbeat sweep is never retried: the next minute's run does the same work.
        self._schedule("HeartbeatSweep", Duration.minutes(1), functions["heartbeat-sweep"], retries=0)
        self._schedule("ExtractSweep", Duration.hours(1), functions["extract"], retries=2)
        for key, queue, batch, concurrency in (
            ("heartbeat-worker", messaging.heartbeat_queue, HEARTBEAT_BATCH_SIZE, settings.heartbeat_concurrency),
            ("extract-worker", messaging.extract_queue, EXTRACT_BATCH_SIZE, settings.extract_concurrency),
        ):
            functions[key].add_event_source(
                SqsEventSource(queue, batch_size=batch, report_batch_item_failures=True, max_concurrency=concurrency)
            )

    def _topic_ended(self, compress: lambda_.Function, messaging: Messaging) -> None:
        """Both failure paths end in one DLQ: undeliverable events and events compress failed on."""
        events.Rule(
            self,
            "TopicEnded",
            event_bus=messaging.bus,
            event_pattern=TOPIC_ENDED,
            description="A topic ended: compress it into a mid-term summary",
            targets=[
                targets.LambdaFunction(
                    compress,
                    retry_attempts=DELIVERY_RETRIES,
                    max_event_age=Duration.hours(24),
                    dead_letter_queue=messaging.topic_ended_dlq,
                )
            ],
        )
        compress.configure_async_invoke(
            retry_attempts=COMPRESS_RETRIES,
            max_event_age=Duration.hours(6),
            on_failure=destinations.SqsDestination(messaging.topic_ended_dlq),
        )

    def _schedule(self, id: str, every: Duration, function: lambda_.Function, retries: int) -> None:
        events.Rule(
            self,
            id,
            schedule=events.Schedule.rate(every),
            description=f"Run {function.node.id} every {every.to_human_string()}",
            targets=[targets.LambdaFunction(function, retry_attempts=retries, max_event_age=every)],
        )
        function.configure_async_invoke(retry_attempts=retries, max_event_age=every)
