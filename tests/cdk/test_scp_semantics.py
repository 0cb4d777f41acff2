"""The guardrail SCPs, proven by policy semantics.

Each row states a request — action, resource ARN, Region (``aws:RequestedRegion``), principal
(``aws:PrincipalARN``) and further condition keys — and the decision AWS documents for it. The SCPs are read
back from the *synthesized template* (FullAWSAccess + ours, one level: the target OU) and evaluated with
``landing_zone.policies.evaluator``.  Configuration: examples/eu-sovereign.yaml (EU Regions compliant,
global inference not allowed, Kimi K3.1 Pro allowed).
"""

from __future__ import annotations

import json

import pytest

from landing_zone.policies.evaluator import (
    FULL_AWS_ACCESS,
    Request,
    evaluate_scp_levels,
)
from landing_zone.tables.decision_cases import ACC, ALLOW, APP_ROLE, CASES, DENY, DEPLOYER, M, fm, principal_context
from tests.conftest import ROOT


def scp_levels(synthesized) -> list[list[tuple[str, dict]]]:
    template = synthesized.template("guardrails")
    ours = [
        (res["Properties"]["Name"], json.loads(res["Properties"]["Content"]))
        for res in template.find_resources(
            "AWS::Organizations::Policy", {"Properties": {"Type": "SERVICE_CONTROL_POLICY"}}
        ).values()
    ]
    return [[("FullAWSAccess", FULL_AWS_ACCESS), *ours]]


@pytest.fixture(scope="module")
def eu_scps(synth):
    return scp_levels(synth(ROOT / "examples" / "eu-sovereign.yaml"))


def test_the_table_is_big_enough():
    assert len(CASES) >= 40
    assert len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.parametrize(
    ("case", "action", "resource", "region", "principal", "extra", "expected"), CASES, ids=[c[0] for c in CASES]
)
def test_guardrail_decision(eu_scps, case, action, resource, region, principal, extra, expected):
    context = {"aws:RequestedRegion": region, **principal_context(principal), **extra}
    decision = evaluate_scp_levels(eu_scps, Request(action=action, resource=resource, context=context))
    assert decision.decision == expected, decision.explain()


REGION_DENY_CASES = [
    ("S3 in a non-compliant Region", "s3:GetObject", "arn:aws:s3:::b/k", "us-east-1", APP_ROLE, DENY),
    ("EC2 in a compliant Region", "ec2:DescribeInstances", "*", "eu-west-1", APP_ROLE, ALLOW),
    ("IAM is global and exempt", "iam:CreateRole", f"arn:aws:iam::{ACC}:role/my-app", "us-east-1", APP_ROLE, ALLOW),
    ("STS is exempt", "sts:AssumeRole", f"arn:aws:iam::{ACC}:role/x", "us-east-1", APP_ROLE, ALLOW),
    ("deployment role may act anywhere", "ec2:DescribeInstances", "*", "us-east-1", DEPLOYER, ALLOW),
]


@pytest.mark.parametrize(
    ("case", "action", "resource", "region", "principal", "expected"),
    REGION_DENY_CASES,
    ids=[c[0] for c in REGION_DENY_CASES],
)
def test_optional_region_deny_for_all_services(plan_for, case, action, resource, region, principal, expected):
    plan = plan_for(ROOT / "examples" / "eu-sovereign.yaml", policy_guardrails={"region_deny_all_services": True})
    scps = plan.policies.scps
    assert scps is not None
    levels = [[("FullAWSAccess", FULL_AWS_ACCESS), *((f"scp{i}", d) for i, d in enumerate(scps.inside_documents))]]
    decision = evaluate_scp_levels(
        levels, Request(action, resource, {"aws:RequestedRegion": region, "aws:PrincipalARN": principal})
    )
    assert decision.decision == expected, decision.explain()


def test_global_inference_allowed_admits_the_global_legs(plan_for):
    plan = plan_for(allow_global_inference=True)
    scps = plan.policies.scps
    assert scps is not None
    levels = [[("FullAWSAccess", FULL_AWS_ACCESS), *((f"scp{i}", d) for i, d in enumerate(scps.inside_documents))]]
    profile = f"arn:aws:bedrock:us-east-1:111111111111:inference-profile/global.{M}"
    for resource, region, extra in [
        (profile, "us-east-1", {}),
        (fm("us-east-1"), "us-east-1", {"bedrock:InferenceProfileArn": profile}),
        (f"arn:aws:bedrock:::foundation-model/{M}", "unspecified", {"bedrock:InferenceProfileArn": profile}),
    ]:
        decision = evaluate_scp_levels(
            levels, Request("bedrock:InvokeModel", resource, {"aws:RequestedRegion": region, **extra})
        )
        assert decision.allowed, (resource, decision.explain())
    # ... while a direct call in a non-compliant Region stays denied
    denied = evaluate_scp_levels(
        levels, Request("bedrock:InvokeModel", fm("eu-west-1"), {"aws:RequestedRegion": "eu-west-1"})
    )
    assert denied.decision == DENY
