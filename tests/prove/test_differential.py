"""The prover against the evaluator and against a third-party simulator (issue 22).

* Prover and evaluator decide every red-team request (attack and legitimate neighbour) and every decision case
  alike: the prover's answer for the request pinned to its concrete values — on the SCPs or the boundary, and on
  each invoker identity policy, the boundary and the endpoint policies.
* Every counterexample that killed a mutant goes through ``@cloud-copilot/iam-simulate`` (in
  tests/prove/test_mutations.py, beside the mutation table it reads: one worker computes the table once).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from landing_zone.policies.evaluator import Request, evaluate
from landing_zone.prove.proofs import inputs_from_assembly
from landing_zone.prove.prover import Guard, Prover, SymbolicRequest
from landing_zone.tables.attacks import attacks_for
from landing_zone.tables.decision_cases import cases_for
from tests.conftest import ROOT
from tests.prove.conftest import US_ORGANIZATION


def _pinned_decision(prover: Prover, guard: Guard, request: Request) -> bool | None:
    """The prover's encoding of the guard decided on one concrete request (every variable replaced by the
    request's value; None: the request does not fit, e.g. two values of a single-valued key)."""
    decision = prover.request.decide(prover.encoder.allowed(guard), request)
    if decision is None:
        assert prover.request.substitution(request) is None, f"the encoding does not decide {request}"
    return decision


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
