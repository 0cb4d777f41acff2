"""A kill switch that stops Kimi, not the account (issue 33 item 5), for the shipped configurations: the cdk.json
defaults and every file of examples/.

* **What it counts.**  ``cost.budget_scope`` auto resolves to ``tagged`` (the deployment account AND the landing zone's
  cost-allocation tags, so another team's spend there never trips it) unless an application keeps a path AWS gives no
  tag: Mantle in the account's default project ("cannot be tagged", Amazon Bedrock user guide, "Projects") for an
  application that has no other path, or batch jobs (AWS documents an application profile's tags for on-demand
  requests only, "Set up a model invocation resource using inference profiles").  Every other application's Mantle
  spend runs in its own Mantle Project (``access.mantle_projects`` auto) or is not granted at all.
* **Whom it stops.**  The landing zone's budget action attaches the deny to the landing zone's invoker roles, and each
  application's own action (``cost.per_application_budgets``) to that application's invoker role only, its budget
  counting that application's tag only.
"""

from __future__ import annotations

from typing import Any

import pytest

from landing_zone.core import naming
from landing_zone.core.applications import effective_budget_scope, mantle_project_regions, untagged_paths
from landing_zone.core.routing import PathKind
from tests.conftest import EXAMPLES

CONFIGS = [None, *EXAMPLES]
IDS = ["cdk.json defaults", *[e.stem for e in EXAMPLES]]
# The paths AWS gives no cost-allocation tag, and that the landing zone therefore cannot make tagged.
UNTAGGABLE = {"batch", "Mantle in the default project"}


