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

from landing_zone.policies.evaluator import FULL_AWS_ACCESS, Request, evaluate_scp_levels
from tests.conftest import ROOT

ACC = "222222222222"
M = "moonshotai.kimi-k3.1-pro"
OTHER = "anthropic.claude-opus-4-9"
EU_PROFILE = f"arn:aws:bedrock:eu-central-1:{ACC}:inference-profile/eu.{M}"
EU_PROFILE_W1 = f"arn:aws:bedrock:eu-west-1:{ACC}:inference-profile/eu.{M}"
US_PROFILE = f"arn:aws:bedrock:us-east-1:{ACC}:inference-profile/us.{M}"
GLOBAL_PROFILE = f"arn:aws:bedrock:eu-central-1:{ACC}:inference-profile/global.{M}"
APP_PROFILE = f"arn:aws:bedrock:eu-central-1:{ACC}:application-inference-profile/a1b2c3d4e5f6"
APP_ROLE = f"arn:aws:iam::{ACC}:role/app-invoker"
DEPLOYER = f"arn:aws:iam::{ACC}:role/cdk-hnb659fds-cfn-exec-role-{ACC}-eu-central-1"
AUTOMATION = f"arn:aws:iam::{ACC}:role/kimi-eu-automation-invocation-logging"
STACKSETS = f"arn:aws:iam::{ACC}:role/stacksets-exec-0123456789abcdef"
TAGGED = {"aws:ResourceTag/landing-zone": "kimi-eu"}
KEY = f"arn:aws:kms:eu-central-1:{ACC}:key/1234abcd-12ab-34cd-56ef-1234567890ab"


def fm(region: str, model: str = M) -> str:
    return f"arn:aws:bedrock:{region}::foundation-model/{model}"


def mantle(region: str) -> str:
    return f"arn:aws:bedrock-mantle:{region}:{ACC}:project/default"


ALLOW, DENY = "allow", "explicit_deny"

