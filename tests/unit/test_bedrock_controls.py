"""Issue 25 controls: API keys by policy choice, service tiers, AgentCore, data retention, OpenAI-compatible APIs.

Each case states the request (action, resource, Region, condition keys) and the decision AWS documents for it,
evaluated with the project's evaluator over the generated SCPs (FullAWSAccess + ours, organization mode) and the
invoker permissions boundary (single-account mode).  Sources (docs/THREAT_MODEL.md cites the same pages):

* API keys: https://docs.aws.amazon.com/bedrock/latest/userguide/api-keys-permissions.html
* service tiers: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ServiceTier.html and
  https://docs.aws.amazon.com/bedrock/latest/userguide/security_iam_id-based-policy-examples-agent.html
* AgentCore: https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/security-gateway-condition-keys.html and
  https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/security-vpc-condition.html
* data retention: https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html
* OpenAI-compatible APIs: https://docs.aws.amazon.com/bedrock/latest/userguide/inference.html
"""

from __future__ import annotations

from typing import Any

import pytest

from landing_zone.actiondb import lookup as action_db
from landing_zone.actiondb.lookup import check_document
from landing_zone.core import markers
from landing_zone.errors import ConfigError
from landing_zone.policies.evaluator import Request, evaluate, evaluate_scp_levels
from landing_zone.policies.guardrails import permissions_boundary
from landing_zone.policies.invoke import service_tier_statements
from landing_zone.policies.scp_layout import scp_documents
from tests.conftest import ROOT

EU = ROOT / "examples" / "eu-sovereign.yaml"
ACC = "222222222222"
HOME, OUTSIDE = "eu-central-1", "us-east-1"
M = "moonshotai.kimi-k3.1-pro"
APP_PROFILE = f"arn:aws:bedrock:{HOME}:{ACC}:application-inference-profile/a1b2c3d4e5f6"
MANTLE_PROJECT = f"arn:aws:bedrock-mantle:{HOME}:{ACC}:project/default"
NEW_PROJECT = f"arn:aws:bedrock-mantle:{HOME}:{ACC}:project/proj_new1"
ADMIN = f"arn:aws:iam::{ACC}:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_AdministratorAccess_0123456789abcdef"
APP = f"arn:aws:iam::{ACC}:role/app-invoker"
DEPLOYER = f"arn:aws:iam::{ACC}:role/cdk-kimilz-cfn-exec-role-{ACC}-{HOME}"
KEY_USER = f"arn:aws:iam::{ACC}:role/data-science-alice"
FULL_AWS_ACCESS = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}
DENY, ALLOW, IMPLICIT = "explicit_deny", "allow", "implicit_deny"
VPC = {"bedrock-agentcore:subnets": "subnet-0123456789abcdef0", "bedrock-agentcore:securityGroups": "sg-0a1b2c3d"}

SHORT_TERM = {
    "policy_guardrails": {
        "api_keys": "short-term-only",
        "api_key_principal_arns": [f"arn:aws:iam::{ACC}:role/data-science-*"],
    }
}
RETENTION = {"data_retention": {"mode": "none"}}


def _scp(plan: Any, principal: str, action: str, resource: str, region: str, **keys: Any) -> tuple[str, list[str]]:
    scps = scp_documents(plan.config, plan.routing, plan.catalog)
    level = [("FullAWSAccess", FULL_AWS_ACCESS)] + [(f"scp{i}", d) for i, d in enumerate(scps.inside_documents)]
    context = {"aws:RequestedRegion": region, "aws:PrincipalARN": principal, **keys}
    decision = evaluate_scp_levels([level], Request(action, resource, context))
    return decision.decision, sorted(m.sid or "" for m in decision.matched_denies)


