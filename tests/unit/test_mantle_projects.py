"""Mantle Projects per application (issue 26): attacker/legitimate pairs on the plan's invoker documents and, in
organization mode (examples/two-applications-mantle.yaml), on its guardrail SCPs.

``bedrock-mantle:CreateInference`` is authorised against the ``project`` resource and carries no
``bedrock-mantle:ProjectArn`` key (Service Authorization Reference, research/issue-25.md section 8), so each invoker
gets ``DenyMantleOutsideOwnProject`` with ``NotResource`` = its own project's ARN.  Pairs: application A's invoker in
B's project -> deny, in the account's default project -> deny, in its own -> allow (the neighbouring legitimate call,
so a deny-everything policy fails too)."""

from __future__ import annotations

from typing import Any

import pytest

from landing_zone.actiondb.lookup import check_document
from landing_zone.core import markers
from landing_zone.policies.evaluator import Request, evaluate
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


def rendered_org(document: Any) -> Any:
    """The organization example's invoker document, its project markers replaced by its projects' ARNs."""
    values = {
        m: _value(m).replace(f"{REGION}:{ACCOUNT}", "us-east-1:666666666666") for m in markers.markers_in(document)
    }
    return markers.resolve(document, values)


MANTLE_KEY = "bedrock-mantle:Model"
VPCE = {"aws:SourceVpce": "vpce-bedrock-mantle"}
TAMPER = "DenyTaggedResourceTampering"


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
    """eu-central-1 has no AWS::BedrockMantle::Project (catalog mantle_project_regions): without the option no project
    and no project deny; asking for projects there is refused (issue 35: no longer dropped in silence)."""
    from landing_zone.core.applications import has_mantle_project, mantle_project_regions
    from landing_zone.errors import ConfigError

    plan = plan_for(ROOT / "examples" / "eu-core-regions.yaml")
    assert plan.config.home_region not in mantle_project_regions(plan.catalog)
    for app in plan.applications:
        assert not has_mantle_project(app, plan.config)
        sids = [s["Sid"] for s in plan.policies.invokers[app.app.name].permissions["Statement"]]
        assert "DenyMantleOutsideOwnProject" not in sids
    with pytest.raises(ConfigError, match="access.mantle_projects: got true; CloudFormation has no AWS::BedrockMantle"):
        plan_for(ROOT / "examples" / "eu-core-regions.yaml", access={"mantle_projects": True})


ORG_EXAMPLE = ROOT / "examples" / "two-applications-mantle.yaml"
ORG_ACCOUNT = "666666666666"
ORG_REGION = "us-east-1"


@pytest.fixture(scope="module")
def org_plan(plan_for):
    return plan_for(ORG_EXAMPLE)


def org_project(app: str) -> str:
    return f"arn:aws:bedrock-mantle:{ORG_REGION}:{ORG_ACCOUNT}:project/{PROJECT_IDS[app]}"


def scp_decision(plan: Any, request: Request) -> Any:
    from landing_zone.policies.evaluator import FULL_AWS_ACCESS, evaluate_scp_levels

    documents = plan.policies.scps.inside_documents
    levels = [[("FullAWSAccess", FULL_AWS_ACCESS), *((f"scp-{i}", d) for i, d in enumerate(documents, 1))]]
    return evaluate_scp_levels(levels, request)


def org_call(plan: Any, who: str, action: str, app: str, **context: Any) -> Request:
    """A request in the organization example's workload account, on ``app``'s project (tagged landing-zone)."""
    principals = {
        "chat": f"arn:aws:iam::{ORG_ACCOUNT}:role/kimi-apps-org-invoker-chat",
        "admin": f"arn:aws:iam::{ORG_ACCOUNT}:role/MemberAccountAdmin",
        "deployer": f"arn:aws:iam::{ORG_ACCOUNT}:role/cdk-kimilz-cfn-exec-role-{ORG_ACCOUNT}-{ORG_REGION}",
    }
    tags = {} if app == "default" else {"aws:ResourceTag/landing-zone": plan.config.name}
    return Request(
        action,
        org_project(app),
        {"aws:RequestedRegion": ORG_REGION, "aws:PrincipalARN": principals[who], **tags, **context},
    )


