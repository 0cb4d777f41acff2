"""The review's threat-model section: the red-team table evaluated against the SCPs as synthesized, and the
blocking finding a weakened SCP draws."""

from __future__ import annotations

import json

from landing_zone.review.report import build_review
from landing_zone.tables.attacks import GOALS
from tests.conftest import ROOT

US_ORG = ROOT / "examples" / "us-organization.yaml"


def test_the_section_lists_every_goal_with_its_attacks_and_no_failure(synth):
    lz = synth(US_ORG)
    t = build_review(lz.outdir, lz.plan, scanners=False, proofs=False).data["threat_model"]
    assert t["applies"] and t["failures"] == 0
    assert t["requests"] >= 80 and set(t["goals"]) == {str(g) for g in GOALS}
    assert {str(r["goal"]) for r in t["rows"]} == {str(g) for g in GOALS}
    # a residual risk is reported as such, with what would stop it
    assert any("region_deny_all_services" in r["what_would_stop_it"] for r in t["residual"])


def test_single_account_mode_says_the_threat_model_does_not_apply(synth):
    lz = synth(ROOT / "examples" / "us-single-account.yaml")
    t = build_review(lz.outdir, lz.plan, scanners=False, proofs=False).data["threat_model"]
    assert not t["applies"] and "only SCPs" in t["note"]


def test_a_weakened_scp_is_a_blocking_decision_mismatch(synth, assembly_copy):
    lz = synth(US_ORG)
    copy = assembly_copy(lz.outdir)
    template_path = copy / "kimi-us-org-guardrails.template.json"
    template = json.loads(template_path.read_text())
    for res in template["Resources"].values():
        if res["Type"] == "AWS::Organizations::Policy" and res["Properties"]["Type"] == "SERVICE_CONTROL_POLICY":
            content = json.loads(res["Properties"]["Content"])
            content["Statement"] = [s for s in content["Statement"] if s["Sid"] != "DenyLandingZoneTampering"]
            res["Properties"]["Content"] = json.dumps(content)
    template_path.write_text(json.dumps(template))
    data = build_review(copy, lz.plan, scanners=False, proofs=False).data
    assert data["threat_model"]["failures"] > 0
    mismatches = [f for f in data["findings"] if f["rule"] == "LZ-DECISION-MISMATCH"]
    assert mismatches and any("forged Delete event" in f["message"] for f in mismatches)
    assert data["summary"]["verdict"] == "fail"


def test_placeholders_are_marked_in_the_report(synth):
    from landing_zone.review.render_md import render_markdown

    lz = synth(None)  # the default config's accounts and organization are placeholders
    data = build_review(lz.outdir, lz.plan, scanners=False, proofs=False).data
    assert [p["path"] for p in data["config"]["placeholders"]] == [
        "accounts[0].id",
        "organization.management_account_id",
        "organization.organization_id",
    ]
    assert "**placeholder** at `accounts[0].id`: 111111111111" in render_markdown(data)
