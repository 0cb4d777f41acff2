"""The operations dashboard ``<name>-operations``: what each application spends, and how the model behaves.

Pure data, like the alarms: :func:`plan_dashboard` turns the plan's alarm sources, prices and budget into
:class:`DashboardPlan` panels that the CDK layer renders as a CloudWatch dashboard and ``make cost`` renders
offline as a PNG (:mod:`landing_zone.finops.dashboard_png`).  The spend lines use the same metric sources and the
same formula as the spend alarms (:func:`landing_zone.cost.alarms.spend_expression`), so the dashboard, the alarms
and the cost report cannot disagree.

Panels, in order:

1. about — prices (source, as of, verified), budget, threshold, what is assumed;
2. estimated spend by application, USD/hour, stacked — one line per metric source of the alarms (application
   profiles, direct calls through system profiles or models), the alarm threshold and the budget rate (and the
   self-hosted nodes' cost, when on) as horizontal annotations;
3. estimated spend, cumulative over 31 days, USD, against the monthly budget — every priced series, Mantle included;
4. tokens per minute by source, one panel per token kind (input, cache read, output; cache write only when the
   workload configures cache writes);
5. Mantle apart: tokens per minute, inferences and estimated USD/hour — not captured by invocation logging; with
   ``access.mantle_projects`` also each application's Mantle spend on its Project's series, against its alarm;
6. health per model/profile: invocations, latency p50/p90/p99, time to first token, client and server errors,
   throttles;
7. the alarms' states, and where the kill switch's state is read;
8. with self-hosting: the runtime output tokens/s against the break-even throughput of one node;
9. quota headroom (``cost.quota_alarms``): per model and quota, the use the quota alarm computes against the quota
   and the alarm threshold (headroom x quota) as horizontal lines.

A panel references at most ``dashboard_max_metrics_per_widget`` metrics (catalog limit): panels over it are split
into numbered parts, like the alarms.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from landing_zone.core.catalog.metrics import EndpointMetrics, MetricCatalog, MetricSource
from landing_zone.core.catalog.prices import TokenPrices
from landing_zone.cost.alarms import (
    APPLICATION_PROFILE,
    CostAlarmPlan,
    MetricSpec,
    SourcePrices,
    prices_for,
    source_metrics,
    spend_expression,
)
from landing_zone.cost.quotas import QuotaAlarm, QuotaAlarmPlan

__all__ = [
    "DASHBOARD_PERIOD_SECONDS",
    "AlarmPanel",
    "Annotation",
    "DashboardPlan",
    "GraphPanel",
    "Line",
    "TextPanel",
    "dashboard_name",
    "dashboard_url",
    "plan_dashboard",
]

DASHBOARD_PERIOD_SECONDS = 300  # spend and health graphs; token rates use 60 s
TOKEN_PERIOD_SECONDS = 60
CUMULATIVE_DAYS = 31
_KIND_TITLE = {"input": "input", "cache_read": "cache read", "cache_write": "cache write", "output": "output"}


@dataclass(frozen=True)
class Line:
    """One line of a graph: a metric-math ``expression`` over ``metrics``, or the single metric ``metrics[0]``."""

    label: str
    metrics: tuple[MetricSpec, ...]
    expression: str | None = None
    kinds: tuple[str, ...] = ()  # the token kind of each metric (spend lines), for offline evaluation


@dataclass(frozen=True)
class Annotation:
    label: str
    value: float


@dataclass(frozen=True)
class GraphPanel:
    title: str
    unit: str
    lines: tuple[Line, ...]
    period: int = DASHBOARD_PERIOD_SECONDS
    stacked: bool = False
    annotations: tuple[Annotation, ...] = ()
    start: str = "-PT24H"  # ISO 8601 duration before now
    cumulative: bool = False  # RUNNING_SUM of USD per period (offline rendering mirrors it)

    @property
    def metric_count(self) -> int:
        return sum(len(line.metrics) for line in self.lines)


@dataclass(frozen=True)
class TextPanel:
    title: str
    markdown: str


@dataclass(frozen=True)
class AlarmPanel:
    title: str
    alarm_suffixes: tuple[str, ...]  # alarm names are "<name>-<suffix>"


Panel = GraphPanel | TextPanel | AlarmPanel


@dataclass(frozen=True)
class DashboardPlan:
    name: str
    region: str
    panels: tuple[Panel, ...] = field(default_factory=tuple)

    @property
    def graphs(self) -> tuple[GraphPanel, ...]:
        return tuple(p for p in self.panels if isinstance(p, GraphPanel))

    @property
    def metric_count(self) -> int:
        return sum(g.metric_count for g in self.graphs)


def dashboard_name(landing_zone: str) -> str:
    return f"{landing_zone}-operations"


def dashboard_url(region: str, name: str) -> str:
    """The dashboard's address in the CloudWatch console (stack output OperationsDashboardUrl)."""
    return f"https://{region}.console.aws.amazon.com/cloudwatch/home?region={region}#dashboards/dashboard/{name}"


