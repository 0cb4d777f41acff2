"""Assemble the review: one JSON-ready dict that every renderer (Markdown, HTML, SARIF) reads.

Deterministic: everything is sorted, and nothing depends on the clock or on absolute temporary paths
(scanner timings are returned separately, for the command line to print).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from landing_zone.assembly import Assembly, load_assembly, logical_id_lines
from landing_zone.core.routing import PathKind
from landing_zone.errors import LandingZoneError
from landing_zone.plan import Plan
from landing_zone.review.diff import policy_diff
from landing_zone.review.findings import ReviewContext, data_store_findings, policy_findings, sort_findings
from landing_zone.review.inventory import PolicyRecord, build_inventory
from landing_zone.review.matrices import decision_findings, decision_matrix, routing_matrix
from landing_zone.review.nag import nag_findings, nag_section
from landing_zone.review.redteam import GOALS
from landing_zone.review.rules import ADVISORY, BLOCKING, RULES
from landing_zone.review.scanners import (
    DEFAULT_SKIPS_FILE,
    ScannerRun,
    load_skips,
    run_scanners,
    scanner_findings,
    scanners_section,
)
from landing_zone.review.summarize import summarize_policy

__all__ = ["SCHEMA", "AssemblyMismatch", "ReviewResult", "build_review", "review_context"]

SCHEMA = "kimi-landing-zone/policy-review/v1"


class AssemblyMismatch(LandingZoneError):
    """The assembly was not synthesized from the given configuration (exit code 2)."""


@dataclass(frozen=True)
class ReviewResult:
    data: dict[str, Any]
    scanner_runs: Mapping[str, ScannerRun] | None

    @property
    def blocking(self) -> int:
        return int(self.data["summary"]["blocking"])


def review_context(plan: Plan) -> ReviewContext:
    config = plan.config
    accounts = {a.id for a in config.accounts} | {config.deployment_account}
    if config.organization is not None:
        accounts.add(config.organization.management_account_id)
    baseline = getattr(config, "member_baseline", None)
    admin = getattr(baseline, "administrator_account_id", None)
    if admin:
        accounts.add(admin)
    global_destinations = set()
    for mr in plan.routing.models:
        for route in mr.compliant_routes:
            if route.kind is PathKind.GLOBAL_PROFILE:
                for region in route.destination_regions:
                    global_destinations.add((region, mr.model.id))
                    if route.profile_id:
                        global_destinations.add((region, route.profile_id))
    return ReviewContext(
        compliant_regions=frozenset(config.compliant_regions),
        known_accounts=frozenset(accounts),
        organization_id=config.organization.organization_id if config.organization else None,
        global_destinations=frozenset(global_destinations),
    )


def _check_match(assembly: Assembly, plan: Plan) -> None:
    prefix = f"{plan.config.name}-"
    stacks = sorted({t.name for t in assembly.templates if t.nested_in is None})
    if not any(s.startswith(prefix) for s in stacks):
        raise AssemblyMismatch(
            f"--assembly {assembly.path}: its stacks ({', '.join(stacks)}) were not synthesized from this configuration "
            f"(name {plan.config.name!r}); pass the --config the assembly was synthesized with"
        )


def threat_model_section(plan: Plan, matrix: Any) -> dict[str, Any]:
    """The red-team table as evaluated against the synthesized SCPs, grouped by the adversary's goal."""
    if matrix.mode != "scp":
        return {
            "applies": False,
            "note": "The threat model is an administrator of a targeted member account; only SCPs (organization mode) "
            "bind such a principal. In single-account mode the permissions boundary confines the invoker roles only: "
            "nothing here protects the landing zone from an administrator of the account (docs/THREAT_MODEL.md).",
            "goals": {str(k): v for k, v in GOALS.items()},
            "rows": [],
        }
    rows = [r.as_dict() for r in matrix.threat_model]
    return {
        "applies": True,
        "note": "Adversary: AdministratorAccess in a member account under organization.target_ids. Each attack is "
        "evaluated against the SCPs as synthesized, next to the legitimate request it must not block.",
        "goals": {str(k): v for k, v in GOALS.items()},
        "attacks": len(rows),
        "requests": 2 * len(rows),
        "failures": sum(not r["ok"] for r in rows),
        "not_applicable": matrix.threat_model_skipped,
        "residual": [{"attack": r["attack"], "what_would_stop_it": r["residual"]} for r in rows if r["residual"]],
        "rows": rows,
    }