def _boundary(plan: Any, action: str, resource: str, region: str, **keys: Any) -> tuple[str, list[str]]:
    doc = permissions_boundary(plan.config, plan.routing, plan.catalog)
    context = {"aws:RequestedRegion": region, "aws:PrincipalARN": APP, **keys}
    decision = evaluate([("boundary", doc)], Request(action, resource, context))
    return decision.decision, sorted(m.sid or "" for m in decision.matched_denies)


@pytest.fixture(scope="module")
def default_plan(plan_for: Any) -> Any:
    """eu-sovereign with the defaults of the governed settings (the example itself sets data_retention.mode)."""
    return plan_for(EU, data_retention={"mode": None})


@pytest.fixture(scope="module")
def governed_plan(plan_for: Any) -> Any:
    """eu-sovereign with short-term API keys and zero data retention."""
    return plan_for(EU, **SHORT_TERM, **RETENTION)


# --- API keys, api_keys: none (the default; api-keys-permissions.html, AWS's SCP example) -----------------------
NONE_CASES = [
    # (who, action, resource, region, keys, expected, deciding Sid)
    (
        ADMIN,
        "iam:CreateServiceSpecificCredential",
        f"arn:aws:iam::{ACC}:user/bot",
        "us-east-1",
        {"iam:ServiceSpecificCredentialServiceName": "bedrock.amazonaws.com"},
        DENY,
        "DenyBedrockApiKeyCreation",
    ),
    (
        ADMIN,
        "iam:CreateServiceSpecificCredential",
        f"arn:aws:iam::{ACC}:user/dev",
        "us-east-1",
        {"iam:ServiceSpecificCredentialServiceName": "codecommit.amazonaws.com"},
        ALLOW,
        None,
    ),
    (
        ADMIN,
        "bedrock:CallWithBearerToken",
        "*",
        HOME,
        {"bedrock:BearerTokenType": "SHORT_TERM"},
        DENY,
        "DenyBearerTokenCalls",
    ),
    (
        ADMIN,
        "bedrock-mantle:CallWithBearerToken",
        "*",
        HOME,
        {"bedrock-mantle:BearerTokenType": "LONG_TERM"},
        DENY,
        "DenyBearerTokenCalls",
    ),
]

# --- API keys, api_keys: short-term-only ---------------------------------------------------------------------------
SHORT_TERM_CASES = [
    (
        KEY_USER,
        "iam:CreateServiceSpecificCredential",
        f"arn:aws:iam::{ACC}:user/bot",
        "us-east-1",
        {"iam:ServiceSpecificCredentialServiceName": "bedrock.amazonaws.com"},
        DENY,
        "DenyBedrockApiKeyCreation",
    ),
    (
        KEY_USER,
        "bedrock:CallWithBearerToken",
        "*",
        HOME,
        {"bedrock:BearerTokenType": "LONG_TERM"},
        DENY,
        "DenyLongTermBearerTokenCalls",
    ),
    (
        KEY_USER,
        "bedrock-mantle:CallWithBearerToken",
        "*",
        HOME,
        {"bedrock-mantle:BearerTokenType": "LONG_TERM"},
        DENY,
        "DenyLongTermMantleBearerTokenCalls",
    ),
    # a call that carries no token type: fail closed
    (KEY_USER, "bedrock:CallWithBearerToken", "*", HOME, {}, DENY, "DenyLongTermBearerTokenCalls"),
    (KEY_USER, "bedrock:CallWithBearerToken", "*", HOME, {"bedrock:BearerTokenType": "SHORT_TERM"}, ALLOW, None),
    (
        KEY_USER,
        "bedrock-mantle:CallWithBearerToken",
        "*",
        HOME,
        {"bedrock-mantle:BearerTokenType": "SHORT_TERM"},
        ALLOW,
        None,
    ),
    (
        ADMIN,
        "bedrock:CallWithBearerToken",
        "*",
        HOME,
        {"bedrock:BearerTokenType": "SHORT_TERM"},
        DENY,
        "DenyBearerTokenCallsByUnlistedPrincipals",
    ),
    # the Region confinement still applies to a listed principal's short-term key
    (
        KEY_USER,
        "bedrock:CallWithBearerToken",
        "*",
        OUTSIDE,
        {"bedrock:BearerTokenType": "SHORT_TERM"},
        DENY,
        "DenyBedrockOutsideCompliantRegions",
    ),
]

