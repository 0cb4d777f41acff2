"""content_guardrail.organization_policy: the BEDROCK_POLICY that enforces the content guardrail across the
organization, the management account's guardrail copy and its resource-based policy (issue 25 item 3)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aws_cdk.assertions import Template

from landing_zone.core import arns, markers
from landing_zone.errors import ConfigError
from landing_zone.policies.bedrock_policy import (
    BEDROCK_POLICY_MAX_CHARACTERS,
    BedrockPolicyError,
    guardrail_inference_policy,
    policy_identifier,
)
from tests.conftest import ROOT

US_ORG = ROOT / "examples" / "us-organization.yaml"
CANARY = "777777777777"
OU = "ou-efgh-22222222"
REGION = "us-east-1"


def overrides(**guardrail: Any) -> dict[str, Any]:
    return {
        "organization": {"target_ids": [OU, CANARY]},
        "content_guardrail": {
            "enabled": True,
            "organization_policy": True,
            "canary_target_ids": [CANARY],
            **guardrail,
        },
    }


def guardrails(synth_with: Any, name: str, **guardrail: Any) -> tuple[Any, Template]:
    """The US organization example with the overrides, synthesized (cached): its plan and guardrails template."""
    lz = synth_with(f"us-organization-{name}", US_ORG, **overrides(**guardrail))
    return lz.plan, lz.template("guardrails")


@pytest.fixture(scope="module")
def canary(synth_with: Any) -> tuple[Any, Template]:
    return guardrails(synth_with, "bedrock-policy-canary")


def bedrock_policies(t: Template) -> list[dict[str, Any]]:
    return [
        r["Properties"]
        for r in t.to_json()["Resources"].values()
        if r["Type"] == "AWS::Organizations::Policy" and r["Properties"]["Type"] == "BEDROCK_POLICY"
    ]


def test_the_policy_names_the_management_accounts_guardrail_version(canary: tuple[Any, Template]) -> None:
    plan, t = canary
    raw = t.to_json()["Resources"]
    (policy,) = bedrock_policies(t)
    assert policy["Name"] == f"{plan.config.name}-bedrock-guardrail-inference"
    guardrail = next(k for k, r in raw.items() if r["Type"] == "AWS::Bedrock::Guardrail")
    version = next(k for k, r in raw.items() if r["Type"] == "AWS::Bedrock::GuardrailVersion")
    content = json.dumps(policy["Content"])
    assert f'"{guardrail}", "GuardrailArn"' in content and f'"{version}", "Version"' in content
    # no account-wide enforcement in the management account: the organization policy enforces it
    assert not [r for r in raw.values() if r["Type"] == "AWS::Bedrock::EnforcedGuardrailConfiguration"]
    assert plan.policies.guardrail_organization.inference == {
        "bedrock": {
            "guardrail_inference": {
                plan.config.home_region: {
                    "config_1": {
                        "identifier": {"@@assign": f"{markers.GUARDRAIL_ARN}:{markers.GUARDRAIL_VERSION}"},
                        "input_tags": {"@@assign": "ignore"},
                    }
                }
            }
        }
    }


def test_canary_rollout_attaches_to_the_canary_targets_only(canary: tuple[Any, Template]) -> None:
    _, t = canary
    (policy,) = bedrock_policies(t)
    assert policy["TargetIds"] == [CANARY]


def test_rollout_all_adds_the_rest_of_the_targets(synth_with: Any) -> None:
    _, t = guardrails(synth_with, "bedrock-policy-all", organization_policy_rollout="all", input_tags="honor")
    (policy,) = bedrock_policies(t)
    assert policy["TargetIds"] == [CANARY, OU]
    assert '\\"input_tags\\":{\\"@@assign\\":\\"honor\\"}' in json.dumps(policy["Content"])


def test_the_resource_policy_admits_the_organization_to_apply_the_guardrail(canary: tuple[Any, Template]) -> None:
    plan, t = canary
    raw = t.to_json()["Resources"]
    (rbp,) = [r["Properties"] for r in raw.values() if r["Type"] == "AWS::Bedrock::ResourcePolicy"]
    guardrail = next(k for k, r in raw.items() if r["Type"] == "AWS::Bedrock::Guardrail")
    assert rbp["ResourceArn"] == {"Fn::GetAtt": [guardrail, "GuardrailArn"]}
    (stmt,) = rbp["PolicyDocument"]["Statement"]
    assert stmt["Action"] == "bedrock:ApplyGuardrail" and stmt["Principal"] == {"AWS": "*"}
    assert stmt["Condition"] == {"StringEquals": {"aws:PrincipalOrgID": plan.config.organization.organization_id}}
    assert stmt["Resource"] == {"Fn::GetAtt": [guardrail, "GuardrailArn"]}


def test_the_identifier_is_a_stack_output_and_the_policy_follows_the_resource_policy(
    canary: tuple[Any, Template],
) -> None:
    _, t = canary
    raw = t.to_json()
    assert "GuardrailInferenceIdentifier" in raw["Outputs"]
    rbp = next(k for k, r in raw["Resources"].items() if r["Type"] == "AWS::Bedrock::ResourcePolicy")
    (policy,) = [
        r
        for r in raw["Resources"].values()
        if r["Type"] == "AWS::Organizations::Policy" and r["Properties"]["Type"] == "BEDROCK_POLICY"
    ]
    assert rbp in policy.get("DependsOn", [])


@pytest.mark.parametrize(
    "identifier",
    [
        f"arn:aws:bedrock:{REGION}:888888888888:guardrail/abc123",  # no version
        f"arn:aws:bedrock:{REGION}:888888888888:guardrail/abc123:DRAFT",
        f"arn:aws:bedrock:{REGION}:888888888888:guardrail/abc123:0",
        "arn:aws:bedrock:eu-west-1:888888888888:guardrail/abc123:1",  # another Region
        f"arn:aws:bedrock:{REGION}:999999999999:guardrail/abc123:1",  # not the management account
        "abc123:1",
    ],
)
def test_a_malformed_identifier_is_refused(identifier: str) -> None:
    assert arns.guardrail_identifier_problem(identifier, region=REGION, account="888888888888")
    with pytest.raises(BedrockPolicyError, match="identifier"):
        guardrail_inference_policy(
            region=REGION, identifier="x", input_tags="honor", sample_identifier=identifier, account="888888888888"
        )


def test_the_construct_refuses_a_document_of_another_shape() -> None:
    from constructs_lib.guardrail_organization_policy import check_identifier

    good = guardrail_inference_policy(
        region=REGION,
        identifier=f"{markers.GUARDRAIL_ARN}:{markers.GUARDRAIL_VERSION}",
        input_tags="honor",
        sample_identifier=f"arn:aws:bedrock:{REGION}:888888888888:guardrail/abc123:1",
        account="888888888888",
    )
    check_identifier(good, REGION)
    bad = json.loads(json.dumps(good).replace(f":{markers.GUARDRAIL_VERSION}", ""))  # the ARN without its version
    with pytest.raises(ValueError, match="numbered version"):
        check_identifier(bad, REGION)
    with pytest.raises(ValueError, match="Region"):
        check_identifier(good, "eu-west-1")


def test_a_well_formed_identifier_passes_and_is_read_back() -> None:
    identifier = f"arn:aws:bedrock:{REGION}:888888888888:guardrail/hu1dlsv9wy1d:1"  # AWS's example shape
    assert arns.guardrail_identifier_problem(identifier, region=REGION, account="888888888888") is None
    doc = guardrail_inference_policy(
        region=REGION, identifier=identifier, input_tags="honor", sample_identifier=identifier, account="888888888888"
    )
    assert policy_identifier(json.dumps(doc), REGION) == identifier
    assert len(json.dumps(doc, separators=(",", ":"))) < BEDROCK_POLICY_MAX_CHARACTERS


def test_an_oversized_document_is_refused() -> None:
    huge = f"arn:aws:bedrock:{REGION}:888888888888:guardrail/{'a' * 10_000}:1"
    with pytest.raises(BedrockPolicyError, match="10000"):
        guardrail_inference_policy(
            region=REGION, identifier="x", input_tags="honor", sample_identifier=huge, account="888888888888"
        )


@pytest.mark.parametrize(
    ("change", "field", "needle"),
    [
        ({"organization": None}, "content_guardrail.organization_policy", "organization mode"),
        ({"content_guardrail": {"enabled": False}}, "content_guardrail.organization_policy", "enabled: true"),
        ({"content_guardrail": {"canary_target_ids": []}}, "content_guardrail.canary_target_ids", "required"),
        (
            {"content_guardrail": {"canary_target_ids": ["111111111111"]}},
            "content_guardrail.canary_target_ids",
            "not in",
        ),
        ({"organization": {"organization_id": None}}, "organization.organization_id", "aws:PrincipalOrgID"),
    ],
)
def test_the_configuration_refuses_an_unusable_organization_policy(
    plan_for: Any, change: dict[str, Any], field: str, needle: str
) -> None:
    from landing_zone.core.config import deep_merge

    with pytest.raises(ConfigError) as err:
        plan_for(US_ORG, **deep_merge(overrides(), change))
    text = str(err.value)
    assert field in text and needle in text, text
