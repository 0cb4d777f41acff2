"""The SCP layout (landing_zone/policies/scp_layout.py): one named SCP per concern under the 2026 quotas, each attached
where the governed perimeter says, the outside_perimeter opt-ins, the slot budget with the customer's own SCPs, and
what a full target is told."""

from __future__ import annotations

import pytest

from landing_zone.errors import ConfigError
from landing_zone.policies.evaluator import FULL_AWS_ACCESS, Request, evaluate_scp_levels
from landing_zone.policies.scp_layout import CONCERN_OF_SID, CONCERNS
from landing_zone.tables.decision_cases import principal_context
from tests.conftest import ROOT

EU = ROOT / "examples" / "eu-sovereign.yaml"
MULTI = ROOT / "examples" / "multi-account-100.yaml"
ORGANIZATION_EXAMPLES = sorted(
    p for p in (ROOT / "examples").glob("*.yaml") if "organization:\n" in p.read_text() or "target_ids" in p.read_text()
)
KIMI = "moonshotai.kimi-k3.1-pro"
SIBLING = "arn:aws:iam::999999999999:role/AWSReservedSSO_AdministratorAccess_0123"


def by_name(plan):
    return {p.name.removeprefix(f"{plan.config.name}-guardrails-"): p for p in plan.policies.scp_set.policies}


@pytest.mark.parametrize("example", ORGANIZATION_EXAMPLES, ids=lambda p: p.stem)
def test_two_customer_scps_per_target_validate_with_one_concern_per_scp(plan_for, example):
    """Issue 33's done-when: FullAWSAccess + 2 of the customer's + ours fit the 2026 quota of 10 on every target."""
    plan = plan_for(example, policy_guardrails={"other_scps_per_target": 2})
    scps = plan.policies.scp_set
    assert scps.max_per_target == 10 and scps.max_characters == 10240
    assert all(n <= 10 for n in scps.per_target().values()), scps.per_target()
    assert all(len(p.concerns) == 1 for p in scps.policies)  # no merge needed: a reviewer reads one per guarantee
    assert all(p.size <= 10240 for p in scps.policies)


def test_every_statement_has_its_concern_and_every_concern_a_description():
    assert set(CONCERN_OF_SID.values()) == set(CONCERNS)


def test_a_shared_ou_gets_the_perimeter_scp_and_the_governed_accounts_the_guardrails(plan_for):
    plan = plan_for(EU)
    (ou,) = plan.config.organization.target_ids
    accounts = tuple(plan.config.account_ids)
    scps = by_name(plan)
    assert scps["perimeter"].targets == (ou,) and scps["perimeter"].binds == "outside"
    for concern in ("regions", "models", "api-keys", "service-tiers", "agentcore", "tamper", "account-settings"):
        assert scps[concern].targets == accounts and scps[concern].binds == "perimeter", concern
    perimeter = scps["perimeter"].document["Statement"][0]
    assert perimeter["Condition"]["StringNotEquals"]["aws:PrincipalAccount"] == list(accounts)


def test_with_the_member_baseline_its_ous_are_governed_and_need_no_perimeter_scp(plan_for):
    plan = plan_for(MULTI)
    scps = plan.policies.scp_set
    assert "perimeter" not in by_name(plan)
    assert {p.targets for p in scps.policies} == {tuple(plan.config.organization.target_ids)}


