"""SCP compilation: deterministic, minified, split to the size limit, refused over the count limit; precise
exemptions whose names are protected."""

from __future__ import annotations

import pytest

from landing_zone.actiondb.source import bedrock_prefixes
from landing_zone.errors import ConfigError
from landing_zone.policies.common import minified
from landing_zone.policies.evaluator import _resource_match
from landing_zone.policies.guardrails import (
    GuardrailSizeError,
    exemptions,
    guardrail_statements,
    inference_statements,
    permissions_boundary,
    protected_resources,
)
from landing_zone.policies.scp_layout import pack_statements, scp_documents
from tests.conftest import ROOT

EU = ROOT / "examples" / "eu-sovereign.yaml"
MULTI = ROOT / "examples" / "multi-account-100.yaml"
INFERENCE_SIDS = [
    "DenyBedrockOutsideCompliantRegions",
    "DenyModelCallingServicesOutsideCompliantRegions",
    "DenyInferenceStartedOutsideSourceRegions",
    "DenyDirectInferenceOutsideSourceRegions",
    "DenyBatchAndMantleOutsideSourceRegions",
    "DenyLegsOfProfilesSourcedElsewhere",
    "DenyGlobalInferenceProfiles",
    "DenyUnlistedModels",
    "DenyUnlistedModelSources",
    "DenyNonCompliantDataAutomation",
    "DenyUnlistedMantleModels",
    "DenyMantleInferenceWithoutModel",
]


def scps(plan):
    return scp_documents(plan.config, plan.routing, plan.catalog)


def test_default_guardrails_are_one_scp_per_concern_under_the_2026_quota(plan_for):
    result = scps(plan_for(EU))
    assert result.max_characters == 10240 and result.max_per_target == 10
    assert all(size == len(minified(d)) <= 10240 for size, d in zip(result.sizes, result.documents, strict=True))
    assert [p.concerns for p in result.policies] == [(c,) for c in (p.concerns[0] for p in result.policies)]
    # each governed account: ours (all but the perimeter SCP) + FullAWSAccess; the shared OU: the perimeter SCP
    (ou,) = plan_for(EU).config.organization.target_ids
    assert result.per_target()[ou] == 2
    assert result.attached_per_target == len(result.policies) - 1 + 1


def test_compilation_is_deterministic(plan_for):
    assert [minified(d) for d in scps(plan_for(EU)).documents] == [minified(d) for d in scps(plan_for(EU)).documents]


def _tight(plan_for, *args, **kwargs):
    """The smallest SCP size that holds the largest guardrail statement (with its document around it), plus a
    little: the packing must split.  Derived, because the statements grow with the action database and the
    protected inventory (a fixed 2,450 stopped fitting the tamper statement when EventBridge rules joined it)."""
    guardrails = {"region_deny_all_services": True, **kwargs.pop("policy_guardrails", {})}
    plan = plan_for(*args, policy_guardrails=guardrails, **kwargs)
    statements = guardrail_statements(plan.config, plan.routing, plan.catalog)
    return max(len(minified({"Version": "2012-10-17", "Statement": [s]})) for s in statements) + 50


def test_statements_are_split_when_they_do_not_fit_one_policy(plan_for):
    tight = _tight(plan_for, EU)
    plan = plan_for(
        EU, policy_guardrails={"scp_max_characters": tight, "scp_max_per_target": 10, "region_deny_all_services": True}
    )
    result = scps(plan)
    assert len(result.documents) >= 3
    assert all(size <= tight for size in result.sizes)
    # nothing lost or repeated; first-fit keeps the original order inside each document
    order = [s["Sid"] for s in guardrail_statements(plan.config, plan.routing, plan.catalog)]
    order += [s["Sid"] for p in result.policies if p.binds == "outside" for s in p.document["Statement"]]
    packed = [[s["Sid"] for s in d["Statement"]] for d in result.documents]
    assert sorted(sid for doc in packed for sid in doc) == sorted(order)
    assert all(doc == sorted(doc, key=order.index) for doc in packed)


def test_too_many_policies_for_a_target_fails_and_says_by_how_much(plan_for):
    plan_args = {
        "policy_guardrails": {
            "scp_max_characters": _tight(plan_for, EU, organization=None, detection={"config_rules": False}),
            "region_deny_all_services": True,
            "other_scps_per_target": 2,
            "scp_max_per_target": 5,
        }
    }
    with pytest.raises(GuardrailSizeError) as info:
        scps(
            plan_for(EU, organization=None, detection={"config_rules": False}, **plan_args)
        )  # no organization: the plan does not pre-check
    message = str(info.value)
    assert "over the quota of 5 by" in message
    assert "(FullAWSAccess, 2 other SCP(s) and the landing zone's" in message
    assert "move 2 of the other SCPs to a parent OU or the root" in message


def test_a_single_statement_over_the_limit_is_named(plan_for):
    with pytest.raises(GuardrailSizeError) as info:
        scps(
            plan_for(
                EU,
                organization=None,
                detection={"config_rules": False},
                policy_guardrails={"scp_max_characters": 1000},
            )
        )
    assert "alone is" in str(info.value) and "over the SCP limit of 1000 by" in str(info.value)


