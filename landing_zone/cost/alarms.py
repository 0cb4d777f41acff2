"""Near-real-time spend alarms: Bedrock token metrics priced into USD per hour with CloudWatch metric math.

Pure data: this module builds frozen dataclasses (:class:`AlarmSpec`, :class:`MetricSpec`) that the plan stores
and the CDK layer turns into ``cloudwatch.MathExpression`` + ``cloudwatch.Alarm``.  It never imports ``aws_cdk``
and never calls an AWS API.

Inputs
    * metric sources (:class:`~landing_zone.core.catalog.metrics.MetricSource`): one CloudWatch namespace +
      dimension value each (a model ID, a system inference-profile ID or an application inference-profile ARN),
      with the token metrics that exist for it.  Metric names come from ``core/catalog/metrics.yaml``;
      :func:`spend_sources` picks the series of a routing decision so that each token is counted once.
    * :class:`~landing_zone.cost.pricing.TokenPrices` (USD per 1M tokens): one for every source, or a mapping
      source key -> prices so that each model's series is priced at that model's own prices (the plan's case).
    * the threshold in USD per hour (:func:`hourly_threshold_usd` derives one from a monthly budget).
    * the metric-math limit ``metric_math_max_metrics`` of ``core/catalog/limits.yaml`` (10).

The expression of one alarm, for token sums over ``period`` seconds (``P_*`` in USD per 1M tokens)::

    USD per hour = (in * P_in + cr * P_cr + cw * P_cw + out * P_out  [+ the same for every source, each at
                    its own model's prices])
                   / 1000000 * (3600 / period)

written with ``FILL(m, 0)`` around every metric so that a metric without data points counts as zero tokens
instead of blanking the whole sum.  When *no* metric of an alarm has data the expression has no value;
alarms are specified with ``treat_missing_data="notBreaching"`` (no traffic, no spend).

Splitting and its trade-off
    A metric-math alarm may reference at most ``max_metrics_per_alarm`` metrics.  Sources are packed in
    order into as few alarms as fit; all metrics of one source always stay in the same alarm, and a
    source that alone needs more than the limit is an error.  **Each split alarm compares only its own
    part of the spend against the full threshold.**  A spend spread over several alarms can therefore
    exceed the threshold in total without tripping any of them (in the worst case almost
    ``parts x threshold``).  :func:`coverage_note` states this for the alarms built, so the stack can
    surface it (stack output, description, docs); AWS Budgets on billed cost remains the backstop.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from types import MappingProxyType
from typing import Any

from landing_zone.core.catalog.metrics import EndpointMetrics, MetricCatalog, MetricSource
from landing_zone.core.catalog.prices import TokenPrices
from landing_zone.core.routing import RoutingDecision
from landing_zone.cost.metric_math import evaluate_expression
from landing_zone.errors import CostAlarmError

__all__ = [
    "APPLICATION_PROFILE",
    "MANTLE_PROJECT",
    "mantle_project_marker",
    "SourcePrices",
    "price_note",
    "priced_spend_sources",
    "prices_for",
    "priced_expression",
    "DEFAULT_PERIOD_SECONDS",
    "MAX_METRICS_LIMIT_NAME",
    "AlarmSpec",
    "MetricSpec",
    "application_profile_marker",
    "build_spend_alarms",
    "build_usage_alarms",
    "source_metrics",
    "spend_expression",
    "coverage_note",
    "evaluate_expression",
    "hourly_threshold_usd",
    "is_valid_metric_id",
    "spend_sources",
]

DEFAULT_PERIOD_SECONDS = 300
# Name of the limit in core/catalog/limits.yaml: metrics one metric-math alarm may reference.
MAX_METRICS_LIMIT_NAME = "metric_math_max_metrics"

# Token kinds (core/catalog/metrics.TOKEN_KINDS) with the short tag used in metric IDs and the price that applies.
_KIND_TAG = {"input": "in", "cache_read": "cr", "cache_write": "cw", "output": "out"}
_KIND_PRICE = {
    "input": "input_usd_per_million",
    "cache_read": "cache_read_usd_per_million",
    "cache_write": "cache_write_usd_per_million",
    "output": "output_usd_per_million",
}

# The dimension value of an application profile's series before the stack knows its ARN (a CDK token): the
# plan writes "application-profile:<name>", the CDK layer puts the profile's ARN in its place.
APPLICATION_PROFILE = "application-profile:"


def application_profile_marker(application: str) -> str:
    return f"{APPLICATION_PROFILE}{application}"


# The same for an application's Mantle Project (access.mantle_projects): "mantle-project:<name>" until the stack
# puts the project's ID (the value of the AWS/BedrockMantle Project dimension) in its place.
MANTLE_PROJECT = "mantle-project:"


def mantle_project_marker(application: str) -> str:
    return f"{MANTLE_PROJECT}{application}"


# One price for every source, or a price per source key (namespace, dimension name, dimension value).
SourcePrices = TokenPrices | Mapping[tuple[str, str, str], TokenPrices]


def prices_for(prices: SourcePrices, source: MetricSource) -> TokenPrices:
    """The prices of ``source``'s tokens; a mapping without the source is a programming error, named."""
    if isinstance(prices, TokenPrices):
        return prices
    try:
        return prices[source.key]
    except KeyError:
        raise CostAlarmError(f"metric source {source.label!r}", source.key, "a source with prices") from None


