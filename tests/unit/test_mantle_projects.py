"""Mantle Projects per application (issue 26 item 2): attacker/legitimate pairs on the plan's invoker documents.

``bedrock-mantle:CreateInference`` is authorised against the ``project`` resource and carries no
``bedrock-mantle:ProjectArn`` key (Service Authorization Reference, research/issue-25.md section 8), so each invoker
gets ``DenyMantleOutsideOwnProject`` with ``NotResource`` = its own project's ARN.  Pairs: application A's invoker in
B's project -> deny, in the account's default project -> deny, in its own -> allow (the neighbouring legitimate call,
so a deny-everything policy fails too)."""

from __future__ import annotations

from typing import Any

import pytest

from landing_zone.core import markers
from landing_zone.policies.evaluator import Request, evaluate
from landing_zone.review.action_db import check_document
from tests.conftest import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "per-application-budgets.yaml"
ACCOUNT = "555555555555"
REGION = "us-west-2"
MODEL = "moonshotai.kimi-k3.1-pro"
PROJECT_IDS = {"chat": "proj_chat0001", "search": "proj_search0002", "default": "default"}


def project(app: str) -> str:
    return f"arn:aws:bedrock-mantle:{REGION}:{ACCOUNT}:project/{PROJECT_IDS[app]}"


def _value(marker: str) -> str:
    kind, _, arg = marker[len("${lz:") : -1].partition(":")
    if kind == "mantle-project-arn":
        return project(arg)
    return {
        "account": ACCOUNT,
        "endpoint-id": f"vpce-{arg}",
        "profile-arn": f"arn:aws:bedrock:{REGION}:{ACCOUNT}:application-inference-profile/{arg}1",
    }[kind]


def rendered(document: Any) -> Any:
    return markers.resolve(document, {m: _value(m) for m in markers.markers_in(document)})


@pytest.fixture(scope="module")
def plan(plan_for):
    return plan_for(FIXTURE)


def mantle_call(plan: Any, caller: str, in_project: str) -> Any:
    request = Request(
        "bedrock-mantle:CreateInference",
        project(in_project),
        {"aws:RequestedRegion": REGION, "aws:SourceVpce": "vpce-bedrock-mantle", "bedrock-mantle:Model": MODEL},
    )
    return evaluate([(f"invoke-{caller}", rendered(plan.policies.invokers[caller].permissions))], request)


@pytest.mark.parametrize(("caller", "other"), [("chat", "search"), ("search", "chat")])
def test_an_invoker_may_call_mantle_in_its_own_project_only(plan, caller: str, other: str) -> None:
    attack = mantle_call(plan, caller, other)
    assert attack.decision == "explicit_deny"
    assert [m.sid for m in attack.matched_denies] == ["DenyMantleOutsideOwnProject"]
    assert mantle_call(plan, caller, caller).allowed  # legitimate: its own project


def test_the_default_project_is_denied_to_invokers(plan) -> None:
    for caller in ("chat", "search"):
        assert mantle_call(plan, caller, "default").decision == "explicit_deny"


def test_the_deny_passes_the_action_database(plan) -> None:
    """CreateInference takes the project resource; the NotResource covers that type (not a deny-everything)."""
    for name, docs in plan.policies.invokers.items():
        issues = check_document(rendered(docs.permissions), policy=f"invoke-{name}")
        assert issues == [], [str(i) for i in issues]


def test_every_mantle_application_gets_a_project_marker(plan) -> None:
    for app in plan.applications:
        doc = plan.policies.invokers[app.app.name].permissions
        (deny,) = [s for s in doc["Statement"] if s["Sid"] == "DenyMantleOutsideOwnProject"]
        assert deny == {
            "Sid": "DenyMantleOutsideOwnProject",
            "Effect": "Deny",
            "Action": "bedrock-mantle:CreateInference",
            "NotResource": markers.mantle_project_arn(app.app.name),
        }


def test_no_project_where_cloudformation_lacks_the_type(plan_for) -> None:
    """eu-central-1 has no AWS::BedrockMantle::Project (aws-cdk-lib's validator): no project, no project deny."""
    from landing_zone.core.applications import MANTLE_PROJECT_REGIONS, has_mantle_project

    plan = plan_for(ROOT / "examples" / "eu-core-regions.yaml")
    assert plan.config.home_region not in MANTLE_PROJECT_REGIONS
    for app in plan.applications:
        assert not has_mantle_project(app, plan.config)
        sids = [s["Sid"] for s in plan.policies.invokers[app.app.name].permissions["Statement"]]
        assert "DenyMantleOutsideOwnProject" not in sids


def test_no_project_with_an_organization_where_the_tamper_scp_would_refuse_its_own_invoker(plan_for) -> None:
    """us-organization (us-east-1, Mantle path): DenyTaggedResourceTampering denies CreateInference on a resource
    tagged landing-zone, so no project is created there (and no project deny)."""
    from landing_zone.core.applications import has_mantle_project

    plan = plan_for(ROOT / "examples" / "us-organization.yaml")
    assert plan.config.organization is not None
    assert any(a.mantle_route is not None for a in plan.applications)
    assert not any(has_mantle_project(a, plan.config) for a in plan.applications)
