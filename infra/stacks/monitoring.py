"""Alarms on what really fails; all go to one SNS topic (dev has them too, maybe unsubscribed).

- any function error, any throttle, any run longer than 80 % of its timeout;
- 5xx answers of the chat function: Mangum turns exceptions into 500 answers, so Lambda's
  Errors never sees them; the function counts them as `DreamChat/ChatServerErrors`;
- API Gateway 5xx, and 429 answers (throttled by the stage or by our limits; the HTTP API
  has no 429 metric, so a filter on the access log counts them);
- the oldest message of each work queue, and any message in a dead-letter queue;
- DynamoDB throttled requests on either table;
- degraded memory results owed for longer than healing takes (`DreamChat/DegradedOwed`, emitted by the
  hourly extraction sweep): the models still fail, or healing is stuck.

Beside the alarms, one dashboard (`infra.stacks.dashboard`) shows what an operator watches.
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
from infra.stacks.dashboard import BACKGROUND_SERVICE, CHAT_SERVICE, operator_dashboard
from infra.stacks.data import Data
from infra.stacks.messaging import Messaging

PERIOD = Duration.minutes(5)
NAMESPACE = "DreamChat"
DURATION_SHARE = 0.8  # a run above 80 % of its timeout is about to be killed
# How long a work item may wait before the backlog is a problem: a heartbeat is due now, an
# extraction within the hour (both stay under DREAMCHAT_LEASE_SECONDS, 15 min, or are swept again).
OLDEST_MESSAGE = {"heartbeat-queue": Duration.minutes(5), "extract-queue": Duration.minutes(15)}
# Owed work is redone within DREAMCHAT_HEAL_BACKOFF_MAX_SECONDS (6 h) of the models' return, plus an
# hourly sweep: owed work in every hourly point for longer than that is an outage that has not ended.
OWED_HOURS = 7
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
        self.alarms: dict[str, dict[str, cloudwatch.Alarm]] = {}  # by kind, then name
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
        self._alarm("degraded-owed", _degraded_owed(), periods=OWED_HOURS)
        self.dashboard = operator_dashboard(self, self._prefix, self._chat_errors(api, functions["chat"]), self.alarms)

    def _functions(self, name: str, function: lambda_.Function) -> None:
        self._alarm(f"{name}-errors", function.metric_errors(period=PERIOD, statistic="Sum"))
        self._alarm(f"{name}-throttles", function.metric_throttles(period=PERIOD, statistic="Sum"))
        timeout = function.timeout or Duration.seconds(3)
        longest = function.metric_duration(period=PERIOD, statistic="Maximum")
        self._alarm(f"{name}-near-timeout", longest, timeout.to_milliseconds() * DURATION_SHARE)

    def _api(self, api: Api) -> None:
        self._alarm("api-5xx", api.http_api.metric_server_error(period=PERIOD, statistic="Sum"))
        self._alarm("chat-5xx", _chat_server_errors())
        self._answers = {status: self._status_count(api, status) for status in (429, 503)}
        self._alarm("api-429", self._answers[429])

    def _status_count(self, api: Api, status: int) -> cloudwatch.Metric:
        """Answers with this status, counted from the access log by a metric filter (`Api<status>`):
        the HTTP API has no metric per status. 503: the model pool was full, or the integration unavailable."""
        name = f"Api{status}"
        logs.MetricFilter(
            self,
            f"{name}Filter",
            log_group=api.access_logs,
            filter_pattern=logs.FilterPattern.string_value("$.status", "=", str(status)),
            metric_namespace=NAMESPACE,
            metric_name=name,
            metric_value="1",
        )
        return cloudwatch.Metric(namespace=NAMESPACE, metric_name=name, period=PERIOD, statistic="Sum")

    def _chat_errors(self, api: Api, chat: lambda_.Function) -> list[cloudwatch.IMetric]:
        """What the dashboard shows as the chat's errors and 503s."""
        return [
            _chat_server_errors().with_(label="chat 5xx answers"),
            self._answers[503].with_(label="503 answers"),
            self._answers[429].with_(label="429 answers"),
            api.http_api.metric_server_error(period=PERIOD, statistic="Sum", label="API Gateway 5xx"),
            chat.metric_errors(period=PERIOD, statistic="Sum", label="chat Lambda errors"),
        ]

    def _alarm(self, name: str, metric: cloudwatch.IMetric, threshold: float = 0, periods: int = 1) -> None:
        """Fires above the threshold (by default on anything: one error, one dead letter) for `periods`
        points in a row; kept by kind for the dashboard."""
        alarm = cloudwatch.Alarm(
            self,
            name,
            alarm_name=f"{self._prefix}-{name}",
            metric=metric,
            threshold=threshold,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            evaluation_periods=periods,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        )
        alarm.add_alarm_action(actions.SnsAction(self.topic))
        self.alarms.setdefault(_kind(name), {})[name] = alarm


def _chat_server_errors() -> cloudwatch.Metric:
    # Powertools adds the function's POWERTOOLS_SERVICE_NAME as the `service` dimension.
    return cloudwatch.Metric(
        namespace=NAMESPACE,
        metric_name="ChatServerErrors",
        period=PERIOD,
        statistic="Sum",
        dimensions_map={"service": CHAT_SERVICE},
    )


def _degraded_owed() -> cloudwatch.Metric:
    """The degraded results not redone yet, every pair's: one point an hour, from the extraction sweep."""
    return cloudwatch.Metric(
        namespace=NAMESPACE,
        metric_name="DegradedOwed",
        period=Duration.hours(1),
        statistic="Minimum",
        dimensions_map={"service": BACKGROUND_SERVICE},
    )


ALARM_KINDS = ("near-timeout", "errors", "throttles", "oldest-message", "dlq-depth", "owed")


def _kind(name: str) -> str:
    """An alarm's kind, by the end of its name: `extract-worker-errors` is one of the errors."""
    return next((kind for kind in ALARM_KINDS if name.endswith(kind)), "answers")


def _alarm_topic(scope: Construct, settings: EnvironmentSettings) -> sns.Topic:
    topic = sns.Topic(scope, "AlarmTopic", display_name=f"{settings.prefix} alarms", enforce_ssl=True)
    if settings.alarm_email:
        topic.add_subscription(subscriptions.EmailSubscription(settings.alarm_email))
    return topic