def _mantle_statements(permissions: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    statements = permissions["Statement"]
    allows = [s for s in statements if s["Effect"] == "Allow" and "bedrock-mantle:CreateInference" in str(s["Action"])]
    own = [s for s in statements if s.get("Sid") == "DenyMantleOutsideOwnProject"]
    return allows, own


@pytest.mark.parametrize("example", CONFIGS, ids=IDS)
def test_every_invoker_spends_on_tagged_paths_unless_aws_offers_none(plan_for, example):
    """The invoker policies as built: a Mantle grant comes with the deny that confines it to the application's own
    (tagged) project, unless the application has no runtime path and home_region no project type; a runtime
    application is never granted the default project."""
    plan = plan_for(example)
    regions = mantle_project_regions(plan.catalog)
    for app in plan.applications:
        allows, own = _mantle_statements(plan.policies.invokers[app.app.name].permissions)
        if allows and not own:  # Mantle in the default project: only where nothing else can be granted
            assert app.route is None, app.app.name
            assert plan.config.home_region not in regions or plan.config.access.mantle_projects is False
        assert set(untagged_paths(app, plan.config)) <= UNTAGGABLE


@pytest.mark.parametrize("example", CONFIGS, ids=IDS)
def test_auto_scope_is_tagged_wherever_every_path_carries_the_tags(plan_for, example):
    plan = plan_for(example)
    untagged = {a.app.name: untagged_paths(a, plan.config) for a in plan.applications}
    expected = "account" if any(untagged.values()) else "tagged"
    assert plan.config.cost.budget_scope == "auto"
    assert effective_budget_scope(plan.config, plan.applications) == expected, untagged
    tags = sorted(e["Tags"]["Key"] for e in plan.policies.budget_filter.get("And", []) if "Tags" in e)
    assert tags == (sorted([naming.LANDING_ZONE_TAG_KEY, naming.APPLICATION_TAG_KEY]) if expected == "tagged" else [])
    if expected == "account":  # said, with the applications and paths that keep it there
        (warning,) = [w for w in plan.warnings if "kill switch counts everything billed" in w]
        assert all(f"{name}: {', '.join(p)}" in warning for name, p in untagged.items() if p)


def test_the_defaults_resolve_to_tagged(plan_for):
    """cdk.json alone: the default application has a runtime path and a Mantle path in us-east-1, where its Mantle
    Project is created, so the kill switch counts the landing zone's own spend only."""
    plan = plan_for()
    assert plan.config.access.mantle_projects == "auto"
    assert [a.mantle_project for a in plan.applications] == [True]
    assert effective_budget_scope(plan.config, plan.applications) == "tagged"


def test_a_runtime_application_without_a_project_is_not_granted_the_default_project(plan_for):
    """eu-central-1 has no AWS::BedrockMantle::Project: the example's applications keep their runtime paths only, and
    the plan says so; budget_scope account grants Mantle in the default project again (and counts the account)."""
    example = next(e for e in EXAMPLES if e.stem == "multi-account-100")
    plan = plan_for(example)
    (app,) = plan.applications
    assert app.route is not None and app.route.kind is not PathKind.MANTLE
    assert app.withheld_mantle_route is not None and app.mantle_route is None
    assert _mantle_statements(plan.policies.invokers[app.app.name].permissions) == ([], [])
    assert any(w.startswith(f"applications {app.app.name} are granted their runtime path only") for w in plan.warnings)
    account = plan_for(example, cost={"budget_scope": "account"})
    allows, own = _mantle_statements(account.policies.invokers[app.app.name].permissions)
    assert allows and not own
    assert not any("granted their runtime path only" in w for w in account.warnings)


def _role_names(lz: Any) -> Any:
    """A budget action's role as deployed: an ``Fn::ImportValue`` of the access stack's export of the role's ``Ref``
    (the role name), resolved through the synthesized templates."""
    exported: dict[str, str] = {}
    for found in lz.templates.values():
        template = found.to_json()
        for output in template.get("Outputs", {}).values():
            ref = output.get("Value", {}).get("Ref") if isinstance(output.get("Value"), dict) else None
            resource = template["Resources"].get(ref or "", {})
            if "Export" in output and resource.get("Type") == "AWS::IAM::Role":
                exported[output["Export"]["Name"]] = resource["Properties"]["RoleName"]

    def name(value: Any) -> str:
        return value if isinstance(value, str) else exported[value["Fn::ImportValue"]]

    return name


PER_APPLICATION = [e for e in EXAMPLES if "per_application_budgets: true" in e.read_text()]


def test_some_example_has_per_application_budgets():
    assert PER_APPLICATION  # else the next test proves nothing


@pytest.mark.parametrize("example", PER_APPLICATION, ids=[e.stem for e in PER_APPLICATION])
def test_each_kill_switch_acts_on_its_own_invokers_only(synth, example):
    """The synthesized budget actions: the landing zone's attaches its deny to every invoker role of the account; an
    application's own attaches it to that application's invoker only, and its budget counts that application's tag
    (with the landing zone's) only, so one application's spend never stops another."""
    lz = synth(example)
    name, apps = lz.plan.config.name, sorted(a.app.name for a in lz.plan.applications)
    cost = lz.template("cost")
    budgets = {
        r["Properties"]["Budget"]["BudgetName"]: r["Properties"]["Budget"]
        for r in cost.find_resources("AWS::Budgets::Budget").values()
    }
    actions = [r["Properties"] for r in cost.find_resources("AWS::Budgets::BudgetsAction").values()]
    role_name = _role_names(lz)
    roles = {a["BudgetName"]: sorted(map(role_name, a["Definition"]["IamActionDefinition"]["Roles"])) for a in actions}
    assert roles.pop(naming.budget_name(name)) == sorted(naming.invoker_role_name(name, a) for a in apps)
    assert roles == {naming.application_budget_name(name, a): [naming.invoker_role_name(name, a)] for a in apps}
    for app in apps:
        filters = budgets[naming.application_budget_name(name, app)]["FilterExpression"]["And"]
        tags = {e["Tags"]["Key"]: e["Tags"]["Values"] for e in filters if "Tags" in e}
        assert tags == {naming.LANDING_ZONE_TAG_KEY: [name], naming.APPLICATION_TAG_KEY: [app]}