# (case, action, resource, region, principal, extra condition keys, expected decision)
CASES = [
    # --- runtime inference: in-Region and geographic profile legs -------------------------------------------
    ("eu profile, source eu-central-1", "bedrock:InvokeModel", EU_PROFILE, "eu-central-1", APP_ROLE, {}, ALLOW),
    ("eu profile streaming (ConverseStream), source eu-west-1", "bedrock:InvokeModelWithResponseStream", EU_PROFILE_W1, "eu-west-1", APP_ROLE, {}, ALLOW),
    ("eu profile leg to eu-west-3", "bedrock:InvokeModel", fm("eu-west-3"), "eu-west-3", APP_ROLE, {"bedrock:InferenceProfileArn": EU_PROFILE}, ALLOW),
    ("eu profile leg to eu-south-2 (opt-in, compliant)", "bedrock:InvokeModel", fm("eu-south-2"), "eu-south-2", APP_ROLE, {"bedrock:InferenceProfileArn": EU_PROFILE}, ALLOW),
    ("in-Region call in a compliant Region", "bedrock:InvokeModel", fm("eu-central-1"), "eu-central-1", APP_ROLE, {}, ALLOW),
    ("in-Region call in a non-compliant Region", "bedrock:InvokeModel", fm("us-east-1"), "us-east-1", APP_ROLE, {}, DENY),
    ("us profile called in us-east-1", "bedrock:InvokeModel", US_PROFILE, "us-east-1", APP_ROLE, {}, DENY),
    ("geo leg to il-central-1 (non-compliant destination)", "bedrock:InvokeModel", fm("il-central-1"), "il-central-1", APP_ROLE, {"bedrock:InferenceProfileArn": EU_PROFILE}, DENY),
    ("geo leg to eu-west-2 (London, not declared compliant)", "bedrock:InvokeModel", fm("eu-west-2"), "eu-west-2", APP_ROLE, {"bedrock:InferenceProfileArn": EU_PROFILE}, DENY),
    ("Converse in a non-compliant Region (authorised as InvokeModel)", "bedrock:InvokeModel", fm("ap-northeast-1"), "ap-northeast-1", APP_ROLE, {}, DENY),
    # --- global profile --------------------------------------------------------------------------------------
    ("global profile resource in a compliant source Region", "bedrock:InvokeModel", GLOBAL_PROFILE, "eu-central-1", APP_ROLE, {}, DENY),
    ("global profile: Region-less FM leg", "bedrock:InvokeModel", f"arn:aws:bedrock:::foundation-model/{M}", "unspecified", APP_ROLE, {"bedrock:InferenceProfileArn": GLOBAL_PROFILE}, DENY),
    ("global profile: FM leg in the source Region", "bedrock:InvokeModelWithResponseStream", GLOBAL_PROFILE, "eu-west-1", APP_ROLE, {}, DENY),
    # --- allow-list of models on runtime ---------------------------------------------------------------------
    ("unlisted model in-Region, compliant Region", "bedrock:InvokeModel", fm("eu-central-1", OTHER), "eu-central-1", APP_ROLE, {}, DENY),
    ("unlisted model's eu profile", "bedrock:InvokeModel", f"arn:aws:bedrock:eu-central-1:{ACC}:inference-profile/eu.{OTHER}", "eu-central-1", APP_ROLE, {}, DENY),
    ("application profile resource (its model legs are checked separately)", "bedrock:InvokeModel", APP_PROFILE, "eu-central-1", APP_ROLE, {}, ALLOW),
    ("application profile over an unlisted model: the model leg", "bedrock:InvokeModel", fm("eu-west-1", OTHER), "eu-west-1", APP_ROLE, {"bedrock:InferenceProfileArn": APP_PROFILE}, DENY),
    ("application profile over Kimi: the model leg", "bedrock:InvokeModel", fm("eu-west-1"), "eu-west-1", APP_ROLE, {"bedrock:InferenceProfileArn": APP_PROFILE}, ALLOW),
    ("provisioned throughput of another model", "bedrock:InvokeModel", f"arn:aws:bedrock:eu-central-1:{ACC}:provisioned-model/abc", "eu-central-1", APP_ROLE, {}, DENY),
    # --- Mantle (OpenAI-compatible endpoint) -----------------------------------------------------------------
    ("Mantle, allowed model, compliant Region", "bedrock-mantle:CreateInference", mantle("eu-central-1"), "eu-central-1", APP_ROLE, {"bedrock-mantle:Model": M}, ALLOW),
    ("Mantle, unlisted model", "bedrock-mantle:CreateInference", mantle("eu-central-1"), "eu-central-1", APP_ROLE, {"bedrock-mantle:Model": "openai.gpt-oss-120b"}, DENY),
    ("Mantle, request without the model key", "bedrock-mantle:CreateInference", mantle("eu-central-1"), "eu-central-1", APP_ROLE, {}, DENY),
    ("Mantle, allowed model, non-compliant Region", "bedrock-mantle:CreateInference", mantle("us-east-1"), "us-east-1", APP_ROLE, {"bedrock-mantle:Model": M}, DENY),
    ("Mantle read-only calls stay allowed", "bedrock-mantle:ListProjects", mantle("eu-central-1"), "eu-central-1", APP_ROLE, {}, ALLOW),
    # --- batch -----------------------------------------------------------------------------------------------
    ("batch job on the eu profile", "bedrock:CreateModelInvocationJob", EU_PROFILE, "eu-central-1", APP_ROLE, {}, ALLOW),
    ("batch job in a non-compliant Region", "bedrock:CreateModelInvocationJob", fm("us-west-2"), "us-west-2", APP_ROLE, {}, DENY),
    ("batch job on an unlisted model", "bedrock:CreateModelInvocationJob", fm("eu-central-1", OTHER), "eu-central-1", APP_ROLE, {}, DENY),
    # --- API keys --------------------------------------------------------------------------------------------
    ("create a long-term Bedrock API key", "iam:CreateServiceSpecificCredential", f"arn:aws:iam::{ACC}:user/bot", "us-east-1", APP_ROLE, {"iam:ServiceSpecificCredentialServiceName": "bedrock.amazonaws.com"}, DENY),
    ("create a CodeCommit credential (other service)", "iam:CreateServiceSpecificCredential", f"arn:aws:iam::{ACC}:user/dev", "us-east-1", APP_ROLE, {"iam:ServiceSpecificCredentialServiceName": "codecommit.amazonaws.com"}, ALLOW),
    ("call Bedrock with a bearer token", "bedrock:CallWithBearerToken", "*", "eu-central-1", APP_ROLE, {}, DENY),
    ("call Mantle with a bearer token", "bedrock-mantle:CallWithBearerToken", "*", "eu-central-1", APP_ROLE, {}, DENY),
    # --- tamper protection -----------------------------------------------------------------------------------
    ("app role changes the invocation-logging configuration", "bedrock:PutModelInvocationLoggingConfiguration", "*", "eu-central-1", APP_ROLE, {}, DENY),
    ("app role deletes the invocation-logging configuration", "bedrock:DeleteModelInvocationLoggingConfiguration", "*", "eu-central-1", APP_ROLE, {}, DENY),
    ("deployment role changes the invocation-logging configuration", "bedrock:PutModelInvocationLoggingConfiguration", "*", "eu-central-1", DEPLOYER, {}, ALLOW),
    ("landing-zone automation role sets the logging configuration", "bedrock:PutModelInvocationLoggingConfiguration", "*", "eu-central-1", AUTOMATION, {}, ALLOW),
    ("StackSets execution role sets the logging configuration", "bedrock:PutModelInvocationLoggingConfiguration", "*", "eu-central-1", STACKSETS, {}, ALLOW),
    ("app role schedules deletion of a landing-zone key", "kms:ScheduleKeyDeletion", KEY, "eu-central-1", APP_ROLE, TAGGED, DENY),
    ("deployment role schedules deletion of a landing-zone key", "kms:ScheduleKeyDeletion", KEY, "eu-central-1", DEPLOYER, TAGGED, ALLOW),
    ("app role schedules deletion of its own untagged key", "kms:ScheduleKeyDeletion", KEY, "eu-central-1", APP_ROLE, {}, ALLOW),
    ("app role removes the landing-zone tag from a key", "kms:UntagResource", KEY, "eu-central-1", APP_ROLE, TAGGED, DENY),
    ("app role deletes a landing-zone VPC endpoint", "ec2:DeleteVpcEndpoints", f"arn:aws:ec2:eu-central-1:{ACC}:vpc-endpoint/vpce-0123", "eu-central-1", APP_ROLE, TAGGED, DENY),
    ("app role edits a landing-zone endpoint policy", "ec2:ModifyVpcEndpoint", f"arn:aws:ec2:eu-central-1:{ACC}:vpc-endpoint/vpce-0123", "eu-central-1", APP_ROLE, TAGGED, DENY),
    ("app role widens a landing-zone role's trust", "iam:UpdateAssumeRolePolicy", f"arn:aws:iam::{ACC}:role/kimi-eu-invoker", "us-east-1", APP_ROLE, TAGGED, DENY),
    ("app role detaches the kill-switch policy", "iam:DetachRolePolicy", f"arn:aws:iam::{ACC}:role/kimi-eu-invoker", "us-east-1", APP_ROLE, TAGGED, DENY),
    ("app role creates a role posing as landing-zone automation", "iam:CreateRole", f"arn:aws:iam::{ACC}:role/kimi-eu-automation-evil", "us-east-1", APP_ROLE, {}, DENY),
    ("automation role may not rewrite automation roles", "iam:PutRolePolicy", f"arn:aws:iam::{ACC}:role/kimi-eu-automation-x", "us-east-1", AUTOMATION, {}, DENY),
    ("deployment role creates an automation role", "iam:CreateRole", f"arn:aws:iam::{ACC}:role/kimi-eu-automation-x", "us-east-1", DEPLOYER, {}, ALLOW),
    ("app role deletes a landing-zone stack", "cloudformation:DeleteStack", f"arn:aws:cloudformation:eu-central-1:{ACC}:stack/kimi-eu-network/1", "eu-central-1", APP_ROLE, TAGGED, DENY),
    ("app role creates its own role (unrelated IAM)", "iam:CreateRole", f"arn:aws:iam::{ACC}:role/my-app", "us-east-1", APP_ROLE, {}, ALLOW),
    # --- unrelated services stay allowed ---------------------------------------------------------------------
    ("STS in us-east-1", "sts:GetCallerIdentity", "*", "us-east-1", APP_ROLE, {}, ALLOW),
    ("S3 read in us-east-1 (no general Region deny by default)", "s3:GetObject", "arn:aws:s3:::bucket/key", "us-east-1", APP_ROLE, {}, ALLOW),
    ("S3 write in eu-central-1", "s3:PutObject", "arn:aws:s3:::bucket/key", "eu-central-1", APP_ROLE, {}, ALLOW),
    ("Bedrock catalog read in us-east-1", "bedrock:ListFoundationModels", "*", "us-east-1", APP_ROLE, {}, ALLOW),
]


