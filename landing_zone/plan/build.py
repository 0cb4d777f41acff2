"""Building the plan: config -> catalogs -> routing -> applications -> budget -> alarms, every problem collected.

One pass, in the order of the data flow; each step reads only what the steps before it decided.  Problems are
collected and raised together as one :class:`~landing_zone.errors.ConfigError` (exit 2 at the CLI edge) at the
points where a later step cannot run without the earlier ones being valid.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from landing_zone.core.applications import ApplicationPlan, has_mantle_project, plan_applications
from landing_zone.core.catalog import Catalog, Model
from landing_zone.core.catalog.metrics import MetricCatalog, load_metric_catalog
from landing_zone.core.catalog.prices import PER_TOKEN_TIERS, PriceCatalog, load_price_catalog
from landing_zone.core.config import LandingZoneConfig, build_config, catalog_for, raw_config
from landing_zone.core.config import placeholders as find_placeholders
from landing_zone.core.routing import ModelRouting, PathKind, RoutingDecision, resolve_routes
from landing_zone.cost.alarms import CostAlarmPlan, plan_cost_alarms
from landing_zone.cost.budget import MonthlyBudget, monthly_budget
from landing_zone.cost.dashboard import DashboardPlan, plan_dashboard
from landing_zone.cost.model_prices import ModelPrices, PricedPart, resolve_model_prices, workload_parts
from landing_zone.cost.quotas import QuotaAlarmPlan, plan_quota_alarms, quota_problems, quota_warnings
from landing_zone.cost.self_hosting import economics, monthly_cost_line, self_hosting_warnings
from landing_zone.errors import ConfigError, Problem
from landing_zone.plan.checks import (
    blame_written_keys,
    budget_problems,
    budget_scope_problems,
    context_window_problems,
    generated_names,
    name_problems,
    per_request_guardrail_problems,
    retention_problems,
    self_hosting_problems,
    service_tier_problems,
)
from landing_zone.plan.detection import detection_problems, legacy_alarm_names, member_detection_resources
from landing_zone.plan.grants import cross_account_grants
from landing_zone.plan.model import Plan, PlanSource
from landing_zone.plan.policies import PolicySet, build_policies, scp_set
from landing_zone.plan.provisioned import ungranted_path_problems
from landing_zone.plan.requirements import (
    application_budget_findings,
    dependent_setting_findings,
    feature_problems,
    retention_endpoint_warnings,
)
from landing_zone.plan.stack_limits import stack_limit_problems
from landing_zone.plan.warnings import (
    budget_warnings,
    kill_switch_warnings,
    mantle_only_warning,
    metric_assumption_warning,
    retention_warning,
    service_tier_warnings,
    unverified_warnings,
)
from landing_zone.policies.guardrails import GuardrailSizeError
from landing_zone.policies.scp_layout import ScpSet

__all__ = ["build_plan", "load_plan"]

# Names known only once the alarms and the dashboard are planned (checked after the other names).
_LATE_NAME_LIMITS = ("cloudwatch_alarm_name_max_length", "cloudwatch_dashboard_name_max_length")


def _unroutable_problems(config: LandingZoneConfig, routing: RoutingDecision, catalog: Catalog) -> list[Problem]:
    problems = []
    resolved = [catalog.require_model(m).id for m in config.models]
    for mr in routing.unroutable_models():
        index = resolved.index(mr.model.id)
        problems.append(
            Problem(
                f"models[{index}]",
                config.models[index],
                f"has no compliant invocation path within compliant_regions [{', '.join(config.compliant_regions)}]"
                f"{'' if config.allow_global_inference else ' (allow_global_inference is false)'}; "
                f"it is offered {mr.offered_summary()}{_global_exception(config, mr)}",
            )
        )
    return problems


def _global_exception(config: LandingZoneConfig, mr: ModelRouting) -> str:
    """What would admit a model whose only path from home_region is a global profile: the explicit exception."""
    if config.allow_global_inference:
        return ""
    global_ids = [
        r.invoke_id
        for r in mr.rejected_routes
        if r.kind is PathKind.GLOBAL_PROFILE and config.home_region in r.source_regions
    ]
    if not global_ids:
        return ""
    return (
        f". Its only path from home_region {config.home_region} is the global profile {', '.join(global_ids)}, which "
        "may process data in any commercial Region, so no path keeps data within compliant_regions; "
        "allow_global_inference: true is the explicit exception that admits it (the review then lists every "
        "destination Region), otherwise choose another model"
    )


def _budget_limit_problems(config: LandingZoneConfig, catalog: Catalog) -> list[Problem]:
    cost = config.cost
    problems = []
    max_emails = catalog.limit("budget_max_emails_per_notification")
    if len(cost.alert_emails) > max_emails:
        problems.append(
            Problem(
                "cost.alert_emails",
                len(cost.alert_emails),
                f"AWS Budgets allows at most {max_emails} e-mail subscribers per notification",
            )
        )
    notifications = len(cost.notify_actual_percent) + len(cost.notify_forecast_percent)
    max_notifications = catalog.limit("budget_max_notifications")
    if notifications > max_notifications:
        problems.append(
            Problem(
                "cost.notify_actual_percent/notify_forecast_percent",
                notifications,
                f"AWS Budgets allows at most {max_notifications} notifications per budget",
            )
        )
    return problems


def _routing_warnings(
    config: LandingZoneConfig, routing: RoutingDecision, applications: tuple[ApplicationPlan, ...]
) -> list[str]:
    warnings = []
    for mr in routing.models:
        if any(a.mantle_only and a.model.id == mr.model.id for a in applications):
            warnings.append(mantle_only_warning(mr, config.home_region, config.compliant_regions))
    for mr in routing.unreachable_from_home():
        regions = sorted({r for route in mr.compliant_routes for r in route.source_regions})
        warnings.append(
            f"model {mr.model.id!r} has compliant paths only from {', '.join(regions)}, not from home_region "
            f"{config.home_region}: the landing zone's VPC endpoints cannot reach it"
        )
    return warnings


def _model_problems(config: LandingZoneConfig, models: tuple[Model, ...]) -> list[Problem]:
    """Settings the allowed models contradict: context window, data retention mode, service tiers."""
    return [
        *context_window_problems(config, models),
        *retention_problems(config, models),
        *service_tier_problems(config, models),
    ]


def _applications(
    config: LandingZoneConfig, routing: RoutingDecision, catalog: Catalog
) -> tuple[tuple[ApplicationPlan, ...], list[Problem]]:
    """The applications, and every problem of them and of the features that act on them."""
    applications, app_problems = plan_applications(config, routing, catalog)
    return applications, [
        *blame_written_keys(config, routing, catalog, app_problems),
        *budget_scope_problems(config, applications),
        *per_request_guardrail_problems(config, applications),
        *feature_problems(config, catalog, applications),
    ]


def _scps(config: LandingZoneConfig, routing: RoutingDecision, catalog: Catalog) -> tuple[ScpSet | None, list[Problem]]:
    """The organization's SCPs, built once (the stacks render these, readers read them), or the size problem."""
    try:
        return scp_set(config, routing, catalog), []
    except GuardrailSizeError as exc:
        return None, [Problem(exc.path, exc.got, str(exc))]


