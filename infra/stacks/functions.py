"""The six Lambda functions, their shared dependency layer, log groups and roles."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from aws_cdk import Duration
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from infra.bundling import LambdaCode
from infra.settings import EnvironmentSettings
from infra.stacks.nag import acknowledge

RUNTIME = lambda_.Runtime.PYTHON_3_12
ARCHITECTURE = lambda_.Architecture.X86_64
# A synchronous invocation's event is at most 6 MB, and the HTTP API hands a multipart body over in base64
# (4/3 of it): 4 MiB of body is 5.6 MB of event, leaving 0.7 MB for the headers and the request's context.
# A larger file goes straight to S3 through a presigned POST (POST /api/ai-users/{id}/media/uploads).
LAMBDA_EVENT_BYTES = 6 * 1024 * 1024
MEDIA_BODY_MAX_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class FunctionSpec:
    key: str  # the function's name suffix: DreamChat-<env>-<key>
    folder: str  # functions/<folder>/handler.py
    entry: str  # the callable in handler.py
    description: str
    timeout: Duration
    memory_mb: int
    uses: tuple[str, ...]  # data it may touch: see infra.stacks.access.Access
    environment: tuple[tuple[str, str], ...] = ()  # settings of this function only
    reserved_concurrency: int | None = None  # 1: a sweep never runs beside another of its kind

    @property
    def construct_id(self) -> str:
        return "".join(part.title() for part in self.key.split("-"))


SPECS = (
    FunctionSpec(
        key="chat", folder="chat", entry="handler",
        description="HTTP API: the FastAPI app through Mangum",
        timeout=Duration.seconds(29),  # the HTTP API gives up on an integration after 30 s
        # "operator-alerts": its turns run the crisis protocol, which may open an escalation
        memory_mb=1024, uses=("table", "documents", "events", "operator-alerts"),
        # The turn's deadline (also cut to the invocation's remaining time) shortens each call's timeout.
        environment=(("DREAMCHAT_CHAT_TURN_SECONDS", "25"), ("DREAMCHAT_LLM_TIMEOUT_SECONDS", "20"),
                     ("DREAMCHAT_LLM_MAX_RETRIES", "1"),
                     ("DREAMCHAT_MEDIA_BODY_MAX_BYTES", str(MEDIA_BODY_MAX_BYTES))),
    ),
    FunctionSpec(
        key="compress", folder="compress", entry="handler",
        description="TopicEnded: a short-term topic becomes a mid-term summary",
        timeout=Duration.minutes(3), memory_mb=512, uses=("table", "idempotency"),
        # summary + reflection + relationship judgment, 2 attempts of a call and its correction each,
        # and a sampled quality judgment (a call and its correction): 146 s at worst
        environment=(("DREAMCHAT_LLM_TIMEOUT_SECONDS", "10"), ("DREAMCHAT_LLM_MAX_RETRIES", "0"),
                     ("DREAMCHAT_BACKGROUND_ATTEMPTS", "2")),
    ),
    FunctionSpec(
        key="extract", folder="extract", entry="sweep",
        description="Hourly: idle topics end, lost compressions run, one extraction queue message per due pair",
        timeout=Duration.minutes(15), memory_mb=1024,
        uses=("table", "documents", "idempotency", "events", "extract-queue"), reserved_concurrency=1,
        # leftover compressions, each as the compress function's: 146 s at worst
        environment=(("DREAMCHAT_LLM_TIMEOUT_SECONDS", "10"), ("DREAMCHAT_LLM_MAX_RETRIES", "0"),
                     ("DREAMCHAT_BACKGROUND_ATTEMPTS", "2")),
    ),
    FunctionSpec(
        key="extract-worker", folder="extract", entry="worker",
        description="Extraction queue: one pair's mid-term summaries become long-term and core memories",
        timeout=Duration.minutes(12), memory_mb=1024, uses=("table", "documents", "idempotency"),
        # one pair (extraction + core judgment, and a sampled quality judgment) at worst 454 s, after
        # redos of owed work (182 s each at worst): a redo starts only with 641 s left, so 720 s
        environment=(("DREAMCHAT_LLM_TIMEOUT_SECONDS", "45"), ("DREAMCHAT_LLM_MAX_RETRIES", "0"),
                     ("DREAMCHAT_BACKGROUND_ATTEMPTS", "2")),
    ),
    FunctionSpec(
        key="heartbeat-sweep", folder="heartbeat", entry="sweep",
        description="Every minute: one heartbeat queue message per due pair",
        timeout=Duration.minutes(1), memory_mb=512, uses=("table", "heartbeat-queue", "events"),
        reserved_concurrency=1,
    ),
    FunctionSpec(
        key="heartbeat-worker", folder="heartbeat", entry="worker",
        description="Heartbeat queue: one due pair, which may get a message first",
        timeout=Duration.minutes(5), memory_mb=1024,
        # "media-write": a heartbeat may be a voice note, kept under its pair's media/ prefix
        uses=("table", "documents-read", "media-write", "idempotency", "events"),
        # each record has a 50 s deadline; a record starts only with 55 s left, else SQS retries it
        environment=(("DREAMCHAT_HEARTBEAT_TURN_SECONDS", "50"), ("DREAMCHAT_LLM_TIMEOUT_SECONDS", "20"),
                     ("DREAMCHAT_LLM_MAX_RETRIES", "1")),
    ),
)  # fmt: skip
HEARTBEAT_WORKER = next(spec for spec in SPECS if spec.key == "heartbeat-worker")
EXTRACT_WORKER = next(spec for spec in SPECS if spec.key == "extract-worker")


class Functions(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        settings: EnvironmentSettings,
        code: LambdaCode,
        environment: dict[str, str],
        own_environment: Mapping[str, Mapping[str, str]],
    ) -> None:
        """`environment`: every function's; `own_environment`: by function key, what only it reads."""
        super().__init__(scope, id)
        self._settings = settings
        self._environment = environment
        self._own = own_environment
        self._code = code
        self._layer = lambda_.LayerVersion(
            self,
            "Dependencies",
            code=code.layer(),
            compatible_runtimes=[RUNTIME],
            compatible_architectures=[ARCHITECTURE],
            description="dreamchat and its dependencies for CPython 3.12 on manylinux2014_x86_64",
        )
        self.by_key = {spec.key: self._function(spec) for spec in SPECS}

    def __getitem__(self, key: str) -> lambda_.Function:
        return self.by_key[key]

    def _function(self, spec: FunctionSpec) -> lambda_.Function:
        log_group = logs.LogGroup(
            self,
            f"{spec.construct_id}Logs",
            retention=self._settings.log_retention,
            removal_policy=self._settings.removal_policy,
        )
        function = lambda_.Function(
            self,
            spec.construct_id,
            function_name=f"{self._settings.prefix}-{spec.key}",
            description=spec.description,
            runtime=RUNTIME,
            architecture=ARCHITECTURE,
            handler=f"handler.{spec.entry}",
            code=self._code.function(spec.folder),
            layers=[self._layer],
            role=_role(self, spec, log_group),
            log_group=log_group,
            timeout=spec.timeout,
            memory_size=spec.memory_mb,
            reserved_concurrent_executions=spec.reserved_concurrency,
            tracing=lambda_.Tracing.ACTIVE,
            environment={
                **self._environment,
                **dict(spec.environment),
                **self._own.get(spec.key, {}),
                "POWERTOOLS_SERVICE_NAME": f"dreamchat-{spec.key}",
                # a function has at most about one vCPU: numpy's BLAS threads would only contend
                "OPENBLAS_NUM_THREADS": "1",
            },
        )
        acknowledge(
            function,
            "L1",
            "The runtime is pinned to Python 3.12 on purpose: the dependency layer is built "
            "for cp312 wheels, and a runtime upgrade is a deliberate change made in one place.",
        )
        return function


def _role(scope: Construct, spec: FunctionSpec, log_group: logs.ILogGroup) -> iam.Role:
    """A role without AWS managed policies: logs go to this function's own log group only."""
    role = iam.Role(
        scope,
        f"{spec.construct_id}Role",
        assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
        description=f"DreamChat {spec.key} function",
    )
    log_group.grant_write(role)
    acknowledge(
        role,
        "IAM5[Resource::*]",
        "X-Ray (xray:PutTraceSegments, xray:PutTelemetryRecords) has no resource-level "
        "permissions; tests/infra checks that no data action is granted on '*'.",
    )
    return role
