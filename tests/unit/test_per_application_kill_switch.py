"""Attacker/legitimate pairs for the per-application kill switch (issue 26 item 3), evaluated with the policy
evaluator on the plan's documents: after application A's budget action fires (the kill-switch deny attached to A's
invoker role only), A's invoke is denied and B's, the neighbouring legitimate request, is still allowed.  Before it
fires both are allowed, so the deny is what decides."""

from __future__ import annotations

from typing import Any

import pytest

from landing_zone.core import markers
from landing_zone.policies.evaluator import Request, evaluate
from tests.conftest import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "per-application-budgets.yaml"
ACCOUNT = "555555555555"
REGION = "us-west-2"


def profile(app: str) -> str:
    return f"arn:aws:bedrock:{REGION}:{ACCOUNT}:application-inference-profile/{app}0000001"


def _value(marker: str) -> str:
    kind, _, arg = marker[len("${lz:") : -1].partition(":")
    return {
        "account": ACCOUNT,
        "region": REGION,
        "partition": "aws",
        "endpoint-id": f"vpce-{arg}",
        "profile-arn": profile(arg),
        "guardrail-arn": f"arn:aws:bedrock:{REGION}:{ACCOUNT}:guardrail/g1",
        "mantle-project-arn": f"arn:aws:bedrock-mantle:{REGION}:{ACCOUNT}:project/proj_{arg}",
    }[kind]


def rendered(document: Any) -> Any:
    return markers.resolve(document, {m: _value(m) for m in markers.markers_in(document)})


@pytest.fixture(scope="module")
def plan(plan_for):
    return plan_for(FIXTURE)


def allowed(plan: Any, app: str, *, kill_switch_on: set[str]) -> bool:
    """A's or B's legitimate call (InvokeModel on its own profile through the runtime endpoint), with the kill-switch
    deny attached to the roles in ``kill_switch_on`` (what each budget action does when it fires)."""
    policies = plan.policies
    identity = [(f"invoke-{app}", rendered(policies.invokers[app].permissions))]
    if app in kill_switch_on:
        identity.append(("kill-switch", policies.kill_switch))
    request = Request(
        "bedrock:InvokeModel",
        profile(app),
        {"aws:RequestedRegion": REGION, "aws:SourceVpce": "vpce-bedrock-runtime", "aws:PrincipalAccount": ACCOUNT},
    )
    boundary = evaluate([("boundary", rendered(policies.boundary))], request)
    return evaluate(identity, request).allowed and boundary.allowed


def test_before_any_budget_action_both_applications_may_invoke(plan) -> None:
    assert allowed(plan, "chat", kill_switch_on=set()) and allowed(plan, "search", kill_switch_on=set())


@pytest.mark.parametrize(("fired", "other"), [("chat", "search"), ("search", "chat")])
def test_after_one_applications_action_fires_only_it_is_denied(plan, fired: str, other: str) -> None:
    assert not allowed(plan, fired, kill_switch_on={fired})  # attacker side: the exhausted application
    assert allowed(plan, other, kill_switch_on={fired})  # legitimate neighbour: unaffected


def test_the_deny_is_the_kill_switch_statement(plan) -> None:
    request = Request("bedrock:InvokeModel", profile("chat"), {"aws:RequestedRegion": REGION})
    decision = evaluate([("kill-switch", plan.policies.kill_switch)], request)
    assert decision.decision == "explicit_deny"
    assert [m.sid for m in decision.matched_denies] == ["BudgetExhaustedDenyInference"]


def test_the_execution_policy_covers_every_invoker_role(plan) -> None:
    """One execution role serves the landing-zone action and each application's."""
    execution = plan.policies.budget_action_execution
    (statement,) = execution["Statement"]
    assert set(statement["Resource"]) == {markers.invoker_role_arn("chat"), markers.invoker_role_arn("search")}
