"""SCP compilation: deterministic, minified, split to the size limit, refused over the count limit."""

from __future__ import annotations

import pytest

from landing_zone.policies.common import minified
from landing_zone.policies.guardrails import (
    GuardrailSizeError,
    guardrail_statements,
    pack_statements,
    permissions_boundary,
    scp_documents,
)
from tests.conftest import ROOT

EU = ROOT / "examples" / "eu-sovereign.yaml"


def scps(plan):
    return scp_documents(plan.config, plan.routing, plan.catalog)


def test_default_guardrails_fit_one_scp_under_the_default_limit(plan_for):
    result = scps(plan_for(EU))
    assert len(result.documents) == 1
    assert result.max_characters == 5120 and result.max_per_target == 5
    assert result.sizes[0] == len(minified(result.documents[0])) <= 5120
    assert result.attached_per_target == 2  # ours + FullAWSAccess


def test_compilation_is_deterministic(plan_for):
    assert minified(scps(plan_for(EU)).documents[0]) == minified(scps(plan_for(EU)).documents[0])


def test_statements_are_split_when_they_do_not_fit_one_policy(plan_for):
    plan = plan_for(EU, policy_guardrails={"scp_max_characters": 2000, "region_deny_all_services": True})
    result = scps(plan)
    assert len(result.documents) >= 2
    assert all(size <= 2000 for size in result.sizes)
    # nothing lost, nothing reordered
    sids = [s["Sid"] for d in result.documents for s in d["Statement"]]
    assert sids == [s["Sid"] for s in guardrail_statements(plan.config, plan.routing, plan.catalog)]


def test_too_many_policies_for_a_target_fails_and_says_by_how_much(plan_for):
    plan_args = {"policy_guardrails": {"scp_max_characters": 1500, "region_deny_all_services": True,
                                       "other_scps_per_target": 2}}
    with pytest.raises(GuardrailSizeError) as info:
        scps(plan_for(EU, organization=None, **plan_args))  # no organization: the plan does not pre-check
    message = str(info.value)
    assert "over the limit of 5 by" in message
    assert "with FullAWSAccess and 2 other SCP(s)" in message


def test_a_single_statement_over_the_limit_is_named(plan_for):
    with pytest.raises(GuardrailSizeError) as info:
        scps(plan_for(EU, organization=None, policy_guardrails={"scp_max_characters": 1000}))
    assert "alone is" in str(info.value) and "over the SCP limit of 1000 by" in str(info.value)


def test_pack_statements_first_fit():
    stmts = [{"Sid": f"S{i}", "Effect": "Deny", "Action": "x:" + "a" * 40, "Resource": "*"} for i in range(6)]
    one = len(minified({"Version": "2012-10-17", "Statement": stmts[:1]}))
    docs = pack_statements(stmts, max_characters=one * 2)
    assert [len(d["Statement"]) for d in docs] == [2, 2, 2]


def test_many_models_and_regions_either_split_or_fail_clearly(plan_for):
    """An oversized configuration: every catalogued model, all US + AP Regions in-Region."""
    regions = ["us-east-1", "us-east-2", "us-west-2", "ap-northeast-1", "ap-south-1", "sa-east-1"]
    plan = plan_for(compliant_regions=regions, models=["kimi-k3.1-pro", "kimi-k2.5", "kimi-k2-thinking"],
                    policy_guardrails={"region_deny_all_services": True, "scp_max_characters": 2500})
    result = scps(plan)
    assert len(result.documents) >= 2 and max(result.sizes) <= 2500


def test_without_tamper_protection_and_api_key_denies_those_statements_are_absent(plan_for):
    plan = plan_for(policy_guardrails={"tamper_protection": False, "deny_api_key_creation": False,
                                       "deny_bearer_token_calls": False})
    sids = {s["Sid"] for s in guardrail_statements(plan.config, plan.routing, plan.catalog)}
    assert sids == {"DenyInferenceOutsideCompliantRegions", "DenyGlobalInferenceProfiles", "DenyUnlistedModels",
                    "DenyUnlistedMantleModels"}


def test_global_allowed_drops_the_global_profile_deny_and_admits_unspecified(plan_for):
    plan = plan_for(allow_global_inference=True)
    stmts = {s["Sid"]: s for s in guardrail_statements(plan.config, plan.routing, plan.catalog)}
    assert "DenyGlobalInferenceProfiles" not in stmts
    regions = stmts["DenyInferenceOutsideCompliantRegions"]["Condition"]["StringNotEquals"]["aws:RequestedRegion"]
    assert "unspecified" in regions


def test_permissions_boundary_carries_the_same_denies_plus_an_allow(plan_for):
    plan = plan_for()
    boundary = permissions_boundary(plan.config, plan.routing, plan.catalog)
    first, *denies = boundary["Statement"]
    assert first["Sid"] == "InvokerCeiling" and first["Effect"] == "Allow"
    assert "bedrock:InvokeModel" in first["Action"] and "*" not in first["Action"]
    assert not any(a.endswith(":*") for a in first["Action"])
    assert denies == guardrail_statements(plan.config, plan.routing, plan.catalog)


def test_deployment_principals_must_be_arn_patterns(plan_for):
    from landing_zone.errors import ConfigError

    with pytest.raises(ConfigError) as info:
        plan_for(policy_guardrails={"deployment_principal_arns": ["deployer"]})
    assert info.value.problems[0].path == "policy_guardrails.deployment_principal_arns[0]"


def test_scp_limits_are_checked_when_the_plan_is_built(plan_for):
    from landing_zone.errors import ConfigError

    with pytest.raises(ConfigError) as info:
        plan_for(EU, policy_guardrails={"scp_max_characters": 1500, "region_deny_all_services": True,
                                        "other_scps_per_target": 3})
    (problem,) = info.value.problems
    assert problem.path == "policy_guardrails"
    assert "over the limit of 5 by" in str(problem)