def test_pack_statements_first_fit():
    stmts = [{"Sid": f"S{i}", "Effect": "Deny", "Action": "x:" + "a" * 40, "Resource": "*"} for i in range(6)]
    one = len(minified({"Version": "2012-10-17", "Statement": stmts[:1]}))
    docs = pack_statements(stmts, max_characters=one * 2)
    assert [len(d["Statement"]) for d in docs] == [2, 2, 2]


def test_many_models_and_regions_either_split_or_fail_clearly(plan_for):
    """An oversized configuration: every catalogued model, all US + AP Regions in-Region."""
    regions = ["us-east-1", "us-east-2", "us-west-2", "ap-northeast-1", "ap-south-1", "sa-east-1"]
    models = ["kimi-k3.1-pro", "kimi-k2.5", "kimi-k2-thinking"]
    tight = _tight(plan_for, compliant_regions=regions, models=models)
    plan = plan_for(
        compliant_regions=regions,
        models=models,
        policy_guardrails={"region_deny_all_services": True, "scp_max_characters": tight, "scp_max_per_target": 10},
    )
    result = scps(plan)
    assert len(result.documents) >= 2 and max(result.sizes) <= tight


def test_without_tamper_protection_and_api_key_denies_those_statements_are_absent(plan_for):
    plan = plan_for(
        policy_guardrails={
            "tamper_protection": False,
            "deny_api_key_creation": False,
            "deny_bearer_token_calls": False,
            "allowed_service_tiers": ["reserved", "priority", "default", "flex"],
            "agentcore_controls": False,
        },
        # allowing priority needs its price (no catalog rule: AWS publishes none offline)
        cost={
            "tier_price_overrides": {
                "moonshotai.kimi-k3.1-pro": {"priority": {"multiplier": 1.75, "source": "test: an assumed premium"}}
            }
        },
    )
    sids = [s["Sid"] for s in guardrail_statements(plan.config, plan.routing, plan.catalog)]
    assert sids == INFERENCE_SIDS


def test_issue_25_controls_are_on_by_default_and_retention_only_when_governed(plan_for):
    """Tier and AgentCore denies by default; the data retention denies only with data_retention.mode
    (tests/unit/test_bedrock_controls.py evaluates them request by request)."""
    plan = plan_for()
    sids = [s["Sid"] for s in guardrail_statements(plan.config, plan.routing, plan.catalog)]
    assert sids[len(INFERENCE_SIDS) : len(INFERENCE_SIDS) + 4] == [
        "DenyBedrockApiKeyCreation",
        "DenyBearerTokenCalls",
        "DenyUnlistedServiceTiers",
        "DenyUnlistedMantleServiceTiers",
    ]
    assert {"DenyAgentCoreGatewayWithoutAuthorizer", "DenyAgentCoreWithoutVpc"} <= set(sids)
    assert not any("DataRetention" in sid for sid in sids)
    governed = plan_for(data_retention={"mode": "none"})
    sids = [s["Sid"] for s in guardrail_statements(governed.config, governed.routing, governed.catalog)]
    assert {"DenyDataRetentionModeChange", "DenyMantleDataRetentionModeChange"} <= set(sids)


def test_global_allowed_drops_the_global_profile_deny_and_admits_unspecified(plan_for):
    plan = plan_for(allow_global_inference=True)
    stmts = {s["Sid"]: s for s in guardrail_statements(plan.config, plan.routing, plan.catalog)}
    assert "DenyGlobalInferenceProfiles" not in stmts
    regions = stmts["DenyBedrockOutsideCompliantRegions"]["Condition"]["StringNotEquals"]["aws:RequestedRegion"]
    assert "unspecified" in regions


def test_region_confinement_is_by_service_not_by_action_list(plan_for):
    plan = plan_for(EU)
    (stmt,) = [
        s
        for s in guardrail_statements(plan.config, plan.routing, plan.catalog)
        if s["Sid"] == "DenyBedrockOutsideCompliantRegions"
    ]
    # every bedrock* prefix of the action database, so a new one (bedrock-websearch) is confined by rule
    assert stmt["Action"] == sorted(f"{prefix}:*" for prefix in bedrock_prefixes()) and stmt["Resource"] == "*"
    assert "bedrock-websearch:*" in stmt["Action"]
    assert "ArnNotLike" not in stmt.get("Condition", {})  # nobody is exempt from where inference happens


def test_permissions_boundary_is_a_ceiling_minus_the_inference_denies(plan_for):
    plan = plan_for()
    boundary = permissions_boundary(plan.config, plan.routing, plan.catalog)
    ceiling, pass_role, *denies = boundary["Statement"]
    assert ceiling["Sid"] == "InvokerCeiling" and ceiling["Effect"] == "Allow"
    assert "bedrock:InvokeModel" in ceiling["Action"] and "*" not in ceiling["Action"]
    assert not any(a.endswith(":*") for a in ceiling["Action"])
    assert pass_role["Condition"] == {"StringEquals": {"iam:PassedToService": "bedrock.amazonaws.com"}}
    assert denies == inference_statements(plan.config, plan.routing)
    assert [d["Sid"] for d in denies] == [
        *INFERENCE_SIDS,
        "DenyBedrockApiKeyCreation",
        "DenyBearerTokenCalls",
        "DenyUnlistedServiceTiers",
        "DenyUnlistedMantleServiceTiers",
    ]