def _priced(
    config: LandingZoneConfig,
    catalog: Catalog,
    routing: RoutingDecision,
    applications: tuple[ApplicationPlan, ...],
    prices: PriceCatalog,
) -> tuple[ModelPrices, tuple[PricedPart, ...], list[Problem]]:
    """The model prices, the priced parts of the workload and the pricing problems of a configuration that has no
    other problem; the self-hosting problems only once everything is priced."""
    model_prices, problems = resolve_model_prices(config, prices, routing)
    problems = list(problems)
    parts: tuple[PricedPart, ...] = ()
    if not problems:
        parts, part_problems = workload_parts(
            config, catalog, routing, applications, model_prices, hours_per_month=prices.hours_per_month
        )
        problems += part_problems
    if not problems:
        problems += self_hosting_problems(config, prices)
    return model_prices, parts, problems


def _cost_alarms(
    config: LandingZoneConfig,
    catalog: Catalog,
    routing: RoutingDecision,
    metrics: MetricCatalog,
    prices: PriceCatalog,
    model_prices: ModelPrices,
    budget: MonthlyBudget,
    applications: tuple[ApplicationPlan, ...],
) -> CostAlarmPlan:
    """The spend alarms: on the models' series, each application's profile and each Mantle project's series."""
    cost = config.cost
    return plan_cost_alarms(
        routing,
        home_region=config.home_region,
        metric_catalog=metrics,
        prices=model_prices.get,
        tier_prices=model_prices.tier,
        service_tiers=[t for t in config.policy_guardrails.allowed_service_tiers if t in PER_TOKEN_TIERS],
        monthly_budget_usd=budget.usd,
        hours_per_month=prices.hours_per_month,
        alarm_factor=cost.alarm_factor,
        max_metrics_per_alarm=catalog.limit("metric_math_max_metrics"),
        period_seconds=cost.alarm_period_seconds,
        alert_on_mantle_usage=cost.alert_on_mantle_usage,
        applications_with_profiles={
            a.app.name: (a.model.id, a.route.kind.value) for a in applications if a.route is not None
        },
        applications_with_projects={  # each one's spend alarm on its Project's series, at its own budget
            a.app.name: (a.model.id, a.app.monthly_budget_usd or budget.usd)
            for a in applications
            if has_mantle_project(a, config)
        },
    )


