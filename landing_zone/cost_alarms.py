"""Near-real-time spend alarms: Bedrock token metrics priced into USD per hour with CloudWatch metric math.

Pure data: this module builds frozen dataclasses (:class:`AlarmSpec`, :class:`MetricSpec`) that the CDK
layer turns into ``cloudwatch.MathExpression`` + ``cloudwatch.Alarm``.  It uses the standard library,
PyYAML and :mod:`landing_zone.pricing` only, never ``aws_cdk`` and never an AWS API.

Inputs
    * metric sources (:class:`MetricSource`): one CloudWatch namespace + dimension value each (a model ID,
      a system inference-profile ID or an application inference-profile ARN), with the token metrics that
      exist for it.  Metric names come from ``catalog/metrics.yaml`` (:func:`load_metric_catalog`);
      :func:`metric_sources_for_plan` derives the sources of a :class:`~landing_zone.plan.Plan`.
    * :class:`~landing_zone.pricing.TokenPrices` (USD per 1M tokens).
    * the threshold in USD per hour (:func:`hourly_threshold_usd` derives one from a monthly budget).
    * the metric-math limit ``metric_math_max_metrics`` of ``catalog/limits.yaml`` (10).

The expression of one alarm, for token sums over ``period`` seconds (``P_*`` in USD per 1M tokens)::

    USD per hour = (in * P_in + cr * P_cr + cw * P_cw + out * P_out  [+ the same for every source])
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

import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import yaml

from landing_zone import pricing
from landing_zone.pricing import CostEstimate, PricingError, TokenPrices, Workload, estimate_cost

if TYPE_CHECKING:  # only for annotations: the plan module needs nothing from here
    from landing_zone.plan import Plan

__all__ = [
    "DEFAULT_METRICS_PATH",
    "DEFAULT_PERIOD_SECONDS",
    "MAX_METRICS_LIMIT_NAME",
    "TOKEN_KINDS",
    "CostAlarmError",
    "EndpointMetrics",
    "MetricCatalog",
    "MetricSource",
    "MetricSpec",
    "AlarmSpec",
    "MonthlyBudget",
    "load_metric_catalog",
    "build_spend_alarms",
    "coverage_note",
    "hourly_threshold_usd",
    "is_valid_metric_id",
    "metric_sources_for_plan",
    "metric_assumptions",
    "evaluate_expression",
    "config_workload",
    "monthly_budget",
]

DEFAULT_METRICS_PATH = Path(__file__).resolve().parent / "catalog" / "metrics.yaml"
DEFAULT_PERIOD_SECONDS = 300
# Name of the limit in catalog/limits.yaml: metrics one metric-math alarm may reference.
MAX_METRICS_LIMIT_NAME = "metric_math_max_metrics"

# Token kinds in expression order, with the short tag used in metric IDs and the price that applies.
TOKEN_KINDS: tuple[str, ...] = ("input", "cache_read", "cache_write", "output")
_KIND_TAG = {"input": "in", "cache_read": "cr", "cache_write": "cw", "output": "out"}
_KIND_PRICE = {
    "input": "input_usd_per_million",
    "cache_read": "cache_read_usd_per_million",
    "cache_write": "cache_write_usd_per_million",
    "output": "output_usd_per_million",
}

# How a call through an application inference profile is counted in AWS/Bedrock (catalog/metrics.yaml)
APPLICATION_PROFILE_COUNTING = ("separate", "also-under-source")

# CloudWatch metric-data-query IDs: start with a lowercase letter; letters, digits and '_' only.
_METRIC_ID = re.compile(r"^[a-z][a-zA-Z0-9_]{0,254}$")
_ALARM_DESCRIPTION_MAX = 1024  # CloudWatch AlarmDescription limit (characters)
_MILLION = 1_000_000
_SECONDS_PER_HOUR = 3600
_HOURS_PER_DAY = 24.0


class CostAlarmError(PricingError):
    """Invalid alarm input.  Like every PricingError: names the field, the value and what is allowed."""


# --------------------------------------------------------------------------------------------------
# Validation helpers
# --------------------------------------------------------------------------------------------------


def _positive(field_name: str, value: Any) -> float:
    return pricing._positive(field_name, value, error=CostAlarmError)


def _text(field_name: str, value: Any) -> str:
    return pricing._text(field_name, value, error=CostAlarmError)


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
# Metric catalog (catalog/metrics.yaml)
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MetricSource:
    """One thing whose token metrics are priced: a namespace + one dimension value.

    ``token_metrics`` maps a token kind (``input``, ``cache_read``, ``cache_write``, ``output``) to the
    CloudWatch metric name that counts it; only the kinds listed are priced.
    """

    namespace: str
    dimension_name: str
    dimension_value: str  # model ID, inference-profile ID or application-profile ARN
    token_metrics: Mapping[str, str]
    label: str = ""
    verified: bool = True  # False when the metric or dimension names are assumptions

    def __post_init__(self) -> None:
        where = f"metric source {self.label or self.dimension_value!r}"
        for name in ("namespace", "dimension_name", "dimension_value"):
            _text(f"{where}.{name}", getattr(self, name))
        if not isinstance(self.token_metrics, Mapping) or not self.token_metrics:
            raise CostAlarmError(
                f"{where}.token_metrics", self.token_metrics, f"a non-empty mapping with keys from {TOKEN_KINDS}"
            )
        unknown = [k for k in self.token_metrics if k not in TOKEN_KINDS]
        if unknown:
            raise CostAlarmError(f"{where}.token_metrics", unknown, f"token kinds from {TOKEN_KINDS}")
        for kind, metric in self.token_metrics.items():
            _text(f"{where}.token_metrics.{kind}", metric)
        ordered = {k: self.token_metrics[k] for k in TOKEN_KINDS if k in self.token_metrics}
        object.__setattr__(self, "token_metrics", MappingProxyType(ordered))
        if not self.label:
            object.__setattr__(self, "label", f"{self.namespace} {self.dimension_name}={self.dimension_value}")

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.namespace, self.dimension_name, self.dimension_value)


@dataclass(frozen=True)
class EndpointMetrics:
    """The metrics one invocation endpoint (``runtime`` or ``mantle``) reports, with provenance."""

    endpoint: str
    namespace: str
    dimension: str
    token_metrics: Mapping[str, str]
    other_metrics: Mapping[str, str]
    statistic: str
    source: str
    as_of: str
    verified: bool
    description: str = ""
    unverified_metrics: tuple[str, ...] = ()  # token kinds whose metric names are assumptions
    assumptions: tuple[str, ...] = ()  # explicit, reported assumptions (see catalog/metrics.yaml)
    application_profile_counting: str = "separate"  # runtime only: "separate" | "also-under-source"

    @property
    def fully_verified(self) -> bool:
        return self.verified and not self.unverified_metrics

    def source_for(self, dimension_value: str, label: str = "") -> MetricSource:
        """The :class:`MetricSource` of one dimension value (model ID, profile ID or profile ARN)."""
        return MetricSource(
            namespace=self.namespace,
            dimension_name=self.dimension,
            dimension_value=dimension_value,
            token_metrics=self.token_metrics,
            label=label,
            verified=self.fully_verified,
        )


@dataclass(frozen=True)
class MetricCatalog:
    """The parsed ``catalog/metrics.yaml``."""

    endpoints: Mapping[str, EndpointMetrics]
    path: str = ""

    def for_endpoint(self, endpoint: str) -> EndpointMetrics:
        try:
            return self.endpoints[endpoint]
        except KeyError:
            known = ", ".join(sorted(self.endpoints)) or "none"
            raise CostAlarmError("metrics endpoint", endpoint, f"one of: {known}") from None


def load_metric_catalog(path: Path | str | None = None) -> MetricCatalog:
    """Load and validate ``catalog/metrics.yaml`` (default: the shipped file)."""
    file = Path(path) if path is not None else DEFAULT_METRICS_PATH
    try:
        raw = yaml.safe_load(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CostAlarmError("metric catalog path", str(file), "a readable YAML file", hint=str(exc)) from None
    except yaml.YAMLError as exc:
        raise CostAlarmError("metric catalog", str(file), "valid YAML", hint=str(exc)) from None
    if not isinstance(raw, Mapping):
        raise CostAlarmError(str(file), raw, "a mapping")
    if raw.get("schema_version") != 1:
        raise CostAlarmError("schema_version", raw.get("schema_version"), "1")
    entries = raw.get("endpoints")
    if not isinstance(entries, Mapping) or not entries:
        raise CostAlarmError("endpoints", entries, "a non-empty mapping of endpoint name to metrics")
    endpoints: dict[str, EndpointMetrics] = {}
    for name, entry in entries.items():
        endpoints[str(name)] = _parse_endpoint(str(name), entry)
    return MetricCatalog(endpoints=MappingProxyType(endpoints), path=str(file))


def _parse_endpoint(name: str, entry: Any) -> EndpointMetrics:
    prefix = f"endpoints.{name}"
    if not isinstance(entry, Mapping):
        raise CostAlarmError(prefix, entry, "a mapping")
    tokens = entry.get("token_metrics")
    if not isinstance(tokens, Mapping) or not tokens:
        raise CostAlarmError(f"{prefix}.token_metrics", tokens, f"a non-empty mapping with keys from {TOKEN_KINDS}")
    unknown = [k for k in tokens if k not in TOKEN_KINDS]
    if unknown:
        raise CostAlarmError(f"{prefix}.token_metrics", unknown, f"token kinds from {TOKEN_KINDS}")
    others = entry.get("other_metrics") or {}
    if not isinstance(others, Mapping):
        raise CostAlarmError(f"{prefix}.other_metrics", others, "a mapping")
    verified = entry.get("verified")
    if not isinstance(verified, bool):
        raise CostAlarmError(f"{prefix}.verified", verified, "true or false")
    statistic = entry.get("statistic", "Sum")
    if statistic != "Sum":
        raise CostAlarmError(f"{prefix}.statistic", statistic, "'Sum' (token counts are summed per period)")
    unverified = entry.get("unverified_metrics") or []
    if not isinstance(unverified, list) or any(k not in tokens for k in unverified):
        raise CostAlarmError(f"{prefix}.unverified_metrics", unverified, f"a list of this entry's token kinds ({list(tokens)})")
    assumptions = entry.get("assumptions") or []
    if not isinstance(assumptions, list) or not all(isinstance(a, str) and a.strip() for a in assumptions):
        raise CostAlarmError(f"{prefix}.assumptions", assumptions, "a list of sentences")
    if unverified and not assumptions:
        raise CostAlarmError(f"{prefix}.assumptions", assumptions, "one sentence per unverified metric: what was searched")
    counting = entry.get("application_profile_counting", "separate")
    if counting not in APPLICATION_PROFILE_COUNTING:
        raise CostAlarmError(f"{prefix}.application_profile_counting", counting, " or ".join(APPLICATION_PROFILE_COUNTING))
    return EndpointMetrics(
        endpoint=name,
        namespace=_text(f"{prefix}.namespace", entry.get("namespace")),
        dimension=_text(f"{prefix}.dimension", entry.get("dimension")),
        token_metrics=MappingProxyType(
            {k: _text(f"{prefix}.token_metrics.{k}", tokens[k]) for k in TOKEN_KINDS if k in tokens}
        ),
        other_metrics=MappingProxyType({str(k): _text(f"{prefix}.other_metrics.{k}", v) for k, v in others.items()}),
        statistic=statistic,
        source=_text(f"{prefix}.source", entry.get("source")),
        as_of=_text(f"{prefix}.as_of", entry.get("as_of")),
        verified=verified,
        description=str(entry.get("description", "")),
        unverified_metrics=tuple(unverified),
        assumptions=tuple(assumptions),
        application_profile_counting=counting,
    )


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
    threshold_usd_per_hour: float
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
            "threshold_usd_per_hour": self.threshold_usd_per_hour,
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


def _expression(metric_terms: Sequence[tuple[str, float]], period_seconds: int) -> str:
    terms = " + ".join(f"FILL({metric_id}, 0) * {_num(price)}" for metric_id, price in metric_terms)
    return f"({terms}) / {_num(_MILLION)} * {_num(_SECONDS_PER_HOUR / period_seconds)}"


def _description(
    threshold: float, prices: TokenPrices, period_seconds: int, labels: Sequence[str], part: int, parts: int
) -> str:
    text = (
        f"Estimated Bedrock spend rate above {threshold:,.2f} USD/hour: token metrics summed over "
        f"{period_seconds} s and priced at {prices.source_name!r} "
        f"(as of {prices.as_of}, {'verified' if prices.verified else 'NOT verified'}). "
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


def build_spend_alarms(
    sources: Iterable[MetricSource],
    prices: TokenPrices,
    *,
    threshold_usd_per_hour: float,
    max_metrics_per_alarm: int,
    period_seconds: int = DEFAULT_PERIOD_SECONDS,
    name_prefix: str = "spend",
) -> list[AlarmSpec]:
    """Spend-rate alarms over ``sources`` at ``prices``; see the module docstring for the formula.

    Metric IDs are ``m<source index>_<in|cr|cw|out>`` (unique across all alarms built).  Sources are packed
    in order into as few alarms as ``max_metrics_per_alarm`` allows; each alarm compares only its own
    part with the full ``threshold_usd_per_hour`` (see :func:`coverage_note`).

    Raises CostAlarmError for no sources, a source listed twice, a source needing more metrics than the
    limit, a threshold that is not > 0, a limit that is not a whole number >= 1, or a period that is not a
    whole number of minutes.
    """
    source_list = list(sources)
    if not source_list:
        raise CostAlarmError("sources", [], "at least one metric source")
    seen: dict[tuple[str, str, str], str] = {}
    for source in source_list:
        if not isinstance(source, MetricSource):
            raise CostAlarmError("sources", source, "MetricSource instances")
        if source.key in seen:
            raise CostAlarmError(
                f"metric source {source.label!r}", source.key, "each namespace/dimension value once (it would count twice)"
            )
        seen[source.key] = source.label
    threshold = _positive("threshold_usd_per_hour", threshold_usd_per_hour)
    if (
        isinstance(max_metrics_per_alarm, bool)
        or not isinstance(max_metrics_per_alarm, int)
        or max_metrics_per_alarm < 1
    ):
        raise CostAlarmError("max_metrics_per_alarm", max_metrics_per_alarm, "a whole number >= 1")
    period = _validate_period(period_seconds)
    prefix = _text("name_prefix", name_prefix)

    groups = _pack(source_list, max_metrics_per_alarm)
    parts = len(groups)
    alarms: list[AlarmSpec] = []
    for part, group in enumerate(groups, start=1):
        metrics: list[MetricSpec] = []
        terms: list[tuple[str, float]] = []
        for index, source in group:
            for kind, metric_name in source.token_metrics.items():
                metric_id = f"m{index}_{_KIND_TAG[kind]}"
                if not is_valid_metric_id(metric_id):  # cannot happen with the pattern above; kept as a guard
                    raise CostAlarmError("metric id", metric_id, "a lowercase letter, then letters, digits or '_'")
                metrics.append(
                    MetricSpec(
                        id=metric_id,
                        namespace=source.namespace,
                        metric_name=metric_name,
                        dimensions=MappingProxyType({source.dimension_name: source.dimension_value}),
                        statistic="Sum",
                        period=period,
                        label=f"{metric_name} {source.label}",
                    )
                )
                terms.append((metric_id, getattr(prices, _KIND_PRICE[kind])))
        labels = tuple(source.label for _, source in group)
        alarms.append(
            AlarmSpec(
                name_suffix=prefix if parts == 1 else f"{prefix}-{part}-of-{parts}",
                metrics=tuple(metrics),
                expression=_expression(terms, period),
                threshold_usd_per_hour=threshold,
                description=_description(threshold, prices, period, labels, part, parts),
                period_seconds=period,
                part=part,
                parts=parts,
                source_labels=labels,
                unverified_sources=tuple(source.label for _, source in group if not source.verified),
                max_metrics_per_alarm=max_metrics_per_alarm,
                price_source=prices.source_name,
            )
        )
    return alarms


def evaluate_expression(expression: str, values: Mapping[str, float | None]) -> float:
    """Evaluate a spend expression of :func:`build_spend_alarms` offline, as CloudWatch would for one period.

    ``values`` maps metric IDs to the period's Sum (None or absent: no data point, which ``FILL(m, 0)`` turns into
    0).  Only the subset of metric math these expressions use is understood: ``FILL(id, 0)``, numbers,
    ``+ - * /`` and parentheses; anything else raises CostAlarmError.  Hand-written because no library evaluates
    CloudWatch metric math outside CloudWatch; it lets tests and ``make cost`` show what an alarm or a dashboard
    widget will compute for a given token series.
    """
    import ast
    import operator

    binary = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}

    def fill(match: re.Match[str]) -> str:
        value = values.get(match.group(1))
        return repr(float(value)) if value is not None else repr(float(match.group(2)))

    text = re.sub(r"FILL\(\s*([a-z][A-Za-z0-9_]*)\s*,\s*([0-9.]+)\s*\)", fill, expression)
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise CostAlarmError("expression", expression, "FILL(id, 0), numbers, + - * / and parentheses") from None

    def walk(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return float(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in binary:
            return float(binary[type(node.op)](walk(node.left), walk(node.right)))
        raise CostAlarmError("expression", expression, "FILL(id, 0), numbers, + - * / and parentheses")

    return walk(tree)


def coverage_note(alarms: Sequence[AlarmSpec]) -> str:
    """What the alarms do and do not catch, for the stack to surface (output, description, docs)."""
    if not alarms:
        return "No spend alarm: no metric source."
    threshold = alarms[0].threshold_usd_per_hour
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
            + " (catalog/metrics.yaml): if they are wrong those alarms never see data."
        )
    notes.append(
        "Alarms see only metrics of their own Region (cross-Region inference reports in the source Region) "
        "and count tokens, not bills: AWS Budgets on billed cost remains the backstop."
    )
    return " ".join(notes)


# --------------------------------------------------------------------------------------------------
# Plan helpers: the sources, workload and budget of a configured landing zone
# --------------------------------------------------------------------------------------------------


def metric_sources_for_plan(
    plan: "Plan",
    metric_catalog: MetricCatalog | None = None,
    application_profiles: Mapping[str, str] | None = None,
) -> list[MetricSource]:
    """The series the spend alarms sum, chosen so that each token is counted once.

    One source per compliant invocation path callable from the home Region, deduplicated, in order: runtime paths
    report under their invoke ID (foundation-model or system-profile ID) in ``AWS/Bedrock``, Mantle paths under the
    Mantle model name in ``AWS/BedrockMantle`` (Model level only: the levels emit independently).  Paths not
    callable from the home Region report in other Regions, where an alarm of this stack cannot see them.

    ``application_profiles`` (application name -> profile ARN, CDK tokens allowed) are added as sources when the
    catalog says a call through one is counted under its ARN only (``application_profile_counting: separate``);
    with ``also-under-source`` they are already inside the IDs they copy and adding them would count twice.
    """
    catalog = metric_catalog or load_metric_catalog()
    home = plan.config.home_region
    sources: list[MetricSource] = []
    seen: set[tuple[str, str, str]] = set()
    for route in plan.routing.compliant_routes(source_region=home):
        endpoint = catalog.for_endpoint(route.endpoint)
        # invoke_id is what the caller names: the FM or profile ID on the runtime, the Mantle model name on Mantle
        source = endpoint.source_for(route.invoke_id, label=f"{route.kind.value} {route.invoke_id}")
        if source.key not in seen:
            seen.add(source.key)
            sources.append(source)
    runtime = catalog.for_endpoint("runtime")
    if application_profiles and runtime.application_profile_counting == "separate":
        for name, arn in sorted(application_profiles.items()):
            sources.append(runtime.source_for(arn, label=f"application profile {name}"))
    return sources


def metric_assumptions(metric_catalog: MetricCatalog | None = None) -> list[str]:
    """Every explicit assumption of the metric catalog, as one sentence each (synth, review and cost report)."""
    catalog = metric_catalog or load_metric_catalog()
    return [f"{e.namespace}: {a}" for e in catalog.endpoints.values() for a in e.assumptions]


def config_workload(plan: "Plan") -> Workload:
    """The configured ``cost.workload`` as a :class:`landing_zone.pricing.Workload`."""
    w = plan.config.cost.workload
    return Workload(
        requests_per_day=w.requests_per_day,
        input_tokens_per_request=w.input_tokens_per_request,
        output_tokens_per_request=w.output_tokens_per_request,
        cached_input_fraction=w.cached_input_fraction,
    )


@dataclass(frozen=True)
class MonthlyBudget:
    """The monthly budget of a plan: explicit (``cost.monthly_budget_usd``) or estimate x headroom."""

    usd: float
    explicit: bool
    basis: str  # one readable sentence
    estimate: CostEstimate  # the configured workload at the configured price source
    headroom: float
    hours_per_month: float = 730.0
    self_hosted_monthly_usd: float = 0.0  # GPU nodes of self_hosting (24/7), when enabled

    @property
    def computed_monthly_usd(self) -> float:
        """What the configuration will spend: token cost + self-hosted nodes."""
        return self.estimate.monthly_usd + self.self_hosted_monthly_usd

    @property
    def hourly_usd(self) -> float:
        return self.usd / self.hours_per_month

    @property
    def daily_usd(self) -> float:
        return self.usd / self.hours_per_month * _HOURS_PER_DAY


def monthly_budget(plan: "Plan") -> MonthlyBudget:
    """``cost.monthly_budget_usd`` if set, else (token cost + self-hosted nodes) x ``budget_headroom``."""
    from landing_zone.self_hosting import monthly_cost_line  # avoids an import cycle through the config

    cost = plan.config.cost
    prices = plan.prices.prices(cost.price_source)
    hours = plan.prices.hours_per_month
    estimate = estimate_cost(config_workload(plan), prices, hours_per_month=hours)
    line = monthly_cost_line(plan.config, plan.prices)
    self_hosted = line.monthly_usd if line is not None else 0.0
    if cost.monthly_budget_usd is not None:
        return MonthlyBudget(
            usd=float(cost.monthly_budget_usd),
            explicit=True,
            basis="set in config (cost.monthly_budget_usd)",
            estimate=estimate,
            headroom=cost.budget_headroom,
            hours_per_month=hours,
            self_hosted_monthly_usd=self_hosted,
        )
    usd = (estimate.monthly_usd + self_hosted) * cost.budget_headroom
    nodes = f" + self-hosted nodes ({self_hosted:,.2f} USD/month)" if line is not None else ""
    return MonthlyBudget(
        usd=usd,
        explicit=False,
        basis=(
            f"computed: configured workload at {cost.price_source!r} "
            f"({estimate.monthly_usd:,.2f} USD/month){nodes} x budget_headroom {cost.budget_headroom:g}"
        ),
        estimate=estimate,
        headroom=cost.budget_headroom,
        hours_per_month=hours,
        self_hosted_monthly_usd=self_hosted,
    )
