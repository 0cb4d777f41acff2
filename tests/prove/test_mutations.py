"""Mutation testing of the prover on the us-organization guardrails (issue 22, landing_zone/prove/mutations.py).

Every mutant (a Deny statement dropped, its Region list widened, everyone exempted, a wildcard added, or limited to
the home Region) is killed by
a counterexample on which prover and evaluator agree, or reported redundant; the redundant ones are the reviewed
list :data:`REDUNDANT` (a statement no property P1-P4, P6 or PO1-PO3 states: it rests on the samples), so that a change in
either
direction is seen.  Each killing request is also replayed through @cloud-copilot/iam-simulate (below, in this module: the mutation
table is computed once per worker, and this module runs on one worker).
"""

from __future__ import annotations

from typing import Any

import pytest

from landing_zone.policies.evaluator import Request, evaluate_scp_levels
from landing_zone.prove.mutations import mutants
from landing_zone.prove.proofs import inputs_from_assembly

pytestmark = pytest.mark.mutation  # a stamped layer (tests/support/layers.py)

# Mutants ("operator Sid") that survive P1-P4, P6 and PO1-PO3 on us-organization, and why: the statement guards what no
# property states.
# A mutant listed here that is killed, or one that survives and is not listed, fails the test.
# Mutants whose kill needs the solver to find an *allowed* InvokeModel / CreateInference request under every other
# statement of the SCPs (the satisfiable side, as hard as P2's): within the mutation timeout it may time out.  The
# property itself (P6) holds on every example in well under a second (the unsatisfiable side); the dropped denies are
# also stated as red-team pairs (tables/attacks.py, "service tier") and in tests/unit/test_bedrock_controls.py.  A
# mutant listed here may be killed or undecided, never redundant.
UNDECIDED: dict[str, str] = {
    "drop DenyUnlistedServiceTiers": "P6's counterexample search for InvokeModel* exceeds the mutation timeout",
    "drop DenyUnlistedMantleServiceTiers": "P6's counterexample search for CreateInference can exceed the timeout",
    "home-region-only DenyUnlistedServiceTiers": "as its drop (measured not-decided at a 10 s timeout, 2026-12-05)",
}
# Mutants that no property states (as REDUNDANT) but whose focused re-proof meets an obligation that may time out
# under load: redundant or not-decided, never killed.
REDUNDANT_OR_UNDECIDED: dict[str, str] = {
    "home-region-only DenyInferenceStartedOutsideSourceRegions": "no property states the inference source Regions "
    "(as its drop); the P2 obligations its focus re-proves (CreateModelInvocationJob) can exceed the timeout",
}
REDUNDANT: dict[str, str] = {
    "drop DenyModelCallingServicesOutsideCompliantRegions": "P1 states bedrock, bedrock-mantle and "
    "bedrock-agentcore; the services that call models for a principal (Q, Lex, Connect...) are only sampled",
    "widen-regions DenyModelCallingServicesOutsideCompliantRegions": "as above",
    # the inference source Regions (inference_source_regions) are stated by no property; their kills by P4 were the
    # over-blocking P4 saw in a direct call carrying a profile's key, which Bedrock sets on a profile's legs only
    "drop DenyBatchAndMantleOutsideSourceRegions": "no property states the inference *source* Regions "
    "(inference_source_regions); P1 states the compliant Regions, which the other statements already confine",
    "widen-regions DenyBatchAndMantleOutsideSourceRegions": "as above",
    "drop DenyInferenceStartedOutsideSourceRegions": "as above: where a profile or a batch job starts (red-team: "
    "'... sourced in a compliant Region outside inference_source_regions')",
    "wildcard DenyInferenceStartedOutsideSourceRegions": "'*' in its NotResource: the deny applies to nothing, as its drop",
    "drop DenyDirectInferenceOutsideSourceRegions": "as above: where a direct call (no bedrock:InferenceProfileArn) runs",
    "widen-regions DenyDirectInferenceOutsideSourceRegions": "as above",
    "drop DenyGlobalInferenceProfiles": "P1 and P2 hold without it: the global profile's legs are Region-less "
    "(aws:RequestedRegion unspecified), which DenyBedrockOutsideCompliantRegions denies; the statement refuses the "
    "profile itself (red-team: 'the Region-less leg of the global profile')",
    "drop DenyUnlistedModelSources": "custom-model sources (S3 training data, imported weights) are not a "
    "model resource type of P2",
    "drop DenyNonCompliantDataAutomation": "Data Automation profiles are not a model resource type of P2",
    "wildcard DenyNonCompliantDataAutomation": "as above",
    "drop DenyMantleInferenceWithoutModel": "P2 states Mantle requests that carry bedrock-mantle:Model; a "
    "request without the key is only sampled",
    "drop DenyDeploymentRoleAssumption": "P3 treats sts:AssumeRole as a use action (USE_ACTIONS); who may "
    "assume the CDK roles is only sampled",
    "wildcard DenyDeploymentRoleAssumption": "as above",
    "exempt-everyone DenyDeploymentRoleAssumption": "as above",
    "wildcard DenyLogForgery": "a deny widened to every log group still exempts the log writers; no "
    "legitimate request of P4 writes logs as another principal",
    "drop DenyEventSourcesOnLandingZoneFunctions": "lambda:CreateEventSourceMapping is authorised on the "
    "event-source-mapping, not on the function: P3's inventory does not state it",
    "exempt-everyone DenyEventSourcesOnLandingZoneFunctions": "as above",
    "drop DenyGuardrailPolicyTypeChanges": "organizations: policy types are management-account settings, "
    "not in P3's inventory",
    "drop DenyDisablingLandingZonePolicyTypes": "as above: the policy types the landing zone uses are "
    "organization settings, not in P3's inventory (red-team: 'disable the SCP policy type on the root')",
    "drop DenyMovingTargetsAccounts": "the organization's structure (which account sits under a target) is not in "
    "P3's inventory (red-team: 'move a governed account out of a target OU')",
    "drop DenyLegsOfProfilesSourcedElsewhere": "P1 states where inference is processed (every leg's Region is "
    "compliant), not where it is logged; a leg naming a profile sourced outside inference_source_regions still "
    "runs in a compliant Region (red-team: 'a model leg in home_region of an application profile sourced in ...')",
    "wildcard DenyLegsOfProfilesSourcedElsewhere": "widened to every resource it still needs a leg's "
    "bedrock:InferenceProfileArn sourced elsewhere, which no legitimate request of P4 carries",
    # the alert subscriptions (issue 35, deliverable 2): a subscription is not in P3's inventory (it is named by the
    # subscription's ARN, not the topic's), and no legitimate request of P4 subscribes to a topic; they rest on the
    # red-team pairs of goal 4 ('mute the alerts: ...', 'a documented subscriber ...')
    "drop DenyAlertUnsubscribe": "sns:Unsubscribe / SetSubscriptionAttributes name a subscription, not in P3's "
    "inventory (red-team: 'mute the alerts: unsubscribe the landing zone's recipient')",
    "exempt-everyone DenyAlertUnsubscribe": "as above",
    "wildcard DenyAlertSubscribe": "widened to every topic it denies sns:Subscribe elsewhere, which no legitimate "
    "request of P4 makes (red-team neighbour: 'the CDK execution role deploying cost.alert_recipients', exempt)",
    "drop DenyAlertSubscribeProtocols": "the protocols a documented subscriber may subscribe (ALERT_PROTOCOLS) are "
    "stated by no property (red-team: 'a documented subscriber subscribing a function or queue')",
    "exempt-everyone DenyAlertSubscribeProtocols": "as above",
    "wildcard DenyAlertSubscribeProtocols": "as 'wildcard DenyAlertSubscribe'",
    "drop DenyAlertSubscribeProtocolsByTag": "as 'drop DenyAlertSubscribeProtocols' (a tagged topic of another name)",
    "exempt-everyone DenyAlertSubscribeProtocolsByTag": "as above",
    # limited to the home Region: redundant wherever dropping the statement is (above), and
    "home-region-only DenyGlobalInferenceProfiles": "as its drop",
    "home-region-only DenyLegsOfProfilesSourcedElsewhere": "as its drop",
    "home-region-only DenyUnlistedModelSources": "as its drop",
    "home-region-only DenyNonCompliantDataAutomation": "as its drop",
    "home-region-only DenyMantleInferenceWithoutModel": "as its drop",
    "home-region-only DenyUnlistedMantleServiceTiers": "Mantle inference is denied outside the inference source "
    "Regions (DenyBatchAndMantleOutsideSourceRegions), which in us-organization are the home Region alone",
}


