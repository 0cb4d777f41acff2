"""The review an auditor can sign (issue 34): claims true for whom they say, the sign-off questions answered from the
JSON alone, --baseline blocking an unacknowledged weakening, the residual-risk register equal to THREAT_MODEL.md,
and the exports."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from landing_zone.review.claims import ALL_PRINCIPALS, INVOKER_ROLES, claims_section
from landing_zone.review.exports import findings_asff, findings_csv
from landing_zone.review.governance import load_residual_risks
from landing_zone.review.report import build_review
from landing_zone.review.sarif import render_sarif
from landing_zone.simulate import guardrails_from_assembly, simulate
from tests.conftest import ROOT

EU = ROOT / "examples" / "eu-sovereign.yaml"
US_ORG = ROOT / "examples" / "us-organization.yaml"
US_SINGLE = ROOT / "examples" / "us-single-account.yaml"


def _review(synth, config: Path, **kw):
    s = synth(config)
    return build_review(s.outdir, s.plan, scanners=False, proofs=False, **kw).data


@pytest.fixture(scope="module")
def eu(synth):
    return _review(synth, EU)


@pytest.fixture(scope="module")
def us_org(synth):
    return _review(synth, US_ORG)


# ----------------------------------------------------------------------------------------- 1. claims


@pytest.mark.parametrize("config", [EU, US_ORG, US_SINGLE], ids=lambda p: p.stem)
def test_no_claim_is_contradicted_by_simulate_on_the_templates(synth, config):
    """Each claim's breaking request, made by a non-exempt administrator, replayed against the synthesized templates:
    a claim said to bind every principal is denied; a claim the administrator can break says it binds the invoker
    roles only."""
    s = synth(config)
    rails = guardrails_from_assembly(Path(s.outdir))
    claims = claims_section(s.plan, None, rails)
    assert {c["id"] for c in claims} >= {"regions", "models", "invocation-logging"}
    for c in claims:
        assert c["enforced_by"], c["id"]  # every headline claim has an enforcing statement
        v = c["violation"]
        if v is None:
            continue
        decision = simulate(
            action=v["action"],
            resource=v["resource"],
            region=v["region"],
            principal_arn=v["principal"],
            context=v["context"],
            guardrails=rails,
        ).decision
        if not decision.allowed:
            continue
        # the administrator can do it: the claim must not say it binds every principal
        assert c["binds"] != ALL_PRINCIPALS or not v["denied_if_all_principals"], (c["id"], v)
    if s.plan.config.organization is None:  # the boundary binds the invoker roles only
        assert all(c["binds"] == INVOKER_ROLES for c in claims if c["id"] != "invocation-logging")


def test_the_endpoint_claim_binds_only_the_invoker_roles_and_logging_names_mantle(eu):
    """The issue's examples: an administrator's InvokeModel on the EU profile without an endpoint is allowed by the
    SCPs, so 'VPC endpoint required' holds for the invoker roles only; Mantle is allowed and never logged."""
    claims = {c["id"]: c for c in eu["claims"]}
    vpce = claims["vpc-endpoint"]
    assert vpce["binds"] == INVOKER_ROLES and vpce["simulated"] == "allow"
    assert {e["kind"] for e in vpce["enforced_by"]} <= {"identity", "endpoint"}
    assert not any(e["kind"] == "scp" for e in vpce["enforced_by"])
    regions = claims["regions"]
    assert regions["binds"] == ALL_PRINCIPALS and regions["simulated"] == "deny"
    assert any(e["kind"] == "scp" for e in regions["enforced_by"])
    logging = claims["invocation-logging"]
    assert any("Mantle" in gap for gap in logging["not_covered"])
    assert "Mantle" in logging["what_the_configuration_does"]
    assert not [f for f in eu["findings"] if f["rule"].startswith("LZ-CLAIM-")]


# ----------------------------------------------------------------------------------------- 7. sign-off questions


def _answers(data: dict) -> dict:
    """Each sign-off question answered from the JSON alone."""
    allowed = [p for p in data["residency"]["paths"] if p["allowed"]]
    return {
        "regions": {(p["path"], p["invoke_id"]): set(p["processed_in"]) for p in allowed},
        "invokers": {c["id"]: c["binds"] for c in data["claims"]},
        "switch_off": {
            r["id"]: (r["who_can_change"], r["how_we_would_know"]["cloudtrail"]) for r in data["change_control"]
        },
        "logged": {(p["path"], p["invoke_id"]): (p["logged"], p["readers"]) for p in allowed},
        "not_covered": [(r["id"], r["owner"], r["accepted_by"]) for r in data["residual_risks"]],
        "changed": data["changes"],
    }


@pytest.mark.parametrize("name", ["eu", "us_org"])
def test_each_signoff_question_is_answered_from_the_json(name, request):
    data = json.loads(json.dumps(request.getfixturevalue(name)))  # what a tool reads: the JSON alone
    compliant = set(data["config"]["compliant_regions"])
    a = _answers(data)
    # which Regions can process a prompt, by which path: runtime paths only in compliant Regions
    runtime = {k: v for k, v in a["regions"].items() if k[0] in ("in-region", "geographic-profile", "mantle")}
    assert runtime and all(v <= compliant for v in runtime.values()), runtime
    # who can invoke: the region and model claims bind everyone, the endpoint only the invoker roles
    assert a["invokers"]["regions"] == a["invokers"]["models"] == ALL_PRINCIPALS
    assert a["invokers"]["vpc-endpoint"] == INVOKER_ROLES
    # who can switch off each guardrail: named principals and the CloudTrail events that show it
    assert all(who and events for who, events in a["switch_off"].values())
    assert any("management account" in w for w in a["switch_off"]["guardrail-scps"][0])
    # what is logged and who can read it: a runtime path logged with readers, Mantle never
    assert any(logged and readers for logged, readers in a["logged"].values())
    assert all(not logged for (path, _), (logged, _) in a["logged"].items() if path == "mantle")
    # what is not covered: every residual risk with an owner and an empty acceptance field
    assert len(a["not_covered"]) >= 10 and all(owner and accepted == "" for _, owner, accepted in a["not_covered"])
    # what changed: nothing to compare without a baseline
    assert a["changed"] is None
    assert [q["id"] for q in data["signoff"]["questions"]] == [
        "regions",
        "invokers",
        "switch-off",
        "logged",
        "not-covered",
        "changed",
    ]
    assert set(data["signoff"]["approver"]) >= {"name", "role", "decision", "date", "signature"}


def test_the_residual_risk_register_is_threat_model_md():
    text = (ROOT / "docs" / "THREAT_MODEL.md").read_text(encoding="utf-8")
    section = text.split("## Residual risks and assumptions", 1)[1].split("\n## ", 1)[0]
    bullets = re.findall(r"^\* \*\*(.+?)\*\*", section, flags=re.M)
    assert [r["title"] for r in load_residual_risks()["risks"]] == bullets


# ----------------------------------------------------------------------------------------- 4. --baseline


def _weaken(outdir: Path, target: Path) -> Path:
    """A copy of the assembly whose SCPs widen an exemption, drop the data-retention control and move a statement
    (DenyLogForgery) from the SCP that holds it to another one (whichever the layout puts them in)."""
    shutil.copytree(outdir, target, ignore=shutil.ignore_patterns("asset.*"))
    path = next(target.glob("*-guardrails.template.json"))
    template = json.loads(path.read_text())
    scps = {
        r["Properties"]["Name"]: r
        for r in template["Resources"].values()
        if r["Type"] == "AWS::Organizations::Policy" and r["Properties"].get("Type") == "SERVICE_CONTROL_POLICY"
    }
    docs = {n: json.loads(r["Properties"]["Content"]) for n, r in scps.items()}

    def holding(sid: str) -> dict:
        (doc,) = [d for d in docs.values() if any(s["Sid"] == sid for s in d["Statement"])]
        return doc

    tamper = next(s for s in holding("DenyLandingZoneTampering")["Statement"] if s["Sid"] == "DenyLandingZoneTampering")
    tamper["Condition"]["ArnNotLike"]["aws:PrincipalARN"].append("arn:aws:iam::*:role/Admin*")
    retention = holding("DenyDataRetentionModeChange")
    retention["Statement"] = [s for s in retention["Statement"] if s["Sid"] != "DenyDataRetentionModeChange"]
    source = holding("DenyLogForgery")
    moved = next(s for s in source["Statement"] if s["Sid"] == "DenyLogForgery")
    source["Statement"].remove(moved)
    next(d for d in (docs[n] for n in sorted(docs)) if d is not source)["Statement"].append(moved)
    for n, r in scps.items():
        r["Properties"]["Content"] = json.dumps(docs[n])
    path.write_text(json.dumps(template))
    return target


def test_baseline_blocks_an_unacknowledged_weakening_and_shows_a_move_as_moved(synth, tmp_path):
    s = synth(EU)
    current = _weaken(Path(s.outdir), tmp_path / "cdk.out")
    data = build_review(current, s.plan, scanners=False, proofs=False, baseline=s.outdir).data
    ch = data["changes"]
    weak = {c["id"]: c for c in ch["changes"] if c["weakening"]}
    assert any("exemption widened" in c["detail"] and "Admin*" in c["detail"] for c in weak.values())
    assert any(c["sid"] == "DenyDataRetentionModeChange" and c["change"] == "removed" for c in weak.values())
    assert [m["sid"] for m in ch["moved"] if m["same"]] == ["DenyLogForgery"]
    assert not any(c["sid"] == "DenyLogForgery" for c in ch["changes"])  # moved, neither removed nor added
    assert not any(
        st.get("sid") == "DenyLogForgery" for e in data["diff"]["entries"] for st in e["added"] + e["removed"]
    )
    found = [f for f in data["findings"] if f["rule"] == "LZ-BASELINE-WEAKENING"]
    assert len(found) == len(weak) == 2 and data["summary"]["verdict"] == "fail"

    # the neighbour: the same weakenings acknowledged with reason, who and when: no longer blocking, but said
    acks = tmp_path / "acks.yaml"
    acks.write_text(yaml.safe_dump([{"id": i, "reason": "CAB-1", "by": "auditor", "date": "2026-12-05"} for i in weak]))
    data = build_review(current, s.plan, scanners=False, proofs=False, baseline=s.outdir, acknowledge=acks).data
    assert not [f for f in data["findings"] if f["rule"] == "LZ-BASELINE-WEAKENING"]
    # the other checks still see the same weakenings (the settings check: the data-retention deny is gone)
    assert "LZ-VOID-SETTING" in {f["rule"] for f in data["findings"] if f["level"] == "blocking"}
    assert any(q["kind"] == "weakening-acknowledged" for q in data["summary"]["qualifiers"])


# ----------------------------------------------------------------------------------------- 5. exports


def test_csv_asff_and_sarif_carry_every_finding_with_help_and_severity(eu):
    rows = list(csv.DictReader(io.StringIO(findings_csv(eu))))
    assert len(rows) == len(eu["findings"]) > 0
    assert all(r["help_uri"].startswith("https://") and r["security_severity"] for r in rows)
    asff = findings_asff(eu)
    assert len(asff) == len(eu["findings"])
    for f in asff:
        assert f["SchemaVersion"] == "2018-10-08" and re.fullmatch(r"\d{12}", f["AwsAccountId"])
        assert f["Severity"]["Label"] in ("HIGH", "LOW") and f["Resources"] and f["CreatedAt"] == f["UpdatedAt"]
        assert f["ProductArn"].endswith(f":product/{f['AwsAccountId']}/default")
    assert len({f["Id"] for f in asff}) == len(asff)
    for rule in render_sarif(eu)["runs"][0]["tool"]["driver"]["rules"]:
        assert rule["helpUri"].startswith("https://"), rule["id"]
        assert rule["properties"]["tags"] and float(rule["properties"]["security-severity"]) > 0


def test_the_control_mapping_cites_its_sources(eu):
    m = eu["control_mapping"]
    assert {"gdpr", "iso27001", "nist80053", "ai_act"} <= set(m["sources"])
    assert all(s["url"].startswith("https://") for s in m["sources"].values())
    rows = {r["control"]: r for r in m["rows"]}
    assert any(a.startswith("Art. 44") for a in rows["regions"]["gdpr"])
    assert any(a.startswith("Art. 32") for a in rows["tamper"]["gdpr"])
    assert rows["invocation-logging"]["ai_act"]
