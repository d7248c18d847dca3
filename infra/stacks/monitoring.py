"""Alarms on what really fails; all go to one SNS topic (dev has them too, maybe unsubscribed).

- any function error, any throttle, any run longer than 80 % of its timeout;
- 5xx answers of the chat function: Mangum turns exceptions into 500 answers, so Lambda's
  Errors never sees them; the function counts them as `DreamChat/ChatServerErrors`;
- API Gateway 5xx, and 429 answers (throttled by the stage or by our limits; the HTTP API
  has no 429 metric, so a filter on the access log counts them);
- the oldest message of each work queue, and any message in a dead-letter queue;
- DynamoDB throttled requests on either table.
"""

from __future__ import annotations

from collections.abc import Mapping

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as actions
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from constructs import Construct

from infra.settings import EnvironmentSettings
from infra.stacks.api import Api
from infra.stacks.data import Data
from infra.stacks.messaging import Messaging

PERIOD = Duration.minutes(5)
NAMESPACE = "DreamChat"
DURATION_SHARE = 0.8  # a run above 80 % of its timeout is about to be killed
# How long a work item may wait before the backlog is a problem: a heartbeat is due now, an
# extraction within the hour (both stay under DREAMCHAT_LEASE_SECONDS, 15 min, or are swept again).
OLDEST_MESSAGE = {"heartbeat-queue": Duration.minutes(5), "extract-queue": Duration.minutes(15)}
TABLE_OPERATIONS = [
    dynamodb.Operation.GET_ITEM,
    dynamodb.Operation.PUT_ITEM,
    dynamodb.Operation.DELETE_ITEM,
    dynamodb.Operation.QUERY,
    dynamodb.Operation.TRANSACT_WRITE_ITEMS,
]


class Monitoring(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        settings: EnvironmentSettings,
        functions: Mapping[str, lambda_.Function],
        api: Api,
        data: Data,
        messaging: Messaging,
    ) -> None:
        super().__init__(scope, id)
        self._prefix = settings.prefix
        self.topic = _alarm_topic(self, settings)
        for name, function in functions.items():
            self._functions(name, function)
        self._api(api)
        for name, queue in messaging.dead_letter_queues.items():
            depth = queue.metric_approximate_number_of_messages_visible(period=PERIOD, statistic="Maximum")
            self._alarm(f"{name}-depth", depth)
        for name, queue in messaging.work_queues.items():
            age = queue.metric_approximate_age_of_oldest_message(period=PERIOD, statistic="Maximum")
            self._alarm(f"{name}-oldest-message", age, OLDEST_MESSAGE[name].to_seconds())
        for name, table in (("table", data.table), ("idempotency-table", data.idempotency_table)):
            throttled = table.metric_throttled_requests_for_operations(operations=TABLE_OPERATIONS, period=PERIOD)
            self._alarm(f"{name}-throttles", throttled)

    def _functions(self, name: str, function: lambda_.Function) -> None:
        self._alarm(f"{name}-errors", function.metric_errors(period=PERIOD, statistic="Sum"))
        self._alarm(f"{name}-throttles", function.metric_throttles(period=PERIOD, statistic="Sum"))
        timeout = function.timeout or Duration.seconds(3)
        longest = function.metric_duration(period=PERIOD, statistic="Maximum")
        self._alarm(f"{name}-near-timeout", longest, timeout.to_milliseconds() * DURATION_SHARE)

    def _api(self, api: Api) -> None:
        self._alarm("api-5xx", api.http_api.metric_server_error(period=PERIOD, statistic="Sum"))
        # Powertools adds the function's POWERTOOLS_SERVICE_NAME as the `service` dimension.
        chat_errors = cloudwatch.Metric(
            namespace=NAMESPACE,
            metric_name="ChatServerErrors",
            period=PERIOD,
            statistic="Sum",
            dimensions_map={"service": "dreamchat-chat"},
        )
        self._alarm("chat-5xx", chat_errors)
        logs.MetricFilter(
            self,
            "Api429Filter",
            log_group=api.access_logs,
            filter_pattern=logs.FilterPattern.string_value("$.status", "=", "429"),
            metric_namespace=NAMESPACE,
            metric_name="Api429",
            metric_value="1",
        )
        self._alarm(
            "api-429", cloudwatch.Metric(namespace=NAMESPACE, metric_name="Api429", period=PERIOD, statistic="Sum")
        )

    def _alarm(self, name: str, metric: cloudwatch.IMetric, threshold: float = 0) -> None:
        """Fires above the threshold (by default on anything: one error, one dead letter)."""
        alarm = cloudwatch.Alarm(
            self,
            name,
            alarm_name=f"{self._prefix}-{name}",
            metric=metric,
            threshold=threshold,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            evaluation_periods=1,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        )
        alarm.add_alarm_action(actions.SnsAction(self.topic))


def _alarm_topic(scope: Construct, settings: EnvironmentSettings) -> sns.Topic:
    topic = sns.Topic(scope, "AlarmTopic", display_name=f"{settings.prefix} alarms", enforce_ssl=True)
    if settings.alarm_email:
        topic.add_subscription(subscriptions.EmailSubscription(settings.alarm_email))
    return topic