# --- service tiers (default allowed_service_tiers: [default]) ------------------------------------------------------
TIER_CASES = [
    (
        ADMIN,
        "bedrock:InvokeModel",
        APP_PROFILE,
        HOME,
        {"bedrock:ServiceTier": "priority"},
        DENY,
        "DenyUnlistedServiceTiers",
    ),
    (
        ADMIN,
        "bedrock:InvokeModelWithResponseStream",
        APP_PROFILE,
        HOME,
        {"bedrock:ServiceTier": "flex"},
        DENY,
        "DenyUnlistedServiceTiers",
    ),
    (
        ADMIN,
        "bedrock:InvokeModel",
        APP_PROFILE,
        HOME,
        {"bedrock:ServiceTier": "reserved"},
        DENY,
        "DenyUnlistedServiceTiers",
    ),
    (APP, "bedrock:InvokeModel", APP_PROFILE, HOME, {"bedrock:ServiceTier": "default"}, ALLOW, None),
    # no service_tier in the request: the default (Standard) tier, no key in the context, not denied
    (APP, "bedrock:InvokeModel", APP_PROFILE, HOME, {}, ALLOW, None),
    (
        ADMIN,
        "bedrock-mantle:CreateInference",
        MANTLE_PROJECT,
        HOME,
        {"bedrock-mantle:Model": M, "bedrock-mantle:ServiceTier": "priority"},
        DENY,
        "DenyUnlistedMantleServiceTiers",
    ),
    (
        APP,
        "bedrock-mantle:CreateInference",
        MANTLE_PROJECT,
        HOME,
        {"bedrock-mantle:Model": M, "bedrock-mantle:ServiceTier": "default"},
        ALLOW,
        None,
    ),
    (APP, "bedrock-mantle:CreateInference", MANTLE_PROJECT, HOME, {"bedrock-mantle:Model": M}, ALLOW, None),
]

# --- AgentCore (agentcore_controls: true, the default) ------------------------------------------------------------
AGENTCORE_CASES = [
    (
        ADMIN,
        "bedrock-agentcore:CreateGateway",
        "*",
        HOME,
        {"bedrock-agentcore:GatewayAuthorizerType": "NONE"},
        DENY,
        "DenyAgentCoreGatewayWithoutAuthorizer",
    ),
    (
        ADMIN,
        "bedrock-agentcore:UpdateGateway",
        f"arn:aws:bedrock-agentcore:{HOME}:{ACC}:gateway/gw-0123456789",
        HOME,
        {"bedrock-agentcore:GatewayAuthorizerType": "NONE"},
        DENY,
        "DenyAgentCoreGatewayWithoutAuthorizer",
    ),
    (
        APP,
        "bedrock-agentcore:CreateGateway",
        "*",
        HOME,
        {"bedrock-agentcore:GatewayAuthorizerType": "AWS_IAM"},
        ALLOW,
        None,
    ),
    (
        APP,
        "bedrock-agentcore:CreateGateway",
        "*",
        HOME,
        {"bedrock-agentcore:GatewayAuthorizerType": "CUSTOM_JWT"},
        ALLOW,
        None,
    ),
    (ADMIN, "bedrock-agentcore:CreateAgentRuntime", "*", HOME, {}, DENY, "DenyAgentCoreWithoutVpc"),
    (
        ADMIN,
        "bedrock-agentcore:UpdateAgentRuntime",
        f"arn:aws:bedrock-agentcore:{HOME}:{ACC}:runtime/rt-123",
        HOME,
        {},
        DENY,
        "DenyAgentCoreWithoutVpc",
    ),
    (ADMIN, "bedrock-agentcore:CreateCodeInterpreter", "*", HOME, {}, DENY, "DenyAgentCoreWithoutVpc"),
    (ADMIN, "bedrock-agentcore:CreateBrowser", "*", HOME, {}, DENY, "DenyAgentCoreWithoutVpc"),
    (APP, "bedrock-agentcore:CreateAgentRuntime", "*", HOME, VPC, ALLOW, None),
    (APP, "bedrock-agentcore:CreateBrowser", "*", HOME, VPC, ALLOW, None),
    # a VPC runtime in another Region is still outside the compliant Regions
    (APP, "bedrock-agentcore:CreateAgentRuntime", "*", OUTSIDE, VPC, DENY, "DenyBedrockOutsideCompliantRegions"),
]