def scp_levels(synthesized) -> list[list[tuple[str, dict]]]:
    template = synthesized.template("guardrails")
    ours = [
        (res["Properties"]["Name"], json.loads(res["Properties"]["Content"]))
        for res in template.find_resources("AWS::Organizations::Policy").values()
    ]
    return [[("FullAWSAccess", FULL_AWS_ACCESS), *ours]]


@pytest.fixture(scope="module")
def eu_scps(synth):
    return scp_levels(synth(ROOT / "examples" / "eu-sovereign.yaml"))


def test_the_table_is_big_enough():
    assert len(CASES) >= 40
    assert len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.parametrize(("case", "action", "resource", "region", "principal", "extra", "expected"), CASES, ids=[c[0] for c in CASES])
def test_guardrail_decision(eu_scps, case, action, resource, region, principal, extra, expected):
    context = {"aws:RequestedRegion": region, "aws:PrincipalARN": principal, **extra}
    decision = evaluate_scp_levels(eu_scps, Request(action=action, resource=resource, context=context))
    assert decision.decision == expected, decision.explain()


REGION_DENY_CASES = [
    ("S3 in a non-compliant Region", "s3:GetObject", "arn:aws:s3:::b/k", "us-east-1", APP_ROLE, DENY),
    ("EC2 in a compliant Region", "ec2:DescribeInstances", "*", "eu-west-1", APP_ROLE, ALLOW),
    ("IAM is global and exempt", "iam:CreateRole", f"arn:aws:iam::{ACC}:role/my-app", "us-east-1", APP_ROLE, ALLOW),
    ("STS is exempt", "sts:AssumeRole", f"arn:aws:iam::{ACC}:role/x", "us-east-1", APP_ROLE, ALLOW),
    ("deployment role may act anywhere", "ec2:DescribeInstances", "*", "us-east-1", DEPLOYER, ALLOW),
]


