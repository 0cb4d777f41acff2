"""The red-team table, evaluated against the SCPs as synthesized for a US and an EU organization.

Each row of ``landing_zone/tables/attacks.py`` is a pair: what an administrator of a targeted member account
tries (expected: denied, by the named statement) and the neighbouring request of the legitimate principal
(expected: allowed).  The SCPs are read back from the synthesized guardrails template and evaluated together
with FullAWSAccess, each request against the SCPs on its principal's account's path (the plan's layout: the
guardrails on the governed accounts, the perimeter SCP on the shared OU).
"""

from __future__ import annotations

import json

import pytest

from landing_zone.policies.evaluator import FULL_AWS_ACCESS
from landing_zone.tables.attacks import GOALS, attack_rows, evaluate_attacks
from tests.conftest import ROOT

CONFIGS = {
    "us-organization": ROOT / "examples" / "us-organization.yaml",
    "eu-sovereign": ROOT / "examples" / "eu-sovereign.yaml",
    "multi-account-100": ROOT / "examples" / "multi-account-100.yaml",  # member baseline: StackSets exemptions
    "two-applications-mantle": ROOT / "examples" / "two-applications-mantle.yaml",  # tagged Mantle Projects
}


def scp_levels(synthesized) -> list[list[tuple[str, dict]]]:
    template = synthesized.template("guardrails")
    ours = [
        (res["Properties"]["Name"], json.loads(res["Properties"]["Content"]))
        for res in template.find_resources(
            "AWS::Organizations::Policy", {"Properties": {"Type": "SERVICE_CONTROL_POLICY"}}
        ).values()
    ]
    assert ours, "no SCP in the guardrails template"
    return [[("FullAWSAccess", FULL_AWS_ACCESS), *ours]]


@pytest.fixture(scope="module", params=sorted(CONFIGS))
def results(request, synth):
    synthesized = synth(CONFIGS[request.param])
    results, skipped = evaluate_attacks(synthesized.plan, scp_levels(synthesized))
    return request.param, results, skipped


def test_the_table_covers_every_goal_with_at_least_80_requests(results):
    name, rows, skipped = results
    assert len(rows) * 2 >= 80, (name, len(rows))
    # goal 6 (a sibling account outside the perimeter) where a target may hold one: not with the member baseline's
    # OUs alone, whose every account is governed
    shared = {"us-organization", "eu-sovereign", "two-applications-mantle"}
    assert {r.case.goal for r in rows} == set(GOALS) - (set() if name in shared else {6})


def test_every_attack_is_denied_by_its_statement_and_every_legit_neighbour_is_allowed(results):
    name, rows, _ = results
    failures = [
        f"[{name}] goal {r.case.goal} {r.case.path!r}: attack {r.attack_actual} by {r.attack_deciding or '-'} "
        f"(expected {r.case.attacker_expected} by {r.case.stops}); legit {r.case.legit_path!r}: {r.legit_actual} "
        f"by {r.legit_deciding or '-'}"
        for r in rows
        if not r.ok
    ]
    assert not failures, "\n".join(failures)


def test_rows_have_unique_paths():
    paths = [a.path for a in attack_rows()]
    assert len(paths) == len(set(paths))