def _label(source: MetricSource) -> str:
    if source.dimension_value.startswith(APPLICATION_PROFILE):
        return f"application {source.dimension_value.removeprefix(APPLICATION_PROFILE)}"
    return source.label


def _spend_line(source: MetricSource, index: int, prices: TokenPrices, period: int) -> Line:
    pairs = source_metrics(source, index, period)
    return Line(
        label=_label(source),
        metrics=tuple(m for m, _ in pairs),
        expression=spend_expression(pairs, prices, period),
        kinds=tuple(kind for _, kind in pairs),
    )


def _metric(source: MetricSource, metric_name: str, metric_id: str, period: int, statistic: str = "Sum") -> MetricSpec:
    return MetricSpec(
        id=metric_id,
        namespace=source.namespace,
        metric_name=metric_name,
        dimensions=MappingProxyType({source.dimension_name: source.dimension_value}),
        statistic=statistic,
        period=period,
        label=f"{metric_name} {_label(source)}",
    )


def _split(panel: GraphPanel, limit: int) -> list[GraphPanel]:
    """The panel, or numbered parts of it that each reference at most ``limit`` metrics."""
    if panel.metric_count <= limit:
        return [panel]
    parts: list[list[Line]] = [[]]
    used = 0
    for line in panel.lines:
        if used + len(line.metrics) > limit and parts[-1]:
            parts.append([])
            used = 0
        parts[-1].append(line)
        used += len(line.metrics)
    n = len(parts)
    return [
        GraphPanel(
            title=f"{panel.title} (part {i} of {n})",
            unit=panel.unit,
            lines=tuple(lines),
            period=panel.period,
            stacked=panel.stacked,
            annotations=panel.annotations,
            start=panel.start,
            cumulative=panel.cumulative,
        )
        for i, lines in enumerate(parts, start=1)
    ]


def plan_dashboard(
    *,
    name: str,
    region: str,
    alarms: CostAlarmPlan,
    metric_catalog: MetricCatalog,
    prices: TokenPrices | None = None,
    monthly_budget_usd: float,
    hours_per_month: float,
    max_metrics_per_widget: int,
    self_hosted_usd_per_hour: float | None = None,
    breakeven_tokens_per_second: float | None = None,
    cache_writes: bool = True,
    quota_alarms: QuotaAlarmPlan | None = None,
) -> DashboardPlan:
    """The panels of the operations dashboard (see the module docstring).

    ``cache_writes`` False (no ``cost.workload.cache_write_fraction`` configured): no cache-write token panel; the
    spend lines and the alarms still price any cache-write tokens that appear.

    ``prices`` None (the plan's case): every source at the prices the alarms give it (``alarms.source_prices``, each
    model's own); given: every source at these prices.
    """
    source_prices: SourcePrices = prices if prices is not None else alarms.source_prices
    runtime = metric_catalog.for_endpoint("runtime")
    mantle = metric_catalog.for_endpoint("mantle")
    runtime_sources = [s for s in alarms.sources if s.namespace == runtime.namespace]
    mantle_sources = [s for s in alarms.sources if s.namespace == mantle.namespace]
    budget_rate = monthly_budget_usd / hours_per_month
    panels: list[Panel] = []

    panels.append(_about_panel(name, alarms, source_prices, monthly_budget_usd, budget_rate))
    graphs: list[GraphPanel] = []
    graphs += _spend_graphs(
        alarms,
        source_prices,
        runtime_sources,
        mantle_sources,
        monthly_budget_usd,
        budget_rate,
        self_hosted_usd_per_hour,
    )
    graphs += _token_graphs(runtime, runtime_sources, cache_writes)
    graphs += _mantle_graphs(mantle, mantle_sources, source_prices)
    graphs += _project_graphs(alarms, source_prices)
    graphs += _health_graphs(runtime, runtime_sources)
    graphs += _error_graphs(runtime, mantle, runtime_sources, mantle_sources)
    graphs += _breakeven_graphs(runtime, runtime_sources, breakeven_tokens_per_second)
    quota_list = quota_alarms.alarms if quota_alarms is not None else ()
    graphs += [_quota_graph(q) for q in quota_list]
    for graph in graphs:
        panels.extend(_split(graph, max_metrics_per_widget))
    suffixes = tuple(a.name_suffix for a in alarms.alarms)
    quota_suffixes = tuple(spec.name_suffix for q in quota_list for spec in q.specs)
    if suffixes or quota_suffixes:
        title = "Alarms: spend rate and Mantle usage" + (", quota headroom" if quota_suffixes else "")
        panels.append(AlarmPanel(title, suffixes + quota_suffixes))
    panels.append(
        TextPanel(
            "Kill switch",
            "At 100 % of the actual monthly budget, AWS Budgets attaches the deny-inference policy "
            f"`{name}-kill-switch` to every invoker role (budget `{name}-bedrock-monthly`). Its state is the budget "
            "action's status (Budgets console, or `python -m landing_zone verify`); detach the policy to resume. "
            "Self-hosted vLLM and DCGM metrics are exported for Prometheus on the nodes, not to CloudWatch: they are "
            "not on this dashboard.",
        )
    )
    return DashboardPlan(dashboard_name(name), region, tuple(panels))


