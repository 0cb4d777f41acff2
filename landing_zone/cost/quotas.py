"""Quota headroom alarms: a model's tokens per minute and per day against the account's Bedrock quotas.

Pure data, like the spend alarms (:mod:`landing_zone.cost.alarms`): :func:`plan_quota_alarms` returns
:class:`AlarmSpec` values that the CDK layer renders with the same construct, notifying the same SNS topic.

What is compared with what (the quota kinds and their names are data: ``core/catalog/quotas.yaml``; quota values
come from a ``discover`` overlay or ``cost.quota_alarms.overrides``, per model, in ``home_region``)

* on-demand and cross-Region tokens per minute (https://docs.aws.amazon.com/bedrock/latest/userguide/quotas-runtime.html):
  ``AWS/Bedrock`` ``EstimatedTPMQuotaUsage`` (dimension ``ModelId`` = the ID the caller invokes: the model ID
  in-Region, the inference-profile ID cross-Region, an application profile's ARN for calls through it), summed
  over 60 s and over every ID whose traffic counts against the quota, above ``headroom`` x the quota.  AWS says
  the metric "is an approximation and does not reflect the reservation-based token consumption that drives
  throttling decisions ... Do not use this metric as the sole indicator"
  (https://docs.aws.amazon.com/bedrock/latest/userguide/monitoring-runtime-metrics.html): throttling reserves
  the input tokens plus ``max_tokens`` up front, so requests can be throttled below the alarm.  Watch
  ``InvocationThrottles`` (operations dashboard) beside it.
* model invocation tokens per day: no alarm can sum a rolling 24 h (an alarm's period x evaluation periods is at
  most one day, and a 1-day period is a UTC calendar day while AWS does not say whether the daily quota is rolling
  or calendar).  The alarm sums the tokens that count against the quota (input + cache write + output; cache
  reads do not count) over each hour and multiplies by 24: it fires when the last hour's rate would exhaust
  ``headroom`` x the daily quota within a day.  It never misses a day whose use passes ``headroom`` x the quota
  (such a day has at least one hour above 1/24 of it) and may fire early on a short burst that the rest of the
  day would not follow.
* Mantle input and output tokens per minute (https://docs.aws.amazon.com/bedrock/latest/userguide/quotas-mantle.html):
  ``AWS/BedrockMantle`` ``TotalInputTokens`` / ``TotalOutputTokens`` at the ``Model`` level, summed over 60 s.
  Cached input read through prompt caching does not count against the input quota; the billable metric may
  include it, so the alarm may fire early, never late.

Only ``home_region``: Bedrock publishes these metrics in the Region the call is made from (cross-Region inference
included) and the configuration refuses any other inference source Region (``inference_source_regions``).  A
metric-math alarm references at most ``metric_math_max_metrics`` metrics; a quota whose series need more is
split into parts that each compare their share with the whole threshold, as the spend alarms do.

:func:`quota_problems` turns a configured workload (``cost.workload``, a daily average) above a quota into a
configuration error, and above ``headroom`` x the quota into a warning.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from landing_zone.core.applications import ApplicationPlan
from landing_zone.core.catalog import Catalog, Model
from landing_zone.core.catalog.metrics import MetricCatalog
from landing_zone.core.catalog.quotas import QUOTA_KINDS, QuotaCatalog, QuotaKind, quota_name
from landing_zone.core.config import LandingZoneConfig
from landing_zone.core.routing import RoutingDecision
from landing_zone.cost.alarms import AlarmSpec, MetricSpec, application_profile_marker
from landing_zone.cost.model_prices import PricedPart
from landing_zone.errors import Problem

__all__ = [
    "KIND_TAGS",
    "MissingQuota",
    "QuotaAlarm",
    "QuotaAlarmPlan",
    "QuotaSeries",
    "plan_quota_alarms",
    "quota_problems",
    "quota_warnings",
    "workload_quota_use",
]

# The short tag of each kind in alarm names: <name>-quota-<model ID>-<tag>
KIND_TAGS = {
    "on_demand_tokens_per_minute": "tpm-on-demand",
    "cross_region_tokens_per_minute": "tpm-cross-region",
    "tokens_per_day": "tpd",
    "mantle_input_tokens_per_minute": "tpm-mantle-input",
    "mantle_output_tokens_per_minute": "tpm-mantle-output",
}
TPD_PERIOD_SECONDS = 3600  # the daily quota's alarm sums an hour and projects it over 24 hours
_MINUTES_PER_DAY = 1440
_ALARM_DESCRIPTION_MAX = 1024


@dataclass(frozen=True)
class QuotaSeries:
    """One dimension value whose metrics count against a quota (an invoked ID or an application profile)."""

    namespace: str
    dimension_name: str
    dimension_value: str
    metric_names: tuple[str, ...]
    label: str


@dataclass(frozen=True)
class QuotaAlarm:
    """The alarm(s) of one quota of one model in one Region, with the quota's value and provenance."""

    model_id: str
    region: str
    kind: str
    quota_name: str
    quota: float  # tokens per minute or per day
    unit: str  # "tokens/minute" | "tokens/day"
    source: str
    as_of: str
    verified: bool
    headroom: float
    series: tuple[QuotaSeries, ...]
    specs: tuple[AlarmSpec, ...]

    @property
    def threshold(self) -> float:
        return self.headroom * self.quota

    def as_dict(self) -> dict[str, Any]:
        return {
            "model_id": self.model_id,
            "region": self.region,
            "kind": self.kind,
            "quota_name": self.quota_name,
            "quota": self.quota,
            "unit": self.unit,
            "headroom": self.headroom,
            "threshold": self.threshold,
            "source": self.source,
            "as_of": self.as_of,
            "verified": self.verified,
            "alarms": [s.name_suffix for s in self.specs],
            "series": [s.label for s in self.series],
        }


