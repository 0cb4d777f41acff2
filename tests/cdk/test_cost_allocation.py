"""Issue 26 items 1 and 3 in the synthesized templates: the cost-allocation tags on invoker roles and application
profiles, the activation custom resource (its policy from the plan, us-east-1 Cost Explorer), and the optional
per-application budgets with their own kill-switch actions."""

from __future__ import annotations

import pytest

from landing_zone.core import naming
from tests.conftest import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "per-application-budgets.yaml"


@pytest.fixture(scope="module")
def apps(synth):
    return synth(FIXTURE)


def _tags(props) -> dict[str, str]:
    return {t["Key"]: t["Value"] for t in props.get("Tags", [])}


def test_invoker_roles_and_profiles_carry_the_cost_allocation_tags(apps):
    access = apps.template("access")
    for name, cc in (("chat", "cc-1001"), ("search", "cc-2002")):
        want = {"application": name, "cost-center": cc, "landing-zone": "kimi-apps"}
        (role,) = [
            r["Properties"]
            for r in access.find_resources("AWS::IAM::Role").values()
            if r["Properties"].get("RoleName") == naming.invoker_role_name("kimi-apps", name)
        ]
        assert want.items() <= _tags(role).items()
        (profile,) = [
            r["Properties"]
            for r in access.find_resources("AWS::Bedrock::ApplicationInferenceProfile").values()
            if r["Properties"]["InferenceProfileName"] == naming.application_profile_name("kimi-apps", name)
        ]
        assert want.items() <= {t["Key"]: t["Value"] for t in profile["Tags"]}.items()
    assert set(naming.COST_ALLOCATION_TAG_KEYS) == {"application", "cost-center", "landing-zone"}


def test_the_access_stack_activates_the_keys_with_the_plans_policy(apps):
    access = apps.template("access")
    (resource,) = access.find_resources("Custom::CostAllocationTags").values()
    assert resource["Properties"]["TagKeys"] == "application,cost-center,landing-zone"
    assert {
        "Attempts": "3",
        "RetrySeconds": "20",
        "SavedParameterName": "kimi-apps-automation-cost-allocation-tags-saved",
    }.items() <= resource["Properties"].items()
    # it runs after the tagged roles and profiles exist
    depends = set(resource.get("DependsOn", []))
    roles = {
        lid
        for lid, r in access.find_resources("AWS::IAM::Role").items()
        if str(r["Properties"].get("RoleName", "")).startswith("kimi-apps-invoker-")
    }
    assert roles and roles <= depends
    (policy,) = [
        r["Properties"]["PolicyDocument"]
        for r in access.find_resources("AWS::IAM::ManagedPolicy").values()
        if r["Properties"].get("ManagedPolicyName")
        == naming.automation_policy_name("kimi-apps", "cost-allocation-tags")
    ]
    (grant,) = [s for s in policy["Statement"] if s.get("Sid") == "ActivateCostAllocationTags"]
    assert grant == {
        "Sid": "ActivateCostAllocationTags",
        "Effect": "Allow",
        "Action": ["ce:ListCostAllocationTags", "ce:UpdateCostAllocationTagsStatus"],
        "Resource": "*",
    }
    (saved,) = [s for s in policy["Statement"] if s.get("Sid") == "KeepSavedState"]
    assert saved["Action"] == ["ssm:DeleteParameter", "ssm:GetParameter", "ssm:PutParameter"]
    assert (
        saved["Resource"]
        == "arn:aws:ssm:us-west-2:555555555555:parameter/kimi-apps-automation-cost-allocation-tags-saved"
    )
    assert apps.plan.policies.automation["cost-allocation-tags"].handler["Statement"][0] == grant


def test_activation_can_be_turned_off_and_is_not_in_the_member_baseline(plan_for):
    off = plan_for(FIXTURE, cost={"activate_cost_allocation_tags": False})
    assert "cost-allocation-tags" not in off.policies.automation
    on = plan_for(FIXTURE)
    assert "cost-allocation-tags" in on.policies.automation


