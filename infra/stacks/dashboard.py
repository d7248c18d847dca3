"""The operator's dashboard, `<prefix>-operations`: what to look at first, then every alarm's metric.

Rows, top to bottom:
- chat: turns, turn latency p50/p95 (`ChatTurns`, `ChatTurnLatency`, emitted by the chat function
  per chat turn), errors and 503s (the chat function's 5xx, API Gateway's 5xx, 503 and 429 answers);
- models, per model key across all functions: calls, prompt tokens, cached prompt tokens and the
  cached share (`PromptTokens`, `CachedPromptTokens`, `ModelLatency`'s sample count; each function
  emits them with `ModelKey` and its own `service`, so a SEARCH sums the functions per key);
- heartbeats (sent, skipped, failed, abandoned) and `CrisisReferrals`;
- memory healing: degraded results stored (`DegradedResults`), owed (`DegradedOwed`, hourly, every
  pair's) and healed (`DegradedHealed`);
- the alarms: their states, then their metrics by kind.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch
from constructs import Construct

NAMESPACE = "DreamChat"
PERIOD = Duration.minutes(5)
CHAT_SERVICE = "dreamchat-chat"  # the chat function's POWERTOOLS_SERVICE_NAME
BACKGROUND_SERVICE = "dreamchat"  # the service the background functions' Metrics object names
# dreamchat.config.MODEL_KEYS (infra does not import the library; tests/infra checks they agree)
MODEL_KEYS = ("deepseek_chat", "deepseek_reasoner", "qwen_short_to_mid", "doubao_mid_to_long", "deepseek_core_memory")
HEARTBEATS = ("HeartbeatsSent", "HeartbeatsSkipped", "HeartbeatsFailed", "HeartbeatsAbandoned")
WIDTH = 24  # a dashboard row's width
HEIGHT = 6


def metric(name: str, service: str, statistic: str = "Sum", label: str | None = None) -> cloudwatch.Metric:
    """One of our own metrics, as Powertools emits it (with its `service` dimension)."""
    return cloudwatch.Metric(
        namespace=NAMESPACE,
        metric_name=name,
        dimensions_map={"service": service},
        period=PERIOD,
        statistic=statistic,
        label=label or name,
    )


def per_key(name: str, key: str, statistic: str = "Sum") -> cloudwatch.MathExpression:
    """`name` for one model key, summed over every function that called it."""
    search = f"SEARCH('{{{NAMESPACE},ModelKey,service}} MetricName=\"{name}\" ModelKey=\"{key}\"', '{statistic}', 300)"
    return cloudwatch.MathExpression(expression=f"SUM({search})", label=key, period=PERIOD, using_metrics={})


def cached_share(key: str) -> cloudwatch.MathExpression:
    """The share of a model key's prompt tokens that its provider's cache served, in %."""
    cached, prompt = f"cached_{key}", f"prompt_{key}"  # ids are shared by the whole graph
    return cloudwatch.MathExpression(
        expression=f"100 * {cached} / {prompt}",
        using_metrics={cached: per_key("CachedPromptTokens", key), prompt: per_key("PromptTokens", key)},
        label=key,
        period=PERIOD,
    )


def graph(
    title: str, left: Sequence[cloudwatch.IMetric], width: int = 8, axis: cloudwatch.YAxisProps | None = None
) -> cloudwatch.GraphWidget:
    return cloudwatch.GraphWidget(title=title, left=list(left), width=width, height=HEIGHT, left_y_axis=axis)


def chat_row(errors: Sequence[cloudwatch.IMetric]) -> list[cloudwatch.IWidget]:
    latency = [metric("ChatTurnLatency", CHAT_SERVICE, p, f"turn latency {p}") for p in ("p50", "p95")]
    return [
        graph("Chat turns", [metric("ChatTurns", CHAT_SERVICE)]),
        graph("Chat turn latency (ms)", latency),
        graph("Errors and 503s", errors),
    ]


def model_rows() -> list[cloudwatch.IWidget]:
    percent = cloudwatch.YAxisProps(min=0, max=100, label="%", show_units=False)
    return [
        graph("Model calls per key", [per_key("ModelLatency", k, "SampleCount") for k in MODEL_KEYS], width=12),
        graph("Prompt tokens per key", [per_key("PromptTokens", k) for k in MODEL_KEYS], width=12),
        graph("Cached prompt tokens per key", [per_key("CachedPromptTokens", k) for k in MODEL_KEYS], width=12),
        graph(
            "Cached share of prompt tokens per key",
            [cached_share(k) for k in MODEL_KEYS],
            width=12,
            axis=percent,
        ),
    ]


def care_row() -> list[cloudwatch.IWidget]:
    heartbeats = [metric(name, BACKGROUND_SERVICE) for name in HEARTBEATS]
    referrals = metric("CrisisReferrals", CHAT_SERVICE)
    return [graph("Heartbeats", heartbeats, width=12), graph("Crisis referrals", [referrals], width=12)]


def healing_row() -> list[cloudwatch.IWidget]:
    """Degraded results stored, owed and healed: an outage of a model, and the healing after it."""
    hourly = Duration.hours(1)
    stored = metric("DegradedResults", BACKGROUND_SERVICE, label="degraded results stored").with_(period=hourly)
    owed = metric("DegradedOwed", BACKGROUND_SERVICE, "Maximum", "owed (not redone yet)").with_(period=hourly)
    healed = metric("DegradedHealed", BACKGROUND_SERVICE, label="healed").with_(period=hourly)
    return [graph("Degraded memory results: stored, owed, healed", [stored, owed, healed], width=WIDTH)]


def alarm_rows(alarms: Mapping[str, Mapping[str, cloudwatch.Alarm]]) -> list[cloudwatch.IWidget]:
    """The alarms' states, then their metrics: one graph per kind, and its own widget for an alarm on
    metric math (the math's ids would clash with another's in one graph)."""
    every = [alarm for group in alarms.values() for alarm in group.values()]
    widgets: list[cloudwatch.IWidget] = [
        cloudwatch.AlarmStatusWidget(title="Alarms", alarms=every, width=WIDTH, height=HEIGHT)
    ]
    for kind, members in alarms.items():
        plain = [a.metric for a in members.values() if isinstance(a.metric, cloudwatch.Metric)]
        widgets += [graph(f"Alarm metrics: {kind}", plain)] if plain else []
        widgets += [
            cloudwatch.AlarmWidget(alarm=a, title=f"Alarm metrics: {name}", width=8, height=HEIGHT)
            for name, a in members.items()
            if not isinstance(a.metric, cloudwatch.Metric)
        ]
    return widgets


def operator_dashboard(
    scope: Construct,
    prefix: str,
    errors: Sequence[cloudwatch.IMetric],
    alarms: Mapping[str, Mapping[str, cloudwatch.Alarm]],
) -> cloudwatch.Dashboard:
    """The dashboard; `errors` are the chat's error metrics, `alarms` every alarm by kind, then name."""
    dashboard = cloudwatch.Dashboard(scope, "Dashboard", dashboard_name=f"{prefix}-operations")
    for row in rows([*chat_row(errors), *model_rows(), *care_row(), *healing_row(), *alarm_rows(alarms)]):
        dashboard.add_widgets(*row)
    return dashboard


def rows(widgets: Sequence[cloudwatch.IWidget]) -> list[list[cloudwatch.IWidget]]:
    """The widgets in rows of at most the dashboard's width, in order."""
    laid: list[list[cloudwatch.IWidget]] = [[]]
    for widget in widgets:
        if sum(w.width for w in laid[-1]) + widget.width > WIDTH:
            laid.append([])
        laid[-1].append(widget)
    return laid
