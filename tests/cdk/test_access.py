"""The access stack: invoker roles, application profiles, invocation logging, guardrail, model agreements."""

from __future__ import annotations

import json

import pytest
from aws_cdk.assertions import Match

from landing_zone.assembly.intrinsics import STACK_SUFFIX, resolve_document, template_resolver
from landing_zone.policies.common import actions_of, resources_of
from landing_zone.policies.evaluator import Request, evaluate
from tests.conftest import ROOT

EU = ROOT / "examples" / "eu-sovereign.yaml"
US = ROOT / "examples" / "us-single-account.yaml"
M = "moonshotai.kimi-k3.1-pro"
INVOKE = {
    "bedrock:InvokeModel",
    "bedrock:InvokeModelWithResponseStream",
    "bedrock:CreateModelInvocationJob",
    "bedrock-mantle:CreateInference",
}


ACCOUNT = "123456789012"


def resolve(template_json: dict, value, region: str):
    """The policy with its intrinsics resolved offline (the one resolver of landing_zone.assembly.intrinsics)."""
    return resolve_document(value, template_resolver(template_json, account=ACCOUNT, region=region))


def token_arn(kind: str, logical_id: str, region: str) -> str:
    """What the resolver makes of ``Fn::GetAtt`` of an application profile or guardrail."""
    return f"arn:aws:bedrock:{region}:{ACCOUNT}:{kind}/{logical_id.lower()}"


def by_type(template, type_):
    return template.find_resources(type_)


def managed_policy(template, name_suffix, region="eu-central-1"):
    raw = template.to_json()
    for res in raw["Resources"].values():
        if res["Type"] == "AWS::IAM::ManagedPolicy" and str(res["Properties"].get("ManagedPolicyName", "")).endswith(
            name_suffix
        ):
            return resolve(raw, res["Properties"]["PolicyDocument"], region)
    raise KeyError(name_suffix)


@pytest.fixture(scope="module")
def eu(synth):
    return synth(EU)


@pytest.fixture(scope="module")
def eu_access(eu):
    return eu.template("access")


def test_one_profile_and_one_invoker_role_per_application(eu_access):
    profiles = by_type(eu_access, "AWS::Bedrock::ApplicationInferenceProfile")
    assert {p["Properties"]["InferenceProfileName"] for p in profiles.values()} == {
        "kimi-eu-support-bot",
        "kimi-eu-code-review",
    }
    for p in profiles.values():
        assert (
            p["Properties"]["ModelSource"]["CopyFrom"]
            == f"arn:aws:bedrock:eu-central-1:222222222222:inference-profile/eu.{M}"
        )
        tags = {t["Key"]: t["Value"] for t in p["Properties"]["Tags"]}
        assert set(tags) >= {"application", "cost-center", "landing-zone"}
    roles = {r["Properties"].get("RoleName", "") for r in by_type(eu_access, "AWS::IAM::Role").values()}
    assert {"kimi-eu-invoker-support-bot", "kimi-eu-invoker-code-review"} <= roles


def test_profiles_and_roles_are_stack_outputs(eu_access):
    outputs = eu_access.to_json()["Outputs"]
    assert {
        "SupportBotProfileArn",
        "SupportBotInvokerRoleArn",
        "CodeReviewProfileArn",
        "CodeReviewInvokerRoleArn",
    } <= set(outputs)


def test_trust_is_narrowed_to_sso_permission_sets_and_named_principals(eu_access):
    roles = {
        r["Properties"].get("RoleName", ""): r["Properties"] for r in by_type(eu_access, "AWS::IAM::Role").values()
    }
    support = roles["kimi-eu-invoker-support-bot"]["AssumeRolePolicyDocument"]["Statement"][0]
    assert support["Principal"] == {"AWS": "arn:aws:iam::222222222222:root"}
    assert support["Condition"]["ArnLike"]["aws:PrincipalArn"] == (
        "arn:aws:iam::222222222222:role/aws-reserved/sso.amazonaws.com/*AWSReservedSSO_SupportEngineers_*"
    )
    review = roles["kimi-eu-invoker-code-review"]["AssumeRolePolicyDocument"]["Statement"][0]
    assert review["Principal"] == {"AWS": "arn:aws:iam::333333333333:root"}
    assert review["Condition"]["ArnLike"]["aws:PrincipalArn"] == "arn:aws:iam::333333333333:role/ci-runner"