# --- data retention (data_retention.mode: none) ----------------------------------------------------------------------
RETENTION_CASES = [
    (
        ADMIN,
        "bedrock:PutAccountDataRetention",
        "*",
        HOME,
        {"bedrock:DataRetentionMode": "provider_data_share"},
        DENY,
        "DenyAccountSettingChanges,DenyDataRetentionModeChange",
    ),
    (DEPLOYER, "bedrock:PutAccountDataRetention", "*", HOME, {"bedrock:DataRetentionMode": "none"}, ALLOW, None),
    (
        ADMIN,
        "bedrock-mantle:PutAccountDataRetention",
        "*",
        HOME,
        {"bedrock-mantle:DataRetentionMode": "default"},
        DENY,
        "DenyAccountSettingChanges,DenyMantleDataRetentionModeChange",
    ),
    (
        ADMIN,
        "bedrock-mantle:CreateProject",
        NEW_PROJECT,
        HOME,
        {"bedrock-mantle:DataRetentionMode": "provider_data_share"},
        DENY,
        "DenyMantleDataRetentionModeChange",
    ),
    (
        ADMIN,
        "bedrock-mantle:CreateProject",
        NEW_PROJECT,
        HOME,
        {"bedrock-mantle:DataRetentionMode": "none"},
        ALLOW,
        None,
    ),
    # as in AWS's SCP, a project created without dataRetention (no key) is denied
    (ADMIN, "bedrock-mantle:CreateProject", NEW_PROJECT, HOME, {}, DENY, "DenyMantleDataRetentionModeChange"),
    (
        ADMIN,
        "bedrock-mantle:UpdateProject",
        NEW_PROJECT,
        HOME,
        {"bedrock-mantle:DataRetentionMode": "inherit"},
        DENY,
        "DenyMantleDataRetentionModeChange",
    ),
    (
        DEPLOYER,
        "bedrock-mantle:UpdateProject",
        NEW_PROJECT,
        HOME,
        {"bedrock-mantle:DataRetentionMode": "inherit"},
        ALLOW,
        None,
    ),
]

