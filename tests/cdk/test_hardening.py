"""Hardening that crosses several policies: batch end to end, invocation logs that can be written, the EU case
with Mantle only, and no write path out of the isolated VPC.

Policies are read back from the synthesized templates (intrinsics resolved as CloudFormation would, or rendered as
placeholders where they cannot matter) and evaluated with landing_zone.policies.evaluator.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from landing_zone.assembly.intrinsics import SAMPLE_STACK_UUID, render_document, resolve_document, template_resolver
from landing_zone.policies.endpoints import s3_gateway_policy
from landing_zone.policies.evaluator import (
    FULL_AWS_ACCESS,
    Request,
    evaluate,
    evaluate_scp_levels,
)
from tests.conftest import ROOT

EU = ROOT / "examples" / "eu-sovereign.yaml"
EU_CORE = ROOT / "examples" / "eu-core-regions.yaml"
ACC, HOME = "222222222222", "eu-central-1"
M = "moonshotai.kimi-k3.1-pro"


def _resources(template, kind: str) -> dict[str, dict]:
    return {k: v for k, v in template.to_json()["Resources"].items() if v["Type"] == kind}


def _managed(template, name: str) -> dict:
    (policy,) = [
        r["Properties"]["PolicyDocument"]
        for r in _resources(template, "AWS::IAM::ManagedPolicy").values()
        if r["Properties"].get("ManagedPolicyName") == name
    ]
    return render_document(policy)


@pytest.fixture(scope="module")
def eu(synth):
    return synth(EU)


# ------------------------------------------------------------------------------------------------ batch end to end
def _batch_layers(eu) -> dict[str, Any]:
    access, network, guardrails = eu.template("access"), eu.template("network"), eu.template("guardrails")
    scps = [
        (r["Properties"]["Name"], json.loads(r["Properties"]["Content"]))
        for r in _resources(guardrails, "AWS::Organizations::Policy").values()
    ]
    (endpoint,) = [
        r["Properties"]["PolicyDocument"]
        for r in _resources(network, "AWS::EC2::VPCEndpoint").values()
        if r["Properties"]["ServiceName"] == f"com.amazonaws.{HOME}.bedrock"
    ]
    return {
        "scp": [[("FullAWSAccess", FULL_AWS_ACCESS), *scps]],
        "boundary": [("boundary", _managed(access, "kimi-eu-invoker-boundary"))],
        "identity": [("identity", _managed(access, "kimi-eu-invoke-code-review"))],
        "endpoint": [("endpoint", render_document(endpoint))],
    }


def _decide(layers: dict[str, Any], action: str, resource: str, region: str, **context: Any) -> dict[str, str]:
    request = Request(
        action,
        resource,
        {
            "aws:RequestedRegion": region,
            "aws:PrincipalARN": f"arn:aws:iam::{ACC}:role/kimi-eu-invoker-code-review",
            "aws:PrincipalAccount": ACC,
            "aws:PrincipalOrgID": "o-exampleorg1",
            **context,
        },
    )
    return {
        "scp": evaluate_scp_levels(layers["scp"], request).decision,
        **{name: evaluate(layers[name], request).decision for name in ("boundary", "identity", "endpoint")},
    }


def test_a_legitimate_batch_job_is_allowed_by_all_four_layers(eu):
    """CreateModelInvocationJob is authorised against the job and the foundation model (Service Authorization
    Reference, Amazon Bedrock: CreateModelInvocationJob -> model-invocation-job*, foundation-model*)."""
    layers = _batch_layers(eu)
    allow = {"scp": "allow", "boundary": "allow", "identity": "allow", "endpoint": "allow"}
    job = f"arn:aws:bedrock:{HOME}:{ACC}:model-invocation-job/j-0123"
    (batch,) = [s for s in layers["identity"][0][1]["Statement"] if s["Sid"] == "BatchCompliantModels"]
    through = {"aws:SourceVpce": batch["Condition"]["StringEquals"]["aws:SourceVpce"]}  # the control-plane endpoint
    assert _decide(layers, "bedrock:CreateModelInvocationJob", job, HOME, **through) == allow
    fm = f"arn:aws:bedrock:{HOME}::foundation-model/{M}"
    assert _decide(layers, "bedrock:CreateModelInvocationJob", fm, HOME, **through) == allow
    # attacker's side (analyzer finding): the same job created from outside the VPC endpoint
    assert _decide(layers, "bedrock:CreateModelInvocationJob", job, HOME)["identity"] == "implicit_deny"
    # ... and the service role the job runs as may be passed to Bedrock (applications[].batch_role_arns)
    passed = _decide(
        layers,
        "iam:PassRole",
        f"arn:aws:iam::{ACC}:role/code-review-batch",
        "us-east-1",
        **{"iam:PassedToService": "bedrock.amazonaws.com"},
    )
    assert (passed["scp"], passed["boundary"], passed["identity"]) == ("allow", "allow", "allow")
    other = _decide(
        layers,
        "iam:PassRole",
        f"arn:aws:iam::{ACC}:role/admin",
        "us-east-1",
        **{"iam:PassedToService": "bedrock.amazonaws.com"},
    )
    assert other["identity"] == "implicit_deny"


def test_a_batch_job_in_a_non_compliant_region_is_denied(eu):
    layers = _batch_layers(eu)
    decision = _decide(
        layers, "bedrock:CreateModelInvocationJob", f"arn:aws:bedrock:us-west-2::foundation-model/{M}", "us-west-2"
    )
    assert decision["scp"] == decision["boundary"] == "explicit_deny"
    assert decision["identity"] == "implicit_deny"


# ------------------------------------------------------------------------------------------------ log-stream ARNs
STREAM = "2026/12/01/[$LATEST]0123456789abcdef"
SUFFIX = SAMPLE_STACK_UUID.split("-")[0]


@pytest.mark.parametrize(
    ("policy_name", "log_group"),
    [
        # the sample stack ID's suffix (template_resolver): retained log groups end with the stack's suffix
        ("kimi-eu-bedrock-invocation-logging", f"/kimi-eu/bedrock/invocations-{SUFFIX}"),
        ("kimi-eu-automation-invocation-logging", f"/kimi-eu/automation/invocation-logging-{SUFFIX}"),
        ("kimi-eu-automation-invocation-logging-provider", f"/kimi-eu/automation/invocation-logging-provider-{SUFFIX}"),
    ],
)
def test_log_writers_may_write_a_real_stream_of_their_log_group(eu, policy_name, log_group):
    access = eu.template("access").to_json()
    (raw,) = [
        r["Properties"]["PolicyDocument"]
        for r in access["Resources"].values()
        if r["Type"] == "AWS::IAM::ManagedPolicy" and r["Properties"].get("ManagedPolicyName") == policy_name
    ]
    resolve = template_resolver(access, account=ACC, region=HOME)
    document = resolve_document(raw, resolve)
    stream = f"arn:aws:logs:{HOME}:{ACC}:log-group:{log_group}:log-stream:{STREAM}"
    for action in ("logs:CreateLogStream", "logs:PutLogEvents"):
        assert evaluate([("p", document)], Request(action, stream)).allowed, (action, document)
    other = f"arn:aws:logs:{HOME}:{ACC}:log-group:/somewhere/else:log-stream:{STREAM}"
    assert not evaluate([("p", document)], Request("logs:PutLogEvents", other)).allowed


def test_the_flow_log_role_may_write_a_real_stream(eu):
    network = eu.template("network").to_json()
    (raw,) = [
        r["Properties"]["PolicyDocument"]
        for r in network["Resources"].values()
        if r["Type"] == "AWS::IAM::ManagedPolicy" and r["Properties"].get("ManagedPolicyName") == "kimi-eu-flow-logs"
    ]
    resolve = template_resolver(network, account=ACC, region=HOME)
    document = resolve_document(raw, resolve)
    stream = f"arn:aws:logs:{HOME}:{ACC}:log-group:/kimi-eu/vpc-flow-logs-{SUFFIX}:log-stream:eni-0123456789abcdef0-all"
    assert evaluate([("p", document)], Request("logs:PutLogEvents", stream)).allowed


# ------------------------------------------------------------------------------------------------ the EU case
def test_the_eu_core_regions_case_synthesizes_with_mantle_only_applications(synth):
    lz = synth(EU_CORE)
    plan = lz.plan
    assert [a.mantle_only for a in plan.applications] == [True]
    (warning,) = [w for w in plan.warnings if "no compliant runtime path" in w]
    assert "eu.moonshotai.kimi-k3.1-pro: add eu-south-1, eu-south-2 to compliant_regions" in warning
    access = lz.template("access")
    assert not _resources(access, "AWS::Bedrock::ApplicationInferenceProfile")
    policy = _managed(access, "kimi-eu-core-invoke-assistant")
    allows = [s for s in policy["Statement"] if s["Effect"] == "Allow"]
    actions = {a for s in allows for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])}
    assert actions == {"bedrock-mantle:CreateInference"}
    # the rest are the service-tier denies (policy_guardrails.allowed_service_tiers), which grant nothing
    denies = {s["Sid"] for s in policy["Statement"] if s["Effect"] == "Deny"}
    assert denies == {"DenyUnlistedServiceTiers", "DenyUnlistedMantleServiceTiers"}


def test_a_model_with_no_compliant_path_at_all_is_still_refused(plan_for):
    from landing_zone.errors import ConfigError

    with pytest.raises(ConfigError) as info:
        plan_for(EU_CORE, compliant_regions=["eu-west-1", "eu-central-1"], home_region="eu-west-1")
    assert any("no compliant" in str(p) for p in info.value.problems)


# ------------------------------------------------------------------------------------------------ S3 gateway
@pytest.mark.parametrize(
    ("bucket_arn", "account", "expected"),
    [
        ("arn:aws:s3:::cloudformation-custom-resource-response-useast1/resp", "999999999999", "allow"),
        ("arn:aws:s3:::cloudformation-custom-resource-response-useast1-evil/x", "999999999999", "implicit_deny"),
        ("arn:aws:s3:::cloudformation-custom-resource-response-euwest1/x", "999999999999", "implicit_deny"),
        ("arn:aws:s3:::attacker-bucket/x", "999999999999", "implicit_deny"),
        ("arn:aws:s3:::weights/x", ACC, "allow"),
    ],
)
def test_the_s3_gateway_admits_only_this_regions_response_bucket(bucket_arn, account, expected):
    policy = s3_gateway_policy(region="us-east-1", accounts=[ACC], custom_resource_responses=True)
    request = Request("s3:PutObject", bucket_arn, {"aws:ResourceAccount": account})
    assert evaluate([("gateway", policy)], request).decision == expected
