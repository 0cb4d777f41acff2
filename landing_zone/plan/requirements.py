"""What each enabled feature needs, checked once the applications are planned: a feature configured where it cannot
act is refused (exit 2, at the key the user wrote, with what would make it act), never silently dropped.

Three families, each a rule over data rather than a check per option:

* **Region support** (:func:`region_support_problems`): a feature that needs something of ``home_region`` that the
  catalog says it lacks (``access.mantle_projects``: CloudFormation's ``AWS::BedrockMantle::Project``, catalog
  ``mantle_project_regions``; a Mantle path of some application, which needs the bedrock-mantle endpoint, catalog
  ``mantle_endpoint_regions``, and a model served on Mantle there).
* **Endpoints** (:func:`endpoint_problems`): with ``access.require_vpc_endpoint`` an invoker is granted a path only
  through the landing zone's VPC endpoint of its service (:func:`landing_zone.policies.access.invoker_policy`), so
  every path an application is given (runtime, Mantle, batch) or a feature relies on (Mantle Projects) needs its
  service in ``network.endpoints``; :data:`PATH_ENDPOINTS` says which.
* **Regions a setting acts in** (:func:`retention_region_problems`): ``data_retention.mode`` is applied in
  ``home_region`` only, and the setting is per Region (catalog ``data_retention_setting``), so it must not be left
  at ``inherit`` in another Region where inference may be started.
* **Settings under a switch** (:data:`DEPENDENT_SETTINGS`, :func:`dependent_setting_findings`): a setting that
  acts only when another key is on (an application budget without ``cost.per_application_budgets``, an account's
  member-baseline budget without ``member_baseline.enabled``, ...), written while that key is off.  A control the
  user relies on (a budget, an alert) is refused; anything else is a warning.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from landing_zone.core.applications import ApplicationPlan, mantle_project_regions
from landing_zone.core.catalog import Catalog
from landing_zone.core.config import LandingZoneConfig
from landing_zone.cost.budget import MonthlyBudget
from landing_zone.errors import Problem
from landing_zone.plan.policies import RETENTION_HANDLER_ACTIONS

__all__ = [
    "DEPENDENT_SETTINGS",
    "PATH_ENDPOINTS",
    "Dependent",
    "application_budget_findings",
    "dependent_setting_findings",
    "endpoint_problems",
    "feature_problems",
    "region_support_problems",
    "retention_endpoint_warnings",
    "retention_region_problems",
]

# The VPC endpoint service each path of an application goes through (the grants of policies/access.py).
PATH_ENDPOINTS = {"runtime": "bedrock-runtime", "mantle": "bedrock-mantle", "batch": "bedrock"}


def _paths(app: ApplicationPlan) -> list[str]:
    """The paths an application is given: its runtime path, its Mantle path when it has no runtime one (or has a
    Mantle Project), batch when it names batch roles."""
    paths = ["runtime"] if app.route is not None else []
    if app.mantle_route is not None and (app.route is None or app.mantle_project):
        paths.append("mantle")
    if app.route is not None and app.app.batch_role_arns:
        paths.append("batch")
    return paths


def endpoint_problems(config: LandingZoneConfig, applications: Sequence[ApplicationPlan]) -> list[Problem]:
    """Each endpoint service some application's path needs but ``network.endpoints`` leaves out (with
    ``access.require_vpc_endpoint``, the invoker would be granted nothing on that path)."""
    if not config.access.require_vpc_endpoint:
        return []
    needed: dict[str, list[str]] = {}
    for app in applications:
        for path in _paths(app):
            service = PATH_ENDPOINTS[path]
            if service not in config.network.endpoints:
                needed.setdefault(service, []).append(f"{app.app.name} ({path}{_why(app, path)})")
    return [
        Problem(
            "network.endpoints",
            list(config.network.endpoints),
            f"has no {service} endpoint, and these applications have a path through it: {'; '.join(apps)}; with "
            "access.require_vpc_endpoint an invoker is granted a path only through the landing zone's endpoint of its "
            f"service, so they would be granted nothing there: add {service}, or set access.require_vpc_endpoint: "
            "false",
        )
        for service, apps in needed.items()
    ]


def _why(app: ApplicationPlan, path: str) -> str:
    if path == "mantle":
        return ": its Mantle Project and spend alarm would be created for it" if app.mantle_project else ": Mantle only"
    return ": batch_role_arns" if path == "batch" else ""


def region_support_problems(
    config: LandingZoneConfig, catalog: Catalog, applications: Sequence[ApplicationPlan]
) -> list[Problem]:
    """``access.mantle_projects`` where it cannot act: no ``AWS::BedrockMantle::Project`` in home_region, or no
    application with a Mantle path from there."""
    if not config.access.mantle_projects:
        return []
    home = config.home_region
    where = catalog.mantle_project_regions
    if home not in mantle_project_regions(catalog):
        regions = ", ".join(sorted(where.regions)) if where is not None else "none catalogued"
        return [
            Problem(
                "access.mantle_projects",
                True,
                f"CloudFormation has no AWS::BedrockMantle::Project in home_region {home} (core/catalog/models.yaml "
                f"mantle_project_regions: {regions}), so no project can be created and no invoker confined to one; "
                "allowed here: false, or a home_region among those Regions",
            )
        ]
    if any(a.mantle_route is not None for a in applications):
        return []
    endpoints = catalog.mantle_endpoint_regions
    if endpoints is not None and home not in endpoints.regions:
        reason = f"home_region {home} has no bedrock-mantle endpoint (catalog mantle_endpoint_regions)"
    else:
        models = sorted({a.model.id for a in applications})
        reason = f"no application's model ({', '.join(models)}) has a compliant Mantle path from home_region {home}"
    return [
        Problem(
            "access.mantle_projects",
            True,
            f"{reason}: no application uses Mantle, so there is nothing to put in a project; allowed here: false",
        )
    ]


def retention_region_problems(config: LandingZoneConfig, catalog: Catalog) -> list[Problem]:
    """``data_retention.mode`` must govern every Region where inference may be started.  The setting is per Region
    (catalog ``data_retention_setting``: a Region never configured holds ``inherit``) and the access stack applies
    the mode in home_region only (each member account's, with the member baseline), so a source Region other than
    home_region would run its requests at ``inherit``: refused rather than left unsaid."""
    setting = catalog.data_retention_setting
    mode = config.data_retention.mode
    if mode is None or setting is None or setting.scope != "region":
        return []
    elsewhere = [r for r in config.source_regions if r != config.home_region]
    if not elsewhere:
        return []
    return [
        Problem(
            "data_retention.mode",
            mode,
            f"is applied in home_region {config.home_region} only (the access stack's custom resource), but inference "
            f"may be started in {', '.join(elsewhere)} (inference_source_regions), where the setting is per Region "
            f"and one never configured remains at {setting.unconfigured_mode} (core/catalog/models.yaml "
            "data_retention_setting, data-retention.html): those requests would not run under this mode; allowed: "
            "inference_source_regions [home_region] with a mode, or no mode",
        )
    ]


def _mantle_users(config: LandingZoneConfig, applications: Sequence[ApplicationPlan]) -> list[str]:
    """The applications given a Mantle path (Mantle only, or a Mantle Project of their own)."""
    return [a.app.name for a in applications if "mantle" in _paths(a)]


def retention_endpoint_warnings(
    config: LandingZoneConfig, catalog: Catalog, applications: Sequence[ApplicationPlan]
) -> list[str]:
    """``data_retention.mode`` is written through one endpoint's API only (the handler's ``PutAccountDataRetention``,
    :data:`~landing_zone.plan.policies.RETENTION_HANDLER_ACTIONS`: ``bedrock``), while the catalog lists the setting
    on more endpoints (``data_retention_setting.endpoints``: ``bedrock-mantle`` has its own
    ``PutAccountDataRetention``, which botocore has no client for).  AWS's page does not say whether the two are one
    setting, so an application with a Mantle path may run at the Mantle setting the landing zone never writes: said
    out loud, with how to check it (the SCP still denies any other mode to non-exempt principals)."""
    setting, mode = catalog.data_retention_setting, config.data_retention.mode
    if mode is None or setting is None:
        return []
    written = {action.split(":", 1)[0] for action in RETENTION_HANDLER_ACTIONS}
    unwritten = [e for e in setting.endpoints if e not in written]
    users = _mantle_users(config, applications)
    if "bedrock-mantle" not in unwritten or not users:
        return []
    return [
        f"data_retention.mode {mode} is written through bedrock:PutAccountDataRetention only (handlers/"
        f"data_retention), while bedrock-mantle has its own PutAccountDataRetention (core/catalog/models.yaml "
        f"data_retention_setting, data-retention.html), which the landing zone never writes and AWS does not say is "
        f"the same setting; applications {', '.join(users)} call Mantle, so their requests may run at the Mantle "
        f"setting (inherit unless someone set it). Read Mantle's setting in {config.home_region} after the deploy; "
        f"the SCP denies setting it to another mode than {mode}"
    ]


def feature_problems(
    config: LandingZoneConfig, catalog: Catalog, applications: Sequence[ApplicationPlan]
) -> list[Problem]:
    """Every enabled feature that lacks what it needs (Region support, endpoints, the Regions a setting acts in)."""
    return [
        *region_support_problems(config, catalog, applications),
        *endpoint_problems(config, applications),
        *retention_region_problems(config, catalog),
    ]


# -- settings under a switch --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Dependent:
    """``setting`` (a dotted path; ``[*]`` for every entry of a list, ``*`` for every key of a section but the switch)
    acts only when the boolean ``switch`` is true; written while it is false it does nothing.  ``level``: ``error``
    for a control the user relies on (a budget, an alert), ``warning`` otherwise."""

    setting: str
    switch: str
    effect: str
    level: Literal["error", "warning"]


DEPENDENT_SETTINGS = (
    Dependent(
        "applications[*].monthly_budget_usd",
        "cost.per_application_budgets",
        "no application budget and no per-application kill switch is created",
        "error",
    ),
    Dependent(
        "accounts[*].monthly_budget_usd",
        "member_baseline.enabled",
        "the account budget is a parameter of the member baseline's StackSet instance, so no budget is created",
        "error",
    ),
    Dependent(
        "accounts[*].alert_emails",
        "member_baseline.enabled",
        "the addresses are parameters of the member baseline's StackSet instance, so nobody is alerted",
        "error",
    ),
    Dependent("accounts[*].ou_id", "member_baseline.enabled", "it only places the StackSet instance", "warning"),
    Dependent(
        "accounts[*].cost_center",
        "member_baseline.enabled",
        "it only tags the member baseline's resources",
        "warning",
    ),
    Dependent("member_baseline.*", "member_baseline.enabled", "the member baseline is not deployed", "warning"),
    Dependent("self_hosting.*", "self_hosting.enabled", "no EKS resource is created", "warning"),
    Dependent("content_guardrail.*", "content_guardrail.enabled", "no guardrail is created", "warning"),
    Dependent("cost.quota_alarms.*", "cost.quota_alarms.enabled", "no quota alarm is created", "warning"),
)


def _written(node: Any, parts: Sequence[str], loc: str) -> Iterator[tuple[str, Any]]:
    """(path, value) of every setting the user wrote at ``parts`` below ``node`` (pydantic's ``model_fields_set``)."""
    if not parts:
        yield loc, node
        return
    head, rest = parts[0], parts[1:]
    if head.endswith("[*]"):
        name = head[:-3]
        if isinstance(node, BaseModel) and name in node.model_fields_set:
            for i, item in enumerate(getattr(node, name)):
                yield from _written(item, rest, f"{loc}{name}[{i}].")
    elif head == "*" and isinstance(node, BaseModel):
        for name in sorted(node.model_fields_set):
            yield f"{loc}{name}", getattr(node, name)
    elif isinstance(node, BaseModel) and head in node.model_fields_set:
        yield from _written(getattr(node, head), rest, f"{loc}{head}.")


def _value(config: LandingZoneConfig, dotted: str) -> Any:
    node: Any = config
    for part in dotted.split("."):
        node = getattr(node, part)
    return node


def dependent_setting_findings(config: LandingZoneConfig) -> tuple[list[Problem], list[str]]:
    """(problems, warnings) of the settings written while the switch they depend on is off."""
    problems: list[Problem] = []
    warnings: list[str] = []
    for rule in DEPENDENT_SETTINGS:
        if _value(config, rule.switch):
            continue
        switch_leaf = rule.switch.rsplit(".", 1)[-1]
        for path, value in _written(config, rule.setting.split("."), ""):
            path = path.rstrip(".")
            if path.rsplit(".", 1)[-1] == switch_leaf or value in (None, (), {}):
                continue
            text = f"set, but {rule.switch} is false, so it has no effect ({rule.effect})"
            if rule.level == "error":
                problems.append(Problem(path, value, f"{text}: set {rule.switch}: true, or remove it"))
            else:
                warnings.append(f"{path} is {text}")
    return problems, warnings


# -- budgets that contradict each other ---------------------------------------------------------------------------
def application_budget_findings(
    config: LandingZoneConfig, budget: MonthlyBudget, applications: Sequence[ApplicationPlan]
) -> tuple[list[Problem], list[str]]:
    """An application budget above the landing zone's can never act (the landing-zone budget and its kill switch
    fire first): refused.  Application budgets that sum past it are legal (each is a ceiling, not a share) but the
    landing-zone kill switch stops every application before all reach theirs: a warning."""
    if not config.cost.per_application_budgets:
        return [], []
    lz = budget.usd
    basis = "cost.monthly_budget_usd" if budget.explicit else "computed from cost.workload x budget_headroom"
    problems = [
        Problem(
            f"applications[{i}].monthly_budget_usd",
            app.monthly_budget_usd,
            f"above the landing zone's monthly budget of {lz:,.2f} USD ({basis}): the landing-zone budget and its kill "
            "switch stop every application first, so this budget could never act; allowed: at most "
            f"{lz:,.2f}, or raise cost.monthly_budget_usd",
        )
        for i, app in enumerate(config.applications)
        if app.monthly_budget_usd is not None and app.monthly_budget_usd > lz
    ]
    explicit = [(a.app.name, a.app.monthly_budget_usd) for a in applications if a.app.monthly_budget_usd is not None]
    total = sum(usd for _, usd in explicit)
    warnings = []
    if not problems and len(explicit) > 1 and total > lz:
        listed = ", ".join(f"{name} {usd:,.2f}" for name, usd in explicit)
        warnings.append(
            f"the application budgets sum to {total:,.2f} USD ({listed}), above the landing zone's monthly budget of "
            f"{lz:,.2f} USD ({basis}): the landing-zone kill switch stops every application before all of them reach "
            "their own budgets"
        )
    return problems, warnings
