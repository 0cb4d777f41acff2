"""The plan's checks across keys and facts: every problem of a configuration that validated field by field."""

from __future__ import annotations

from collections.abc import Sequence
from importlib import metadata

from landing_zone.core.applications import ApplicationPlan
from landing_zone.core.catalog import Catalog, Model
from landing_zone.core.catalog.prices import PriceCatalog
from landing_zone.core.config import MAX_MONTHLY_USD, LandingZoneConfig
from landing_zone.core.routing import RoutingDecision
from landing_zone.cost.budget import MonthlyBudget
from landing_zone.cost.self_hosting import monthly_cost_line
from landing_zone.errors import Described, PricingError, Problem

__all__ = [
    "blame_written_keys",
    "budget_problems",
    "budget_scope_problems",
    "per_request_guardrail_problems",
    "context_window_problems",
    "self_hosting_problems",
]


def blame_written_keys(
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
        reachable = sorted(
            {
                region
                for mr in routing.models
                if model is not None and mr.model.id == model.id
                for route in mr.compliant_routes
                if route.endpoint == "runtime"
                for region in route.source_regions
            }
        )
        where = f" (its compliant runtime paths are callable from {', '.join(reachable)})" if reachable else ""
        out.append(
            Problem(
                "home_region",
                config.home_region,
                f"{default_app_problem.allowed}; `applications` is omitted, so every account gets a default application "
                f"that calls models[0] ({config.models[0]}) from home_region{where}: choose such a home_region, or list "
                "`applications` with a model that is reachable from this one",
            )
        )
    return out


def context_window_problems(config: LandingZoneConfig, models: tuple[Model, ...]) -> list[Problem]:
    """A request holds its prompt and its completion: together at most the largest configured context window."""
    windows = [m.context_window_tokens for m in models if m.context_window_tokens]
    if not windows:
        return []
    w = config.cost.workload
    total = w.input_tokens_per_request + w.output_tokens_per_request
    if total <= max(windows):
        return []
    return [
        Problem(
            "cost.workload.input_tokens_per_request",
            w.input_tokens_per_request,
            f"with output_tokens_per_request {w.output_tokens_per_request:g} a request would hold {total:,.0f} tokens, "
            f"more than the largest context window of the configured models ({max(windows):,} tokens): lower them",
        )
    ]


def budget_problems(config: LandingZoneConfig, budget: MonthlyBudget) -> list[Problem]:
    """The computed monthly budget must be a positive amount AWS Budgets accepts (at most MAX_MONTHLY_USD)."""
    if budget.explicit:
        return []  # bounded by the field itself
    if budget.usd > MAX_MONTHLY_USD:
        return [
            Problem(
                "cost.workload",
                Described(f"a workload that costs {budget.usd / budget.headroom:,.0f} USD/month"),
                f"the computed monthly budget ({budget.usd:,.0f} USD with budget_headroom {budget.headroom:g}) exceeds "
                f"{MAX_MONTHLY_USD:,} USD, the most the landing zone sets: check requests_per_day and the tokens per "
                "request for a typo, or set cost.monthly_budget_usd",
            )
        ]
    if budget.usd < 0.01:
        return [
            Problem(
                "cost.workload.requests_per_day",
                config.cost.workload.requests_per_day,
                "the configured workload costs nothing, so the computed monthly budget would be 0 USD (AWS Budgets needs "
                "an amount above 0): give the expected workload, or set cost.monthly_budget_usd",
            )
        ]
    return []


def budget_scope_problems(config: LandingZoneConfig, applications: Sequence[ApplicationPlan]) -> list[Problem]:
    """``budget_scope: tagged`` counts the spend that carries the landing-zone cost-allocation tag: application
    inference profiles.  A kill switch filtered on it can never fire on spend through paths that carry no tag
    (Mantle's default project, batch jobs), so a configuration whose invokers can use those paths is refused."""
    if config.cost.budget_scope != "tagged" or not config.cost.kill_switch:
        return []
    untagged = []
    for a in applications:
        paths = [p for p, on in (("Mantle", a.mantle_route is not None), ("batch", bool(a.app.batch_role_arns))) if on]
        if paths:
            untagged.append(f"{a.app.name} ({', '.join(paths)})")
    if not untagged:
        return []
    return [
        Problem(
            "cost.budget_scope",
            "tagged",
            "the budget and its kill switch would count only tagged spend (application inference profiles), but "
            f"these applications can also spend through untagged paths: {'; '.join(untagged)}. Set "
            "cost.budget_scope: account (everything billed to the deployment account), or take Mantle and batch "
            "away from those applications",
        )
    ]


def per_request_guardrail_problems(config: LandingZoneConfig, applications: Sequence[ApplicationPlan]) -> list[Problem]:
    """Per-request guardrail enforcement grants only calls that carry bedrock:GuardrailIdentifier: Mantle requests
    cannot, so an application with no runtime path would be granted nothing."""
    guardrail = config.content_guardrail
    if not (guardrail.enabled and guardrail.enforcement == "per-request"):
        return []
    mantle_only = [a.app.name for a in applications if a.route is None]
    if not mantle_only:
        return []
    return [
        Problem(
            "content_guardrail.enforcement",
            "per-request",
            f"applications {', '.join(mantle_only)} reach their model through Mantle only, whose requests cannot carry "
            "bedrock:GuardrailIdentifier, so per-request enforcement would grant them nothing: use enforcement: "
            "account, or give them a model with a runtime path",
        )
    ]


def kubectl_layer_distribution(kubernetes_version: str) -> str:
    """The PyPI distribution of the kubectl Lambda layer for a Kubernetes version (``1.34`` -> ``...-v34``)."""
    return f"aws-cdk.lambda-layer-kubectl-v{kubernetes_version.split('.')[1]}"


def self_hosting_problems(config: LandingZoneConfig, prices: PriceCatalog) -> list[Problem]:
    """What the EKS stack would need but the catalog or the environment does not have (empty when disabled)."""
    sh = config.self_hosting
    if not sh.enabled:
        return []
    problems = []
    try:
        monthly_cost_line(config, prices)
    except PricingError as exc:
        problems.append(Problem("self_hosting.hourly_usd", sh.hourly_usd, str(exc)))
    option = prices.self_hosting.get(sh.instance_type)
    if sh.efa and (option is None or option.network_cards is None):
        problems.append(
            Problem(
                "self_hosting.efa",
                True,
                f"EFA needs the number of network cards of {sh.instance_type}, which core/catalog/prices.yaml does not "
                "give: add self_hosting.<type>.network_cards there (or through a catalog overlay), or set efa: false",
            )
        )
    if sh.apply_manifests:
        distribution = kubectl_layer_distribution(sh.kubernetes_version)
        try:
            metadata.distribution(distribution)  # not imported: the plan never loads aws_cdk
        except metadata.PackageNotFoundError:
            problems.append(
                Problem(
                    "self_hosting.apply_manifests",
                    True,
                    f"needs the kubectl layer for Kubernetes {sh.kubernetes_version}: pip install {distribution} "
                    "(or set apply_manifests: false and apply cdk.out/manifests/ yourself)",
                )
            )
    return problems