@dataclass(frozen=True)
class MissingQuota:
    """A quota that applies to a configured path but has no value: no alarm for it."""

    model_id: str
    region: str
    kind: str
    quota_name: str


@dataclass(frozen=True)
class QuotaAlarmPlan:
    """Every quota headroom alarm of a configuration (empty when ``cost.quota_alarms.enabled`` is false)."""

    region: str
    headroom: float
    alarms: tuple[QuotaAlarm, ...] = ()
    missing: tuple[MissingQuota, ...] = ()
    usage_metric_caution: str = ""
    usage_metric_source: str = ""

    @property
    def specs(self) -> tuple[AlarmSpec, ...]:
        return tuple(spec for alarm in self.alarms for spec in alarm.specs)


def _unit(kind: QuotaKind) -> str:
    return "tokens/day" if kind.window_seconds == 86400 else "tokens/minute"


def _series(
    kind: QuotaKind,
    model: Model,
    routing: RoutingDecision,
    home_region: str,
    quotas: QuotaCatalog,
    metrics: MetricCatalog,
    applications: Sequence[ApplicationPlan],
) -> list[QuotaSeries]:
    """The series whose use counts against ``kind`` for ``model``: every compliant path of the kind callable from
    ``home_region``, and the application profiles that copy one when the catalog counts them apart."""
    out: list[QuotaSeries] = []
    routes = [
        r
        for r in routing.compliant_routes(source_region=home_region)
        if r.model_id == model.id and r.kind.value in kind.paths
    ]
    if not routes:
        return out
    endpoint = metrics.for_endpoint(routes[0].endpoint)
    names: tuple[str, ...]
    if kind.usage == "estimated_tpm_quota_usage":
        usage = quotas.usage_metric
        namespace, dimension, names = usage.namespace, usage.dimension, (usage.metric_name,)
    else:
        namespace, dimension = endpoint.namespace, endpoint.dimension
        names = tuple(endpoint.token_metrics[k] for k in kind.token_kinds if k in endpoint.token_metrics)
    seen: set[str] = set()
    for route in routes:
        value = model.mantle_name if route.endpoint == "mantle" else route.invoke_id
        if value not in seen:
            seen.add(value)
            out.append(QuotaSeries(namespace, dimension, value, names, f"{route.kind.value} {value}"))
    if "mantle" not in kind.paths and endpoint.application_profile_counting == "separate":
        for app in sorted(applications, key=lambda a: a.app.name):
            if app.route is not None and app.model.id == model.id and app.route.kind.value in kind.paths:
                marker = application_profile_marker(app.app.name)
                out.append(QuotaSeries(namespace, dimension, marker, names, f"application profile {app.app.name}"))
    return out


def _pack(series: Sequence[QuotaSeries], limit: int) -> list[list[tuple[int, QuotaSeries]]]:
    groups: list[list[tuple[int, QuotaSeries]]] = []
    used = limit
    for index, s in enumerate(series):
        if used + len(s.metric_names) > limit:
            groups.append([])
            used = 0
        groups[-1].append((index, s))
        used += len(s.metric_names)
    return groups