def test_deployment_principals_must_be_role_arns(plan_for):
    with pytest.raises(ConfigError) as info:
        plan_for(policy_guardrails={"deployment_principal_arns": ["deployer"]})
    assert info.value.problems[0].path == "policy_guardrails.deployment_principal_arns[0]"


def test_a_deployment_principal_in_any_account_is_refused(plan_for):
    """A name alone can be claimed by any account: exemptions need the account ID."""
    with pytest.raises(ConfigError) as info:
        plan_for(policy_guardrails={"deployment_principal_arns": ["arn:aws:iam::*:role/break-glass"]})
    (problem,) = info.value.problems
    assert problem.path == "policy_guardrails.deployment_principal_arns[0]" and "12-digit account" in str(problem)


def test_exemptions_name_the_deployment_account_region_and_qualifier(plan_for):
    plan = plan_for(EU, policy_guardrails={"cdk_bootstrap_qualifier": "lz2026"})
    ex = exemptions(plan.config)
    assert ex.exempt == (
        "arn:aws:iam::222222222222:role/cdk-lz2026-*-role-222222222222-eu-central-1",
        "arn:aws:iam::222222222222:role/kimi-eu-automation-*",
    )
    assert "arn:aws:iam::*:role/*cdk-lz2026-*" in ex.protected_roles
    assert ex.deployers == ("arn:aws:iam::222222222222:role/eu-platform-deployer",)


def test_member_baseline_exempts_the_stacksets_roles_of_any_member_account(plan_for):
    ex = exemptions(plan_for(MULTI).config)
    assert "arn:aws:iam::*:role/stacksets-exec-*" in ex.exempt
    assert "arn:aws:iam::*:role/kimi-org-automation-*" in ex.exempt  # automation exists in every member
    assert "arn:aws:iam::*:role/*stacksets-exec-*" in ex.protected_roles


@pytest.mark.parametrize("config", [None, EU, MULTI], ids=["default", "eu", "member-baseline"])
def test_every_exempt_principal_name_is_protected(plan_for, config):
    """Whatever an exemption matches, nobody else may create or change (any path, any account)."""
    overrides = {"policy_guardrails": {"deployment_principal_arns": ["arn:aws:iam::123456789012:role/ops/break-glass"]}}
    ex = exemptions(plan_for(config, **overrides).config)
    for pattern in ex.exempt:
        account = pattern.split(":")[4].replace("*", "999999999999")
        name = pattern.split(":role/", 1)[1].replace("*", "x")
        for arn in (
            f"arn:aws:iam::{account}:role/{name}",
            f"arn:aws:iam::{account}:role/some/path/{name.rsplit('/', 1)[-1]}",
        ):
            assert any(_resource_match(p, arn) for p in ex.protected_roles), (pattern, arn)


def test_the_protected_name_patterns_follow_the_landing_zone_name(plan_for):
    resources = protected_resources(plan_for(EU).config)
    assert "arn:aws:iam::*:policy/kimi-eu-*" in resources
    assert "arn:aws:s3:::kimi-eu-*" in resources and "arn:aws:logs:*:*:log-group:/kimi-eu/*" in resources
    assert "arn:aws:lambda:*:*:function:kimi-eu-*" in resources
    assert "arn:aws:budgets::*:budget/kimi-eu-*" in resources


def test_scp_limits_are_checked_when_the_plan_is_built(plan_for):
    with pytest.raises(ConfigError) as info:
        plan_for(
            EU,
            policy_guardrails={
                "scp_max_characters": _tight(plan_for, EU),
                "region_deny_all_services": True,
                "other_scps_per_target": 6,
            },
        )
    (problem,) = info.value.problems
    # at the key written (issue 35: it was reported as policy_guardrails '(SCP limits)')
    assert (problem.path, problem.got) == ("policy_guardrails.other_scps_per_target", 6)
    assert "over the quota of 10 by" in str(problem)
    assert str(problem).endswith("other SCP(s) fit")


@pytest.mark.parametrize(
    ("guardrails", "path", "got"),
    [
        (
            {"scp_max_characters": "tight", "region_deny_all_services": True, "scp_max_per_target": 3},
            "scp_max_per_target",
            3,
        ),
        ({"scp_max_characters": 1000}, "scp_max_characters", 1000),
    ],
)
def test_an_scp_size_problem_names_the_key_that_was_written(plan_for, guardrails, path, got):
    if guardrails["scp_max_characters"] == "tight":
        guardrails = {**guardrails, "scp_max_characters": _tight(plan_for, EU)}
    with pytest.raises(ConfigError) as info:
        plan_for(EU, policy_guardrails=guardrails)
    (problem,) = info.value.problems
    assert (problem.path, problem.got) == (f"policy_guardrails.{path}", got)
