"""The auditor's part of the review (issue 34), built once into the report model that every writer reads:

``residency`` (the data-flow sheet), ``claims`` (what is enforced, for whom, how sure), ``changes`` (since the
baseline), ``change_control`` (who can change what, and how we would know), ``residual_risks`` (the register),
``control_mapping`` (GDPR, ISO/IEC 27001, NIST 800-53, EU AI Act, as data with sources) and ``signoff`` (the
questions an approver answers, each answered from the JSON, and the fields to sign).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from landing_zone.assembly import Assembly
from landing_zone.plan import Plan
from landing_zone.review.baseline import baseline_findings, changes_section, mark_moved
from landing_zone.review.claims import claim_findings, claims_section
from landing_zone.review.findings import Finding
from landing_zone.review.governance import change_control_section, residual_risks_section
from landing_zone.review.inventory import PolicyRecord
from landing_zone.review.residency import residency_section
from landing_zone.simulate import Guardrails

__all__ = ["SIGNOFF_QUESTIONS", "auditor_sections", "control_mapping_section", "signoff_section"]

DATA = Path(__file__).with_name("data")

SIGNOFF_QUESTIONS = (
    ("regions", "Which Regions can process a prompt, and by which path?", "residency"),
    ("invokers", "Who can invoke a model?", "claims"),
    ("switch-off", "Who can switch off each guardrail, and how would we know?", "change-control"),
    ("logged", "What is logged, and who can read it?", "residency"),
    ("not-covered", "What is not covered?", "residual-risks"),
    ("changed", "What changed since the last approval?", "changes"),
)


@cache
def _mapping() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((DATA / "control_mapping.yaml").read_text(encoding="utf-8"))
    return data


def control_mapping_section(claims: Sequence[Mapping[str, Any]], plan: Plan) -> dict[str, Any]:
    data = _mapping()
    present = [c["id"] for c in claims] + ["change-control", "residual-risks"]
    if plan.config.data_retention.mode is not None:
        present.append("data-retention")
    rows = []
    for control in present:
        entry = data["controls"].get(control)
        if entry is None:
            continue
        rows.append(
            {
                "control": control,
                **{fw: list(entry.get(fw) or []) for fw in ("gdpr", "iso27001", "nist80053", "ai_act")},
                "applies_when": entry.get("applies_when", ""),
            }
        )
    return {"as_of": data["as_of"], "sources": data["sources"], "rows": rows}


def _who_invokes_short(plan: Plan) -> str:
    apps = [f"{a.app.name} (from account {a.caller_account_id})" for a in plan.applications]
    return (
        f"the invoker roles {', '.join(apps) or '(none)'}; any other principal of the governed accounts only within "
        "what binds every principal (section What is enforced, for whom)"
    )


def _who_invokes(plan: Plan, claims: Sequence[Mapping[str, Any]]) -> str:
    apps = [
        f"{a.app.name} (invoker role, assumed from {a.caller_account_id}, model {a.model.id})"
        for a in plan.applications
    ]
    invoker_only = [c["claim"] for c in claims if c["binds"] == "invoker-roles"]
    everyone = [c["claim"] for c in claims if c["binds"] == "all-principals" and c["id"] != "invocation-logging"]
    return (
        f"The invoker roles: {'; '.join(apps) or 'none'}. Any other principal of the governed accounts whose own "
        f"policies allow it may invoke too, within what binds every principal ({'; '.join(everyone) or 'nothing'}); "
        f"only the invoker roles are also held to: {'; '.join(invoker_only) or 'nothing more'}."
    )


def signoff_section(data: Mapping[str, Any], plan: Plan) -> dict[str, Any]:
    """Each question with its answer, derived from the sections above (the test answers them from the JSON alone)."""
    residency = data["residency"]["paths"]
    allowed = [r for r in residency if r["allowed"]]
    answers = {
        "regions": "; ".join(
            f"{r['path']} {r['invoke_id']}: started in {', '.join(r['starts_in'])}, processed in "
            f"{', '.join(r['processed_in'])}"
            for r in allowed
        ),
        "invokers": _who_invokes(plan, data["claims"]),
        "switch-off": "; ".join(
            f"{r['what']}: {len(r['who_can_change'])} principal(s), seen as "
            f"{', '.join(r['how_we_would_know']['cloudtrail'][:2])}"
            for r in data["change_control"]
        ),
        "logged": "; ".join(
            f"{r['path']} {r['invoke_id']}: "
            + (f"logged to {r['where']} ({r['key']}); readers: {len(r['readers'])}" if r["logged"] else r["where"])
            for r in allowed
        ),
        "not-covered": f"{len(data['residual_risks'])} residual risk(s) in the register, "
        f"{sum(1 for c in data['claims'] for _ in c['not_covered'])} gap(s) of the claims",
        "changed": (
            f"{data['changes']['weakenings']} weakening(s), {data['changes']['unacknowledged']} unacknowledged, "
            f"{len(data['changes']['moved'])} statement(s) moved, since {data['changes']['baseline']}"
            if data.get("changes")
            else "no baseline given (--baseline OLD_CDK_OUT): nothing to compare"
        ),
    }
    return {
        "questions": [
            {"id": qid, "question": q, "answer": answers[qid], "section": anchor}
            | ({"short": _who_invokes_short(plan)} if qid == "invokers" else {})
            for qid, q, anchor in SIGNOFF_QUESTIONS
        ],
        "approver": {"name": "", "role": "", "decision": "", "conditions": "", "date": "", "signature": ""},
    }


def auditor_sections(
    plan: Plan,
    assembly: Assembly,
    records: Sequence[PolicyRecord],
    *,
    proofs: Mapping[str, Any] | None,
    guardrails: Guardrails,
    threat_model: Mapping[str, Any],
    old_records: Sequence[PolicyRecord] | None,
    diff: dict[str, Any] | None,
    acknowledgements: Mapping[str, Mapping[str, Any]],
    baseline_label: str,
) -> tuple[dict[str, Any], list[Finding]]:
    claims = claims_section(plan, proofs, guardrails)
    out: dict[str, Any] = {
        "residency": residency_section(plan, assembly),
        "claims": claims,
        "changes": None,
        "change_control": change_control_section(plan),
        "residual_risks": residual_risks_section(plan, claims, threat_model),
    }
    if old_records is not None:
        out["changes"] = changes_section(old_records, records, acknowledgements, baseline_label)
        if diff is not None:
            mark_moved(diff, out["changes"]["moved"])
    out["control_mapping"] = control_mapping_section(claims, plan)
    out["signoff"] = signoff_section(out, plan)
    return out, [*claim_findings(claims), *baseline_findings(out["changes"])]