def build_plan(raw: Mapping[str, Any], *, origin: str = "configuration") -> Plan:
    """The plan of a raw configuration mapping; raises ConfigError listing every problem found."""
    catalog = catalog_for(raw, origin)
    prices = load_price_catalog()
    metrics = load_metric_catalog()
    config = build_config(raw, catalog=catalog, price_sources=prices.offers(), origin=origin)
    models = tuple(catalog.require_model(m) for m in config.models)  # validated by build_config
    routing = resolve_routes(
        models=models,
        home_region=config.home_region,
        compliant_regions=config.compliant_regions,
        allow_global_inference=config.allow_global_inference,
        catalog=catalog,
    )

    problems = _unroutable_problems(config, routing, catalog)
    applications: tuple[ApplicationPlan, ...] = ()
    if not problems:
        applications, problems = _applications(config, routing, catalog)
    dependent_problems, dependent_warnings = dependent_setting_findings(config)
    problems += dependent_problems
    problems += _budget_limit_problems(config, catalog)
    scps: ScpSet | None = None
    if config.organization is not None and not problems:
        scps, problems = _scps(config, routing, catalog)
    problems += _model_problems(config, models)
    model_prices = ModelPrices(MappingProxyType({}))
    parts: tuple[PricedPart, ...] = ()
    if not problems:
        model_prices, parts, problems = _priced(config, catalog, routing, applications, prices)
    problems += name_problems(generated_names(config, applications, scp_names=scps.names if scps else ()), catalog)
    if problems:
        raise ConfigError(problems, origin=origin)

    budget = monthly_budget(config, prices, parts)
    app_budget_problems, app_budget_warnings = application_budget_findings(config, budget, applications)
    if problems := [*budget_problems(config, budget), *app_budget_problems]:
        raise ConfigError(problems, origin=origin)
    quota_alarms, workload_quota_warnings = _quotas(config, catalog, routing, applications, metrics, parts, origin)
    cost_alarms = _cost_alarms(config, catalog, routing, metrics, prices, model_prices, budget, applications)
    if problems := stack_limit_problems(
        config,
        catalog,
        applications,
        cost_alarms,
        quota_alarms=len(quota_alarms.specs),
        member_detection=member_detection_resources(config, routing, catalog),
    ):
        raise ConfigError(problems, origin=origin)
    dashboard = _dashboard(
        config, catalog, prices, metrics, cost_alarms, budget.usd, model_prices, parts, quota_alarms=quota_alarms
    )
    late_names = generated_names(
        config,
        (),
        alarm_suffixes=[a.name_suffix for a in (*cost_alarms.alarms, *quota_alarms.specs)],
        dashboard_name=dashboard.name,
        legacy_alarm_names=list(legacy_alarm_names(config, routing).values()),
    )
    if problems := name_problems([n for n in late_names if n.limit in _LATE_NAME_LIMITS], catalog):
        raise ConfigError(problems, origin=origin)

    warnings = _warnings(config, catalog, models, prices, metrics, routing, applications, budget, model_prices, parts)
    warnings += workload_quota_warnings + quota_warnings(quota_alarms, config)
    warnings += app_budget_warnings + dependent_warnings
    return Plan(
        config=config,
        catalog=catalog,
        prices=prices,
        model_prices=model_prices,
        workload_parts=parts,
        metrics=metrics,
        routing=routing,
        applications=applications,
        budget=budget,
        cost_alarms=cost_alarms,
        quota_alarms=quota_alarms,
        dashboard=dashboard,
        policies=_policies(config, routing, catalog, applications, scps, origin),
        cross_account_grants=cross_account_grants(config, applications),
        warnings=tuple(warnings),
        placeholders=find_placeholders(config),
        source=PlanSource(raw=json.loads(json.dumps(raw)), origin=origin, overlays=_overlay_texts(raw)),
    )