def _specs(alarm: QuotaAlarm, kind: QuotaKind, limit: int, caution: str, name_suffix: str) -> tuple[AlarmSpec, ...]:
    period = TPD_PERIOD_SECONDS if kind.window_seconds == 86400 else 60
    groups = _pack(alarm.series, limit)
    parts = len(groups)
    specs: list[AlarmSpec] = []
    for part, group in enumerate(groups, start=1):
        metrics = tuple(
            MetricSpec(
                id=f"q{index}_{j}",
                namespace=s.namespace,
                metric_name=name,
                dimensions=MappingProxyType({s.dimension_name: s.dimension_value}),
                statistic="Sum",
                period=period,
                label=f"{name} {s.label}",
            )
            for index, s in group
            for j, name in enumerate(s.metric_names)
        )
        total = " + ".join(f"FILL({m.id}, 0)" for m in metrics)
        expression = f"({total}) * 24" if period == TPD_PERIOD_SECONDS else total
        how = (
            "tokens of the last hour x 24 (fires when that rate would pass the threshold within a day)"
            if period == TPD_PERIOD_SECONDS
            else "tokens per minute"
        )
        text = (
            f"{alarm.model_id} in {alarm.region}: {how} above {alarm.headroom:.0%} of the quota "
            f"'{alarm.quota_name}' = {alarm.quota:,.0f} {alarm.unit} ({'verified' if alarm.verified else 'NOT verified'}"
            f", {alarm.source}, as of {alarm.as_of}). "
        )
        if parts > 1:
            text += f"Part {part} of {parts}: compares only these series with the whole threshold. "
        if kind.usage == "estimated_tpm_quota_usage":
            text += caution + " "
        text += f"Series: {'; '.join(s.label for _, s in group)}."
        specs.append(
            AlarmSpec(
                name_suffix=name_suffix if parts == 1 else f"{name_suffix}-{part}-of-{parts}",
                metrics=metrics,
                expression=expression,
                threshold=alarm.threshold,
                description=text if len(text) <= _ALARM_DESCRIPTION_MAX else text[: _ALARM_DESCRIPTION_MAX - 3] + "...",
                period_seconds=period,
                part=part,
                parts=parts,
                source_labels=tuple(s.label for _, s in group),
                max_metrics_per_alarm=limit,
                price_source="",
                expression_label=f"{alarm.unit} counted against the quota",
                threshold_unit=alarm.unit,
                threshold_overridable=False,
            )
        )
    return tuple(specs)


def _value(
    config: LandingZoneConfig, quotas: QuotaCatalog, model: Model, region: str, kind: str
) -> tuple[float, str, str, bool] | None:
    """(value, source, as of, verified) of a quota: cost.quota_alarms.overrides first, then the catalog."""
    for key in (model.id, *model.aliases):
        override = config.cost.quota_alarms.overrides.get(key)
        if override is not None and kind in override.values():
            return override.values()[kind], f"cost.quota_alarms.overrides.{key}: {override.source}", "config", True
    found = quotas.value(model.id, region, kind)
    if found is None:
        return None
    return found.value, found.source, found.as_of, found.verified


def plan_quota_alarms(
    config: LandingZoneConfig,
    catalog: Catalog,
    routing: RoutingDecision,
    applications: Sequence[ApplicationPlan],
    metrics: MetricCatalog,
) -> QuotaAlarmPlan:
    """The quota headroom alarms of a configuration, in ``home_region`` (see the module docstring)."""
    settings = config.cost.quota_alarms
    region = config.home_region
    quotas = catalog.quotas
    if quotas is None or not settings.enabled:
        return QuotaAlarmPlan(region=region, headroom=settings.headroom)
    limit = catalog.limit("metric_math_max_metrics")
    alarms: list[QuotaAlarm] = []
    missing: list[MissingQuota] = []
    for mr in routing.models:
        model = mr.model
        for kind_name in QUOTA_KINDS:
            kind = quotas.kinds.get(kind_name)  # type: ignore[call-overload]
            if kind is None:
                continue
            series = _series(kind, model, routing, region, quotas, metrics, applications)
            if not series:
                continue
            name = quota_name(kind.quota_name, model.name)
            found = _value(config, quotas, model, region, kind_name)
            if found is None:
                missing.append(MissingQuota(model.id, region, kind_name, name))
                continue
            value, source, as_of, verified = found
            alarm = QuotaAlarm(
                model.id, region, kind_name, name, value, _unit(kind), source, as_of, verified, settings.headroom,
                tuple(series), (),
            )  # fmt: skip
            specs = _specs(alarm, kind, limit, quotas.usage_metric.caution, f"quota-{model.id}-{KIND_TAGS[kind_name]}")
            alarms.append(replace(alarm, specs=specs))
    return QuotaAlarmPlan(
        region=region,
        headroom=settings.headroom,
        alarms=tuple(alarms),
        missing=tuple(missing),
        usage_metric_caution=quotas.usage_metric.caution,
        usage_metric_source=quotas.usage_metric.source,
    )


# --------------------------------------------------------------------------------------------------
# The configured workload against the quotas
# --------------------------------------------------------------------------------------------------


