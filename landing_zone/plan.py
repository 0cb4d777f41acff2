"""The plan: validated config + catalog + prices + the routing decision, built once and shared by every layer."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from landing_zone.applications import ApplicationPlan, plan_applications
from landing_zone.catalog import Catalog, Model, load_catalog
from landing_zone.config import (
    MAX_MONTHLY_USD,
    LandingZoneConfig,
    build_config,
    placeholders as find_placeholders,
    raw_config,
)
from landing_zone.config_loading import load_data_file
from landing_zone.errors import CatalogError, ConfigError, Described, Problem, shown
from landing_zone.policies.guardrails import GuardrailSizeError, scp_documents
from landing_zone.pricing import PriceCatalog, load_price_catalog, with_contract_prices
from landing_zone.self_hosting import self_hosting_warnings
from landing_zone.routing import ModelRouting, PathKind, RoutingDecision, resolve_routes


@dataclass(frozen=True)
class Plan:
    config: LandingZoneConfig
    catalog: Catalog
    prices: PriceCatalog
    routing: RoutingDecision
    applications: tuple[ApplicationPlan, ...]
    warnings: tuple[str, ...]
    # Placeholder values left in the configuration (example account IDs, example.com e-mails; the rule is in
    # landing_zone.config.placeholders): each a Problem(path, value, why).  They do not stop a synth;
    # `validate` and the CDK app print `placeholder_warning`, reports can mark them.
    placeholders: tuple[Problem, ...] = ()

    @property
    def models(self) -> tuple[Model, ...]:
        return tuple(mr.model for mr in self.routing.models)

    @property
    def placeholder_warning(self) -> str | None:
        """One warning naming every placeholder, grouped by kind (the first few paths of each), or None."""
        if not self.placeholders:
            return None
        groups: dict[str, list[str]] = {}
        for p in self.placeholders:
            groups.setdefault(p.allowed, []).append(f"{p.path} ({shown(p.got, 60)})")
        parts = [
            f"{kind} at {', '.join(paths[:4])}{f' and {len(paths) - 4} more' if len(paths) > 4 else ''}"
            for kind, paths in groups.items()
        ]
        return (
            f"{len(self.placeholders)} placeholder value(s) left in the configuration: {'; '.join(parts)}. "
            "The configuration is valid and synthesizes; replace them with your own before deploying"
        )


def _catalog_for(raw: Mapping[str, Any], origin: str) -> Catalog:
    overlays = raw.get("catalog_overlays") or ()
    if not isinstance(overlays, (list, tuple)) or not all(isinstance(o, str) for o in overlays):
        # Structural problem: report it with the other config problems; use the shipped catalog meanwhile.
        return load_catalog()
    missing = [o for o in overlays if not Path(o).is_file()]
    if missing:
        raise ConfigError([Problem("catalog_overlays", missing, "each overlay must be an existing file")], origin=origin)
    for i, overlay in enumerate(overlays):  # the same size, depth, alias and duplicate-key rules as a config file
        load_data_file(overlay, origin=f"catalog overlay {overlay}", what=f"catalog_overlays[{i}]")
    try:
        return load_catalog(tuple(Path(o) for o in overlays))
    except CatalogError as exc:
        raise ConfigError([Problem("catalog_overlays", list(overlays), str(exc))], origin=origin) from None


def short_citation(source: str, limit: int = 140) -> str:
    """A catalog ``source`` cut after its first URL (or at ``limit`` characters): enough to follow it."""
    match = re.search(r"https://\S+?(?=[\s),;]|$)", source)
    text = source[: match.end()] if match else source
    return text if len(text) <= limit else text[: limit - 3] + "..."


def unverified_warnings(plan_models: tuple[Model, ...], prices: PriceCatalog, price_source: str) -> list[str]:
    warnings = []
    for m in plan_models:
        if not m.verified:
            warnings.append(
                f"catalog model {m.id!r} is unverified ({short_citation(m.source)}; as of {m.as_of}): confirm its ID, "
                "Regions and profiles with `python -m landing_zone discover` before relying on the routing decision"
            )
    p = prices.prices(price_source)
    if not p.verified:
        models = ", ".join(m.id for m in plan_models)
        warnings.append(
            f"price source {price_source!r} is unverified: it prices {p.description or 'an unnamed SKU'} "
            f"({short_citation(p.source)}; as of {p.as_of}), the configured model(s): {models}. Budgets and alarms "
            "use these prices; put a contract price into cost.price_overrides"
        )
    return warnings


def metric_assumption_warning() -> str | None:
    """One line for the explicit assumptions about CloudWatch metric names (catalog/metrics.yaml)."""
    from landing_zone.cost_alarms import load_metric_catalog

    catalog = load_metric_catalog()
    count = sum(len(e.assumptions) for e in catalog.endpoints.values())
    if not count:
        return None
    unverified = [f"{e.namespace} {e.token_metrics[k]}" for e in catalog.endpoints.values() for k in e.unverified_metrics]
    return (
        f"the spend alarms rest on {count} assumption(s) about CloudWatch metrics (catalog/metrics.yaml), among "
        f"them the names {', '.join(unverified) or '-'}: `python -m landing_zone discover` compares them with the "
        "metrics your account publishes"
    )


def build_plan(raw: Mapping[str, Any], *, origin: str = "configuration") -> Plan:
    catalog = _catalog_for(raw, origin)
    prices = load_price_catalog()
    config = build_config(raw, catalog=catalog, price_sources=tuple(prices.price_sources), origin=origin)
    prices = with_contract_prices(
        prices, {name: {**o.prices(), "source": o.source} for name, o in config.cost.price_overrides.items()}
    )
    models = tuple(catalog.resolve_model(m) for m in config.models)
    routing = resolve_routes(
        models=models,
        home_region=config.home_region,
        compliant_regions=config.compliant_regions,
        allow_global_inference=config.allow_global_inference,
        catalog=catalog,
    )
    problems = []
    for mr in routing.unroutable_models():
        index = [catalog.resolve_model(m).id for m in config.models].index(mr.model.id)
        problems.append(
            Problem(
                f"models[{index}]",
                config.models[index],
                f"has no compliant invocation path within compliant_regions [{', '.join(config.compliant_regions)}]"
                f"{'' if config.allow_global_inference else ' (allow_global_inference is false)'}; "
                f"it is offered {mr.offered_summary()}",
            )
        )
    applications: tuple[ApplicationPlan, ...] = ()
    if not problems:
        applications, app_problems = plan_applications(config, routing, catalog)
        problems += _blame_written_keys(config, routing, catalog, app_problems)
    cost = config.cost
    max_emails = catalog.limit("budget_max_emails_per_notification")
    if len(cost.alert_emails) > max_emails:
        problems.append(Problem("cost.alert_emails", len(cost.alert_emails),
                                f"AWS Budgets allows at most {max_emails} e-mail subscribers per notification"))
    notifications = len(cost.notify_actual_percent) + len(cost.notify_forecast_percent)
    max_notifications = catalog.limit("budget_max_notifications")
    if notifications > max_notifications:
        problems.append(Problem("cost.notify_actual_percent/notify_forecast_percent", notifications,
                                f"AWS Budgets allows at most {max_notifications} notifications per budget"))
    if config.self_hosting.enabled and not problems:
        from landing_zone.pricing import PricingError
        from landing_zone.self_hosting import monthly_cost_line

        try:
            monthly_cost_line(config, prices)
        except PricingError as exc:
            problems.append(Problem("self_hosting.hourly_usd", config.self_hosting.hourly_usd, str(exc)))
    if config.organization is not None and not problems:
        try:
            scp_documents(config, routing, catalog)
        except GuardrailSizeError as exc:
            problems.append(Problem("policy_guardrails", "(SCP limits)", str(exc)))
    problems += _context_window_problems(config, models)
    if problems:
        raise ConfigError(problems, origin=origin)
    warnings = unverified_warnings(models, prices, config.cost.price_source)
    if (metric_warning := metric_assumption_warning()) is not None:
        warnings.append(metric_warning)
    warnings += self_hosting_warnings(config, prices)
    for mr in routing.models:
        if any(a.mantle_only and a.model.id == mr.model.id for a in applications):
            warnings.append(mantle_only_warning(mr, config.home_region, config.compliant_regions))
    for mr in routing.unreachable_from_home():
        regions = sorted({r for route in mr.compliant_routes for r in route.source_regions})
        warnings.append(
            f"model {mr.model.id!r} has compliant paths only from {', '.join(regions)}, not from home_region "
            f"{config.home_region}: the landing zone's VPC endpoints cannot reach it"
        )
    plan = Plan(
        config=config,
        catalog=catalog,
        prices=prices,
        routing=routing,
        applications=applications,
        warnings=tuple(warnings),
    )
    from landing_zone.stack_limits import stack_limit_problems

    problems = _budget_problems(plan) + stack_limit_problems(plan)
    if problems:
        raise ConfigError(problems, origin=origin)
    return replace(plan, warnings=(*plan.warnings, *budget_warnings(plan)), placeholders=find_placeholders(config))


def _blame_written_keys(
    config: LandingZoneConfig, routing: RoutingDecision, catalog: Catalog, problems: list[Problem]
) -> list[Problem]:
    """Problems of the default applications (one per account, not written by the user) are about the keys the
    user did write: home_region, compliant_regions and models.  Said once, at home_region."""
    out, default_app_problem = [], None
    for problem in problems:
        if problem.path.startswith("applications (default"):
            default_app_problem = default_app_problem or problem
        else:
            out.append(problem)
    if default_app_problem is not None:
        model = catalog.resolve_model(config.models[0])
        reachable = sorted({
            region for mr in routing.models if model is not None and mr.model.id == model.id
            for route in mr.compliant_routes if route.endpoint == "runtime" for region in route.source_regions
        })
        where = f" (its compliant runtime paths are callable from {', '.join(reachable)})" if reachable else ""
        out.append(Problem(
            "home_region", config.home_region,
            f"{default_app_problem.allowed}; `applications` is omitted, so every account gets a default application "
            f"that calls models[0] ({config.models[0]}) from home_region{where}: choose such a home_region, or list "
            "`applications` with a model that is reachable from this one",
        ))
    return out


def _context_window_problems(config: LandingZoneConfig, models: tuple[Model, ...]) -> list[Problem]:
    """A request holds its prompt and its completion: together at most the largest configured context window."""
    windows = [m.context_window_tokens for m in models if m.context_window_tokens]
    if not windows:
        return []
    w = config.cost.workload
    total = w.input_tokens_per_request + w.output_tokens_per_request
    if total <= max(windows):
        return []
    return [Problem(
        "cost.workload.input_tokens_per_request", w.input_tokens_per_request,
        f"with output_tokens_per_request {w.output_tokens_per_request:g} a request would hold {total:,.0f} tokens, "
        f"more than the largest context window of the configured models ({max(windows):,} tokens): lower them",
    )]


def _budget_problems(plan: Plan) -> list[Problem]:
    """The computed monthly budget must be a positive amount AWS Budgets accepts (at most MAX_MONTHLY_USD)."""
    from landing_zone.cost_alarms import monthly_budget

    budget = monthly_budget(plan)
    if budget.explicit:
        return []  # bounded by the field itself
    if budget.usd > MAX_MONTHLY_USD:
        return [Problem(
            "cost.workload", Described(f"a workload that costs {budget.usd / budget.headroom:,.0f} USD/month"),
            f"the computed monthly budget ({budget.usd:,.0f} USD with budget_headroom {budget.headroom:g}) exceeds "
            f"{MAX_MONTHLY_USD:,} USD, the most the landing zone sets: check requests_per_day and the tokens per "
            "request for a typo, or set cost.monthly_budget_usd",
        )]
    if budget.usd < 0.01:
        return [Problem(
            "cost.workload.requests_per_day", plan.config.cost.workload.requests_per_day,
            "the configured workload costs nothing, so the computed monthly budget would be 0 USD (AWS Budgets needs "
            "an amount above 0): give the expected workload, or set cost.monthly_budget_usd",
        )]
    return []


def mantle_only_warning(mr: ModelRouting, home_region: str, compliant_regions: Sequence[str]) -> str:
    """Why a model is Mantle only, and what would make a runtime path (InvokeModel/Converse) compliant."""
    hints = []
    for route in mr.rejected_routes:
        if route.endpoint != "runtime":
            continue
        missing = sorted(set(route.destination_regions) - set(compliant_regions))
        if route.kind is PathKind.GLOBAL_PROFILE:
            hints.append(f"{route.invoke_id}: set allow_global_inference: true (it may process data in any "
                         "commercial Region)")
        elif home_region not in route.source_regions:
            hints.append(f"{route.invoke_id}: not callable from home_region {home_region} (sources: "
                         f"{', '.join(route.source_regions)})")
        elif missing:
            hints.append(f"{route.invoke_id}: add {', '.join(missing)} to compliant_regions (it may process data there)")
    offered = "; ".join(hints) or "no runtime path is offered from home_region"
    return (
        f"model {mr.model.id!r} has no compliant runtime path from home_region {home_region}: its applications get "
        f"Mantle only (bedrock-mantle, not captured by invocation logging) and no application inference profile. "
        f"To admit a runtime path: {offered}"
    )


def budget_warnings(plan: Plan) -> list[str]:
    """An explicit budget below the computed spend is allowed, but said out loud with both numbers."""
    from landing_zone.cost_alarms import monthly_budget  # the cost model depends on Plan, not vice versa

    budget = monthly_budget(plan)
    computed = budget.computed_monthly_usd
    if budget.explicit and budget.usd < computed:
        return [
            f"cost.monthly_budget_usd {budget.usd:,.2f} USD is below the computed monthly spend of {computed:,.2f} USD "
            f"for the configured workload at {plan.config.cost.price_source!r} prices: budget alerts and the kill "
            f"switch will fire around day {budget.usd / computed * 30.4:.0f} of a month at that load"
        ]
    return []


def load_plan(defaults: Mapping[str, Any] | None, config_path: str | Path | None = None) -> Plan:
    raw, origin = raw_config(defaults, config_path)
    return build_plan(raw, origin=origin)