def test_invoker_roles_carry_the_guardrail_boundary(eu_access):
    raw = eu_access.to_json()["Resources"]
    boundary_ids = {
        k
        for k, v in raw.items()
        if v["Type"] == "AWS::IAM::ManagedPolicy"
        and v["Properties"].get("ManagedPolicyName") == "kimi-eu-invoker-boundary"
    }
    (boundary_id,) = boundary_ids
    for res in raw.values():
        if res["Type"] == "AWS::IAM::Role" and res["Properties"].get("RoleName", "").startswith("kimi-eu-invoker-"):
            assert res["Properties"]["PermissionsBoundary"] == {"Ref": boundary_id}
    sids = [s["Sid"] for s in raw[boundary_id]["Properties"]["PolicyDocument"]["Statement"]]
    assert sids[0] == "InvokerCeiling" and "DenyBedrockOutsideCompliantRegions" in sids
    assert not any(sid.startswith(("DenyExemptRole", "DenyLandingZone", "DenyTagged")) for sid in sids)  # SCP only


@pytest.mark.parametrize(
    "example", [None, EU, US, ROOT / "examples" / "global-inference.yaml"], ids=["default", "eu", "us", "global"]
)
def test_no_invoke_statement_has_a_wildcard_resource_or_a_non_compliant_region(synth, example):
    lz = synth(example)
    cfg = lz.plan.config
    allowed = set(cfg.compliant_regions) | {""}
    if cfg.allow_global_inference:
        allowed |= set(lz.plan.catalog.commercial_regions())
    raw = lz.template("access").to_json()
    checked = 0
    for res in raw["Resources"].values():
        if res["Type"] != "AWS::IAM::ManagedPolicy":
            continue
        for stmt in resolve(raw, res["Properties"]["PolicyDocument"], cfg.home_region)["Statement"]:
            if stmt["Effect"] != "Allow" or not INVOKE & set(actions_of(stmt)):
                continue
            if stmt.get("Sid") == "InvokerCeiling":
                continue  # the boundary's ceiling grants nothing by itself
            for resource in resources_of(stmt):
                checked += 1
                assert resource != "*", stmt
                region = resource.split(":")[3] if resource.startswith("arn:") else ""
                assert region in allowed, (resource, stmt["Sid"])
    assert checked > 0


def decide(policy, action, resource, **context):
    return evaluate([("invoker", policy)], Request(action, resource, context)).decision


def test_invoker_policy_semantics(eu_access):
    policy = managed_policy(eu_access, "-invoke-support-bot")
    profile = next(
        token_arn("application-inference-profile", k, "eu-central-1")
        for k, v in eu_access.to_json()["Resources"].items()
        if v["Type"] == "AWS::Bedrock::ApplicationInferenceProfile"
        and v["Properties"]["InferenceProfileName"] == "kimi-eu-support-bot"
    )
    vpce = next(s for s in policy["Statement"] if s["Sid"] == "InvokeCompliantModelsAndProfiles")["Condition"][
        "StringEquals"
    ]["aws:SourceVpce"]
    leg = f"arn:aws:bedrock:eu-west-3::foundation-model/{M}"
    assert decide(policy, "bedrock:InvokeModel", profile, **{"aws:SourceVpce": vpce}) == "allow"
    assert decide(policy, "bedrock:InvokeModel", profile) == "implicit_deny"  # not through the endpoint
    assert decide(policy, "bedrock:InvokeModel", profile, **{"aws:SourceVpce": "vpce-0someoneelse"}) == "implicit_deny"
    assert (
        decide(policy, "bedrock:InvokeModel", leg, **{"bedrock:InferenceProfileArn": profile}) == "allow"
    )  # legs carry no vpce
    assert decide(policy, "bedrock:InvokeModel", leg) == "implicit_deny"
    assert (
        decide(
            policy,
            "bedrock:InvokeModel",
            f"arn:aws:bedrock:us-east-1::foundation-model/{M}",
            **{"bedrock:InferenceProfileArn": profile},
        )
        == "implicit_deny"
    )
    assert (
        decide(
            policy,
            "bedrock:InvokeModel",
            "arn:aws:bedrock:eu-west-3::foundation-model/moonshotai.kimi-k2.5",
            **{"bedrock:InferenceProfileArn": profile},
        )
        == "implicit_deny"
    )
    # Mantle in the default project carries no cost-allocation tag, and eu-central-1 has no AWS::BedrockMantle::Project:
    # with budget_scope auto the application keeps its (tagged) runtime path only (docs/COST.md)
    mantle = "arn:aws:bedrock-mantle:eu-central-1:222222222222:project/default"
    assert not [s for s in policy["Statement"] if s["Sid"].startswith("MantleInvoke")]
    assert decide(policy, "bedrock-mantle:CreateInference", mantle, **{"bedrock-mantle:Model": M}) == "implicit_deny"


