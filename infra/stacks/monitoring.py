"""Alarms: any message in a dead-letter queue, any function error; all go to one SNS topic."""

from __future__ import annotations

from collections.abc import Mapping

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as actions
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from infra.settings import EnvironmentSettings

PERIOD = Duration.minutes(5)


class Monitoring(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        settings: EnvironmentSettings,
        functions: Mapping[str, lambda_.IFunction],
        dead_letter_queues: Mapping[str, sqs.IQueue],
    ) -> None:
        super().__init__(scope, id)
        self._prefix = settings.prefix
        self.topic = _alarm_topic(self, settings)
        for name, function in functions.items():
            self._alarm(f"{name}-errors", function.metric_errors(period=PERIOD, statistic="Sum"))
        for name, queue in dead_letter_queues.items():
            depth = queue.metric_approximate_number_of_messages_visible(period=PERIOD, statistic="Maximum")
            self._alarm(f"{name}-depth", depth)

    def _alarm(self, name: str, metric: cloudwatch.IMetric) -> None:
        """Fires on anything above zero: one error, one dead letter."""
        alarm = cloudwatch.Alarm(
            self,
            name,
            alarm_name=f"{self._prefix}-{name}",
            metric=metric,
            threshold=0,
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