# --- OpenAI-compatible APIs: Chat Completions / Responses (inference.html) -----------------------------------------
OPENAI_CASES = [
    # bedrock-runtime /openai/v1: authorised as InvokeModel / InvokeModelWithResponseStream
    (APP, "bedrock:InvokeModel", APP_PROFILE, HOME, {"bedrock:ServiceTier": "default"}, ALLOW, None),
    (
        ADMIN,
        "bedrock:InvokeModel",
        f"arn:aws:bedrock:{OUTSIDE}::foundation-model/{M}",
        OUTSIDE,
        {},
        DENY,
        "DenyBedrockOutsideCompliantRegions,DenyDirectInferenceOutsideSourceRegions",
    ),
    (
        ADMIN,
        "bedrock:InvokeModelWithResponseStream",
        f"arn:aws:bedrock:{HOME}::foundation-model/openai.gpt-oss-120b",
        HOME,
        {},
        DENY,
        "DenyUnlistedModels",
    ),
    # stored responses (GetInvoke / CancelInvoke / DeleteInvoke on the default project): confined by Region
    (APP, "bedrock:GetInvoke", f"arn:aws:bedrock:{HOME}:{ACC}:project/default", HOME, {}, ALLOW, None),
    (
        ADMIN,
        "bedrock:GetInvoke",
        f"arn:aws:bedrock:{OUTSIDE}:{ACC}:project/default",
        OUTSIDE,
        {},
        DENY,
        "DenyBedrockOutsideCompliantRegions",
    ),
    (
        ADMIN,
        "bedrock:DeleteInvoke",
        f"arn:aws:bedrock:{OUTSIDE}:{ACC}:project/default",
        OUTSIDE,
        {},
        DENY,
        "DenyBedrockOutsideCompliantRegions",
    ),
    # bedrock-mantle: Responses, Chat Completions, Messages are CreateInference
    (
        ADMIN,
        "bedrock-mantle:CreateInference",
        f"arn:aws:bedrock-mantle:{OUTSIDE}:{ACC}:project/default",
        OUTSIDE,
        {"bedrock-mantle:Model": M},
        DENY,
        "DenyBatchAndMantleOutsideSourceRegions,DenyBedrockOutsideCompliantRegions",
    ),
    (
        ADMIN,
        "bedrock-mantle:CreateInference",
        MANTLE_PROJECT,
        HOME,
        {"bedrock-mantle:Model": "openai.gpt-oss-120b"},
        DENY,
        "DenyUnlistedMantleModels",
    ),
]


def _check(plan: Any, case: tuple[Any, ...]) -> None:
    who, action, resource, region, keys, expected, sids = case
    decision, deciding = _scp(plan, who, action, resource, region, **keys)
    assert decision == expected, (case, deciding)
    if sids is not None:
        assert ",".join(deciding) == sids, (case, deciding)


@pytest.mark.parametrize("case", NONE_CASES, ids=lambda c: f"{c[1]}-{c[5]}")
def test_api_keys_none_denies_every_key(default_plan: Any, case: tuple[Any, ...]) -> None:
    _check(default_plan, case)


@pytest.mark.parametrize("case", SHORT_TERM_CASES, ids=lambda c: f"{c[1]}-{c[4]}-{c[5]}")
def test_api_keys_short_term_only(governed_plan: Any, case: tuple[Any, ...]) -> None:
    _check(governed_plan, case)


@pytest.mark.parametrize("case", TIER_CASES, ids=lambda c: f"{c[1]}-{c[4]}")
def test_service_tiers(default_plan: Any, case: tuple[Any, ...]) -> None:
    _check(default_plan, case)


@pytest.mark.parametrize("case", AGENTCORE_CASES, ids=lambda c: f"{c[1]}-{c[5]}")
def test_agentcore_controls(default_plan: Any, case: tuple[Any, ...]) -> None:
    _check(default_plan, case)


@pytest.mark.parametrize("case", RETENTION_CASES, ids=lambda c: f"{c[1]}-{c[4]}")
def test_data_retention(governed_plan: Any, case: tuple[Any, ...]) -> None:
    _check(governed_plan, case)


@pytest.mark.parametrize("case", OPENAI_CASES, ids=lambda c: f"{c[1]}-{c[3]}-{c[5]}")
def test_openai_compatible_apis_are_confined(default_plan: Any, case: tuple[Any, ...]) -> None:
    _check(default_plan, case)


