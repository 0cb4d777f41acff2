"""Per-application decisions: which account calls it, which model, which compliant path its profile copies."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from landing_zone.core import arns
from landing_zone.core.catalog import Catalog, Model
from landing_zone.core.config import Application, LandingZoneConfig
from landing_zone.core.routing import PathKind, Route, RoutingDecision
from landing_zone.errors import Problem

# `auto` prefers processing closest to home: in-Region, then a geographic profile, then (if allowed) global;
# with no compliant runtime path at all, an application is Mantle only (no application inference profile).
AUTO_ORDER = (PathKind.IN_REGION, PathKind.GEOGRAPHIC_PROFILE, PathKind.GLOBAL_PROFILE)


@dataclass(frozen=True)
class ApplicationPlan:
    app: Application
    caller_account_id: str  # whose principals assume the invoker role
    model: Model
    route: Route | None  # the compliant runtime path the application profile copies; None: Mantle only
    mantle_route: Route | None  # the compliant Mantle path in home_region, if any
    # Its own Mantle Project: access.mantle_projects, a Mantle path, and CloudFormation has the type in home_region
    # (catalog mantle_project_regions); decided once, by plan_applications (:func:`gets_mantle_project`).
    mantle_project: bool = False
    # The compliant Mantle path it is NOT granted: it has a runtime path, no Mantle Project of its own, and the
    # budget counts tagged spend (cost.budget_scope auto or tagged): Mantle in the default project carries no tag.
    withheld_mantle_route: Route | None = None

    @property
    def mantle_only(self) -> bool:
        return self.route is None

    def copy_from_arn(self, *, region: str, account: str, partition: str = arns.PARTITION) -> str:
        """``ModelSource.CopyFrom`` of the application inference profile (runtime applications only)."""
        if self.route is None:
            raise ValueError(f"application {self.app.name!r} has no runtime path (Mantle only): it has no profile")
        if self.route.kind is PathKind.IN_REGION:
            return arns.foundation_model(region, self.model.id, partition)
        return arns.inference_profile(region, account, self.route.require_profile_id(), partition)


def _choose(routes: list[Route], preference: str) -> Route | None:
    kinds = AUTO_ORDER if preference == "auto" else (PathKind(preference),)
    for kind in kinds:
        for route in routes:
            if route.kind is kind:
                return route
    return None


def plan_applications(
    config: LandingZoneConfig, routing: RoutingDecision, catalog: Catalog
) -> tuple[tuple[ApplicationPlan, ...], list[Problem]]:
    plans: list[ApplicationPlan] = []
    problems: list[Problem] = []
    allowed = {mr.model.id: mr for mr in routing.models}
    for i, app in enumerate(config.effective_applications):
        where = f"applications[{i}]" if config.applications else f"applications (default for account {app.account})"
        model = catalog.resolve_model(app.model) if app.model else routing.models[0].model
        if model is None or model.id not in allowed:
            problems.append(
                Problem(f"{where}.model", app.model, f"must be one of the configured models ({', '.join(allowed)})")
            )
            continue
        routes = [r for r in allowed[model.id].compliant_routes if config.home_region in r.source_regions]
        callable_here = [r for r in routes if r.endpoint == "runtime"]
        route = _choose(callable_here, app.path)
        mantle = next((r for r in routes if r.kind is PathKind.MANTLE), None)
        if route is None and (app.path != "auto" or mantle is None):
            problems.append(_no_path(config, where, app.path, model.id, callable_here, mantle))
            continue
        project = gets_mantle_project(config, catalog, mantle)
        withheld = mantle if withholds_default_project(config, route=route, mantle=mantle, project=project) else None
        plans.append(
            ApplicationPlan(
                app=app,
                caller_account_id=config.account_id(app.account),
                model=model,
                route=route,
                mantle_route=None if withheld else mantle,
                mantle_project=project,
                withheld_mantle_route=withheld,
            )
        )
    return tuple(plans), problems


def _no_path(
    config: LandingZoneConfig, where: str, path: str, model_id: str, callable_here: list[Route], mantle: Route | None
) -> Problem:
    """No compliant runtime path of the model is callable from the home Region (and Mantle cannot stand in)."""
    offered = ", ".join(f"{r.kind.value} ({r.invoke_id})" for r in callable_here) or "none"
    return Problem(
        f"{where}.path",
        path,
        f"no compliant {'' if path == 'auto' else path + ' '}runtime path of {model_id} is callable "
        f"from home_region {config.home_region} (compliant paths from there: {offered}"
        f"{'; Mantle: ' + mantle.invoke_id if mantle else ''})"
        + ("; use path: auto to fall back to Mantle" if mantle and path != "auto" else ""),
    )


def gets_mantle_project(config: LandingZoneConfig, catalog: Catalog, mantle: Route | None) -> bool:
    """Whether an application with Mantle path ``mantle`` gets its own Mantle Project (``access.mantle_projects``).

    ``true``: wherever CloudFormation has ``AWS::BedrockMantle::Project`` in home_region (catalog
    ``mantle_project_regions``); validate refuses it where it cannot act (:mod:`landing_zone.plan.requirements`).
    ``auto`` (the default): also only where the project can be used — the bedrock-mantle endpoint is deployed when
    ``access.require_vpc_endpoint`` (the invoker is granted Mantle through it only), and no per-request guardrail
    (which grants no Mantle request: Mantle requests cannot carry ``bedrock:GuardrailIdentifier``).  The default
    project "cannot be tagged" (Amazon Bedrock user guide, "Projects",
    https://docs.aws.amazon.com/bedrock/latest/userguide/projects.html), so a project of its own is what makes an
    application's Mantle spend carry the landing zone's cost-allocation tags."""
    setting = config.access.mantle_projects
    if setting is False or mantle is None or config.home_region not in mantle_project_regions(catalog):
        return False
    if setting is True:
        return True
    guardrail = config.content_guardrail
    per_request = guardrail.enabled and guardrail.enforcement == "per-request"
    endpoint = not config.access.require_vpc_endpoint or "bedrock-mantle" in config.network.endpoints
    return endpoint and not per_request


def withholds_default_project(
    config: LandingZoneConfig, *, route: Route | None, mantle: Route | None, project: bool
) -> bool:
    """Whether the application's Mantle path is withheld from its invoker: with ``cost.budget_scope`` auto or tagged
    the budget and its kill switch count the spend that carries the landing zone's tags, and Mantle in the account's
    default project carries none.  An application with a runtime path (tagged through its application inference
    profile) and no Mantle Project of its own is then granted the runtime path only, so all of its spend is counted.
    A Mantle-only application keeps its only path (its spend stays untagged: :func:`untagged_paths`);
    ``budget_scope: account`` counts the whole account and grants the default project."""
    return mantle is not None and route is not None and not project and config.cost.budget_scope != "account"


def activates_cost_allocation_tags(config: LandingZoneConfig, applications: Sequence[ApplicationPlan]) -> bool:
    """Whether the landing zone activates its cost-allocation tags (``cost.activate_cost_allocation_tags``) at all;
    :func:`cost_allocation_tags_stack` says where."""
    return config.cost.activate_cost_allocation_tags and bool(applications)


def cost_allocation_tags_stack(config: LandingZoneConfig, applications: Sequence[ApplicationPlan]) -> str | None:
    """The stack whose custom resource activates the cost-allocation tags: ``"access"`` in single-account mode,
    ``"guardrails"`` (the management account) with an organization, None when off.

    "Only a management account in an organization and single accounts that aren't members of an organization have
    access to the cost allocation tags manager" (AWS Billing user guide, "Using user-defined cost allocation tags",
    https://docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/custom-tags.html): a member account cannot activate
    them, and one activation in the management (payer) account covers the tags of every member account.  So neither
    a workload account's access stack nor the member-baseline StackSet activates them in organization mode."""
    if not activates_cost_allocation_tags(config, applications):
        return None
    return "access" if config.organization is None else "guardrails"


def mantle_project_regions(catalog: Catalog) -> frozenset[str]:
    """The Regions where CloudFormation has ``AWS::BedrockMantle::Project`` (catalog ``mantle_project_regions``)."""
    found = catalog.mantle_project_regions
    return frozenset(found.regions) if found is not None else frozenset()


def has_mantle_project(app: ApplicationPlan, config: LandingZoneConfig) -> bool:
    """Whether the application gets its own Mantle Project: ``access.mantle_projects``, a compliant Mantle path, and
    CloudFormation has the resource type in ``home_region`` (catalog ``mantle_project_regions``; validate refuses
    ``access.mantle_projects`` where it cannot act: :mod:`landing_zone.plan.requirements`).

    With an organization the project is a protected resource (``landing_zone/policies/protected.py``, by the
    ``landing-zone`` tag): ``DenyTaggedResourceTampering`` leaves out the reads of ``bedrock-mantle`` and the project
    use actions (``bedrock-mantle:CreateInference`` and the request's cancel/delete, derived from the action database),
    so its invoker runs inference in it while nobody but the exempt principals can update, archive, tag or untag it."""
    return app.mantle_project and config.access.mantle_projects is not False


def untagged_paths(app: ApplicationPlan, config: LandingZoneConfig) -> tuple[str, ...]:
    """The paths on which the application's invoker can spend without the landing zone's cost-allocation tags.

    Tagged: on-demand calls through its application inference profile ("Attach tags to an application inference
    profile to track costs when you submit on-demand model invocation requests", inference-profiles.html) and Mantle
    calls in its own Mantle Project ("Track spending at the project level using AWS tags", projects.html).  Untagged:
    Mantle in the account's default project, which cannot be tagged, for a Mantle-only application with no project of
    its own (``access.mantle_projects`` off, or a home_region without the CloudFormation type) or under
    ``budget_scope: account`` (otherwise the path is withheld: :func:`withholds_default_project`), and batch jobs
    (``batch_role_arns``: AWS documents the profile's tags for on-demand requests only)."""
    paths = []
    if app.mantle_route is not None and not has_mantle_project(app, config):
        paths.append("Mantle in the default project")
    if app.app.batch_role_arns:
        paths.append("batch")
    return tuple(paths)


def effective_budget_scope(config: LandingZoneConfig, applications: Sequence[ApplicationPlan]) -> str:
    """``cost.budget_scope`` decided: ``tagged`` or ``account``.  ``auto`` (the default) is ``tagged`` — the landing
    zone's own spend only, so another team's spend in the account never trips the kill switch — when no application
    can spend on an untagged path (:func:`untagged_paths`), else ``account`` (the budget would not see that spend)."""
    scope = config.cost.budget_scope
    if scope != "auto":
        return scope
    return "account" if any(untagged_paths(a, config) for a in applications) else "tagged"