def _about_panel(
    name: str, alarms: CostAlarmPlan, source_prices: SourcePrices, monthly_budget_usd: float, budget_rate: float
) -> TextPanel:
    """The first panel: where the figures come from (prices per model, budget, alarm threshold)."""
    used = {p.source_name: p for p in (prices_for(source_prices, s) for s in alarms.sources)}
    listed = "; ".join(
        f"**{p.source_name}** for {p.model_id or 'every model'} (as of {p.as_of}, "
        f"{'verified' if p.verified else 'NOT verified'}): input {p.input_usd_per_million:g}, cache read "
        f"{p.cache_read_usd_per_million:g}, cache write {p.cache_write_usd_per_million:g}, output "
        f"{p.output_usd_per_million:g}"
        for p in used.values()
    )
    about = [
        f"Estimated from Bedrock token metrics, each model at its own prices (USD per 1M tokens): {listed}. "
        f"Monthly budget {monthly_budget_usd:,.2f} USD ({budget_rate:,.2f} USD/hour); spend alarm above "
        f"{alarms.threshold_usd_per_hour:,.2f} USD/hour. The same sources, prices and formula as the spend alarms; "
        "AWS Budgets on billed cost remains the backstop.",
    ]
    unverified = [s.label for s in alarms.sources if not s.verified]
    if unverified:
        about.append(
            "Metric names assumed, not verified (core/catalog/metrics.yaml): cache-token metrics of "
            f"{len(unverified)} source(s); `python -m landing_zone discover` compares them with the account."
        )

    return TextPanel(f"{name}: operations", "\n\n".join(about))


def _spend_graphs(
    alarms: CostAlarmPlan,
    source_prices: SourcePrices,
    runtime_sources: Sequence[MetricSource],
    mantle_sources: Sequence[MetricSource],
    monthly_budget_usd: float,
    budget_rate: float,
    self_hosted_usd_per_hour: float | None,
) -> list[GraphPanel]:
    """Estimated spend per hour (runtime) and cumulative against the monthly budget (runtime and Mantle)."""
    period = DASHBOARD_PERIOD_SECONDS
    graphs: list[GraphPanel] = []
    annotations = [
        Annotation(f"spend alarm {alarms.threshold_usd_per_hour:,.2f} USD/h", alarms.threshold_usd_per_hour),
        Annotation(f"budget rate {budget_rate:,.2f} USD/h", budget_rate),
    ]
    if self_hosted_usd_per_hour is not None:
        annotations.append(
            Annotation(f"self-hosted nodes {self_hosted_usd_per_hour:,.2f} USD/h", self_hosted_usd_per_hour)
        )
    spend_lines = tuple(_spend_line(s, i, prices_for(source_prices, s), period) for i, s in enumerate(runtime_sources))
    if spend_lines:
        graphs.append(
            GraphPanel(
                "Estimated spend by application and path (USD/hour, stacked)",
                "USD/hour",
                spend_lines,
                stacked=True,
                annotations=tuple(annotations),
            )
        )
    if spend_lines or mantle_sources:
        # every series the alarms price, Mantle included (its spend counts against the same budget); metric IDs
        # numbered across runtime and Mantle so that one widget never uses an ID twice
        cumulative_sources = [*runtime_sources, *mantle_sources]
        hourly_lines = tuple(
            _spend_line(s, i, prices_for(source_prices, s), 3600) for i, s in enumerate(cumulative_sources)
        )
        graphs.append(
            GraphPanel(
                f"Estimated spend, cumulative over {CUMULATIVE_DAYS} days (USD) against the monthly budget"
                + (", Mantle included" if mantle_sources else ""),
                "USD",
                hourly_lines,  # USD per hour-long period; the dashboard draws RUNNING_SUM of each, stacked
                period=3600,
                stacked=True,
                annotations=(Annotation(f"monthly budget {monthly_budget_usd:,.0f} USD", monthly_budget_usd),),
                start=f"-P{CUMULATIVE_DAYS}D",
                cumulative=True,
            )
        )
    return graphs


