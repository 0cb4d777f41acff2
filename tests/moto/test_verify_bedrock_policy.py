"""The ``guardrail-org-policy`` check: botocore Stubbers for organizations DescribeEffectivePolicy (BEDROCK_POLICY)
and CloudFormation DescribeStacks (the guardrails stack's ``GuardrailInferenceIdentifier`` output), against a
one-policy assembly as the guardrails stack synthesizes it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from landing_zone.assembly import Assembly, Stack
from landing_zone.verify.checks import CHECK_FAMILIES, Context
from landing_zone.verify.checks.bedrock_policy import check_bedrock_policies
from landing_zone.verify.live import Live
from landing_zone.verify.report import Status

REGION = "us-east-1"
MANAGEMENT = "888888888888"
CANARY = "777777777777"
IDENTIFIER = f"arn:aws:bedrock:{REGION}:{MANAGEMENT}:guardrail/hu1dlsv9wy1d:1"
STACK = "kimi-us-guardrails"


def effective(identifier: str, *, assign: bool = False) -> str:
    value: Any = {"@@assign": identifier} if assign else identifier
    tags: Any = {"@@assign": "ignore"} if assign else "ignore"
    return json.dumps(
        {"bedrock": {"guardrail_inference": {REGION: {"config_1": {"identifier": value, "input_tags": tags}}}}}
    )


def client(service: str) -> Any:
    return boto3.client(service, region_name=REGION, aws_access_key_id="x", aws_secret_access_key="y")


def context(targets: list[str], *, output: str | None = IDENTIFIER) -> tuple[Context, Stubber, Stubber]:
    stack = Stack(
        STACK,
        f"{STACK}.template.json",
        MANAGEMENT,
        REGION,
        {
            "Resources": {
                "Policy": {
                    "Type": "AWS::Organizations::Policy",
                    "Properties": {"Type": "BEDROCK_POLICY", "Content": "{}", "TargetIds": targets, "Name": "p"},
                }
            }
        },
    )
    live = Live(profile=None, management_profile="mgmt", region=REGION)
    orgs, cfn = client("organizations"), client("cloudformation")
    live._clients[("organizations", REGION, "mgmt")] = orgs
    live._clients[("cloudformation", REGION, "mgmt")] = cfn
    cfn_stub = Stubber(cfn)
    outputs = [{"OutputKey": "GuardrailInferenceIdentifier", "OutputValue": output}] if output else []
    cfn_stub.add_response(
        "describe_stacks",
        {
            "Stacks": [
                {
                    "StackName": STACK,
                    "CreationTime": "2026-12-02T00:00:00Z",
                    "StackStatus": "CREATE_COMPLETE",
                    "Outputs": outputs,
                }
            ]
        },
        {"StackName": STACK},
    )
    ctx = Context(Assembly(Path("."), (stack,)), live, "kimi-us", REGION, deployment_account="777777777777")
    return ctx, Stubber(orgs), cfn_stub


def expect(orgs: Stubber, account: str, content: str) -> None:
    orgs.add_response(
        "describe_effective_policy",
        {"EffectivePolicy": {"PolicyContent": content, "TargetId": account, "PolicyType": "BEDROCK_POLICY"}},
        {"PolicyType": "BEDROCK_POLICY", "TargetId": account},
    )


def run(ctx: Context, *stubs: Stubber) -> list[Any]:
    for s in stubs:
        s.activate()
    try:
        return check_bedrock_policies(ctx)
    finally:
        for s in stubs:
            s.deactivate()


def test_the_family_is_registered() -> None:
    assert [f.checks for f in CHECK_FAMILIES if f.name == "guardrail-org-policy"] == [("guardrail-org-policy",)]


@pytest.mark.parametrize("assign", [False, True], ids=["resolved", "with-assign"])
def test_pass_when_the_canary_account_enforces_the_recorded_version(assign: bool) -> None:
    ctx, orgs, cfn = context([CANARY, "ou-efgh-22222222"])
    expect(orgs, CANARY, effective(IDENTIFIER, assign=assign))
    rows = run(ctx, orgs, cfn)
    orgs.assert_no_pending_responses()
    assert [(r.check, r.resource, r.actual, r.status) for r in rows] == [
        ("guardrail-org-policy", f"BEDROCK_POLICY of {CANARY} in {REGION}", IDENTIFIER, Status.PASS)
    ]


@pytest.mark.parametrize(
    ("live", "why"),
    [
        (IDENTIFIER.replace(":1", ":2"), "another guardrail or version"),
        (IDENTIFIER.rsplit(":", 1)[0], "malformed"),  # no version: every Bedrock call would fail
        (IDENTIFIER.replace(":1", ":DRAFT"), "malformed"),
    ],
)
def test_drift_when_the_effective_identifier_differs(live: str, why: str) -> None:
    ctx, orgs, cfn = context([CANARY])
    expect(orgs, CANARY, effective(live))
    rows = run(ctx, orgs, cfn)
    assert [(r.expected, r.actual, r.status) for r in rows] == [(IDENTIFIER, live, Status.DRIFT)]
    assert why in rows[0].detail


def test_drift_when_no_policy_applies_to_the_canary() -> None:
    ctx, orgs, cfn = context([CANARY])
    orgs.add_client_error(
        "describe_effective_policy",
        "EffectivePolicyNotFoundException",
        "no effective policy",
        400,
        {"PolicyType": "BEDROCK_POLICY", "TargetId": CANARY},
    )
    rows = run(ctx, orgs, cfn)
    assert [(r.actual, r.status) for r in rows] == [("no effective policy", Status.DRIFT)]


def test_a_canary_of_ous_only_cannot_be_read_and_says_so() -> None:
    ctx, orgs, cfn = context(["ou-efgh-22222222"])
    rows = run(ctx, orgs)
    assert [(r.actual, r.status) for r in rows] == [("not checked", Status.ERROR)]
    assert "canary_target_ids" in rows[0].detail
