"""PO1-PO3 (landing_zone/prove/perimeter.py): the perimeter's properties hold on the layout the plan builds,
fail with a replayed counterexample when the statement that carries them is taken away, and do not apply where every
target is governed."""

from __future__ import annotations

import copy

import pytest

from landing_zone.prove.proofs import ProofInputs, prove_all
from landing_zone.prove.prover import Guard
from tests.conftest import ROOT

EU = ROOT / "examples" / "eu-sovereign.yaml"
MULTI = ROOT / "examples" / "multi-account-100.yaml"
PERIMETER = ("PO1", "PO2", "PO3")


def inputs(plan, *, edit=None) -> ProofInputs:
    scps = [(p.name, copy.deepcopy(p.document)) for p in plan.policies.scp_set.policies]
    if edit is not None:
        for _, document in scps:
            edit(document)
    return ProofInputs(plan, "the plan's SCPs", None, Guard.scps("scps", scps), None, (), ())


def statuses(report) -> dict[str, str]:
    return {p.id: p.status for p in report.properties}


@pytest.fixture(scope="module")
def eu(plan_for):
    return plan_for(EU)


def test_the_perimeter_properties_hold_on_the_plans_layout(eu):
    report = prove_all(inputs(eu), properties=PERIMETER, timeout_ms=30_000)
    assert statuses(report) == dict.fromkeys(PERIMETER, "holds")


def test_without_the_perimeter_deny_a_sibling_invokes_kimi(eu):
    def drop(document):
        document["Statement"] = [
            s for s in document["Statement"] if s["Sid"] != "DenyLandingZoneModelsOutsidePerimeter"
        ]

    report = prove_all(inputs(eu, edit=drop), properties=("PO1",), timeout_ms=30_000)
    (po1,) = report.properties
    assert po1.status == "fails"
    example = po1.counterexamples[0].result
    assert example.replay_agrees
    account = example.counterexample.context["aws:PrincipalAccount"]
    assert account not in eu.policies.scp_set.perimeter.accounts
    assert "foundation-model/moonshotai.kimi-k3.1-pro" in example.counterexample.resource


def test_a_perimeter_deny_that_spares_nobody_is_caught_by_po2_and_po3(eu):
    def spare_nobody(document):
        for s in document["Statement"]:
            if s["Sid"].endswith("OutsidePerimeter"):
                s["Condition"]["StringNotEquals"]["aws:PrincipalAccount"] = ["000000000000"]
                s["Action"] = ["bedrock:*"] if s["Sid"] == "DenyLandingZoneModelsOutsidePerimeter" else s["Action"]
                s["Resource"] = "*" if s["Sid"] == "DenyLandingZoneModelsOutsidePerimeter" else s["Resource"]

    report = prove_all(inputs(eu, edit=spare_nobody), properties=("PO2", "PO3"), timeout_ms=30_000)
    assert statuses(report) == {"PO2": "fails", "PO3": "fails"}


def test_with_the_member_baseline_alone_every_account_under_a_target_is_governed(plan_for):
    plan = plan_for(MULTI)
    assert not plan.policies.scp_set.perimeter.shared_targets
    report = prove_all(inputs(plan), properties=PERIMETER, timeout_ms=30_000)
    assert statuses(report) == dict.fromkeys(PERIMETER, "not-applicable")