def test_per_request_guardrail_is_required_by_the_invoker_policy(synth):
    lz = synth(US)
    t = lz.template("access")
    policy = managed_policy(t, "-invoke-us-workload", lz.plan.config.home_region)
    direct = next(s for s in policy["Statement"] if s["Sid"] == "InvokeCompliantModelsAndProfiles")
    guardrail = next(k for k, v in t.to_json()["Resources"].items() if v["Type"] == "AWS::Bedrock::Guardrail")
    guardrail_arn = token_arn("guardrail", guardrail, lz.plan.config.home_region)
    assert direct["Condition"]["StringLike"]["bedrock:GuardrailIdentifier"] == [guardrail_arn, f"{guardrail_arn}:*"]
    vpce = direct["Condition"]["StringEquals"]["aws:SourceVpce"]
    resource = resources_of(direct)[0]
    assert decide(policy, "bedrock:InvokeModel", resource, **{"aws:SourceVpce": vpce}) == "implicit_deny"
    assert (
        decide(
            policy,
            "bedrock:InvokeModel",
            resource,
            **{"aws:SourceVpce": vpce, "bedrock:GuardrailIdentifier": f"{guardrail_arn}:1"},
        )
        == "allow"
    )
    t.resource_count_is("AWS::Bedrock::EnforcedGuardrailConfiguration", 0)


def test_account_enforced_guardrail_uses_a_numbered_version(eu_access):
    eu_access.resource_count_is("AWS::Bedrock::Guardrail", 1)
    eu_access.has_resource_properties(
        "AWS::Bedrock::EnforcedGuardrailConfiguration",
        {"GuardrailVersion": {"Fn::GetAtt": [Match.string_like_regexp("ContentGuardrailVersion"), "Version"]}},
    )


def test_no_guardrail_and_no_agreements_by_default(default_lz):
    t = default_lz.template("access")
    t.resource_count_is("AWS::Bedrock::Guardrail", 0)
    t.resource_count_is("Custom::BedrockModelAgreements", 0)


def test_model_agreements_custom_resource_when_enabled(eu_access):
    eu_access.has_resource_properties("Custom::BedrockModelAgreements", {"ModelIds": M, "OfferType": "PUBLIC"})
    roles = {r["Properties"].get("RoleName", "") for r in by_type(eu_access, "AWS::IAM::Role").values()}
    assert "kimi-eu-automation-model-agreement" in roles
    # only the agreement handler may subscribe in Marketplace
    raw = eu_access.to_json()["Resources"]
    subscribers = [
        k
        for k, v in raw.items()
        if v["Type"] == "AWS::IAM::ManagedPolicy"
        and "aws-marketplace:Subscribe" in json.dumps(v["Properties"]["PolicyDocument"])
    ]
    assert len(subscribers) == 1 and "ModelAgreements" in subscribers[0]