@pytest.mark.parametrize(("case", "action", "resource", "region", "principal", "expected"), REGION_DENY_CASES, ids=[c[0] for c in REGION_DENY_CASES])
def test_optional_region_deny_for_all_services(plan_for, case, action, resource, region, principal, expected):
    from landing_zone.policies.guardrails import scp_documents

    plan = plan_for(ROOT / "examples" / "eu-sovereign.yaml", policy_guardrails={"region_deny_all_services": True})
    scps = scp_documents(plan.config, plan.routing, plan.catalog)
    levels = [[("FullAWSAccess", FULL_AWS_ACCESS), *((f"scp{i}", d) for i, d in enumerate(scps.documents))]]
    decision = evaluate_scp_levels(levels, Request(action, resource, {"aws:RequestedRegion": region, "aws:PrincipalARN": principal}))
    assert decision.decision == expected, decision.explain()


def test_global_inference_allowed_admits_the_global_legs(plan_for):
    from landing_zone.policies.guardrails import scp_documents

    plan = plan_for(allow_global_inference=True)
    scps = scp_documents(plan.config, plan.routing, plan.catalog)
    levels = [[("FullAWSAccess", FULL_AWS_ACCESS), *((f"scp{i}", d) for i, d in enumerate(scps.documents))]]
    profile = f"arn:aws:bedrock:us-east-1:111111111111:inference-profile/global.{M}"
    for resource, region, extra in [
        (profile, "us-east-1", {}),
        (fm("us-east-1"), "us-east-1", {"bedrock:InferenceProfileArn": profile}),
        (f"arn:aws:bedrock:::foundation-model/{M}", "unspecified", {"bedrock:InferenceProfileArn": profile}),
    ]:
        decision = evaluate_scp_levels(levels, Request("bedrock:InvokeModel", resource, {"aws:RequestedRegion": region, **extra}))
        assert decision.allowed, (resource, decision.explain())
    # ... while a direct call in a non-compliant Region stays denied
    denied = evaluate_scp_levels(levels, Request("bedrock:InvokeModel", fm("eu-west-1"), {"aws:RequestedRegion": "eu-west-1"}))
    assert denied.decision == DENY