def _policies(records: tuple[PolicyRecord, ...]) -> list[dict[str, Any]]:
    out = []
    for r in records:
        item = r.as_dict()
        item["statements"] = [s.as_dict() for s in summarize_policy(r)]
        out.append(item)
    return out


def build_review(
    assembly_path: str | Path,
    plan: Plan,
    *,
    config_origin: str = "cdk.json defaults",
    baseline: str | Path | None = None,
    scanners: bool = True,
    skips_file: Path | None = DEFAULT_SKIPS_FILE,
) -> ReviewResult:
    assembly = load_assembly(assembly_path)
    _check_match(assembly, plan)
    skips = load_skips(skips_file) if scanners else ()
    records = build_inventory(assembly)
    ctx = review_context(plan)
    matrix = decision_matrix(plan, records)
    nag = nag_section(assembly)
    runs = run_scanners(assembly) if scanners else None
    scan = scanners_section(runs, skips, str(skips_file.name if skips_file else "checkov-skips.yaml"))
    findings = sort_findings(
        [
            *policy_findings(records, ctx),
            *data_store_findings(assembly),
            *decision_findings(matrix),
            *nag_findings(nag),
            *scanner_findings(scan),
        ]
    )
    lines = {t.file: logical_id_lines(assembly, t.file) for t in assembly.templates}
    finding_dicts = []
    for f in findings:
        item = f.as_dict()
        item["line"] = lines.get(f.template, {}).get(f.logical_id) if f.logical_id else None
        finding_dicts.append(item)
    diff = None
    if baseline is not None:
        old = load_assembly(baseline)
        diff = policy_diff(build_inventory(old), records, baseline_label=str(baseline))
    levels = Counter(f.level for f in findings)
    policies = _policies(records)
    statements = sum(len(p["statements"]) for p in policies)
    config = plan.config
    data: dict[str, Any] = {
        "schema": SCHEMA,
        "assembly": str(assembly_path),
        "config": {
            "origin": config_origin,
            "name": config.name,
            "home_region": config.home_region,
            "compliant_regions": sorted(config.compliant_regions),
            "allow_global_inference": config.allow_global_inference,
            "mode": "organization (SCPs)"
            if config.organization is not None
            else "single account (permissions boundary)",
            "known_accounts": sorted(ctx.known_accounts),
            "price_source": config.cost.price_source,
            "price_overrides": {
                name: {**o.prices(), "source": o.source} for name, o in sorted(config.cost.price_overrides.items())
            },
            "warnings": list(plan.warnings),
            # placeholder values left in the configuration (e.g. the example account 111111111111)
            "placeholders": [{"path": p.path, "value": str(p.got), "why": p.allowed} for p in plan.placeholders],
        },
        "summary": {
            "verdict": "fail" if levels.get(BLOCKING) else "pass",
            "blocking": levels.get(BLOCKING, 0),
            "advisory": levels.get(ADVISORY, 0),
            "templates": sorted({t.file for t in assembly.templates}),
            "stacks": sorted({t.name for t in assembly.templates}),
            "policies": len(records),
            "statements": statements,
            "policies_by_kind": dict(sorted(Counter(r.kind for r in records).items())),
            "decision_cases": len(matrix.rows),
            "decision_mismatches": sum(not r.match for r in matrix.rows),
            "routes": len(plan.routing.as_rows()),
        },
        "rules": [r.as_dict() for r in sorted(RULES.values(), key=lambda r: (r.level != BLOCKING, r.id))],
        "findings": finding_dicts,
        "policies": policies,
        "routing_matrix": routing_matrix(plan),
        "decision_matrix": matrix.as_dict(),
        "threat_model": threat_model_section(plan, matrix),
        "cdk_nag": nag,
        "scanners": scan,
        "diff": diff,
    }
    return ReviewResult(data, runs)
