"""The prover over every example, its mutants, and against the evaluator and a third-party simulator (issue 22).

1. Every property P1-P5 holds (or does not apply) on the synthesized assembly of every example.
2. Mutation: every mutant of the us-organization guardrails (``landing_zone/review/mutations.py``: a Deny statement
   dropped, its Region list widened, everyone exempted, a wildcard added) is killed by a counterexample on which
   prover and evaluator agree, or reported redundant; the redundant ones are the reviewed list :data:`REDUNDANT`
   (a statement no property P1-P4 states: it rests on the samples), so that a change in either direction is seen.
3. Differential: prover and evaluator decide every red-team request (attack and legitimate neighbour) and every
   decision case alike: the prover's answer for the request pinned to its concrete values.
4. Third party: every counterexample that killed a mutant goes through ``@cloud-copilot/iam-simulate`` against the
   mutant's SCPs and the original SCPs; the simulator must reach the evaluator's decision on both.

Proof reports and mutation tables are kept in ``$LZ_PROOF_CACHE`` (``.synth-cache/proofs``), keyed by the policies,
the configuration and the code, so a warm run reads them back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import z3

from landing_zone.policies.evaluator import Request, evaluate, evaluate_scp_levels
from landing_zone.policies.prover import Guard, Prover, SymbolicRequest
from landing_zone.review.cases import cases_for
from landing_zone.review.mutations import mutants, mutation_table
from landing_zone.review.proofs import inputs_from_assembly, proofs_for_assembly
from landing_zone.review.redteam import attacks_for
from tests.conftest import EXAMPLES, ROOT

US_ORGANIZATION = ROOT / "examples" / "us-organization.yaml"

# Mutants ("operator Sid") that survive P1-P4 on us-organization, and why: the statement guards something no property states.
# A mutant listed here that is killed, or one that survives and is not listed, fails the test.
REDUNDANT: dict[str, str] = {
    "drop DenyModelCallingServicesOutsideCompliantRegions": "P1 states bedrock, bedrock-mantle and "
    "bedrock-agentcore; the services that call models for a principal (Q, Lex, Connect...) are only sampled",
    "widen-regions DenyModelCallingServicesOutsideCompliantRegions": "as above",
    "drop DenyInferenceStartedOutsideSourceRegions": "no property states the inference *source* Regions "
    "(inference_source_regions); P1 states the compliant Regions, which the other statements already confine",
    "wildcard DenyInferenceStartedOutsideSourceRegions": "as above",
    "drop DenyDirectInferenceOutsideSourceRegions": "as above",
    "widen-regions DenyDirectInferenceOutsideSourceRegions": "as above",
    "drop DenyBatchAndMantleOutsideSourceRegions": "as above",
    "widen-regions DenyBatchAndMantleOutsideSourceRegions": "as above",
    "drop DenyGlobalInferenceProfiles": "redundant for P2: DenyUnlistedModels names only the allowed "
    "geographic profile, so a global profile is denied by it too (defence in depth, kept on purpose)",
    "drop DenyUnlistedModelSources": "custom-model sources (S3 training data, imported weights) are not a "
    "model resource type of P2",
    "drop DenyNonCompliantDataAutomation": "Data Automation profiles are not a model resource type of P2",
    "wildcard DenyNonCompliantDataAutomation": "as above",
    "drop DenyMantleInferenceWithoutModel": "P2 states Mantle requests that carry bedrock-mantle:Model; a "
    "request without the key is only sampled",
    "drop DenyBedrockApiKeyCreation": "API keys (long-term credentials) are not in P1-P4; sampled by the "
    "red-team table",
    "drop DenyBearerTokenCalls": "as above",
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
}


def _by_sid(label: str) -> str:
    """'drop kimi-lz-bedrock-guardrails-1/DenyX' -> 'drop DenyX' (which SCP holds a statement depends on sizes)."""
    operator, where = label.split(" ", 1)
    return f"{operator} {where.rsplit('/', 1)[-1]}"


@pytest.mark.parametrize("example", [None, *EXAMPLES], ids=["default", *[e.stem for e in EXAMPLES]])
def test_every_property_holds_on_every_example(synth: Callable[..., Any], example) -> None:
    synthesized = synth(example)
    proofs = proofs_for_assembly(synthesized.outdir, synthesized.plan, timeout_ms=10_000)
    assert not proofs.get("error"), proofs["error"]
    statuses = {p["id"]: p["status"] for p in proofs["properties"]}
    print({p["id"]: (p["status"], p["seconds"]) for p in proofs["properties"]})
    assert set(statuses) == {"P1", "P2", "P3", "P4", "P5"}
    broken = {
        p["id"]: p["not_holding"][:3] for p in proofs["properties"] if p["status"] not in ("holds", "not-applicable")
    }
    assert not broken, broken
    # P1, P2 and P4 apply to every configuration (SCPs or the boundary); P3 only where SCPs bind administrators
    assert {statuses[p] for p in ("P1", "P2", "P4")} == {"holds"}
    organization = synthesized.plan.config.organization is not None
    assert (statuses["P3"] == "holds") == (organization and synthesized.plan.config.policy_guardrails.tamper_protection)


@pytest.fixture(scope="module")
def organization(synth: Callable[..., Any]) -> Any:
    return synth(US_ORGANIZATION)


@pytest.fixture(scope="module")
def table(organization: Any) -> list[dict[str, Any]]:
    return mutation_table(inputs_from_assembly(organization.outdir, organization.plan), timeout_ms=10_000)


def test_every_mutant_is_killed_or_a_reviewed_redundancy(organization: Any, table: list[dict[str, Any]]) -> None:
    inputs = inputs_from_assembly(organization.outdir, organization.plan)
    assert len(table) == len(mutants(inputs.guardrails, sorted(organization.plan.config.compliant_regions))) >= 40
    undecided = [r["mutant"] for r in table if r["status"] == "not-decided"]
    assert not undecided, f"mutants the prover could not decide: {undecided}"
    redundant = {_by_sid(r["mutant"]) for r in table if r["status"] == "redundant"}
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
    assert {r["mutant"].split()[0] for r in killed} == {"drop", "widen-regions", "exempt-everyone", "wildcard"}
    assert {r["property"] for r in killed} == {"P1", "P2", "P3", "P4"}


def _pinned_decision(prover: Prover, guard: Guard, request: Request) -> bool | None:
    """The prover's decision for one concrete request (None: a context key no policy names was given a value the
    symbolic request cannot carry, e.g. two values of a single-valued key)."""
    pinned = prover.request.pinned(request)
    if z3.is_false(z3.simplify(pinned)):
        return None
    status, _, _ = prover.solve(pinned, prover.encoder.allowed(guard))
    assert status != z3.unknown
    return status == z3.sat


@pytest.mark.parametrize(
    "example",
    [None, US_ORGANIZATION, ROOT / "examples" / "us-single-account.yaml"],
    ids=["default", "us-organization", "us-single-account"],
)
def test_prover_and_evaluator_agree_on_every_sampled_request(synth: Callable[..., Any], example) -> None:
    synthesized = synth(example)
    inputs = inputs_from_assembly(synthesized.outdir, synthesized.plan)
    guard = inputs.guardrails
    requests = [
        (f"case {c.case}", Request(c.action, c.resource, c.request_context())) for c in cases_for(synthesized.plan)
    ]
    if guard.mode == "scp":
        for attack in attacks_for(synthesized.plan)[0]:
            for side, r, _ in attack.requests:
                requests.append((f"{side} {attack.path}", Request(r.action, r.resource, r.request_context())))
    keys = [k for _, r in requests for k in r.context]
    prover = Prover(SymbolicRequest.for_documents(guard.documents, extra_keys=keys), timeout_ms=10_000)
    compared, disagreements = 0, []
    for label, request in requests:
        ours = _pinned_decision(prover, guard, request)
        if ours is None:
            continue
        compared += 1
        if ours != guard.decide(request):
            disagreements.append(f"{label}: prover {ours}, evaluator {guard.decide(request)}: {request}")
    print(f"{compared} requests compared")
    assert compared >= (200 if guard.mode == "scp" else 40)
    assert not disagreements, "\n".join(disagreements)


def test_the_simulator_agrees_on_every_counterexample(organization: Any, table: list[dict[str, Any]]) -> None:
    """Each killing request against the mutant's SCPs and the original SCPs: @cloud-copilot/iam-simulate, pinned in
    package.json, must decide as the evaluator does (cited as the independent reading of the IAM evaluation logic,
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html)."""
    from tests.support.iam_simulate import ADMINISTRATOR_ACCESS, SimCase, simulate_batch

    inputs = inputs_from_assembly(organization.outdir, organization.plan)
    by_label = {m.label: m for m in mutants(inputs.guardrails, sorted(organization.plan.config.compliant_regions))}
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
            ("mutant", inputs.guardrails.replaced(by_label[row["mutant"]].policy, by_label[row["mutant"]].document)),
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


def test_the_identity_layer_is_compared_too(organization: Any) -> None:
    """P5's chain (identity ∩ boundary ∩ SCPs ∩ endpoint) on the red-team neighbours an invoker makes: the prover's
    pinned decision of each layer equals the evaluator's."""
    inputs = inputs_from_assembly(organization.outdir, organization.plan)
    layers = [g for g in (*inputs.invokers, inputs.boundary, *inputs.endpoints) if g is not None]
    assert layers
    docs = [d for g in layers for d in g.documents]
    requests = [Request(c.action, c.resource, c.request_context()) for c in cases_for(organization.plan)]
    prover = Prover(SymbolicRequest.for_documents(docs, extra_keys=[k for r in requests for k in r.context]))
    compared = 0
    for layer in layers:
        for request in requests:
            ours = _pinned_decision(prover, layer, request)
            if ours is None:
                continue
            compared += 1
            assert ours == evaluate([(n, dict(d)) for n, d in layer.documents], request).allowed, (layer.name, request)
    assert compared >= 50
