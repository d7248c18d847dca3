"""One environment of DreamChat Cloud: data, messaging, functions, API, triggers, alarms."""

from __future__ import annotations

import json

from aws_cdk import Aws, CfnOutput, Environment, Stack, Tags
from constructs import Construct

from infra.bundling import LambdaCode
from infra.settings import EnvironmentSettings
from infra.stacks.access import Access
from infra.stacks.api import Api
from infra.stacks.data import Data
from infra.stacks.functions import EXTRACT_WORKER, HEARTBEAT_WORKER, SPECS, Functions
from infra.stacks.messaging import Messaging
from infra.stacks.monitoring import Monitoring
from infra.stacks.secrets import app_secret
from infra.stacks.triggers import Triggers

PARAMETER_CACHE_SECONDS = "300"  # Powertools Parameters: one Secrets Manager call per 5 min
OPERATOR_TOPIC, OPERATORS = "DREAMCHAT_OPERATOR_TOPIC_ARN", "DREAMCHAT_OPERATORS"
PER_FUNCTION = frozenset({OPERATOR_TOPIC, OPERATORS})  # set by `function_environments`, never by context


class DreamChatStack(Stack):
    def __init__(
        self,
        scope: Construct,
        *,
        settings: EnvironmentSettings,
        code: LambdaCode,
        env: Environment | None = None,
    ) -> None:
        super().__init__(scope, settings.prefix, env=env, description=f"DreamChat Cloud ({settings.name})")
        Tags.of(self).add("project", "dreamchat")
        Tags.of(self).add("environment", settings.name)
        data = Data(self, "Data", settings=settings)
        secret = app_secret(self, settings)
        messaging = Messaging(
            self,
            "Messaging",
            settings=settings,
            worker_timeout=HEARTBEAT_WORKER.timeout,
            extract_worker_timeout=EXTRACT_WORKER.timeout,
        )
        environment = runtime_environment(settings, data, messaging, secret.secret_arn)
        own = function_environments(settings, messaging)
        functions = Functions(
            self, "Functions", settings=settings, code=code, environment=environment, own_environment=own
        )
        access = Access(
            data=data,
            bus=messaging.bus,
            heartbeat_queue=messaging.heartbeat_queue,
            extract_queue=messaging.extract_queue,
            operator_topic=messaging.operator_topic,
            secret=secret,
        )
        for spec in SPECS:
            access.grant(functions[spec.key], spec.uses)
        api = Api(self, "Api", settings=settings, handler=functions["chat"])
        Triggers(self, "Triggers", settings=settings, functions=functions, messaging=messaging)
        Monitoring(
            self, "Monitoring", settings=settings, functions=functions.by_key, api=api, data=data, messaging=messaging
        )
        self._outputs(api.url, data, secret.secret_arn)
        CfnOutput(self, "OperatorTopicArn", value=messaging.operator_topic.topic_arn)

    def _outputs(self, api_url: str, data: Data, secret_arn: str) -> None:
        CfnOutput(self, "ApiUrl", value=api_url)
        CfnOutput(self, "SecretArn", value=secret_arn)
        CfnOutput(self, "TableName", value=data.table.table_name)
        CfnOutput(self, "DocumentBucket", value=data.documents.bucket_name)


def runtime_environment(
    settings: EnvironmentSettings, data: Data, messaging: Messaging, secret_arn: str
) -> dict[str, str]:
    """The variables dreamchat's Settings and Powertools read, the same for every function."""
    owned = {
        "DREAMCHAT_STORAGE": "aws",
        "DREAMCHAT_AWS_REGION": Aws.REGION,
        "DREAMCHAT_TABLE": data.table.table_name,
        "DREAMCHAT_BUCKET": data.documents.bucket_name,
        "DREAMCHAT_IDEMPOTENCY_TABLE": data.idempotency_table.table_name,
        "DREAMCHAT_EVENT_BUS": messaging.bus.event_bus_name,
        "DREAMCHAT_HEARTBEAT_QUEUE_URL": messaging.heartbeat_queue.queue_url,
        "DREAMCHAT_EXTRACT_QUEUE_URL": messaging.extract_queue.queue_url,
        "DREAMCHAT_SECRETS_ARN": secret_arn,
        "DREAMCHAT_CORS_ORIGINS": json.dumps(list(settings.frontend_origins)),
        "DREAMCHAT_TIMEZONE": settings.timezone,
        "DREAMCHAT_RUN_SCHEDULER": "false",  # EventBridge schedules replace the local scheduler
        "POWERTOOLS_METRICS_NAMESPACE": "DreamChat",
        "POWERTOOLS_LOGGER_LOG_EVENT": "false",  # events carry message content: never log them
        "POWERTOOLS_PARAMETERS_MAX_AGE": PARAMETER_CACHE_SECONDS,
        "DREAMCHAT_SECRETS_MAX_AGE_SECONDS": PARAMETER_CACHE_SECONDS,
    }
    clashes = sorted((owned.keys() | PER_FUNCTION) & settings.function_environment.keys())
    if clashes:
        raise ValueError(f"functionEnvironment may not override what the stack sets: {clashes}")
    return {**settings.function_environment, **owned}


def function_environments(settings: EnvironmentSettings, messaging: Messaging) -> dict[str, dict[str, str]]:
    """By function key, what only some functions read: the operators' alert topic for each function
    that may open a crisis escalation (its spec `uses` "operator-alerts", which also grants it
    sns:Publish), and who the operators are (`-c operators=alice,bob`) for the API."""
    own: dict[str, dict[str, str]] = {}
    for spec in SPECS:
        if "operator-alerts" in spec.uses:
            own.setdefault(spec.key, {})[OPERATOR_TOPIC] = messaging.operator_topic.topic_arn
    if settings.operators:
        own.setdefault("chat", {})[OPERATORS] = ",".join(settings.operators)
    return own