def test_each_application_gets_its_own_budget_on_its_tag(apps):
    cost = apps.template("cost")
    budgets = {
        r["Properties"]["Budget"]["BudgetName"]: r["Properties"]["Budget"]
        for r in cost.find_resources("AWS::Budgets::Budget").values()
    }
    assert set(budgets) == {
        "kimi-apps-bedrock-monthly",
        "kimi-apps-bedrock-monthly-chat",
        "kimi-apps-bedrock-monthly-search",
    }
    chat = budgets["kimi-apps-bedrock-monthly-chat"]
    assert chat["BudgetLimit"] == {"Amount": 1500, "Unit": "USD"}
    assert chat["FilterExpression"] == {
        "And": [
            {"Dimensions": {"Key": "LINKED_ACCOUNT", "Values": ["555555555555"], "MatchOptions": ["EQUALS"]}},
            {"Tags": {"Key": "application", "Values": ["chat"], "MatchOptions": ["EQUALS"]}},
            # and the landing zone's own tag: a neighbour's resource tagged application=chat does not count
            {"Tags": {"Key": "landing-zone", "Values": ["kimi-apps"], "MatchOptions": ["EQUALS"]}},
        ]
    }
    # omitted monthly_budget_usd: the landing zone's budget
    assert (
        budgets["kimi-apps-bedrock-monthly-search"]["BudgetLimit"]
        == budgets["kimi-apps-bedrock-monthly"]["BudgetLimit"]
    )


def test_each_application_action_attaches_the_kill_switch_to_its_own_role_only(apps):
    cost = apps.template("cost")
    actions = {
        r["Properties"]["BudgetName"]: r["Properties"]
        for r in cost.find_resources("AWS::Budgets::BudgetsAction").values()
    }
    assert set(actions) == {
        "kimi-apps-bedrock-monthly",
        "kimi-apps-bedrock-monthly-chat",
        "kimi-apps-bedrock-monthly-search",
    }
    policies = cost.find_resources("AWS::IAM::ManagedPolicy")
    deny = {b: policies[a["Definition"]["IamActionDefinition"]["PolicyArn"]["Ref"]] for b, a in actions.items()}
    # the applications' actions attach a deny of their own: reversing the landing-zone action (which detaches its
    # policy from every invoker) never lifts an application's own kill switch
    assert {b: d["Properties"]["ManagedPolicyName"] for b, d in deny.items()} == {
        "kimi-apps-bedrock-monthly": "kimi-apps-kill-switch",
        "kimi-apps-bedrock-monthly-chat": "kimi-apps-kill-switch-application",
        "kimi-apps-bedrock-monthly-search": "kimi-apps-kill-switch-application",
    }
    assert len({str(d["Properties"]["PolicyDocument"]) for d in deny.values()}) == 1  # the same deny statement
    roles = {b: a["Definition"]["IamActionDefinition"]["Roles"] for b, a in actions.items()}
    assert len(roles["kimi-apps-bedrock-monthly"]) == 2
    assert len(roles["kimi-apps-bedrock-monthly-chat"]) == 1 and len(roles["kimi-apps-bedrock-monthly-search"]) == 1
    assert roles["kimi-apps-bedrock-monthly-chat"] != roles["kimi-apps-bedrock-monthly-search"]
    assert {str(a["ExecutionRoleArn"]) for a in actions.values()} == {
        str(actions["kimi-apps-bedrock-monthly"]["ExecutionRoleArn"])
    }


def test_default_configuration_has_no_application_budgets(default_lz):
    names = [
        r["Properties"]["Budget"]["BudgetName"]
        for r in default_lz.template("cost").find_resources("AWS::Budgets::Budget").values()
    ]
    assert len(names) == 1


def test_each_mantle_application_gets_its_own_tagged_project_and_the_deny_names_it(apps):
    access = apps.template("access")
    projects = access.find_resources("AWS::BedrockMantle::Project")
    by_name = {r["Properties"]["Name"]: (lid, r["Properties"]) for lid, r in projects.items()}
    assert set(by_name) == {naming.mantle_project_name("kimi-apps", a) for a in ("chat", "search")}
    lid, props = by_name[naming.mantle_project_name("kimi-apps", "chat")]
    assert {"application": "chat", "cost-center": "cc-1001", "landing-zone": "kimi-apps"}.items() <= _tags(
        props
    ).items()
    (policy,) = [
        r["Properties"]["PolicyDocument"]
        for r in access.find_resources("AWS::IAM::ManagedPolicy").values()
        if r["Properties"].get("ManagedPolicyName") == naming.invoker_policy_name("kimi-apps", "chat")
    ]
    (deny,) = [s for s in policy["Statement"] if s.get("Sid") == "DenyMantleOutsideOwnProject"]
    assert deny["NotResource"] == {"Fn::GetAtt": [lid, "Arn"]}
    (activation,) = access.find_resources("Custom::CostAllocationTags").values()
    assert lid in activation["DependsOn"]