# --- the boundary (single-account mode): tiers and API keys; AgentCore and retention are outside its ceiling ------
@pytest.mark.parametrize(
    ("action", "resource", "keys", "expected", "sid"),
    [
        ("bedrock:InvokeModel", APP_PROFILE, {"bedrock:ServiceTier": "priority"}, DENY, "DenyUnlistedServiceTiers"),
        ("bedrock:InvokeModel", APP_PROFILE, {}, ALLOW, None),
        (
            "bedrock-mantle:CreateInference",
            MANTLE_PROJECT,
            {"bedrock-mantle:Model": M, "bedrock-mantle:ServiceTier": "flex"},
            DENY,
            "DenyUnlistedMantleServiceTiers",
        ),
        ("bedrock:CallWithBearerToken", "*", {"bedrock:BearerTokenType": "SHORT_TERM"}, DENY, "DenyBearerTokenCalls"),
        ("bedrock-agentcore:CreateAgentRuntime", "*", {}, IMPLICIT, None),
        ("bedrock-mantle:CreateProject", NEW_PROJECT, {"bedrock-mantle:DataRetentionMode": "default"}, IMPLICIT, None),
    ],
)
def test_boundary_carries_the_inference_controls(
    plan_for: Any, action: str, resource: str, keys: dict[str, str], expected: str, sid: str | None
) -> None:
    plan = plan_for(ROOT / "examples" / "us-single-account.yaml")
    home, acc = plan.config.home_region, plan.config.deployment_account
    decision, deciding = _boundary(plan, action, resource.replace(HOME, home).replace(ACC, acc), home, **keys)
    assert decision == expected, deciding
    assert sid is None or sid in deciding


# --- the invoker's identity policy alone: single-account mode has no SCP, so the role's own policy refuses tiers -----
GLOBAL = ROOT / "examples" / "global-inference.yaml"  # allows [default, flex]
SELF_HOSTING = ROOT / "examples" / "self-hosting.yaml"  # single account, runtime and Mantle, [default]


def _invoker(plan: Any, action: str, region: str, **keys: Any) -> tuple[str, list[str]]:
    """The decision of the application's managed policy alone, for a request that meets every condition of its own
    allow statement for ``action`` (its profile or Mantle project, through the landing zone's endpoint)."""
    ((name, invoker),) = plan.policies.invokers.items()
    # deploy-time values (the profile's ARN, the endpoint's ID, ...) as the stack would render them
    values = {m: f"arn:aws:bedrock:{region}:{ACC}:stand-in/{m[5:-1]}" for m in markers.markers_in(invoker.permissions)}
    doc = markers.resolve(invoker.permissions, values)
    allow = next(s for s in doc["Statement"] if s["Effect"] == "Allow" and action in [s["Action"]] + list(s["Action"]))
    resource = allow["Resource"] if isinstance(allow["Resource"], str) else allow["Resource"][0]
    own = markers.mantle_project_arn(name)
    if action.startswith("bedrock-mantle:") and own in values:
        # its own Mantle Project (access.mantle_projects, auto by default), the only project it may run inference
        # in: a project of the account and Region its allow names, as CloudFormation returns the project's ARN
        resource = resource.replace("project/*", "project/proj_standin")
        doc = markers.resolve(invoker.permissions, {**values, own: resource})
    context: dict[str, Any] = {"aws:RequestedRegion": region, "aws:PrincipalARN": APP}
    for op in ("StringEquals", "StringLike"):
        for key, value in allow.get("Condition", {}).get(op, {}).items():
            context[key] = value if isinstance(value, str) else value[0]
    decision = evaluate([("invoker", doc)], Request(action, resource, {**context, **keys}))
    return decision.decision, sorted(m.sid or "" for m in decision.matched_denies)