def _by_sid(label: str) -> str:
    """'drop kimi-lz-bedrock-guardrails-1/DenyX' -> 'drop DenyX' (which SCP holds a statement depends on sizes)."""
    operator, where = label.split(" ", 1)
    return f"{operator} {where.rsplit('/', 1)[-1]}"


def test_every_mutant_is_killed_or_a_reviewed_redundancy(organization: Any, table: list[dict[str, Any]]) -> None:
    inputs = inputs_from_assembly(organization.outdir, organization.plan)
    config = organization.plan.config
    assert len(table) == len(mutants(inputs.guardrails, sorted(config.compliant_regions), config.home_region)) >= 40
    undecided = {_by_sid(r["mutant"]) for r in table if r["status"] == "not-decided"} - set(REDUNDANT_OR_UNDECIDED)
    assert undecided <= set(UNDECIDED), f"mutants the prover could not decide: {sorted(undecided - set(UNDECIDED))}"
    redundant = {_by_sid(r["mutant"]) for r in table if r["status"] == "redundant"} - set(REDUNDANT_OR_UNDECIDED)
    killed_either = {_by_sid(r["mutant"]) for r in table if r["status"] == "killed"} & set(REDUNDANT_OR_UNDECIDED)
    assert not killed_either, f"killed though listed as redundant or undecided: {sorted(killed_either)}"
    reviewed = REDUNDANT
    assert redundant - set(reviewed) == set(), "surviving mutants nobody reviewed (add a property or a reason)"
    assert set(reviewed) - redundant == set(), "listed as redundant but now killed: remove from REDUNDANT"
    killed = [r for r in table if r["status"] == "killed"]
    assert len(killed) >= 20
    assert all(r["replay_agrees"] and r["counterexample"] for r in killed), [
        r["mutant"] for r in killed if not r["replay_agrees"]
    ]
    # every operator kills somewhere: the prover sees a dropped deny, a widened Region list, an exemption for
    # everyone, and a wildcard that makes a deny apply to everything (over-blocking, P4)
    assert {r["mutant"].split()[0] for r in killed} == {
        "drop",
        "widen-regions",
        "exempt-everyone",
        "wildcard",
        "home-region-only",
    }
    # PO1 kills the perimeter SCP's dropped and home-Region-only denies, PO3 its wildcard; no operator exempts a
    # governed account, so PO2 (the perimeter spares the governed accounts) kills none
    assert {r["property"] for r in killed} == {"P1", "P2", "P3", "P4", "P6", "PO1", "PO3"}


