"""What the Lambda handlers share: settings with secrets, Powertools, and one entry per function.

Built once per container, on the first invocation (never at import). Logs carry ids only;
events are never logged because they can hold what a person wrote.
"""

from __future__ import annotations

import json
from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.logging.utils import copy_config_to_registered_loggers
from aws_lambda_powertools.metrics import MetricUnit, single_metric
from aws_lambda_powertools.utilities import parameters
from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    process_partial_response,
)
from aws_lambda_powertools.utilities.idempotency import (
    DynamoDBPersistenceLayer,
    IdempotencyConfig,
    idempotent_function,
)
from pydantic import SecretStr

from dreamchat.budget import FINISH_MARGIN_SECONDS, worst_case_seconds
from dreamchat.config import MODEL_KEYS, Settings
from dreamchat.llm.gateway import CallRecord, OpenAIGateway
from dreamchat.ports import Event
from dreamchat.services.container import Services, build_services
from dreamchat.services.heartbeat import Work
from dreamchat.services.memory import pair_of
from dreamchat.wiring import aws_client, build_runtime

SECRET_FIELDS = ("jwt_secret", "llm_api_key", "search_api_key", *(f"{key}_api_key" for key in MODEL_KEYS))


class NoTimeLeft(Exception):
    """Too little of the invocation is left to start this record: it is left for a later delivery."""


def seconds_left(context: Any) -> float:
    """The invocation's remaining time (unbounded outside Lambda, e.g. in a test without a context)."""
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    return remaining() / 1000 if remaining is not None else float("inf")


def load_settings(settings: Settings | None = None) -> Settings:
    """Settings from the environment, with the JWT secret and model keys from Secrets Manager."""
    base = settings or Settings()
    if not base.secrets_arn:
        return base
    provider = parameters.SecretsProvider(boto3_client=aws_client(base, "secretsmanager"))
    secret = provider.get(base.secrets_arn, transform="json", max_age=300)
    if not isinstance(secret, dict):
        raise ValueError("the secret at DREAMCHAT_SECRETS_ARN must be a JSON object")
    loaded = base.model_copy(update={name: SecretStr(str(secret[name])) for name in SECRET_FIELDS if secret.get(name)})
    if loaded.jwt_secret is None:
        raise ValueError("the secret at DREAMCHAT_SECRETS_ARN has no jwt_secret")
    return loaded