@pytest.mark.parametrize(
    ("action", "keys", "expected", "sid"),
    [
        # attacker: the application's role asks for the priority tier (not in allowed_service_tiers: [default])
        ("bedrock:InvokeModel", {"bedrock:ServiceTier": "priority"}, DENY, "DenyUnlistedServiceTiers"),
        ("bedrock:InvokeModelWithResponseStream", {"bedrock:ServiceTier": "flex"}, DENY, "DenyUnlistedServiceTiers"),
        (
            "bedrock-mantle:CreateInference",
            {"bedrock-mantle:ServiceTier": "flex"},
            DENY,
            "DenyUnlistedMantleServiceTiers",
        ),
        # legitimate: no tier named (the Standard tier, no key in the request) or the default tier by name
        ("bedrock:InvokeModel", {}, ALLOW, None),
        ("bedrock:InvokeModel", {"bedrock:ServiceTier": "default"}, ALLOW, None),
        ("bedrock-mantle:CreateInference", {}, ALLOW, None),
        ("bedrock-mantle:CreateInference", {"bedrock-mantle:ServiceTier": "default"}, ALLOW, None),
    ],
)
def test_invoker_policy_alone_denies_unlisted_tiers(
    plan_for: Any, action: str, keys: dict[str, str], expected: str, sid: str | None
) -> None:
    plan = plan_for(SELF_HOSTING)
    assert plan.config.organization is None  # single-account mode: no SCP behind the role
    assert plan.config.policy_guardrails.allowed_service_tiers == ("default",)
    decision, deciding = _invoker(plan, action, plan.config.home_region, **keys)
    assert decision == expected, deciding
    assert deciding == ([sid] if sid else [])


def test_invoker_policy_allows_a_tier_once_it_is_listed(plan_for: Any) -> None:
    plan = plan_for(GLOBAL)  # the example allows [default, flex]
    assert plan.config.policy_guardrails.allowed_service_tiers == ("default", "flex")
    home = plan.config.home_region
    assert _invoker(plan, "bedrock:InvokeModel", home, **{"bedrock:ServiceTier": "flex"}) == (ALLOW, [])
    assert _invoker(plan, "bedrock-mantle:CreateInference", home, **{"bedrock-mantle:ServiceTier": "flex"}) == (
        ALLOW,
        [],
    )
    # priority stays refused
    assert _invoker(plan, "bedrock:InvokeModel", home, **{"bedrock:ServiceTier": "priority"}) == (
        DENY,
        ["DenyUnlistedServiceTiers"],
    )


# --- options off ----------------------------------------------------------------------------------------------------
def test_every_tier_allowed_means_no_tier_statement(plan_for: Any) -> None:
    plan = plan_for(
        EU,
        policy_guardrails={"allowed_service_tiers": ["reserved", "priority", "default", "flex"]},
        cost={"tier_price_overrides": {M: {"priority": {"multiplier": 1.75, "source": "test: an assumed premium"}}}},
    )
    assert (
        _scp(plan, ADMIN, "bedrock:InvokeModel", APP_PROFILE, HOME, **{"bedrock:ServiceTier": "priority"})[0] == ALLOW
    )
    assert service_tier_statements(["default", "flex", "priority", "reserved"]) == []


def test_agentcore_controls_off(plan_for: Any) -> None:
    plan = plan_for(EU, policy_guardrails={"agentcore_controls": False})
    assert _scp(plan, ADMIN, "bedrock-agentcore:CreateAgentRuntime", "*", HOME)[0] == ALLOW
    # the Region deny stays
    assert _scp(plan, ADMIN, "bedrock-agentcore:CreateAgentRuntime", "*", OUTSIDE)[0] == DENY


def test_data_retention_not_governed_by_default(default_plan: Any) -> None:
    key = {"bedrock-mantle:DataRetentionMode": "provider_data_share"}
    assert _scp(default_plan, ADMIN, "bedrock-mantle:CreateProject", NEW_PROJECT, HOME, **key)[0] == ALLOW
    # the account setting stays a tamper-protected setting on both endpoints
    assert _scp(default_plan, ADMIN, "bedrock-mantle:PutAccountDataRetention", "*", HOME, **key)[1] == [
        "DenyAccountSettingChanges"
    ]


def test_old_api_key_switches_still_work_with_api_keys_none(plan_for: Any) -> None:
    plan = plan_for(EU, policy_guardrails={"deny_bearer_token_calls": False})
    assert _scp(plan, ADMIN, "bedrock:CallWithBearerToken", "*", HOME)[0] == ALLOW
    assert (
        _scp(
            plan,
            ADMIN,
            "iam:CreateServiceSpecificCredential",
            f"arn:aws:iam::{ACC}:user/bot",
            "us-east-1",
            **{"iam:ServiceSpecificCredentialServiceName": "bedrock.amazonaws.com"},
        )[0]
        == DENY
    )