def test_a_model_deny_limited_to_the_home_region_fails_p2(organization: Any) -> None:
    """Issue 35: P2 was proven from the home Region only, so DenyUnlistedModels limited to the home Region still
    proved.  P2 now states every compliant and source Region: the mutant fails with a request from another one, and
    the evaluator agrees (the unmutated SCPs prove P2 in tests/prove/test_examples.py)."""
    from dataclasses import replace

    from landing_zone.prove.proofs import prove_all

    inputs = inputs_from_assembly(organization.outdir, organization.plan)
    config = organization.plan.config
    (mutant,) = [
        m
        for m in mutants(inputs.guardrails, sorted(config.compliant_regions), config.home_region)
        if m.operator == "home-region-only" and m.sid == "DenyUnlistedModels"
    ]
    guard = mutant.applied(inputs.guardrails)
    (p2,) = prove_all(replace(inputs, guardrails=guard), properties=["P2"], timeout_ms=10_000).properties
    assert p2.status == "fails"
    counterexample = p2.counterexamples[0].result
    assert counterexample.replay_agrees and counterexample.counterexample is not None
    region = counterexample.counterexample.context["aws:RequestedRegion"]
    assert region != config.home_region and region in {*config.compliant_regions, *config.source_regions}


def test_the_simulator_agrees_on_every_counterexample(organization: Any, table: list[dict[str, Any]]) -> None:
    """Each killing request against the mutant's SCPs and the original SCPs: @cloud-copilot/iam-simulate, pinned in
    package.json, must decide as the evaluator does (cited as the independent reading of the IAM evaluation logic,
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html)."""
    from tests.support.iam_simulate import ADMINISTRATOR_ACCESS, SimCase, simulate_batch

    inputs = inputs_from_assembly(organization.outdir, organization.plan)
    config = organization.plan.config
    by_label = {m.label: m for m in mutants(inputs.guardrails, sorted(config.compliant_regions), config.home_region)}
    cases, expected, refused = [], [], []
    for row in table:
        if row["status"] != "killed":
            continue
        c = row["counterexample"]
        request = Request(c["action"], c["resource"], c["context"])
        principal = str(c["context"].get("aws:PrincipalARN") or "arn:aws:iam::111111111111:role/any")
        if not principal.startswith("arn:aws:iam::") or len(principal.split(":")[4]) != 12:
            principal = "arn:aws:iam::111111111111:role/any"
            request = Request(request.action, request.resource, {**request.context, "aws:PrincipalARN": principal})
        for side, guard in (
            ("mutant", by_label[row["mutant"]].applied(inputs.guardrails)),
            ("original", inputs.guardrails),
        ):
            levels = [[(n, dict(d)) for n, d in level] for level in guard.levels]
            ours = evaluate_scp_levels(levels, request).decision
            cases.append(
                SimCase(
                    principal=principal,
                    action=request.action,
                    resource=request.resource,
                    context=dict(request.context),
                    scp_levels=levels,
                    identity_policies=[("AdministratorAccess", ADMINISTRATOR_ACCESS)],
                    id=f"{row['mutant']}|{side}",
                )
            )
            expected.append(ours)
    sims = simulate_batch(cases)
    disagree = []
    for case, ours, sim in zip(cases, expected, sims, strict=True):
        if sim.error is not None:
            # the simulator validates requests against its own action database: a counterexample on an action or
            # an ARN shape it does not list is refused, not decided; its engine without validation must agree
            refused.append(case.id)
            if sim.unvalidated != ours:
                disagree.append(f"{case.id}: ours {ours}, simulator (unvalidated) {sim.unvalidated}")
        elif sim.scp != ours:
            disagree.append(
                f"{case.id}: ours {ours}, simulator {sim.scp}: {case.action} {case.resource} {case.context}"
            )
    print(f"{len(cases)} simulator comparisons, {len(refused)} refused by its validation")
    assert len(cases) >= 40
    assert not disagree, "\n".join(disagree)