def workload_quota_use(parts: Sequence[PricedPart], quotas: QuotaCatalog) -> dict[tuple[str, str], float]:
    """(model ID, quota kind) -> the workload's average use in the quota's unit (tokens per minute or per day):
    input not read from the cache (cache writes included) and output, per the kind's token kinds."""
    use: dict[tuple[str, str], float] = {}
    for part in parts:
        w = part.workload
        per_day = {
            "input": w.requests_per_day * w.input_tokens_per_request * max(0.0, 1 - w.cached_input_fraction),
            "output": w.requests_per_day * w.output_tokens_per_request,
        }
        for kind_name, kind in quotas.kinds.items():
            if part.path not in kind.paths:
                continue
            counted = ("input", "output") if kind.usage == "estimated_tpm_quota_usage" else kind.token_kinds
            daily = sum(v for k, v in per_day.items() if k in counted)
            amount = daily if kind.window_seconds == 86400 else daily / _MINUTES_PER_DAY
            use[(part.model_id, kind_name)] = use.get((part.model_id, kind_name), 0.0) + amount
    return use


def _override_key_problems(config: LandingZoneConfig, routing: RoutingDecision) -> list[Problem]:
    known = {name for mr in routing.models for name in (mr.model.id, *mr.model.aliases)}
    return [
        Problem(
            f"cost.quota_alarms.overrides.{key}",
            key,
            f"a model of `models` (ID or alias): {', '.join(mr.model.id for mr in routing.models)}",
        )
        for key in config.cost.quota_alarms.overrides
        if key not in known
    ]


def _where(config: LandingZoneConfig, model: Model, kind: str) -> str:
    for key in (model.id, *model.aliases):
        if key in config.cost.quota_alarms.overrides and kind in config.cost.quota_alarms.overrides[key].values():
            return f"cost.quota_alarms.overrides.{key}.{kind}"
    return "the catalog (a discover overlay in catalog_overlays)"


def quota_problems(
    config: LandingZoneConfig, catalog: Catalog, routing: RoutingDecision, parts: Sequence[PricedPart]
) -> tuple[list[Problem], list[str]]:
    """Problems (override keys that are no configured model; a workload above a quota) and warnings (a workload
    above headroom x a quota: the alarms would fire under the configured load)."""
    problems = _override_key_problems(config, routing)
    warnings: list[str] = []
    quotas = catalog.quotas
    if quotas is None or problems:
        return problems, warnings
    headroom = config.cost.quota_alarms.headroom
    models = {mr.model.id: mr.model for mr in routing.models}
    for (model_id, kind_name), use in sorted(workload_quota_use(parts, quotas).items()):
        model = models[model_id]
        found = _value(config, quotas, model, config.home_region, kind_name)
        if found is None:
            continue
        quota = found[0]
        unit = _unit(quotas.kinds[kind_name])  # type: ignore[index]
        if use > quota:
            problems.append(
                Problem(
                    "cost.workload",
                    f"{use:,.0f} {unit} on {model_id}",
                    f"at most the quota '{quota_name(quotas.kinds[kind_name].quota_name, model.name)}' = "  # type: ignore[index]
                    f"{quota:,.0f} {unit} in {config.home_region} ({_where(config, model, kind_name)}): the configured "
                    "workload (a daily average) would be throttled; request a quota increase (Service Quotas) and "
                    "record the new value, or lower cost.workload",
                )
            )
        elif use > headroom * quota:
            warnings.append(
                f"cost.workload uses {use:,.0f} {unit} on {model_id}, above cost.quota_alarms.headroom "
                f"{headroom:g} x the quota {quota:,.0f} {unit} ({kind_name}, {config.home_region}): the quota alarm "
                "fires under the configured load"
            )
    return problems, warnings


def quota_warnings(plan: QuotaAlarmPlan, config: LandingZoneConfig) -> list[str]:
    """One line naming every quota without a value (no alarm for it), and one for unverified values in use."""
    out: list[str] = []
    if plan.missing:
        listed = "; ".join(f"{m.model_id} {m.kind} ('{m.quota_name}')" for m in plan.missing)
        out.append(
            f"no quota value, so no quota headroom alarm, in {plan.region} for: {listed}. Read the account's values "
            f"with `python -m landing_zone discover --regions {plan.region} --out <file>` and list the file in "
            "catalog_overlays, or set cost.quota_alarms.overrides.<model>.<kind> (with source)"
        )
    unverified = [a for a in plan.alarms if not a.verified]
    if unverified:
        out.append(
            "quota values NOT verified for this account (AWS defaults, not the applied values): "
            + "; ".join(f"{a.model_id} {a.kind} {a.quota:,.0f} ({a.source})" for a in unverified)
        )
    return out


def as_mapping(plan: QuotaAlarmPlan) -> Mapping[str, Any]:
    return {
        "region": plan.region,
        "headroom": plan.headroom,
        "alarms": [a.as_dict() for a in plan.alarms],
        "missing": [m.__dict__ for m in plan.missing],
        "usage_metric_caution": plan.usage_metric_caution,
    }