# --- configuration errors name the field, the value and what is allowed --------------------------------------------
@pytest.mark.parametrize(
    ("overrides", "field", "words"),
    [
        ({"policy_guardrails": {"api_keys": "long-term"}}, "policy_guardrails.api_keys", "short-term-only"),
        (
            {"policy_guardrails": {"api_keys": "short-term-only"}},
            "policy_guardrails.api_key_principal_arns",
            "needs the principals",
        ),
        (
            {"policy_guardrails": {**SHORT_TERM["policy_guardrails"], "deny_bearer_token_calls": True}},
            "policy_guardrails.deny_bearer_token_calls",
            "api_keys: short-term-only",
        ),
        (
            {"policy_guardrails": {"api_key_principal_arns": [f"arn:aws:iam::{ACC}:role/x"]}},
            "policy_guardrails.api_key_principal_arns",
            "only with api_keys: short-term-only",
        ),
        (
            {"policy_guardrails": {"allowed_service_tiers": ["gold"]}},
            "policy_guardrails.allowed_service_tiers[0]",
            "flex",
        ),
        (
            {"policy_guardrails": {"allowed_service_tiers": ["priority"]}},
            "policy_guardrails.allowed_service_tiers",
            "must include 'default'",
        ),
        (
            {"policy_guardrails": {"allowed_service_tiers": ["default", "default"]}},
            "policy_guardrails.allowed_service_tiers[1]",
            "repeats",
        ),
        ({"policy_guardrails": {"agentcore_controls": "yes"}}, "policy_guardrails.agentcore_controls", "true or false"),
        ({"data_retention": {"mode": "zero"}}, "data_retention.mode", "provider_data_share"),
    ],
)
def test_bad_values_are_refused_clearly(plan_for: Any, overrides: dict[str, Any], field: str, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        plan_for(EU, **overrides)
    problems = {p.path: p for p in info.value.problems}
    assert field in problems, list(problems)
    assert words in str(problems[field]), str(problems[field])


# --- the action database check --------------------------------------------------------------------------------------
def test_generated_documents_pass_the_action_database_check(governed_plan: Any) -> None:
    """Every new statement passes the check of landing_zone/actiondb/lookup.py; GatewayAuthorizerType and the
    DataRetentionMode keys are accepted only on the actions their AWS pages document (UNKNOWN_KEY_ACTIONS)."""
    scps = scp_documents(governed_plan.config, governed_plan.routing, governed_plan.catalog)
    issues = [i for n, d in enumerate(scps.documents) for i in check_document(d, policy=f"scp{n}")]
    boundary = permissions_boundary(governed_plan.config, governed_plan.routing, governed_plan.catalog)
    assert issues + check_document(boundary, policy="boundary") == []


def test_the_gateway_authorizer_key_is_accepted_on_documented_actions_only() -> None:
    def doc(actions: list[str]) -> dict[str, Any]:
        stmt = {
            "Sid": "T",
            "Effect": "Deny",
            "Action": actions,
            "Resource": "*",
            "Condition": {"StringEquals": {"bedrock-agentcore:GatewayAuthorizerType": "NONE"}},
        }
        return {"Version": "2012-10-17", "Statement": [stmt]}

    assert check_document(doc(["bedrock-agentcore:CreateGateway"]), policy="p") == []
    issues = check_document(doc(["bedrock-agentcore:CreateGateway", "bedrock-agentcore:CreateBrowser"]), policy="p")
    assert [i.kind for i in issues] == ["key-not-applicable"]
    assert (
        "security-gateway-condition-keys.html"
        in action_db.UNKNOWN_KEYS_ALLOWED["bedrock-agentcore:GatewayAuthorizerType"]
    )