def _policies(
    config: LandingZoneConfig,
    routing: RoutingDecision,
    catalog: Catalog,
    applications: tuple[ApplicationPlan, ...],
    scps: ScpSet | None,
    origin: str,
) -> PolicySet:
    """Every policy document, once; a path provisioned for an application but not granted by its invoker policy
    (:mod:`landing_zone.plan.provisioned`), or detection rules that cannot be deployed, raise."""
    policies = build_policies(config, routing, catalog, applications, scps=scps)
    problems = ungranted_path_problems(config, applications, policies.invokers)
    if problems := [*problems, *detection_problems(config, policies.detection, catalog)]:
        raise ConfigError(problems, origin=origin)
    return policies


def _quotas(
    config: LandingZoneConfig,
    catalog: Catalog,
    routing: RoutingDecision,
    applications: tuple[ApplicationPlan, ...],
    metrics: MetricCatalog,
    parts: tuple[PricedPart, ...],
    origin: str,
) -> tuple[QuotaAlarmPlan, list[str]]:
    """The quota headroom alarms, and the warnings of the workload against the quotas (a workload above a quota, or
    an override for a model that is not configured, raises)."""
    problems, warnings = quota_problems(config, catalog, routing, parts)
    if problems:
        raise ConfigError(problems, origin=origin)
    return plan_quota_alarms(config, catalog, routing, applications, metrics), warnings


def _warnings(
    config: LandingZoneConfig,
    catalog: Catalog,
    models: tuple[Model, ...],
    prices: PriceCatalog,
    metrics: MetricCatalog,
    routing: RoutingDecision,
    applications: tuple[ApplicationPlan, ...],
    budget: MonthlyBudget,
    model_prices: ModelPrices,
    parts: tuple[PricedPart, ...],
) -> list[str]:
    """Every warning of a valid configuration, in the order they are printed."""
    warnings = unverified_warnings(models, model_prices.unverified)
    if (metric_warning := metric_assumption_warning(metrics)) is not None:
        warnings.append(metric_warning)
    warnings += self_hosting_warnings(config, prices, model_prices, parts)
    warnings += _routing_warnings(config, routing, applications)
    warnings += budget_warnings(config, budget)
    warnings += kill_switch_warnings(config, applications)
    if (retention := retention_warning(config.data_retention.mode, models)) is not None:
        warnings.append(retention)
    warnings += retention_endpoint_warnings(config, catalog, applications)
    warnings += service_tier_warnings(config, models)
    return warnings


def _dashboard(
    config: LandingZoneConfig,
    catalog: Catalog,
    prices: PriceCatalog,
    metrics: MetricCatalog,
    alarms: CostAlarmPlan,
    monthly_budget_usd: float,
    model_prices: ModelPrices,
    parts: tuple[PricedPart, ...],
    *,
    quota_alarms: QuotaAlarmPlan | None = None,
) -> DashboardPlan:
    """The operations dashboard: the alarms' sources and prices, plus the self-hosted line when on."""
    line = monthly_cost_line(config, prices) if config.self_hosting.enabled else None
    breakeven = None
    if line is not None:
        breakeven = economics(config, prices, model_prices, parts).break_even.breakeven_tokens_per_second_blended
    return plan_dashboard(
        name=config.name,
        region=config.home_region,
        alarms=alarms,
        metric_catalog=metrics,
        monthly_budget_usd=monthly_budget_usd,
        hours_per_month=prices.hours_per_month,
        max_metrics_per_widget=catalog.limit("dashboard_max_metrics_per_widget"),
        self_hosted_usd_per_hour=line.nodes * line.hourly_usd if line is not None else None,
        breakeven_tokens_per_second=breakeven,
        cache_writes=any(p.workload.cache_write_fraction > 0 for p in parts),
        quota_alarms=quota_alarms,
    )


def _overlay_texts(raw: Mapping[str, Any]) -> tuple[str, ...]:
    """The text of each catalog overlay (validated and read once already by catalog_for)."""
    overlays = raw.get("catalog_overlays") or ()
    return tuple(Path(o).read_text(encoding="utf-8") for o in overlays)


def load_plan(
    defaults: Mapping[str, Any] | None, config_path: str | Path | None = None, *, key: str = "config"
) -> Plan:
    """The plan of ``config_path`` (or of ``defaults``, the ``cdk.json`` context, when it is None); ``key``: what the
    user gave the path as (``config``, the CDK context key; ``--config`` on the command line)."""
    raw, origin = raw_config(defaults, config_path, key=key)
    return build_plan(raw, origin=origin)