def test_member_baseline_ous_next_to_a_shared_target_are_spared_by_their_org_paths(plan_for):
    plan = plan_for(
        MULTI,
        accounts=[{"id": "100000000000", "name": "member-000", "ou_id": "ou-abcd-11111111"}],
        organization={"target_ids": ["ou-abcd-11111111", "ou-abcd-22222222"]},
        member_baseline={"target_ou_ids": ["ou-abcd-11111111"]},
    )
    scps = by_name(plan)
    assert scps["regions"].targets == ("ou-abcd-11111111",)
    assert scps["perimeter"].targets == ("ou-abcd-22222222",)
    condition = scps["perimeter"].document["Statement"][0]["Condition"]
    assert condition["ForAllValues:StringNotLike"]["aws:PrincipalOrgPaths"] == "o-*/r-*/*ou-abcd-11111111/*"
    request = Request(
        "bedrock:InvokeModel",
        f"arn:aws:bedrock:eu-central-1::foundation-model/{KIMI}",
        {
            "aws:RequestedRegion": "eu-central-1",
            **principal_context("arn:aws:iam::555555555555:role/app"),  # a new account, not (yet) in accounts[]
            "aws:PrincipalOrgPaths": ["o-exampleorg1/r-ab12/ou-abcd-11111111/"],
        },
    )
    levels = [[("FullAWSAccess", FULL_AWS_ACCESS), ("perimeter", scps["perimeter"].document)]]
    assert evaluate_scp_levels(levels, request).allowed  # under a member-baseline OU: governed
    outside = Request(
        request.action,
        request.resource,
        {**request.context, "aws:PrincipalOrgPaths": ["o-exampleorg1/r-ab12/ou-abcd-22222222/"]},
    )
    assert not evaluate_scp_levels(levels, outside).allowed  # a sibling under the shared OU


@pytest.mark.parametrize(
    ("opt_in", "concern"),
    [("restrict_other_models", "models"), ("confine_to_compliant_regions", "regions")],
)
def test_an_outside_perimeter_opt_in_attaches_its_concern_to_the_shared_target_too(plan_for, opt_in, concern):
    plain = by_name(plan_for(EU))
    plan = plan_for(EU, organization={"outside_perimeter": {opt_in: True}})
    scps = by_name(plan)
    (ou,) = plan.config.organization.target_ids
    assert ou not in plain[concern].targets
    assert ou in scps[concern].targets and scps[concern].binds == "organization"
    # the account settings and the other concerns stay inside
    assert ou not in scps["account-settings"].targets and ou not in scps["tamper"].targets


def test_when_a_target_would_be_full_the_smallest_concerns_share_an_scp(plan_for):
    plan = plan_for(EU, policy_guardrails={"other_scps_per_target": 3})
    names = list(by_name(plan))
    assert "api-keys-and-service-tiers" in names and all(n <= 10 for n in plan.policies.scp_set.per_target().values())


def test_a_full_target_says_by_how_much_and_what_could_move(plan_for):
    with pytest.raises(ConfigError) as info:
        plan_for(EU, policy_guardrails={"other_scps_per_target": 8})
    (problem,) = info.value.problems
    assert problem.path == "policy_guardrails.other_scps_per_target" and problem.got == 8
    text = str(problem)
    assert "over the quota of 10 by" in text
    assert "move 1 of the other SCPs to a parent OU or the root" in text  # after merging ours down to two
    assert "inherited SCPs take no slot" in text


def test_the_perimeter_denies_a_sibling_kimi_and_nothing_else(plan_for):
    """Attacker/neighbour on the perimeter SCP alone: the sibling's Kimi call is denied; its other model, its own
    CDKToolkit and its own logging are not; the governed account's Kimi call is not."""
    plan = plan_for(EU)
    levels = [[("FullAWSAccess", FULL_AWS_ACCESS), ("perimeter", by_name(plan)["perimeter"].document)]]
    region = plan.config.home_region

    def decide(principal: str, action: str, resource: str) -> bool:
        context = {"aws:RequestedRegion": region, **principal_context(principal)}
        return evaluate_scp_levels(levels, Request(action, resource, context)).allowed

    kimi = f"arn:aws:bedrock:{region}::foundation-model/{KIMI}"
    assert not decide(SIBLING, "bedrock:InvokeModel", kimi)
    assert decide(SIBLING, "bedrock:InvokeModel", f"arn:aws:bedrock:{region}::foundation-model/anthropic.claude-v2")
    assert decide(
        SIBLING, "cloudformation:UpdateStack", f"arn:aws:cloudformation:{region}:999999999999:stack/CDKToolkit/1"
    )
    assert decide(SIBLING, "bedrock:PutModelInvocationLoggingConfiguration", "*")
    assert decide("arn:aws:iam::222222222222:role/kimi-eu-invoker-support-bot", "bedrock:InvokeModel", kimi)
