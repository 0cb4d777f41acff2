"""A kill switch that stops Kimi, not the account (issue 33 item 5), in the synthesized templates.

* **Reset under the SCPs**: the documented reset — the reset role ``<name>-automation-kill-switch-reset`` reversing the
  kill switch's budget action (``budgets:ExecuteBudgetAction``) — is allowed by the synthesized guardrail SCPs; the same
  request by a member-account administrator is denied, and so is detaching the deny from an invoker role by hand
  (Budgets does that with the action's execution role, which the SCPs let through).  The reset role trusts exactly the
  configured principals and may reverse and re-arm exactly the kill switch's actions.
* **What the kill switch counts**: ``cost.budget_scope`` auto counts only the landing zone's tagged spend when every
  path of every application is tagged, and falls back to the whole account (with a warning) when one is not.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from landing_zone.core import markers
from landing_zone.errors import ConfigError
from landing_zone.policies.evaluator import Request, evaluate, evaluate_scp_levels
from tests.cdk.test_redteam import scp_levels
from tests.conftest import ROOT

US_ORG = ROOT / "examples" / "us-organization.yaml"  # reset principal: a FinOps role of 121212121212
APPS = ROOT / "examples" / "two-applications-mantle.yaml"  # per-application budgets, Mantle Projects, reset principal
ACC = "777777777777"
FINOPS = "arn:aws:iam::121212121212:role/finops-kill-switch-oncall"
ADMIN = f"arn:aws:iam::{ACC}:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_AdministratorAccess_0123456789abcdef"
RESET_ROLE = f"arn:aws:iam::{ACC}:role/kimi-us-org-automation-kill-switch-reset"
EXECUTION_ROLE = f"arn:aws:iam::{ACC}:role/kimi-us-org-automation-budget-action"
ACTION_ID = "0a1b2c3d-0a1b-4c5d-8e9f-0a1b2c3d4e5f"


@pytest.fixture(scope="module")
def us_org(synth):
    return synth(US_ORG)


def _only(template: Any, kind: str, name_key: str, name: str) -> dict[str, Any]:
    (found,) = [
        r["Properties"] for r in template.find_resources(kind).values() if r["Properties"].get(name_key) == name
    ]
    return found


def _scp(synthesized: Any, who: str, action: str, resource: str, **context: str) -> str:
    request = Request(action, resource, {"aws:PrincipalARN": who, "aws:RequestedRegion": "us-east-1", **context})
    return evaluate_scp_levels(scp_levels(synthesized), request).decision


def _budget_action_arn(synthesized: Any) -> str:
    """The kill switch's budget action as deployed: its budget's name from the cost template, an action ID."""
    cost = synthesized.template("cost")
    (action,) = [r["Properties"] for r in cost.find_resources("AWS::Budgets::BudgetsAction").values()]
    return f"arn:aws:budgets::{ACC}:budget/{action['BudgetName']}/action/{ACTION_ID}"


def test_the_documented_reset_is_allowed_by_the_synthesized_scps(us_org):
    assert _scp(us_org, RESET_ROLE, "budgets:ExecuteBudgetAction", _budget_action_arn(us_org)) == "allow"


def test_a_reset_by_a_member_account_admin_is_denied_by_the_synthesized_scps(us_org):
    assert _scp(us_org, ADMIN, "budgets:ExecuteBudgetAction", _budget_action_arn(us_org)) == "explicit_deny"


def test_detaching_the_deny_by_hand_is_denied_and_budgets_reversing_it_is_allowed(us_org):
    invoker = f"arn:aws:iam::{ACC}:role/kimi-us-org-invoker-assistant"
    deny = {"iam:PolicyARN": f"arn:aws:iam::{ACC}:policy/kimi-us-org-kill-switch"}
    assert _scp(us_org, ADMIN, "iam:DetachRolePolicy", invoker, **deny) == "explicit_deny"
    assert _scp(us_org, EXECUTION_ROLE, "iam:DetachRolePolicy", invoker, **deny) == "allow"


def test_a_member_admin_cannot_retrust_or_widen_the_reset_role(us_org):
    for action in ("iam:UpdateAssumeRolePolicy", "iam:AttachRolePolicy", "iam:PutRolePolicy", "iam:DeleteRole"):
        assert _scp(us_org, ADMIN, action, RESET_ROLE) == "explicit_deny", action


def _trust_decision(trust: dict[str, Any], principal: str) -> str:
    """The reset role's trust policy for ``principal``: the Principal element (account roots) is checked here, the
    conditions by the evaluator (which models no Principal)."""
    (stmt,) = trust["Statement"]
    roots = stmt["Principal"]["AWS"]
    roots = [roots] if isinstance(roots, str) else roots
    if f"arn:aws:iam::{principal.split(':')[4]}:root" not in roots:
        return "implicit_deny"
    body = copy.deepcopy(trust)
    del body["Statement"][0]["Principal"]
    body["Statement"][0]["Resource"] = "*"
    return evaluate([("trust", body)], Request("sts:AssumeRole", RESET_ROLE, {"aws:PrincipalArn": principal})).decision


def test_the_reset_role_trusts_exactly_the_configured_principals(us_org):
    role = _only(us_org.template("cost"), "AWS::IAM::Role", "RoleName", "kimi-us-org-automation-kill-switch-reset")
    trust = role["AssumeRolePolicyDocument"]
    assert _trust_decision(trust, FINOPS) == "allow"
    assert _trust_decision(trust, ADMIN) == "implicit_deny"  # the member account's admin
    assert _trust_decision(trust, "arn:aws:iam::121212121212:role/someone-else") == "implicit_deny"
    assert trust == us_org.plan.policies.kill_switch_reset_trust


def test_the_reset_principals_account_is_an_intended_cross_account_grant(plan_for):
    """The review's LZ-CROSS-ACCOUNT rule knows the configured reset principals' accounts, and only them."""
    from landing_zone.review.report import review_context

    assert "121212121212" not in review_context(plan_for()).known_accounts
    configured = plan_for(cost={"kill_switch_reset_principal_arns": [FINOPS]})
    assert "121212121212" in review_context(configured).known_accounts


def _reset_permissions(plan: Any) -> dict[str, Any]:
    ids = {m: f"id-{m.rsplit(':', 1)[-1].rstrip('}')}" for m in markers.markers_in(plan.policies.kill_switch_reset)}
    return markers.resolve(plan.policies.kill_switch_reset, ids)


def test_the_reset_role_may_reverse_and_rearm_exactly_the_kill_switch_actions(synth):
    plan = synth(APPS).plan
    doc = _reset_permissions(plan)
    acc = "666666666666"

    def decide(action: str, resource: str) -> str:
        return evaluate([("reset", doc)], Request(action, resource, {})).decision

    budget = f"arn:aws:budgets::{acc}:budget/kimi-apps-org-bedrock-monthly"
    lz_action = f"{budget}/action/id-budget-action-id"
    chat_action = f"{budget}-chat/action/id-chat"
    assert decide("budgets:ExecuteBudgetAction", lz_action) == "allow"
    assert decide("budgets:ExecuteBudgetAction", chat_action) == "allow"  # each application's own action
    assert decide("budgets:DescribeBudgetActionsForBudget", budget) == "allow"
    # nothing else: another action of the budget, another team's budget, raising the budget, IAM
    assert decide("budgets:ExecuteBudgetAction", f"{budget}/action/another") == "implicit_deny"
    assert decide("budgets:ExecuteBudgetAction", f"arn:aws:budgets::{acc}:budget/team-b/action/x") == "implicit_deny"
    assert decide("budgets:ModifyBudget", budget) == "implicit_deny"
    assert decide("iam:DetachRolePolicy", f"arn:aws:iam::{acc}:role/kimi-apps-org-invoker-chat") == "implicit_deny"


def test_the_synthesized_reset_policy_names_the_actions_ids(synth):
    cost = synth(APPS).template("cost")
    policy = _only(cost, "AWS::IAM::ManagedPolicy", "ManagedPolicyName", "kimi-apps-org-automation-kill-switch-reset")
    (reverse,) = [s for s in policy["PolicyDocument"]["Statement"] if s["Sid"] == "ReverseAndRearmKillSwitch"]
    actions = set(cost.find_resources("AWS::Budgets::BudgetsAction"))
    named = {
        part["Fn::GetAtt"][0] for arn in reverse["Resource"] for part in arn["Fn::Join"][1] if isinstance(part, dict)
    }
    assert named == actions and len(actions) == 3  # the landing zone's and each application's


def test_no_reset_principal_no_reset_role_and_a_warning(plan_for):
    plan = plan_for()
    assert plan.policies.kill_switch_reset is None and plan.policies.kill_switch_reset_trust is None
    assert any(w.startswith("nobody in the targeted accounts can reset the kill switch") for w in plan.warnings)
    configured = plan_for(cost={"kill_switch_reset_principal_arns": [FINOPS]})
    assert not any("can reset the kill switch" in w for w in configured.warnings)


def test_reset_principals_without_a_kill_switch_are_refused(plan_for):
    with pytest.raises(ConfigError) as info:
        plan_for(cost={"kill_switch": False, "kill_switch_reset_principal_arns": [FINOPS]})
    (problem,) = [p for p in info.value.problems if p.path == "cost.kill_switch_reset_principal_arns"]
    assert "no kill switch to reset" in str(problem)


def test_a_reset_principal_named_by_any_account_is_refused(plan_for):
    with pytest.raises(ConfigError) as info:
        plan_for(cost={"kill_switch_reset_principal_arns": ["arn:aws:iam::*:role/finops"]})
    assert "12-digit account" in str(info.value)


def test_the_reset_principals_names_are_protected_in_their_account(plan_for):
    """A member admin cannot make a role the reset role would trust (when the FinOps account is a targeted one)."""
    plan = plan_for(cost={"kill_switch_reset_principal_arns": [f"arn:aws:iam::{ACC}:role/finops-oncall"]})
    levels = [[("FullAWSAccess", {"Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})]]
    levels[0] += [(f"scp-{i}", d) for i, d in enumerate(plan.policies.scps.inside_documents)]
    request = Request(
        "iam:CreateRole",
        f"arn:aws:iam::{ACC}:role/finops-oncall",
        {"aws:PrincipalARN": ADMIN, "aws:RequestedRegion": "us-east-1"},
    )
    assert evaluate_scp_levels(levels, request).decision == "explicit_deny"


# --- what the kill switch counts -------------------------------------------------------------------------------------


def _tags(expression: dict[str, Any]) -> dict[str, list[str]]:
    return {e["Tags"]["Key"]: e["Tags"]["Values"] for e in expression.get("And", []) if "Tags" in e}


def test_auto_counts_only_the_landing_zones_tagged_spend_when_every_path_is_tagged(synth):
    apps = synth(APPS)
    (budget,) = [
        r["Properties"]["Budget"]
        for r in apps.template("cost").find_resources("AWS::Budgets::Budget").values()
        if r["Properties"]["Budget"]["BudgetName"] == "kimi-apps-org-bedrock-monthly"
    ]
    # another team's spend in the account carries neither tag; the landing zone's own infrastructure no application
    assert _tags(budget["FilterExpression"]) == {"application": ["chat", "search"], "landing-zone": ["kimi-apps-org"]}
    assert not any("kill switch counts everything billed" in w for w in apps.plan.warnings)


def test_auto_falls_back_to_the_account_and_says_so_when_a_path_is_untagged(plan_for):
    plan = plan_for()  # the default application can call Mantle in the account's default project
    assert plan.policies.budget_filter == {
        "Dimensions": {"Key": "LINKED_ACCOUNT", "Values": ["111111111111"], "MatchOptions": ["EQUALS"]}
    }
    (warning,) = [w for w in plan.warnings if "kill switch counts everything billed" in w]
    assert "111111111111" in warning and "workload: Mantle in the default project" in warning
    assert "access.mantle_projects: true" in warning


def test_a_batch_role_makes_auto_fall_back_too(plan_for):
    batch = ["arn:aws:iam::666666666666:role/batch-chat"]
    plan = plan_for(
        APPS,
        applications=[{"name": "chat", "cost_center": "cc-1", "batch_role_arns": batch}],
        network={"endpoints": ["bedrock-runtime", "bedrock-mantle", "bedrock"]},  # batch runs through bedrock
    )
    assert "And" not in plan.policies.budget_filter
    assert any("chat: batch" in w for w in plan.warnings)


def test_explicit_account_scope_counts_the_account_without_a_warning(plan_for):
    plan = plan_for(APPS, cost={"budget_scope": "account"})
    assert "And" not in plan.policies.budget_filter
    assert not any("kill switch counts everything billed" in w for w in plan.warnings)


def test_explicit_tagged_scope_with_mantle_projects_is_accepted(plan_for):
    plan = plan_for(APPS, cost={"budget_scope": "tagged"})
    assert _tags(plan.policies.budget_filter)["landing-zone"] == ["kimi-apps-org"]