def test_invocation_log_bucket_is_kms_encrypted_tls_only_versioned_acl_less_with_lifecycle(eu_access):
    raw = eu_access.to_json()["Resources"]
    bucket_id, bucket = next(
        (k, v) for k, v in raw.items() if v["Type"] == "AWS::S3::Bucket" and "InvocationLoggingBucket" in k
    )
    props = bucket["Properties"]
    sse = props["BucketEncryption"]["ServerSideEncryptionConfiguration"][0]
    assert sse["ServerSideEncryptionByDefault"]["SSEAlgorithm"] == "aws:kms" and sse["BucketKeyEnabled"] is True
    assert props["VersioningConfiguration"] == {"Status": "Enabled"}
    assert props["OwnershipControls"]["Rules"] == [{"ObjectOwnership": "BucketOwnerEnforced"}]
    assert props["PublicAccessBlockConfiguration"] == {
        "BlockPublicAcls": True,
        "BlockPublicPolicy": True,
        "IgnorePublicAcls": True,
        "RestrictPublicBuckets": True,
    }
    rule = props["LifecycleConfiguration"]["Rules"][0]
    assert rule["ExpirationInDays"] == 400 and rule["Transitions"][0]["TransitionInDays"] == 30
    assert bucket["DeletionPolicy"] == "Retain"
    policy = next(
        v["Properties"]["PolicyDocument"]
        for v in raw.values()
        if v["Type"] == "AWS::S3::BucketPolicy" and v["Properties"]["Bucket"] == {"Ref": bucket_id}
    )
    stmts = {s["Sid"]: s for s in policy["Statement"]}
    assert stmts["DenyInsecureTransport"]["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    bedrock = stmts["BedrockWritesInvocationLogs"]
    assert bedrock["Principal"] == {"Service": "bedrock.amazonaws.com"}
    assert bedrock["Condition"]["StringEquals"] == {"aws:SourceAccount": "222222222222"}
    assert bedrock["Condition"]["ArnLike"] == {"aws:SourceArn": "arn:aws:bedrock:eu-central-1:222222222222:*"}


def test_invocation_log_group_and_configuration(eu_access):
    eu_access.has_resource_properties(
        "AWS::Logs::LogGroup",
        {
            # retained: the name ends with the stack's suffix (a redeploy after destroy names it anew)
            "LogGroupName": {"Fn::Join": ["", ["/kimi-eu/bedrock/invocations-", STACK_SUFFIX]]},
            "RetentionInDays": 365,
            "KmsKeyId": Match.any_value(),
        },
    )
    eu_access.has_resource_properties(
        "Custom::BedrockInvocationLogging",
        {
            "KeyPrefix": "bedrock-invocation-logs/",
            "TextDataDeliveryEnabled": "true",
            "VideoDataDeliveryEnabled": "false",
            "BucketName": Match.any_value(),
            "LogGroupName": Match.any_value(),
            "RoleArn": Match.any_value(),
        },
    )
    roles = {
        r["Properties"].get("RoleName", ""): r["Properties"] for r in by_type(eu_access, "AWS::IAM::Role").values()
    }
    trust = roles["kimi-eu-bedrock-invocation-logging"]["AssumeRolePolicyDocument"]["Statement"][0]
    assert trust["Principal"] == {"Service": "bedrock.amazonaws.com"}
    assert trust["Condition"]["StringEquals"] == {"aws:SourceAccount": "222222222222"}
    assert "kimi-eu-automation-invocation-logging" in roles  # exempt from tamper protection by name


def test_handler_can_pass_only_the_logging_role_only_to_bedrock(eu_access):
    raw = eu_access.to_json()["Resources"]
    docs = [
        v["Properties"]["PolicyDocument"]
        for k, v in raw.items()
        if v["Type"] == "AWS::IAM::ManagedPolicy" and "InvocationLoggingConfigurationPolicy" in k
    ]
    (doc,) = docs
    passrole = next(s for s in doc["Statement"] if s["Action"] == "iam:PassRole")
    assert passrole["Condition"] == {"StringEquals": {"iam:PassedToService": "bedrock.amazonaws.com"}}
    assert "Fn::GetAtt" in passrole["Resource"]


def test_logging_can_be_turned_off(synth_with):
    t = synth_with("logging-off", invocation_logging={"enabled": False}).template("access")
    t.resource_count_is("Custom::BedrockInvocationLogging", 0)
    t.resource_count_is("AWS::S3::Bucket", 0)