def test_the_organization_example_gets_a_project_per_application(org_plan) -> None:
    from landing_zone.core.applications import has_mantle_project

    assert org_plan.config.organization is not None
    assert [a.app.name for a in org_plan.applications if has_mantle_project(a, org_plan.config)] == ["chat", "search"]


def test_the_scps_let_an_invoker_run_inference_in_its_tagged_project(org_plan) -> None:
    """Was the bug: DenyTaggedResourceTampering denied CreateInference (a Write action) on the tagged project."""
    request = org_call(org_plan, "chat", "bedrock-mantle:CreateInference", "chat", **{MANTLE_KEY: MODEL})
    assert scp_decision(org_plan, request).allowed
    identity = [("invoke-chat", rendered_org(org_plan.policies.invokers["chat"].permissions))]
    assert evaluate(identity, Request(request.action, request.resource, {**request.context, **VPCE})).allowed


def test_an_invoker_in_another_applications_project_is_denied_by_its_own_policy(org_plan) -> None:
    request = org_call(org_plan, "chat", "bedrock-mantle:CreateInference", "search", **{MANTLE_KEY: MODEL}, **VPCE)
    identity = [("invoke-chat", rendered_org(org_plan.policies.invokers["chat"].permissions))]
    decision = evaluate(identity, request)
    assert decision.decision == "explicit_deny"
    assert [m.sid for m in decision.matched_denies] == ["DenyMantleOutsideOwnProject"]
    default = org_call(org_plan, "chat", "bedrock-mantle:CreateInference", "default", **{MANTLE_KEY: MODEL}, **VPCE)
    assert evaluate(identity, default).decision == "explicit_deny"  # the account's default project


@pytest.mark.parametrize(
    ("action", "context", "sid"),
    [
        ("bedrock-mantle:TagResource", {"aws:TagKeys": ["application"], "aws:RequestTag/application": "x"}, TAMPER),
        ("bedrock-mantle:UntagResource", {"aws:TagKeys": ["cost-center"]}, TAMPER),
        ("bedrock-mantle:UntagResource", {"aws:TagKeys": ["landing-zone"]}, "DenyLandingZoneTagChanges"),
        ("bedrock-mantle:ArchiveProject", {}, TAMPER),
        ("bedrock-mantle:UpdateProject", {}, TAMPER),
        ("bedrock-mantle:CreateReservation", {}, TAMPER),
    ],
)
def test_a_member_admin_cannot_change_a_landing_zone_project(org_plan, action: str, context: dict, sid: str) -> None:
    attack = scp_decision(org_plan, org_call(org_plan, "admin", action, "chat", **context))
    assert attack.decision == "explicit_deny"
    assert sid in {m.sid for m in attack.matched_denies}
    # legitimate neighbours: the exempt deployer changes it; the admin changes a project of their own (untagged)
    assert scp_decision(org_plan, org_call(org_plan, "deployer", action, "chat", **context)).allowed
    own = org_call(org_plan, "admin", action, "default", **context)
    assert scp_decision(org_plan, own).allowed or sid == "DenyLandingZoneTagChanges"


def test_reads_of_a_landing_zone_project_stay_allowed(org_plan) -> None:
    for action in ("bedrock-mantle:GetProject", "bedrock-mantle:ListTagsForResource", "bedrock-mantle:GetInference"):
        assert scp_decision(org_plan, org_call(org_plan, "admin", action, "chat")).allowed, action


def test_the_use_actions_are_derived_from_the_action_database() -> None:
    """The project use actions come from the database's bedrock-mantle actions on the project resource whose object
    is Inference (landing_zone/actiondb/space.py), not from a hand-written list."""
    from landing_zone.actiondb.space import project_use_actions
    from landing_zone.policies.guardrails import USE_ACTIONS

    derived = project_use_actions()
    assert "bedrock-mantle:CreateInference" in derived
    assert not {"bedrock-mantle:TagResource", "bedrock-mantle:UpdateProject", "bedrock-mantle:ArchiveProject"} & set(
        derived
    )
    assert set(derived) <= set(USE_ACTIONS)