# CloudWatch metric-data-query IDs: start with a lowercase letter; letters, digits and '_' only.
_METRIC_ID = re.compile(r"^[a-z][a-zA-Z0-9_]{0,254}$")
_ALARM_DESCRIPTION_MAX = 1024  # CloudWatch AlarmDescription limit (characters)
_MILLION = 1_000_000
_SECONDS_PER_HOUR = 3600
_HOURS_PER_DAY = 24.0


# --------------------------------------------------------------------------------------------------
# Validation helpers
# --------------------------------------------------------------------------------------------------


def _positive(field_name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
        raise CostAlarmError(field_name, value, "a finite number > 0")
    return float(value)


def _text(field_name: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise CostAlarmError(field_name, value, "a non-empty string")
    return value


def is_valid_metric_id(metric_id: str) -> bool:
    """True for a valid CloudWatch metric-math ID (lowercase first letter, then ``[a-zA-Z0-9_]``)."""
    return bool(_METRIC_ID.match(metric_id))


def _num(value: float) -> str:
    """A number as metric math reads it: plain decimal (never ``1e-05``), no trailing zeros."""
    text = format(Decimal(repr(float(value))), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


# --------------------------------------------------------------------------------------------------
# Alarm specifications
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MetricSpec:
    """One metric of a metric-math expression (``cloudwatch.Metric`` in the CDK layer)."""

    id: str  # the name the expression uses, e.g. m0_in
    namespace: str
    metric_name: str
    dimensions: Mapping[str, str]
    statistic: str = "Sum"
    period: int = DEFAULT_PERIOD_SECONDS  # seconds
    label: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "namespace": self.namespace,
            "metric_name": self.metric_name,
            "dimensions": dict(self.dimensions),
            "statistic": self.statistic,
            "period": self.period,
            "label": self.label,
        }


@dataclass(frozen=True)
class AlarmSpec:
    """One spend alarm: ``expression`` (USD/hour) over ``metrics`` compared with the threshold."""

    name_suffix: str  # "spend" or "spend-<k>-of-<n>"
    metrics: tuple[MetricSpec, ...]
    expression: str
    threshold: float  # in threshold_unit
    description: str
    period_seconds: int = DEFAULT_PERIOD_SECONDS
    part: int = 1  # this alarm's number among the split alarms, 1-based
    parts: int = 1  # how many alarms share the sources
    source_labels: tuple[str, ...] = ()
    unverified_sources: tuple[str, ...] = ()  # labels of sources whose metric names are assumptions
    max_metrics_per_alarm: int = 10
    price_source: str = ""
    comparison_operator: str = "GreaterThanThreshold"
    treat_missing_data: str = "notBreaching"  # no data points: no traffic, no spend
    evaluation_periods: int = 1
    expression_label: str = "Estimated spend rate (USD/hour)"
    threshold_unit: str = "USD/hour"  # or "tokens per period" (usage alarms)
    # A per-account threshold (StackSet parameter) may replace this one; usage alarms keep theirs (0 tokens).
    threshold_overridable: bool = True

    @property
    def using_metrics(self) -> dict[str, MetricSpec]:
        """Metric ID -> metric, the shape of ``MathExpression(using_metrics=...)``."""
        return {m.id: m for m in self.metrics}

    def as_dict(self) -> dict[str, Any]:
        return {
            "name_suffix": self.name_suffix,
            "metrics": [m.as_dict() for m in self.metrics],
            "expression": self.expression,
            "expression_label": self.expression_label,
            "threshold": self.threshold,
            "threshold_unit": self.threshold_unit,
            "description": self.description,
            "period_seconds": self.period_seconds,
            "part": self.part,
            "parts": self.parts,
            "source_labels": list(self.source_labels),
            "unverified_sources": list(self.unverified_sources),
            "max_metrics_per_alarm": self.max_metrics_per_alarm,
            "price_source": self.price_source,
            "comparison_operator": self.comparison_operator,
            "treat_missing_data": self.treat_missing_data,
            "evaluation_periods": self.evaluation_periods,
        }


def hourly_threshold_usd(monthly_budget_usd: float, hours_per_month: float, factor: float) -> float:
    """Alarm threshold in USD/hour: ``monthly_budget_usd / hours_per_month * factor``.

    ``factor`` > 1 tolerates bursts above the average budget rate (e.g. 2 = twice the average hourly
    budget); every argument must be a finite number > 0.
    """
    monthly = _positive("monthly_budget_usd", monthly_budget_usd)
    hours = _positive("hours_per_month", hours_per_month)
    times = _positive("factor", factor)
    return monthly / hours * times


def _validate_period(period_seconds: Any) -> int:
    allowed = "a whole number of minutes in seconds: 60, 120, ..., 86400 (Bedrock metrics are 1-minute metrics)"
    if isinstance(period_seconds, bool) or not isinstance(period_seconds, int):
        raise CostAlarmError("period_seconds", period_seconds, allowed)
    if period_seconds < 60 or period_seconds > 86400 or period_seconds % 60:
        raise CostAlarmError("period_seconds", period_seconds, allowed)
    return period_seconds


def _pack(sources: Sequence[MetricSource], limit: int) -> list[list[tuple[int, MetricSource]]]:
    """Sources (with their global index) packed in order into groups of at most ``limit`` metrics."""
    groups: list[list[tuple[int, MetricSource]]] = []
    used = limit  # forces a first group
    for index, source in enumerate(sources):
        size = len(source.token_metrics)
        if size > limit:
            raise CostAlarmError(
                f"metric source {source.label!r}",
                f"{size} metrics",
                f"at most {limit} metrics (metric_math_max_metrics); one source cannot span two alarms",
            )
        if used + size > limit:
            groups.append([])
            used = 0
        groups[-1].append((index, source))
        used += size
    return groups


def priced_expression(metrics: Sequence[tuple[MetricSpec, str, TokenPrices]], period_seconds: int) -> str:
    """USD/hour of token metrics, each with its token kind and its own prices, for sums over ``period_seconds``.

    The one formula the spend alarms, the operations dashboard and the offline rendering share (module docstring).
    """
    terms = " + ".join(
        f"FILL({m.id}, 0) * {_num(float(getattr(prices, _KIND_PRICE[kind])))}" for m, kind, prices in metrics
    )
    return f"({terms}) / {_num(_MILLION)} * {_num(_SECONDS_PER_HOUR / period_seconds)}"


def spend_expression(metrics: Sequence[tuple[MetricSpec, str]], prices: TokenPrices, period_seconds: int) -> str:
    """:func:`priced_expression` with one set of prices for every metric."""
    return priced_expression([(m, kind, prices) for m, kind in metrics], period_seconds)


def source_metrics(source: MetricSource, index: int, period: int, *, prefix: str = "m") -> list[tuple[MetricSpec, str]]:
    """The token metrics of one source, each with its token kind; IDs ``<prefix><index>_<in|cr|cw|out>``."""
    out: list[tuple[MetricSpec, str]] = []
    for kind, metric_name in source.token_metrics.items():
        metric_id = f"{prefix}{index}_{_KIND_TAG[kind]}"
        if not is_valid_metric_id(metric_id):
            raise CostAlarmError("metric id", metric_id, "a lowercase letter, then letters, digits or '_'")
        spec = MetricSpec(
            id=metric_id,
            namespace=source.namespace,
            metric_name=metric_name,
            dimensions=MappingProxyType({source.dimension_name: source.dimension_value}),
            statistic="Sum",
            period=period,
            label=f"{metric_name} {source.label}",
        )
        out.append((spec, kind))
    return out


def price_note(used: Sequence[TokenPrices]) -> str:
    """``'<entry>' (as of ..., verified)`` for each distinct entry, joined: who priced the tokens."""
    unique = {p.source_name: p for p in used}
    return ", ".join(
        f"{p.source_name!r} (as of {p.as_of}, {'verified' if p.verified else 'NOT verified'})" for p in unique.values()
    )


def _description(
    threshold: float, used: Sequence[TokenPrices], period_seconds: int, labels: Sequence[str], part: int, parts: int
) -> str:
    each = "each model at its own prices: " if len({p.source_name for p in used}) > 1 else ""
    text = (
        f"Estimated Bedrock spend rate above {threshold:,.2f} USD/hour: token metrics summed over "
        f"{period_seconds} s and priced at {each}{price_note(used)}. "
    )
    if parts > 1:
        text += (
            f"Part {part} of {parts}: compares only these sources' spend with the full threshold "
            "(a spend spread over several parts can exceed it without an alarm). "
        )
    text += f"Sources: {'; '.join(labels)}."
    if len(text) > _ALARM_DESCRIPTION_MAX:
        text = text[: _ALARM_DESCRIPTION_MAX - 3] + "..."
    return text


def _checked_sources(sources: Iterable[MetricSource]) -> list[MetricSource]:
    source_list = list(sources)
    if not source_list:
        raise CostAlarmError("sources", [], "at least one metric source")
    seen: set[tuple[str, str, str]] = set()
    for source in source_list:
        if not isinstance(source, MetricSource):
            raise CostAlarmError("sources", source, "MetricSource instances")
        if source.key in seen:
            raise CostAlarmError(
                f"metric source {source.label!r}",
                source.key,
                "each namespace/dimension value once (it would count twice)",
            )
        seen.add(source.key)
    return source_list


def _checked_limit(max_metrics_per_alarm: Any) -> int:
    if (
        isinstance(max_metrics_per_alarm, bool)
        or not isinstance(max_metrics_per_alarm, int)
        or max_metrics_per_alarm < 1
    ):
        raise CostAlarmError("max_metrics_per_alarm", max_metrics_per_alarm, "a whole number >= 1")
    return max_metrics_per_alarm


def _group_metrics(group: Sequence[tuple[int, MetricSource]], period: int) -> list[tuple[MetricSpec, str]]:
    """The metrics of one alarm, each with its token kind; IDs ``m<source index>_<in|cr|cw|out>``."""
    return [pair for index, source in group for pair in source_metrics(source, index, period)]


def _priced_group(
    group: Sequence[tuple[int, MetricSource]], period: int, prices: SourcePrices
) -> list[tuple[MetricSpec, str, TokenPrices]]:
    return [
        (m, kind, prices_for(prices, source))
        for index, source in group
        for m, kind in source_metrics(source, index, period)
    ]


def build_spend_alarms(
    sources: Iterable[MetricSource],
    prices: SourcePrices,
    *,
    threshold_usd_per_hour: float,
    max_metrics_per_alarm: int,
    period_seconds: int = DEFAULT_PERIOD_SECONDS,
    name_prefix: str = "spend",
) -> list[AlarmSpec]:
    """Spend-rate alarms over ``sources`` at ``prices`` (one for all, or per source key); see the module docstring.

    Metric IDs are ``m<source index>_<in|cr|cw|out>`` (unique across all alarms built).  Sources are packed
    in order into as few alarms as ``max_metrics_per_alarm`` allows; each alarm compares only its own
    part with the full ``threshold_usd_per_hour`` (see :func:`coverage_note`).

    Raises CostAlarmError for no sources, a source listed twice, a source needing more metrics than the
    limit, a threshold that is not > 0, a limit that is not a whole number >= 1, or a period that is not a
    whole number of minutes.
    """
    source_list = _checked_sources(sources)
    threshold = _positive("threshold_usd_per_hour", threshold_usd_per_hour)
    limit = _checked_limit(max_metrics_per_alarm)
    period = _validate_period(period_seconds)
    prefix = _text("name_prefix", name_prefix)

    groups = _pack(source_list, limit)
    parts = len(groups)
    alarms: list[AlarmSpec] = []
    for part, group in enumerate(groups, start=1):
        metrics = _priced_group(group, period, prices)
        labels = tuple(source.label for _, source in group)
        used = [prices_for(prices, source) for _, source in group]
        alarms.append(
            AlarmSpec(
                name_suffix=prefix if parts == 1 else f"{prefix}-{part}-of-{parts}",
                metrics=tuple(m for m, _, _ in metrics),
                expression=priced_expression(metrics, period),
                threshold=threshold,
                description=_description(threshold, used, period, labels, part, parts),
                period_seconds=period,
                part=part,
                parts=parts,
                source_labels=labels,
                unverified_sources=tuple(source.label for _, source in group if not source.verified),
                max_metrics_per_alarm=limit,
                price_source=", ".join(dict.fromkeys(p.source_name for p in used)),
            )
        )
    return alarms


def build_usage_alarms(
    sources: Iterable[MetricSource],
    *,
    max_metrics_per_alarm: int,
    period_seconds: int = DEFAULT_PERIOD_SECONDS,
    name_prefix: str = "usage",
    why: str = "",
) -> list[AlarmSpec]:
    """Alarms that fire on *any* token of ``sources``: the tokens summed over the period, compared with 0.

    Used for Mantle, whose calls are not in the model invocation logs: a notice per period with traffic, whatever
    it costs.  Packed like :func:`build_spend_alarms`; the threshold is 0 tokens and is not replaced by a
    per-account spend threshold (``threshold_overridable`` is False).
    """
    source_list = _checked_sources(sources)
    limit = _checked_limit(max_metrics_per_alarm)
    period = _validate_period(period_seconds)
    prefix = _text("name_prefix", name_prefix)
    groups = _pack(source_list, limit)
    parts = len(groups)
    alarms: list[AlarmSpec] = []
    for part, group in enumerate(groups, start=1):
        metrics = [m for m, _ in _group_metrics(group, period)]
        labels = tuple(source.label for _, source in group)
        text = f"Tokens counted in {period} s on: {'; '.join(labels)}. {why}".strip()
        alarms.append(
            AlarmSpec(
                name_suffix=prefix if parts == 1 else f"{prefix}-{part}-of-{parts}",
                metrics=tuple(metrics),
                expression=" + ".join(f"FILL({m.id}, 0)" for m in metrics),
                threshold=0.0,
                description=text if len(text) <= _ALARM_DESCRIPTION_MAX else text[: _ALARM_DESCRIPTION_MAX - 3] + "...",
                period_seconds=period,
                part=part,
                parts=parts,
                source_labels=labels,
                unverified_sources=tuple(source.label for _, source in group if not source.verified),
                max_metrics_per_alarm=limit,
                expression_label=f"Tokens per {period} s",
                threshold_unit="tokens per period",
                threshold_overridable=False,
            )
        )
    return alarms


def coverage_note(alarms: Sequence[AlarmSpec]) -> str:
    """What the alarms do and do not catch, for the stack to surface (output, description, docs)."""
    if not alarms:
        return "No spend alarm: no metric source."
    threshold = alarms[0].threshold
    sources = sum(len(a.source_labels) for a in alarms)
    parts = len(alarms)
    notes: list[str] = []
    if parts == 1:
        notes.append(
            f"One alarm covers all {sources} metric source(s): it compares their total estimated spend rate "
            f"with {threshold:,.2f} USD/hour."
        )
    else:
        notes.append(
            f"The {sources} metric sources need {parts} alarms (a metric-math alarm references at most "
            f"{alarms[0].max_metrics_per_alarm} metrics). Each alarm compares only its own part with the full "
            f"threshold of {threshold:,.2f} USD/hour, so a spend spread over several alarms can exceed the "
            f"threshold in total (up to almost {parts * threshold:,.2f} USD/hour) without any alarm firing. "
            f"Lower the threshold, or route traffic through fewer model/profile IDs, if that matters."
        )
    unverified = [label for a in alarms for label in a.unverified_sources]
    if unverified:
        notes.append(
            "Metric or dimension names are NOT verified for: "
            + "; ".join(unverified)
            + " (core/catalog/metrics.yaml): if they are wrong those alarms never see data."
        )
    notes.append(
        "Alarms see only metrics of their own Region (cross-Region inference reports in the source Region) "
        "and count tokens, not bills: AWS Budgets on billed cost remains the backstop."
    )
    return " ".join(notes)


# --------------------------------------------------------------------------------------------------
# The series to price
# --------------------------------------------------------------------------------------------------


def priced_spend_sources(
    routing: RoutingDecision,
    *,
    home_region: str,
    metric_catalog: MetricCatalog,
    applications_with_profiles: Mapping[str, tuple[str, str]] | Sequence[str] = (),
    service_tiers: Sequence[str] = (),
) -> list[tuple[MetricSource, str, str, str]]:
    """:func:`spend_sources`, each with the (model ID, invocation path, service tier) whose prices its tokens are
    billed at.

    ``applications_with_profiles``: application name -> (model ID, path its profile copies); a plain sequence of
    names gives ("", "") for each (for callers that price every source alike).  ``service_tiers``: the tiers besides
    ``default`` whose tokens report under a series of their own (``service_tier_dimension`` of the endpoint in
    metrics.yaml); each source gets one more source per tier, right after it.  An endpoint with no documented
    per-tier series (Mantle) gets none.
    """
    out: list[tuple[MetricSource, str, str, str]] = []
    seen: set[tuple[str, str, str]] = set()

    def add(endpoint: EndpointMetrics, value: str, label: str, model_id: str, path: str) -> None:
        source = endpoint.source_for(value, label=label)
        if source.key in seen:
            return
        seen.add(source.key)
        out.append((source, model_id, path, "default"))
        for tier in service_tiers:
            tier_value = endpoint.tier_dimension_value(value, tier)
            if tier_value is not None:
                out.append((endpoint.source_for(tier_value, label=f"{label} ({tier} tier)"), model_id, path, tier))

    for route in routing.compliant_routes(source_region=home_region):
        # invoke_id is what the caller names: the FM or profile ID on the runtime, the Mantle model name on Mantle
        add(
            metric_catalog.for_endpoint(route.endpoint),
            route.invoke_id,
            f"{route.kind.value} {route.invoke_id}",
            route.model_id,
            route.kind.value,
        )
    runtime = metric_catalog.for_endpoint("runtime")
    if runtime.application_profile_counting == "separate":
        apps = (
            dict(applications_with_profiles)
            if isinstance(applications_with_profiles, Mapping)
            else dict.fromkeys(applications_with_profiles, ("", ""))
        )
        for name in sorted(apps):
            add(runtime, application_profile_marker(name), f"application profile {name}", *apps[name])
    return out


def spend_sources(
    routing: RoutingDecision,
    *,
    home_region: str,
    metric_catalog: MetricCatalog,
    applications_with_profiles: Sequence[str] = (),
) -> list[MetricSource]:
    """The series the spend alarms sum, chosen so that each token is counted once.

    One source per compliant invocation path callable from the home Region, deduplicated, in order: runtime paths
    report under their invoke ID (foundation-model or system-profile ID) in ``AWS/Bedrock``, Mantle paths under the
    Mantle model name in ``AWS/BedrockMantle`` (Model level only: the levels emit independently).  Paths not
    callable from the home Region report in other Regions, where an alarm of the home Region cannot see them.

    The application profiles named in ``applications_with_profiles`` are added as sources (dimension value
    :func:`application_profile_marker`, replaced by the profile's ARN in the CDK layer) when the catalog says a call
    through one is counted under its ARN only (``application_profile_counting: separate``); with
    ``also-under-source`` they are already inside the IDs they copy and adding them would count twice.
    """
    return [
        source
        for source, _, _, _ in priced_spend_sources(
            routing,
            home_region=home_region,
            metric_catalog=metric_catalog,
            applications_with_profiles=applications_with_profiles,
        )
    ]


# --------------------------------------------------------------------------------------------------
# The alarms of a configuration (computed once, by the plan)
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CostAlarmPlan:
    """Every token-metric alarm of a configuration, decided once by the plan; the CDK layer only renders it.

    ``spend`` sums every source, each priced at its own model's prices (``source_prices``), against
    ``threshold_usd_per_hour`` (the
    monthly budget spread over the month x ``cost.alarm_factor``); ``mantle_usage`` fires on any Mantle token
    (``cost.alert_on_mantle_usage``).  Application-profile sources carry :func:`application_profile_marker` as
    their dimension value until the stack knows the profile's ARN.

    ``application_spend``: with ``access.mantle_projects``, one alarm per application with a Mantle Project on its
    Project's series (``project_sources``, dimension value :func:`mantle_project_marker` until the stack knows the
    project's ID) against that application's own monthly budget spread over the month x ``cost.alarm_factor``.  The
    Project level is a different level of AWS/BedrockMantle than the Model level the ``spend`` alarms sum (each level
    emits independently), so these alarms never add to ``spend``: they watch one application each.
    """

    threshold_usd_per_hour: float
    threshold_basis: str
    sources: tuple[MetricSource, ...]
    spend: tuple[AlarmSpec, ...]
    mantle_usage: tuple[AlarmSpec, ...]
    coverage_note: str
    metrics_per_profile: int = 0  # metrics one application-profile source adds (0: profiles are not sources)
    # source key -> the prices of its tokens (the model's own, on the source's invocation path)
    source_prices: Mapping[tuple[str, str, str], TokenPrices] = field(default_factory=lambda: MappingProxyType({}))
    application_spend: tuple[AlarmSpec, ...] = ()
    project_sources: tuple[MetricSource, ...] = ()  # keys of source_prices too

    def prices_of(self, source: MetricSource) -> TokenPrices:
        return prices_for(self.source_prices, source)

    @property
    def alarms(self) -> tuple[AlarmSpec, ...]:
        return (*self.spend, *self.mantle_usage, *self.application_spend)


def _tier_note(metric_catalog: MetricCatalog, service_tiers: Sequence[str], sources: Sequence[MetricSource]) -> str:
    """What the alarms cannot see of the allowed tiers: the tiers of an endpoint with no documented tier series."""
    blind = sorted(
        {
            e.namespace
            for e in metric_catalog.endpoints.values()
            if e.service_tier_dimension is None and any(s.namespace == e.namespace for s in sources)
        }
    )
    if not service_tiers or not blind:
        return ""
    return (
        f" Service tiers {', '.join(service_tiers)}: no per-tier series is documented for {', '.join(blind)}; "
        "tokens there are priced at the standard price if they report under the plain series, else not seen."
    )


def plan_cost_alarms(
    routing: RoutingDecision,
    *,
    home_region: str,
    metric_catalog: MetricCatalog,
    prices: TokenPrices | Callable[[str, str], TokenPrices],
    tier_prices: Callable[[str, str, str], TokenPrices] | None = None,
    service_tiers: Sequence[str] = (),
    monthly_budget_usd: float,
    hours_per_month: float,
    alarm_factor: float,
    max_metrics_per_alarm: int,
    period_seconds: int,
    alert_on_mantle_usage: bool,
    applications_with_profiles: Mapping[str, tuple[str, str]] | Sequence[str] = (),
    applications_with_projects: Mapping[str, tuple[str, float]] | None = None,
) -> CostAlarmPlan:
    """The spend alarms (and Mantle usage alarms) of a routing decision at a budget; see :class:`CostAlarmPlan`.

    ``prices``: one set for every source, or ``(model ID, path) -> prices`` (the plan's
    :meth:`~landing_zone.cost.model_prices.ModelPrices.get`) so that each series is priced at its own model's prices.
    ``applications_with_projects``: application name -> (its model's ID, its monthly budget in USD), for the
    applications with a Mantle Project (``application_spend``).

    ``service_tiers`` (the allowed per-token tiers besides ``default``): each runtime source also sums its tier
    series (``<value>+<tier>``, metrics.yaml ``service_tier_dimension``), priced by ``tier_prices(model ID, path,
    tier)`` (the plan's :meth:`~landing_zone.cost.model_prices.ModelPrices.tier`).
    """
    priced = priced_spend_sources(
        routing,
        home_region=home_region,
        metric_catalog=metric_catalog,
        applications_with_profiles=applications_with_profiles,
        service_tiers=service_tiers,
    )
    sources = [source for source, _, _, _ in priced]

    def priced_at(model_id: str, path: str, tier: str) -> TokenPrices:
        if isinstance(prices, TokenPrices):
            return prices
        if tier != "default" and tier_prices is not None:
            return tier_prices(model_id, path, tier)
        return prices(model_id, path)

    source_prices = {source.key: priced_at(model_id, path, tier) for source, model_id, path, tier in priced}
    threshold = hourly_threshold_usd(monthly_budget_usd, hours_per_month, alarm_factor)
    spend: list[AlarmSpec] = []
    if sources:  # none when no model is reachable from the home Region (the plan warns about that)
        spend = build_spend_alarms(
            sources,
            source_prices,
            threshold_usd_per_hour=threshold,
            max_metrics_per_alarm=max_metrics_per_alarm,
            period_seconds=period_seconds,
        )
    mantle_namespace = metric_catalog.for_endpoint("mantle").namespace
    mantle_sources = [s for s in sources if s.namespace == mantle_namespace]
    usage: list[AlarmSpec] = []
    if alert_on_mantle_usage and mantle_sources:
        usage = build_usage_alarms(
            mantle_sources,
            max_metrics_per_alarm=max_metrics_per_alarm,
            period_seconds=period_seconds,
            name_prefix="mantle-usage",
            why="Any Mantle traffic is reported: Mantle calls are not in the model invocation logs.",
        )
    project_sources, project_prices, application_spend = _project_alarms(
        applications_with_projects or {},
        metric_catalog=metric_catalog,
        prices=prices,
        hours_per_month=hours_per_month,
        alarm_factor=alarm_factor,
        max_metrics_per_alarm=max_metrics_per_alarm,
        period_seconds=period_seconds,
    )
    source_prices.update(project_prices)
    runtime = metric_catalog.for_endpoint("runtime")
    counted_apart = runtime.application_profile_counting == "separate" and bool(applications_with_profiles)
    return CostAlarmPlan(
        threshold_usd_per_hour=threshold,
        threshold_basis=f"monthly budget / {hours_per_month:g} h x {alarm_factor:g}",
        sources=tuple(sources),
        spend=tuple(spend),
        mantle_usage=tuple(usage),
        coverage_note=coverage_note(spend) + _tier_note(metric_catalog, service_tiers, sources),
        metrics_per_profile=len(runtime.token_metrics) if counted_apart else 0,
        source_prices=MappingProxyType(source_prices),
        application_spend=tuple(application_spend),
        project_sources=tuple(project_sources),
    )


def _project_alarms(
    applications: Mapping[str, tuple[str, float]],
    *,
    metric_catalog: MetricCatalog,
    prices: TokenPrices | Callable[[str, str], TokenPrices],
    hours_per_month: float,
    alarm_factor: float,
    max_metrics_per_alarm: int,
    period_seconds: int,
) -> tuple[list[MetricSource], dict[tuple[str, str, str], TokenPrices], list[AlarmSpec]]:
    """Each application's Project series (Mantle prices of its model) and its spend alarm ``spend-<name>``."""
    mantle = metric_catalog.for_endpoint("mantle")
    sources: list[MetricSource] = []
    source_prices: dict[tuple[str, str, str], TokenPrices] = {}
    alarms: list[AlarmSpec] = []
    for name in sorted(applications):
        model_id, monthly_budget_usd = applications[name]
        source = mantle.project_source_for(mantle_project_marker(name), label=f"Mantle Project of {name}")
        price = prices if isinstance(prices, TokenPrices) else prices(model_id, "mantle")
        sources.append(source)
        source_prices[source.key] = price
        (alarm,) = build_spend_alarms(
            [source],
            {source.key: price},
            threshold_usd_per_hour=hourly_threshold_usd(monthly_budget_usd, hours_per_month, alarm_factor),
            max_metrics_per_alarm=max_metrics_per_alarm,
            period_seconds=period_seconds,
            name_prefix=f"spend-{name}",
        )
        # the application's own budget decides it: a per-account spend threshold (StackSets) does not replace it
        alarms.append(replace(alarm, threshold_overridable=False))
    return sources, source_prices, alarms