class Serverless:
    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = load_settings(settings)
        self.logger = Logger(service="dreamchat")
        # The library logs through `logging`; give its loggers the JSON format and correlation id.
        copy_config_to_registered_loggers(source_logger=self.logger, include={"dreamchat"})
        self._idempotency_config = IdempotencyConfig(expires_after_seconds=86400)
        self.metrics = Metrics(namespace="DreamChat", service="dreamchat")
        self.tracer = Tracer(service="dreamchat")
        configured = self.settings.llm_configured
        gateway = OpenAIGateway.from_settings(self.settings, on_call=self._model_call) if configured else None
        self.services: Services = build_services(build_runtime(self.settings), gateway=gateway)
        self._idempotency = self._idempotency_layer()
        self._compress = self.tracer.capture_method(self._compress)  # type: ignore[method-assign]
        self._run = self.tracer.capture_method(self._run)  # type: ignore[method-assign]

    # one entry per function

    def compress(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        """EventBridge `TopicEnded` → one mid-term memory (idempotent)."""
        self._start(context)
        detail = event.get("detail") or {}
        result = self._once("compress", detail, lambda: self._compress(detail))
        self._flush()
        return result

    def extract(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        """Schedule → idle topics ended (then compressed), ended topics whose event was lost
        compressed, and extraction of every pair with mid-term memories past the threshold."""
        self._start(context)
        needed = worst_case_seconds("extract", self.settings) + FINISH_MARGIN_SECONDS

        def has_time() -> bool:  # checked before each pair: a pair not started waits for the next hour
            return seconds_left(context) >= needed

        idle = self.services.memory.close_idle_topics()
        leftovers = self.services.memory.compress_leftovers(has_time)
        results = self.services.extract_sweep(has_time)
        erased = self.services.erase_again()
        figures = {
            "ErasedAgain": erased,
            "IdleTopicsEnded": idle,
            "LeftoverCompressions": leftovers,
            "ExtractionPairs": len(results),
            "Extractions": sum(len(r.long_term) for r in results),
            "CoreMemoriesCreated": sum(len(r.core) for r in results),
            "DegradedResults": sum(r.degraded for r in results),
        }
        for name, value in figures.items():
            self.metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)
        self._flush()
        return {"pairs": len(results), "long_term": figures["Extractions"], "core": figures["CoreMemoriesCreated"]}

    def sweep(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        """Schedule (every minute) → one queue message per due pair."""
        self._start(context)
        result = self.services.heartbeat.sweep()
        self.metrics.add_metric(name="HeartbeatsDue", unit=MetricUnit.Count, value=result.due)
        self._flush()
        return {"due": result.due, "reads": result.reads}

    def work(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        """SQS batch of due pairs → one heartbeat run each; failed records are retried alone."""
        self._start(context)
        processor = BatchProcessor(EventType.SQS, raise_on_entire_batch_failure=False)  # each record retried alone
        response = process_partial_response(event, self._heartbeat_record, processor, context)
        self._flush()
        return dict(response)

    # the steps

    def _compress(self, detail: dict[str, Any]) -> dict[str, Any]:
        pair, topic_id = pair_of(Event("TopicEnded", detail))
        self.logger.append_keys(ai_user_id=pair.ai_user_id, topic_id=topic_id)
        mid = self.services.compress_topic(pair, topic_id)
        if mid is None:
            return {"mid_term_id": None}
        self.metrics.add_metric(name="Compressions", unit=MetricUnit.Count, value=1)
        if mid.degraded:
            self.metrics.add_metric(name="DegradedResults", unit=MetricUnit.Count, value=1)
        return {"mid_term_id": mid.id, "degraded": mid.degraded}

    def _heartbeat_record(self, record: Any, lambda_context: Any = None) -> dict[str, Any]:
        if seconds_left(lambda_context) < self.settings.heartbeat_turn_seconds + FINISH_MARGIN_SECONDS:
            # not started at all: reported as a batch item failure, SQS delivers it again
            raise NoTimeLeft("too little time left in this invocation for another heartbeat")
        work = Work.parse(json.loads(record.body))
        outcome = self._once("heartbeat", work.as_dict(), lambda: self._run(work))
        return outcome

    def _run(self, work: Work) -> dict[str, Any]:
        outcome = self.services.heartbeat.run(work)
        name = {"sent": "HeartbeatsSent", "failed": "HeartbeatsFailed"}.get(outcome.status, "HeartbeatsSkipped")
        self.metrics.add_metric(name=name, unit=MetricUnit.Count, value=1)
        return {"status": outcome.status, "messages": len(outcome.messages)}

    def _once(self, name: str, key: dict[str, Any], step: Any) -> dict[str, Any]:
        """Run a step at most once per key when an idempotency table is configured."""
        if self._idempotency is None:
            return step()

        def run(payload: dict[str, Any]) -> dict[str, Any]:
            return step()

        guarded = idempotent_function(data_keyword_argument="payload", persistence_store=self._idempotency,
                                      config=self._idempotency_config, key_prefix=name)(run)
        return guarded(payload=key)

    def _idempotency_layer(self) -> DynamoDBPersistenceLayer | None:
        if not self.settings.idempotency_table:
            return None
        client = aws_client(self.settings, "dynamodb")
        return DynamoDBPersistenceLayer(table_name=self.settings.idempotency_table, boto3_client=client)

    def _model_call(self, record: CallRecord) -> None:
        """Tokens and latency per model key, each as its own metric with a ModelKey dimension."""
        figures = [("ModelTokens", MetricUnit.Count, record.prompt_tokens + record.completion_tokens),
                   ("ModelLatency", MetricUnit.Milliseconds, record.latency_seconds * 1000)]
        for name, unit, value in figures:
            with single_metric(name=name, unit=unit, value=value, namespace="DreamChat") as metric:
                metric.add_dimension(name="ModelKey", value=record.key)

    def _start(self, context: Any) -> None:
        if hasattr(context, "get_remaining_time_in_millis"):
            self._idempotency_config.register_lambda_context(context)
        request_id = getattr(context, "aws_request_id", None)
        if request_id:
            self.logger.set_correlation_id(request_id)

    def _flush(self) -> None:
        self.metrics.flush_metrics(raise_on_empty_metrics=False)
