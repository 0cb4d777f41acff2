"""Every property P1-P6 holds (or does not apply) on the synthesized assembly of every example (issue 22).

The mutants, and their counterexamples against a third-party simulator, are tests/prove/test_mutations.py; prover
against evaluator, tests/prove/test_differential.py.  Proof reports are kept in ``$LZ_PROOF_CACHE``
(``.synth-cache/proofs``), keyed by the policies, the configuration and the code, so a warm run reads them back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from landing_zone.prove.proofs import PROPERTIES, proofs_for_assembly
from tests.conftest import EXAMPLES


@pytest.mark.parametrize("example", [None, *EXAMPLES], ids=["default", *[e.stem for e in EXAMPLES]])
def test_every_property_holds_on_every_example(synth: Callable[..., Any], example) -> None:
    synthesized = synth(example)
    proofs = proofs_for_assembly(synthesized.outdir, synthesized.plan, timeout_ms=10_000)
    assert not proofs.get("error"), proofs["error"]
    statuses = {p["id"]: p["status"] for p in proofs["properties"]}
    print({p["id"]: (p["status"], p["seconds"]) for p in proofs["properties"]})
    assert set(statuses) == set(PROPERTIES)
    broken = {
        p["id"]: p["not_holding"][:3] for p in proofs["properties"] if p["status"] not in ("holds", "not-applicable")
    }
    assert not broken, broken
    # P1, P2 and P4 apply to every configuration (SCPs or the boundary); P3 only where SCPs bind administrators
    assert {statuses[p] for p in ("P1", "P2", "P4")} == {"holds"}
    organization = synthesized.plan.config.organization is not None
    assert (statuses["P3"] == "holds") == (organization and synthesized.plan.config.policy_guardrails.tamper_protection)
