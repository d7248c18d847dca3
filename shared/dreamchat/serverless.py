"""What the Lambda handlers share: settings with secrets, Powertools, and one entry per function.

Built once per container, on the first invocation (never at import). Logs carry ids only;
events are never logged because they can hold what a person wrote.
"""

from __future__ import annotations

import json
import re
import time
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

from dreamchat.budget import FINISH_MARGIN_SECONDS, structured_seconds, worst_case_seconds
from dreamchat.config import MEDIA_KEYS, MODEL_KEYS, Settings
from dreamchat.events import ExtractionDue, HeartbeatDue, MalformedEvent, PairEvent, TopicEnded
from dreamchat.llm.gateway import OpenAIGateway
from dreamchat.llm.usage import CallRecord
from dreamchat.services.container import Services, build_services
from dreamchat.wiring import aws_client, build_runtime

COMPRESS_FIGURES = ("CompressionRatio", "InformationCompleteness")
SECRET_FIELDS = (
    "jwt_secret",
    "jwt_previous_secret",
    "llm_api_key",
    "search_api_key",
    "vapid_private_key",
    *(f"{key}_api_key" for key in MODEL_KEYS),
    *(f"{key}_api_key" for key in MEDIA_KEYS),  # speech_to_text, text_to_speech, vision
)
PLAIN_SECRET_FIELDS = ("jwt_rotated_at",)  # rotation bookkeeping kept beside the secrets


class NoTimeLeft(Exception):
    """Too little of the invocation is left to start this record: it is left for a later delivery."""


def seconds_left(context: Any) -> float:
    """The invocation's remaining time (unbounded outside Lambda, e.g. in a test without a context)."""
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    return remaining() / 1000 if remaining is not None else float("inf")


HEARTBEAT_METRICS = {
    "sent": "HeartbeatsSent",
    "failed": "HeartbeatsFailed",
    "abandoned": "HeartbeatsAbandoned",
    "leased": "HeartbeatsInFlight",
}


class NotFinished(Exception):
    """A work item must come again (the model failed, or another run holds its lease)."""


def _sqs_batch() -> BatchProcessor:
    """Failed records come back alone, even when all of a batch failed: a record whose lease another
    run holds is no error of the function; records that keep failing reach the DLQ, which alarms."""
    return BatchProcessor(EventType.SQS, raise_on_entire_batch_failure=False)


class SecretSettings:
    """Settings from the environment, with the JWT secret and model keys from Secrets Manager,
    read through Powertools Parameters and re-read once the cached value is older than
    DREAMCHAT_SECRETS_MAX_AGE_SECONDS: a rotated secret reaches warm containers."""

    def __init__(self, settings: Settings | None = None) -> None:
        self._base = settings or Settings()
        self._provider = None
        if self._base.secrets_arn:
            self._provider = parameters.SecretsProvider(boto3_client=aws_client(self._base, "secretsmanager"))
        self._secret: dict[str, Any] | None = None
        self._settings = self._base

    def current(self) -> Settings:
        """The settings now; the same object until the secret's value changes."""
        arn = self._base.secrets_arn
        if self._provider is None or not arn:
            return self._base
        secret = self._provider.get(arn, transform="json", max_age=self._base.secrets_max_age_seconds)
        if not isinstance(secret, dict):
            raise ValueError("the secret at DREAMCHAT_SECRETS_ARN must be a JSON object")
        if secret != self._secret:
            self._settings, self._secret = _with_secret(self._base, secret), dict(secret)
        return self._settings


def _with_secret(base: Settings, secret: dict[str, Any]) -> Settings:
    update: dict[str, Any] = {name: SecretStr(str(secret[name])) for name in SECRET_FIELDS if secret.get(name)}
    update |= {name: int(secret[name]) for name in PLAIN_SECRET_FIELDS if secret.get(name)}
    loaded = base.model_copy(update=update)
    if loaded.jwt_secret is None:
        raise ValueError("the secret at DREAMCHAT_SECRETS_ARN has no jwt_secret")
    return loaded


def load_settings(settings: Settings | None = None) -> Settings:
    """Settings from the environment, with the JWT secret and model keys from Secrets Manager."""
    return SecretSettings(settings).current()