def _token_graphs(
    runtime: EndpointMetrics, runtime_sources: Sequence[MetricSource], cache_writes: bool
) -> list[GraphPanel]:
    """Tokens per minute by kind (no cache-write panel unless cache writes are configured)."""
    graphs: list[GraphPanel] = []
    for kind, metric_name in runtime.token_metrics.items():
        if kind == "cache_write" and not cache_writes:
            continue  # no cache writes configured: an always-empty panel (the spend lines still price them)
        lines = tuple(
            Line(_label(s), (_metric(s, metric_name, f"t{i}", TOKEN_PERIOD_SECONDS),))
            for i, s in enumerate(runtime_sources)
        )
        if lines:
            graphs.append(GraphPanel(f"Tokens per minute: {_KIND_TITLE[kind]}", "tokens/min", lines, period=60))
    return graphs


def _mantle_graphs(
    mantle: EndpointMetrics, mantle_sources: Sequence[MetricSource], source_prices: SourcePrices
) -> list[GraphPanel]:
    """Mantle's tokens and inferences per minute, and its estimated spend."""
    graphs: list[GraphPanel] = []
    period = DASHBOARD_PERIOD_SECONDS
    if mantle_sources:
        mantle_lines: list[Line] = []
        for i, s in enumerate(mantle_sources):
            for kind, metric_name in s.token_metrics.items():
                mantle_lines.append(
                    Line(f"{_KIND_TITLE[kind]} {s.label}", (_metric(s, metric_name, f"k{i}_{kind[:3]}", 60),))
                )
            if "invocations" in mantle.other_metrics:
                inferences = _metric(s, mantle.other_metrics["invocations"], f"k{i}_inf", 60)
                mantle_lines.append(Line(f"inferences {s.label}", (inferences,)))
        graphs.append(
            GraphPanel(
                "Mantle (OpenAI-compatible endpoint) per minute: tokens and inferences — NOT in model invocation logs",
                "per minute",
                tuple(mantle_lines),
                period=60,
            )
        )
        graphs.append(
            GraphPanel(
                "Mantle estimated spend (USD/hour)",
                "USD/hour",
                tuple(_spend_line(s, i, prices_for(source_prices, s), period) for i, s in enumerate(mantle_sources)),
                stacked=True,
            )
        )
    return graphs


def _project_graphs(alarms: CostAlarmPlan, source_prices: SourcePrices) -> list[GraphPanel]:
    """With Mantle Projects: each application's Mantle spend on its Project's series, the series its own spend alarm
    reads (a different level of AWS/BedrockMantle than the Model lines above: the two are never added)."""
    if not alarms.project_sources:
        return []
    period = DASHBOARD_PERIOD_SECONDS
    lines = tuple(_spend_line(s, i, prices_for(source_prices, s), period) for i, s in enumerate(alarms.project_sources))
    thresholds = tuple(
        Annotation(f"alarm {a.name_suffix} {a.threshold:,.2f} USD/h", a.threshold) for a in alarms.application_spend
    )
    return [
        GraphPanel(
            "Mantle estimated spend by application: each application's Project (USD/hour)",
            "USD/hour",
            lines,
            annotations=thresholds,
        )
    ]


def _health_graphs(runtime: EndpointMetrics, runtime_sources: Sequence[MetricSource]) -> list[GraphPanel]:
    """Invocations, latency and time to first token of the runtime sources."""
    graphs: list[GraphPanel] = []
    period = DASHBOARD_PERIOD_SECONDS
    health = runtime.other_metrics
    if runtime_sources and "invocations" in health:
        # Invocations counts requests that later failed too (metrics.yaml metric_semantics): the title says so, and
        # nothing divides by it as if it were a count of served requests.
        failed = " (failed requests included)" if "invocations" in runtime.metric_semantics else ""
        graphs.append(
            GraphPanel(
                f"Invocations per minute by model / profile{failed}",
                "invocations/min",
                tuple(
                    Line(_label(s), (_metric(s, health["invocations"], f"i{i}", 60),))
                    for i, s in enumerate(runtime_sources)
                ),
                period=60,
            )
        )
    if runtime_sources and "latency_ms" in health:
        graphs.append(
            GraphPanel(
                "Invocation latency (ms): p50, p90, p99",
                "ms",
                tuple(
                    Line(f"{stat} {_label(s)}", (_metric(s, health["latency_ms"], f"l{i}_{stat}", period, stat),))
                    for i, s in enumerate(runtime_sources)
                    for stat in ("p50", "p90", "p99")
                ),
            )
        )
    if runtime_sources and "time_to_first_token_ms" in health:
        graphs.append(
            GraphPanel(
                "Time to first token (ms, streaming): p50, p90",
                "ms",
                tuple(
                    Line(
                        f"{stat} {_label(s)}",
                        (_metric(s, health["time_to_first_token_ms"], f"f{i}_{stat}", period, stat),),
                    )
                    for i, s in enumerate(runtime_sources)
                    for stat in ("p50", "p90")
                ),
            )
        )
    return graphs


def _error_graphs(
    runtime: EndpointMetrics,
    mantle: EndpointMetrics,
    runtime_sources: Sequence[MetricSource],
    mantle_sources: Sequence[MetricSource],
) -> list[GraphPanel]:
    """Errors and throttles per minute, runtime and Mantle."""
    graphs: list[GraphPanel] = []
    health = runtime.other_metrics
    error_metrics = [k for k in ("client_errors", "server_errors", "throttles") if k in health]
    error_lines = [
        Line(f"{k.replace('_', ' ')} {_label(s)}", (_metric(s, health[k], f"e{i}_{k[:3]}", 60),))
        for i, s in enumerate(runtime_sources)
        for k in error_metrics
    ]
    if mantle_sources and "client_errors" in mantle.other_metrics:
        error_lines += [
            Line(f"client errors {s.label}", (_metric(s, mantle.other_metrics["client_errors"], f"x{i}", 60),))
            for i, s in enumerate(mantle_sources)
        ]
    if error_lines:
        graphs.append(GraphPanel("Errors and throttles per minute", "per minute", tuple(error_lines), period=60))
    return graphs


def _breakeven_graphs(
    runtime: EndpointMetrics, runtime_sources: Sequence[MetricSource], breakeven_tokens_per_second: float | None
) -> list[GraphPanel]:
    """Output tokens per second against the self-hosting break-even of one node."""
    graphs: list[GraphPanel] = []
    if breakeven_tokens_per_second is not None and runtime_sources:
        output = runtime.token_metrics.get("output")
        if output:
            metrics = tuple(_metric(s, output, f"o{i}", 60) for i, s in enumerate(runtime_sources))
            graphs.append(
                GraphPanel(
                    "Output tokens per second on Bedrock against the self-hosting break-even of one node",
                    "tokens/s",
                    (
                        Line(
                            "output tokens/s (all runtime sources)",
                            metrics,
                            expression="(" + " + ".join(f"FILL({m.id}, 0)" for m in metrics) + ") / 60",
                        ),
                    ),
                    period=60,
                    annotations=(
                        Annotation(
                            f"break-even {breakeven_tokens_per_second:,.1f} tokens/s", breakeven_tokens_per_second
                        ),
                    ),
                )
            )
    return graphs


def _quota_graph(quota: QuotaAlarm) -> GraphPanel:
    """One quota: the use its alarm computes (each part a line) against the quota and the alarm threshold."""
    daily = quota.unit == "tokens/day"
    what = "projected tokens/day (last hour x 24)" if daily else "tokens/minute"
    lines = tuple(
        Line(
            f"{what}{f' part {spec.part} of {spec.parts}' if spec.parts > 1 else ''}",
            spec.metrics,
            expression=spec.expression,
        )
        for spec in quota.specs
    )
    return GraphPanel(
        f"Quota {quota.model_id}: {quota.kind.replace('_', ' ')} ({quota.region})"
        + ("" if quota.verified else ", value NOT verified"),
        quota.unit,
        lines,
        period=quota.specs[0].period_seconds,
        annotations=(
            Annotation(f"quota {quota.quota:,.0f}", quota.quota),
            Annotation(f"alarm {quota.headroom:.0%} = {quota.threshold:,.0f}", quota.threshold),
        ),
    )


def lines_of(panels: Sequence[Panel]) -> list[Line]:
    return [line for p in panels if isinstance(p, GraphPanel) for line in p.lines]