class Serverless:
    def __init__(self, settings: Settings | None = None) -> None:
        self._secrets = SecretSettings(settings)
        self.logger = Logger(service="dreamchat")
        # The library logs through `logging`; give its loggers the JSON format and correlation id.
        copy_config_to_registered_loggers(source_logger=self.logger, include={"dreamchat"})
        self._idempotency_config = IdempotencyConfig(expires_after_seconds=86400)
        self.metrics = Metrics(namespace="DreamChat", service="dreamchat")
        self.tracer = Tracer(service="dreamchat")
        self._build(self._secrets.current())
        # Traced per instance, as the tracer is built here, not at import: the bound methods are replaced.
        self._compress = self.tracer.capture_method(self._compress)  # type: ignore[method-assign]
        self._run = self.tracer.capture_method(self._run)  # type: ignore[method-assign]

    def _build(self, settings: Settings) -> None:
        """The services for these settings: model clients with the current keys."""
        self.settings = settings
        configured = settings.llm_configured
        gateway = OpenAIGateway.from_settings(settings, on_call=model_call_metrics) if configured else None
        self.services: Services = build_services(
            build_runtime(settings), gateway=gateway, on_quality=self._quality_figure
        )
        self._idempotency = self._idempotency_layer()

    def _refresh(self) -> None:
        """Rebuild when a rotated secret arrives (checked on every invocation; read after max age)."""
        settings = self._secrets.current()
        if settings is not self.settings:
            self.logger.info("the app secret changed: rebuilding the model clients")
            self._build(settings)

    # one entry per function

    def compress(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        """EventBridge `TopicEnded` → one mid-term memory (idempotent)."""
        self._start(context)
        ended = self._parse(TopicEnded, event.get("detail") or {})
        result = self._once("compress", ended.detail(), lambda: self._compress(ended))
        self._flush()
        return result

    def extract(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        """Schedule → idle topics ended (then compressed), ended topics whose event was lost
        compressed, and one extraction queue message per pair with mid-term memories past the threshold."""
        self._start(context)
        needed = worst_case_seconds("extract", self.settings) + FINISH_MARGIN_SECONDS

        def has_time() -> bool:  # checked before each leftover: one not started waits for the next hour
            return seconds_left(context) >= needed

        idle = self.services.topics.close_idle_topics()
        leftovers = self.services.compression.compress_leftovers(has_time)
        swept = self.services.extraction.sweep()
        erased = self.services.erasures.erase_again().items
        figures = {
            "ErasedAgain": erased,
            "IdleTopicsEnded": idle,
            "LeftoverCompressions": leftovers,
            "ExtractionsDue": swept.pairs,
            "DegradedOwed": swept.owed,  # degraded results not redone yet, every pair's: the alarm watches it
        }
        for name, value in figures.items():
            self.metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)
        self._flush()
        return {"pairs": swept.pairs, "reads": swept.reads, "owed": swept.owed}

    def extract_work(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        """SQS batch of pairs → one extraction each; failed records are retried alone."""
        self._start(context)
        response = process_partial_response(event, self._extract_record, _sqs_batch(), context)
        self._flush()
        return dict(response)

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
        response = process_partial_response(event, self._heartbeat_record, _sqs_batch(), context)
        self._flush()
        return dict(response)

    # the steps

    def _compress(self, ended: TopicEnded) -> dict[str, Any]:
        self.logger.append_keys(ai_user_id=ended.ai_user_id, topic_id=ended.topic_id)
        mid = self.services.compression.compress(ended.pair, ended.topic_id)
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
        work = self._parse(HeartbeatDue, json.loads(record.body))
        outcome = self._once("heartbeat", work.detail(), lambda: self._run(work))
        return outcome

    def _run(self, work: HeartbeatDue) -> dict[str, Any]:
        outcome = self.services.heartbeat.run(work)
        self.metrics.add_metric(
            name=HEARTBEAT_METRICS.get(outcome.status, "HeartbeatsSkipped"), unit=MetricUnit.Count, value=1
        )
        if not outcome.finished:  # raised, so the idempotency record is not completed and the queue retries
            raise NotFinished(f"heartbeat {outcome.status}")
        return {"status": outcome.status, "messages": len(outcome.messages)}

    def _extract_record(self, record: Any, lambda_context: Any = None) -> dict[str, Any]:
        if seconds_left(lambda_context) < worst_case_seconds("extract-worker", self.settings) + FINISH_MARGIN_SECONDS:
            raise NoTimeLeft("too little time left in this invocation for another pair's extraction")
        work = self._parse(ExtractionDue, json.loads(record.body))
        self.logger.append_keys(ai_user_id=work.ai_user_id)
        return self._once("extract", work.detail(), lambda: self._extract_pair(work, lambda_context))

    def _extract_pair(self, work: ExtractionDue, lambda_context: Any = None) -> dict[str, Any]:
        # a redo of owed work is one more memory-model task: started only if the extraction still fits after it
        needed = worst_case_seconds("extract-worker", self.settings) + structured_seconds(self.settings)

        def has_time() -> bool:
            return seconds_left(lambda_context) >= needed + FINISH_MARGIN_SECONDS

        outcome = self.services.extraction.run(work, has_time)
        if not outcome.finished:
            raise NotFinished(f"extraction {outcome.status}")
        result = outcome.result
        figures = {
            "Extractions": len(result.long_term) if result else 0,
            "CoreMemoriesCreated": len(result.core) if result else 0,
            "DegradedResults": int(bool(result and result.degraded)),
            "ExtractionsAbandoned": int(outcome.status == "abandoned"),
            "DegradedHealed": sum(h.outcome == "healed" for h in outcome.healed),
        }
        for name, value in figures.items():
            self.metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)
        return {
            "status": outcome.status,
            "long_term": figures["Extractions"],
            "core": figures["CoreMemoriesCreated"],
            "healed": figures["DegradedHealed"],
        }

    def _parse[E: PairEvent](self, kind: type[E], detail: object) -> E:
        """The typed event; a malformed one is logged by its type (never its content) and raised, so
        it fails like any failed delivery: retried, then dead-lettered."""
        try:
            return kind.from_detail(detail)
        except MalformedEvent as error:
            self.logger.warning("malformed event", extra={"detail_type": kind.detail_type, "problem": str(error)})
            raise

    def _once(self, name: str, key: dict[str, Any], step: Any) -> dict[str, Any]:
        """Run a step at most once per key when an idempotency table is configured."""
        if self._idempotency is None:
            return step()

        def run(payload: dict[str, Any]) -> dict[str, Any]:
            return step()

        guarded = idempotent_function(
            data_keyword_argument="payload",
            persistence_store=self._idempotency,
            config=self._idempotency_config,
            key_prefix=name,
        )(run)
        return guarded(payload=key)

    def _idempotency_layer(self) -> DynamoDBPersistenceLayer | None:
        if not self.settings.idempotency_table:
            return None
        client = aws_client(self.settings, "dynamodb")
        return DynamoDBPersistenceLayer(table_name=self.settings.idempotency_table, boto3_client=client)

    def _quality_figure(self, name: str, value: float) -> None:
        """A compression-quality figure (a share, 0-1) as a percentage; the spec's targets are on them."""
        with single_metric(name=name, unit=MetricUnit.Percent, value=value * 100, namespace="DreamChat") as metric:
            metric.add_dimension(name="Stage", value="compress" if name in COMPRESS_FIGURES else "extract")

    def _start(self, context: Any) -> None:
        self._refresh()
        if hasattr(context, "get_remaining_time_in_millis"):
            self._idempotency_config.register_lambda_context(context)
        request_id = getattr(context, "aws_request_id", None)
        if request_id:
            self.logger.set_correlation_id(request_id)

    def _flush(self) -> None:
        self.metrics.flush_metrics(raise_on_empty_metrics=False)


def model_call_metrics(record: CallRecord) -> None:
    """One model call as metrics with a ModelKey dimension (the function's `service` beside it):
    its tokens (prompt, the part the provider's cache served, and all), latency (whose sample count
    is the number of calls). Counts only."""
    figures = [
        ("ModelTokens", MetricUnit.Count, record.prompt_tokens + record.completion_tokens),
        ("PromptTokens", MetricUnit.Count, record.prompt_tokens),
        ("CachedPromptTokens", MetricUnit.Count, record.cached_prompt_tokens),
        ("ModelLatency", MetricUnit.Milliseconds, record.latency_seconds * 1000),
    ]
    for name, unit, value in figures:
        with single_metric(name=name, unit=unit, value=value, namespace="DreamChat") as metric:
            metric.add_dimension(name="ModelKey", value=record.key)


# The two routes that run a chat turn: a new message, and asking again after a failed turn.
CHAT_TURN = re.compile(r"^/api/ai-users/[^/]+/(chat|messages/[^/]+/retry)$")


def is_chat_turn(event: dict[str, Any]) -> bool:
    """Whether an HTTP API event (payload 2.0) asks for a chat turn."""
    method = ((event.get("requestContext") or {}).get("http") or {}).get("method")
    return method == "POST" and bool(CHAT_TURN.match(str(event.get("rawPath", ""))))


class ChatFunction:
    """The chat function: the FastAPI app through Mangum, rebuilt when the app secret changes.

    Mangum turns an exception into a 500 answer, so Lambda never sees an error: every 5xx
    answer is counted here as the `ChatServerErrors` metric, which the alarms watch. Each chat
    turn that ran is counted (`ChatTurns`) and timed (`ChatTurnLatency`, the app's whole answer, a
    cold start's building of the app excluded: a turn is finished before its first event leaves),
    and every model call becomes metrics.
    """

    def __init__(self, settings: Settings | None = None) -> None:
        self._secrets = SecretSettings(settings)
        self._settings: Settings | None = None
        self._adapter: Any = None

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, Any]:
        settings = self._secrets.current()
        if settings is not self._settings:
            self._adapter, self._settings = self._app(settings), settings
        started = time.monotonic()
        response = self._adapter(event, context)
        status = int(response.get("statusCode", 200))
        if status >= 500:
            _count("ChatServerErrors")
        if status == 200 and is_chat_turn(event):  # a turn that ran (a refused one, 429 or 503, is counted apart)
            _count("ChatTurns")
            elapsed = (time.monotonic() - started) * 1000
            with single_metric(
                name="ChatTurnLatency", unit=MetricUnit.Milliseconds, value=elapsed, namespace="DreamChat"
            ):
                pass
        return response

    @staticmethod
    def _app(settings: Settings) -> Any:
        from mangum import Mangum

        from dreamchat.api.app import create_app

        return Mangum(create_app(settings, on_count=_count, on_model_call=model_call_metrics), lifespan="off")


def _count(name: str, value: int = 1) -> None:
    """One operational count of the chat function as a CloudWatch metric (EMF), flushed at once."""
    with single_metric(name=name, unit=MetricUnit.Count, value=value, namespace="DreamChat"):
        pass
