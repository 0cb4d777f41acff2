"""Assemble the review: one JSON-ready dict that every renderer (Markdown, HTML, SARIF) reads.

Deterministic: everything is sorted, and nothing depends on the clock or on absolute temporary paths
(scanner timings are returned separately, for the command line to print).
"""

from __future__ import annotations

import fnmatch
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from landing_zone import __version__
from landing_zone.assembly import Assembly, load_assembly, logical_id_lines
from landing_zone.aws import failure
from landing_zone.core.routing import PathKind
from landing_zone.cost.dashboard import dashboard_url
from landing_zone.errors import LandingZoneError
from landing_zone.plan import Plan
from landing_zone.policies.evaluator import FULL_AWS_ACCESS
from landing_zone.prove.proofs import proofs_for_assembly
from landing_zone.review.access_analyzer import analyze, not_run
from landing_zone.review.auditor import auditor_sections
from landing_zone.review.baseline import load_acknowledgements
from landing_zone.review.coverage import coverage_section
from landing_zone.review.data_stores import data_store_findings
from landing_zone.review.deployability import deployability_findings, grants_section, replacement_findings
from landing_zone.review.detection import detection_section
from landing_zone.review.diff import policy_diff
from landing_zone.review.findings import (
    Finding,
    ReviewContext,
    finding,
    policy_findings,
    sort_findings,
)
from landing_zone.review.inventory import PolicyRecord, build_inventory, construct_paths
from landing_zone.review.matrices import decision_findings, decision_matrix, routing_matrix
from landing_zone.review.nag import nag_findings, nag_section
from landing_zone.review.rules import ADVISORY, BLOCKING, RULES, define, rule
from landing_zone.review.scanners import (
    DEFAULT_SKIPS_FILE,
    ScannerRun,
    load_skips,
    run_scanners,
    scanner_findings,
    scanners_section,
)
from landing_zone.review.settings import settings_findings, settings_section
from landing_zone.review.summarize import summarize_policy
from landing_zone.review.void import enforced_section, void_findings
from landing_zone.simulate import guardrails_from_assembly
from landing_zone.tables.attacks import GOALS

__all__ = [
    "NOT_RECORDED",
    "SCHEMA",
    "AssemblyMismatch",
    "ReviewResult",
    "build_review",
    "headline",
    "provenance_section",
    "qualifiers",
    "review_context",
]

SCHEMA = "kimi-landing-zone/policy-review/v1"
NOT_RECORDED = "not recorded"
DISCOVER = "python -m landing_zone discover"
_SHOWN_PLACEHOLDERS = 3


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
    # an intended cross-account grant: the kill switch's reset role trusts the configured reset principals' accounts
    accounts |= {arn.split(":")[4] for arn in config.cost.kill_switch_reset_principal_arns}
    # ... and the alerts topic's policy admits the documented subscribers (cost.alert_subscriber_principal_arns)
    accounts |= {arn.split(":")[4] for arn in config.cost.alert_subscriber_principal_arns}
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


def scp_levels_of(matrix: Any) -> list[list[tuple[str, dict[str, Any]]]] | None:
    if matrix.mode != "scp":
        return None
    return [[("FullAWSAccess", FULL_AWS_ACCESS), *((r.name, dict(r.document)) for r in matrix.policies)]]


COVERAGE_UNDECIDED = define(
    "LZ-COVERAGE-UNDECIDED",
    BLOCKING,
    "An action on a protected resource is neither denied nor excepted",
    "An action of the IAM action databases (Write, Permissions management or Tagging) on a resource of the "
    "protected-resource inventory, or such an action with no resource type, is allowed to a member-account "
    "administrator by the synthesized SCPs and is not in landing_zone/policies/exceptions.yaml.",
    "The tamper guardrails are complete only for the actions they deny or a reviewer excepted: an undecided "
    "action is a way around them. Deny it (guardrails.py) or except it with a reason and a source.",
)


def coverage_findings(coverage: Mapping[str, Any], matrix: Any) -> list[Finding]:
    """One blocking finding per action that the SCPs neither deny nor except (at most 20, then a count)."""
    undecided = coverage.get("undecided") or []
    if not undecided:
        return []
    policy = matrix.policies[0]
    out = [
        finding(
            COVERAGE_UNDECIDED,
            f"{item}: a member-account administrator is not denied it, and landing_zone/policies/exceptions.yaml "
            "does not except it",
            template=policy.template,
            stack=policy.stack,
            logical_id=policy.logical_id,
            policy_id=policy.id,
            element=item,
        )
        for item in undecided[:20]
    ]
    if len(undecided) > 20:
        out.append(finding(COVERAGE_UNDECIDED, f"and {len(undecided) - 20} more undecided action(s)"))
    return out


PROOF_FAILS = define(
    "LZ-PROOF-FAILS",
    BLOCKING,
    "A guardrail property does not hold: the prover found a counterexample",
    "The SMT prover (section Proofs) found a request that breaks one of the properties P1-P6 stated from the "
    "configuration (Region confinement, model allow-list, tamper protection, not over-blocking, invoker "
    "effective permissions); the counterexample is replayed through the evaluator.",
    "A property that fails on one request fails for an attacker: run the counterexample's simulate command, fix "
    "the policy, synthesize and review again. A counterexample cannot be acknowledged.",
)


PROOF_NOT_PROVEN = define(
    "LZ-PROOF-NOT-PROVEN",
    BLOCKING,
    "A guardrail property is not proven",
    "An obligation of P1-P6 timed out, its premise admits no request (vacuous), the prover and the evaluator "
    "disagree on its counterexample, or the policies hold an element the prover does not encode; and "
    "landing_zone/prove/proof-acknowledgements.yaml does not acknowledge it.",
    "What is not proven is only sampled: raise --proof-timeout, or acknowledge the obligation with a reason in "
    "proof-acknowledgements.yaml (the verdict is then qualified). A disagreement is a bug in the prover or the "
    "evaluator: report it.",
)


def proof_findings(proofs: Mapping[str, Any], matrix: Any) -> list[Finding]:
    """LZ-PROOF-FAILS per property with a counterexample (the first one's simulate command in the message);
    LZ-PROOF-NOT-PROVEN per property with an obligation that is neither holding nor acknowledged, and when the
    policies could not be encoded at all."""
    where: dict[str, Any] = {}
    if matrix.policies:
        policy = matrix.policies[0]
        where = {
            "template": policy.template,
            "stack": policy.stack,
            "logical_id": policy.logical_id,
            "policy_id": policy.id,
        }
    if proofs.get("error"):
        return [finding(PROOF_NOT_PROVEN, f"no property could be proven: {proofs['error']}", **where)]
    out = []
    for prop in proofs.get("properties", []):
        failing = [o for o in prop["not_holding"] if o["status"] == "fails"]
        if prop["status"] in ("fails", "disagreement") and failing:
            first = failing[0]
            rule_id = PROOF_FAILS if prop["status"] == "fails" else PROOF_NOT_PROVEN
            what = "counterexample" if prop["status"] == "fails" else "prover and evaluator disagree on"
            more = f" (and {len(failing) - 1} more obligation(s))" if len(failing) > 1 else ""
            out.append(
                finding(
                    rule_id,
                    f"{prop['id']} ({prop['title']}): {what} for {first['label']}{more}: {first['simulate']}",
                    element=prop["id"],
                    **where,
                )
            )
            continue
        open_items = [o for o in prop["not_holding"] if "acknowledged" not in o]
        if prop["status"] == "not-proven" and open_items:
            first = open_items[0]
            more = f" (and {len(open_items) - 1} more)" if len(open_items) > 1 else ""
            out.append(
                finding(
                    PROOF_NOT_PROVEN,
                    f"{prop['id']} ({prop['title']}): {first['status']} on {first['label']}{more}"
                    + (f" — {first['reason']}" if first.get("reason") else ""),
                    element=prop["id"],
                    **where,
                )
            )
    return out


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


# ----------------------------------------------------------------------------------------- first screen


def _recorded(record: Mapping[str, Any] | None, pattern: str) -> list[str]:
    """Names the synth recorded as unverified (the record's ``unverified`` warnings, e.g. "catalog model 'x' is
    unverified"), so that a catalog verified since the synth does not hide what the assembly was built on."""
    found = []
    for text in (record or {}).get("unverified") or []:
        match = re.match(pattern, str(text))
        if match:
            found.append(match.group(1))
    return found


def _data_qualifiers(plan: Plan, record: Mapping[str, Any] | None) -> list[dict[str, str]]:
    """The qualifiers on the data: unverified routing, unverified prices, placeholder values."""
    out: list[dict[str, str]] = []
    models = sorted(
        {m.id for m in plan.models if not m.verified} | set(_recorded(record, r"catalog model '([^']+)' is unverified"))
    )
    if models:
        noun = "model" if len(models) == 1 else "models"
        out.append(
            {
                "kind": "unverified-routing",
                "text": f"routing data unverified ({noun} {', '.join(models)}: run `{DISCOVER}`)",
            }
        )
    unverified = [f"{p.model_id} ({p.source_name})" for p in plan.model_prices.unverified]
    recorded_prices = _recorded(record, r"unverified prices in budget and alarms: ([^;]+);")
    if unverified or recorded_prices:
        listed = ", ".join(unverified) or ", ".join(recorded_prices)
        out.append(
            {
                "kind": "unverified-prices",
                "text": f"prices unverified ({listed}: budgets and alarms use them; put contract prices into "
                "cost.price_overrides.<model-id>)",
            }
        )
    paths = list(dict.fromkeys([p.path for p in plan.placeholders] + list((record or {}).get("placeholders") or [])))
    if paths:
        shown = ", ".join(paths[:_SHOWN_PLACEHOLDERS]) + (
            f" and {len(paths) - _SHOWN_PLACEHOLDERS} more" if len(paths) > _SHOWN_PLACEHOLDERS else ""
        )
        out.append(
            {
                "kind": "placeholders",
                "text": f"{len(paths)} placeholder value{'s' if len(paths) != 1 else ''} ({shown}): replace before "
                "deploying",
            }
        )
    return out


def _check_qualifiers(
    scan: Mapping[str, Any], nag: Mapping[str, Any], proofs: Mapping[str, Any] | None
) -> list[dict[str, str]]:
    """The qualifiers on the checks: scanners, cdk-nag or proofs not run, proofs acknowledged."""
    out: list[dict[str, str]] = []
    if not scan.get("ran"):
        out.append({"kind": "scanners-not-run", "text": "cfn-lint and checkov not run (--no-scanners)"})
    if not nag.get("packs_run"):
        why = "no validation-report.json" if not nag.get("report_found") else "the validation report lists no pack"
        out.append({"kind": "cdk-nag-not-run", "text": f"cdk-nag packs not run ({why})"})
    if proofs is None:
        out.append({"kind": "proofs-not-run", "text": "guardrail properties not proven (--no-proofs): sampled only"})
    else:
        acknowledged = [p["id"] for p in proofs.get("properties", []) if p.get("acknowledged")]
        if acknowledged:
            out.append(
                {
                    "kind": "proofs-acknowledged",
                    "text": f"{', '.join(acknowledged)} not proven, acknowledged in proof-acknowledgements.yaml",
                }
            )
    return out


def qualifiers(
    plan: Plan,
    record: Mapping[str, Any] | None,
    scan: Mapping[str, Any],
    nag: Mapping[str, Any],
    proofs: Mapping[str, Any] | None = None,
) -> list[dict[str, str]]:
    """What a PASS (or FAIL) rests on that the review could not check: unverified catalog data, placeholder
    values, and checks that did not run.  Each is {kind, text}; the text is short enough for the verdict line."""
    return _data_qualifiers(plan, record) + _check_qualifiers(scan, nag, proofs)


def headline(verdict: str, quals: Sequence[Mapping[str, str]]) -> str:
    """The verdict line: "PASS", or "PASS — qualified: <qualifier>; <qualifier>" (FAIL likewise)."""
    word = "FAIL" if verdict == "fail" else "PASS"
    return word + (" — qualified: " + "; ".join(q["text"] for q in quals) if quals else "")


def provenance_section(assembly: Assembly, assembly_label: str, scan: Mapping[str, Any]) -> dict[str, Any]:
    """Where the assembly came from (its landing-zone.json record) and what generated this review.  Only data of
    the assembly and the tools: no clock, so the same assembly gives the same report."""
    review = {
        "landing_zone": __version__,
        "cfn_lint": scan["cfn_lint"]["version"] if scan.get("ran") else "not run",
        "checkov": scan["checkov"]["version"] if scan.get("ran") else "not run",
    }
    record = assembly.plan_record
    if record is None:
        return {
            "recorded": False,
            "assembly": assembly_label,
            "note": "not recorded: the assembly has no landing-zone.json (synthesized by an earlier version)",
            "config_origin": NOT_RECORDED,
            "config_sha256": NOT_RECORDED,
            "commit": NOT_RECORDED,
            "work_tree_changed": None,
            "synthesized_at": NOT_RECORDED,
            "synthesized_with": {},
            "review": review,
        }
    prov = record.get("provenance")
    prov = prov if isinstance(prov, Mapping) else {}

    def field(mapping: Mapping[str, Any], key: str) -> str:
        value = mapping.get(key)
        return NOT_RECORDED if value in (None, "") else str(value)

    changed = prov.get("work_tree_changed")
    return {
        "recorded": True,
        "assembly": assembly_label,
        "config_origin": field(record, "origin"),
        "config_sha256": field(record, "config_sha256"),
        "commit": field(prov, "commit"),
        "work_tree_changed": changed if isinstance(changed, bool) else None,
        "synthesized_at": field(prov, "generated_at"),
        "synthesized_with": {
            key: field(prov, key) for key in ("landing_zone", "python", "aws_cdk_lib", "cdk_nag", "cdk_cli")
        },
        "review": review,
    }


def _justifications(
    f: Mapping[str, Any],
    related: Sequence[str],
    paths: Mapping[tuple[str, str], str],
    nag: Mapping[str, Any],
    scan: Mapping[str, Any],
) -> list[dict[str, Any]]:
    """The cdk-nag acknowledgments and checkov skips on the finding's resource, of the rules that check the same
    thing (``Rule.related``), grouped by reason: why the tools accepted it, shown in the finding's row."""
    if not related or not f.get("logical_id"):
        return []
    by_reason: dict[tuple[str, str], list[str]] = {}
    path = paths.get((f["template"], f["logical_id"]))
    if path:
        for a in nag["acknowledgments"]:
            at = a["construct_path"]
            if a["status"] == "unused" or not (path == at or path.startswith(at + "/")):
                continue
            if not any(fnmatch.fnmatchcase(a["rule"], pattern) for pattern in related) or not a["reason"]:
                continue
            # "AwsSolutions-IAM5[Resource::<arn>]" acknowledges one finding: only when the element names it
            scoped = re.search(r"\[(?:Resource|Action)::(.*)\]$", a["id"])
            if scoped is None or scoped.group(1) in re.split(r"[\s,]+", f.get("element") or ""):
                by_reason.setdefault(("cdk-nag", a["reason"]), []).append(a["id"].split("::", 1)[-1])
    if scan.get("ran"):
        for s in scan["checkov"]["skipped"]:
            if (s["template"], s["logical_id"]) != (f["template"], f["logical_id"]):
                continue
            if any(fnmatch.fnmatchcase(s["check"], pattern) for pattern in related):
                by_reason.setdefault(("checkov", s["reason"]), []).append(s["check"])
    return [
        {"tool": tool, "ids": sorted(set(ids)), "reason": reason} for (tool, reason), ids in sorted(by_reason.items())
    ]


def _policies(records: tuple[PolicyRecord, ...]) -> list[dict[str, Any]]:
    out = []
    for r in records:
        item = r.as_dict()
        item["statements"] = [s.as_dict() for s in summarize_policy(r)]
        out.append(item)
    return out


def _access_analyzer_section(
    client: Any, assembly: Assembly, records: Sequence[PolicyRecord], old: Assembly | None, plan: Plan
) -> dict[str, Any]:
    """IAM Access Analyzer's rows (``review --access-analyzer``), or why it did not run."""
    if client is None:
        return not_run()

    stacks = {
        s.name: (s.account or plan.config.deployment_account, s.region or plan.config.home_region)
        for s in assembly.stacks
    }
    baseline = build_inventory(old) if old is not None else None
    return analyze(client, records, stacks=stacks, baseline=baseline, is_client_error=failure)


def _config_section(plan: Plan, ctx: ReviewContext, config_origin: str) -> dict[str, Any]:
    """The review's configuration section: where it came from and what it sets."""
    config = plan.config
    return {
        "origin": config_origin,
        "name": config.name,
        "home_region": config.home_region,
        "compliant_regions": sorted(config.compliant_regions),
        "inference_source_regions": list(config.source_regions),
        "allow_global_inference": config.allow_global_inference,
        "mode": "organization (SCPs)" if config.organization is not None else "single account (permissions boundary)",
        "known_accounts": sorted(ctx.known_accounts),
        "price_source": config.cost.price_source
        if isinstance(config.cost.price_source, str)
        else ", ".join(f"{m}: {o}" for m, o in sorted(config.cost.price_source.items())),
        "operations_dashboard": dashboard_url(plan.dashboard.region, plan.dashboard.name),
        "price_overrides": {
            name: {**o.prices(), "source": o.source} for name, o in sorted(config.cost.price_overrides.items())
        },
        # quota headroom alarms (cost.quota_alarms): each quota's value, source, date and whether it is verified
        "quota_alarms": [a.as_dict() for a in plan.quota_alarms.alarms],
        "quotas_without_value": [f"{m.model_id} {m.kind}" for m in plan.quota_alarms.missing],
        "warnings": list(plan.warnings),
        # placeholder values left in the configuration (e.g. the example account 111111111111)
        "placeholders": [{"path": p.path, "value": str(p.got), "why": p.allowed} for p in plan.placeholders],
    }


def _finding_dicts(
    findings: Sequence[Finding], assembly: Assembly, nag: Mapping[str, Any], scan: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """Each finding as a dict, with its template line, its rule's rationale and the other tools' justifications."""
    lines = {t.file: logical_id_lines(assembly, t.file) for t in assembly.templates}
    paths = construct_paths(assembly)
    finding_dicts = []
    for f in findings:
        item = f.as_dict()
        item["line"] = lines.get(f.template, {}).get(f.logical_id) if f.logical_id else None
        # why the finding has its level and what to do, and why the other tools accepted the same thing
        item["rationale"] = rule(f.rule).rationale
        item["justifications"] = _justifications(item, rule(f.rule).related, paths, nag, scan)
        finding_dicts.append(item)
    return finding_dicts


def _proof_summary(proof: Mapping[str, Any] | None) -> dict[str, Any]:
    """The summary's properties: proven for every request (section Proofs) vs. not proven, and not applicable."""
    return {
        "properties_proven": list(proof["proven"]) if proof else [],
        "properties_not_proven": [
            p["id"] for p in (proof or {}).get("properties", []) if p["status"] not in ("holds", "not-applicable")
        ],
        "properties_not_applicable": [
            p["id"] for p in (proof or {}).get("properties", []) if p["status"] == "not-applicable"
        ],
    }


def build_review(
    assembly_path: str | Path,
    plan: Plan,
    *,
    config_origin: str = "cdk.json defaults",
    baseline: str | Path | None = None,
    scanners: bool = True,
    skips_file: Path | None = DEFAULT_SKIPS_FILE,
    proofs: bool = True,
    proof_timeout_ms: int = 10_000,
    acknowledge: Path | None = None,
    access_analyzer: Any = None,
) -> ReviewResult:
    assembly = load_assembly(assembly_path)
    # read before any work, and named as the flag it came from
    old = load_assembly(baseline, flag="--baseline") if baseline is not None else None
    acks = load_acknowledgements(acknowledge)
    _check_match(assembly, plan)
    skips = load_skips(skips_file) if scanners else ()
    records = build_inventory(assembly)
    ctx = review_context(plan)
    matrix = decision_matrix(plan, records)
    coverage = coverage_section(plan, scp_levels_of(matrix))
    proof = proofs_for_assembly(assembly_path, plan, timeout_ms=proof_timeout_ms) if proofs else None
    nag = nag_section(assembly)
    settings = settings_section(plan, assembly, records)
    runs = run_scanners(assembly) if scanners else None
    scan = scanners_section(runs, skips, str(skips_file.name if skips_file else "checkov-skips.yaml"))
    old_records = build_inventory(old) if old is not None else None
    diff = policy_diff(old_records, records, baseline_label=str(baseline)) if old_records is not None else None
    threat = threat_model_section(plan, matrix)
    auditor, auditor_found = auditor_sections(
        plan,
        assembly,
        records,
        proofs=proof,
        guardrails=guardrails_from_assembly(Path(assembly_path)),
        threat_model=threat,
        old_records=old_records,
        diff=diff,
        acknowledgements=acks,
        baseline_label=str(baseline),
    )
    findings = sort_findings(
        [
            *policy_findings(records, ctx),
            *data_store_findings(assembly),
            *decision_findings(matrix),
            *coverage_findings(coverage, matrix),
            *(proof_findings(proof, matrix) if proof is not None else []),
            *void_findings(plan, assembly),
            *settings_findings(settings),
            *deployability_findings(records, assembly, plan.cross_account_grants),
            *(replacement_findings(old, assembly) if old is not None else []),
            *nag_findings(nag),
            *scanner_findings(scan),
            *auditor_found,
        ]
    )
    finding_dicts = _finding_dicts(findings, assembly, nag, scan)
    levels = Counter(f.level for f in findings)
    policies = _policies(records)
    statements = sum(len(p["statements"]) for p in policies)
    verdict = "fail" if levels.get(BLOCKING) else "pass"
    quals = qualifiers(plan, assembly.plan_record, scan, nag, proof)
    if auditor["changes"] and auditor["changes"]["weakenings"] > auditor["changes"]["unacknowledged"]:
        done = auditor["changes"]["weakenings"] - auditor["changes"]["unacknowledged"]
        quals.append({"kind": "weakening-acknowledged", "text": f"{done} weakening(s) since the baseline acknowledged"})
    data: dict[str, Any] = {
        "schema": SCHEMA,
        "assembly": str(assembly_path),
        # the auditor's sections first (issue 34): residency sheet, claims, changes, who can change what, risks
        **auditor,
        "config": _config_section(plan, ctx, config_origin),
        "summary": {
            "verdict": verdict,
            # a verdict is qualified by what the review could not check (unverified data, placeholders, tools)
            "qualified": bool(quals),
            "qualifiers": quals,
            "headline": headline(verdict, quals),
            # what the guardrails enforce, shown on the first screen before any count
            "enforced": enforced_section(plan),
            "provenance": provenance_section(assembly, str(assembly_path), scan),
            "blocking": levels.get(BLOCKING, 0),
            "advisory": levels.get(ADVISORY, 0),
            "templates": sorted({t.file for t in assembly.templates}),
            "stacks": sorted({t.name for t in assembly.templates}),
            "policies": len(records),
            "statements": statements,
            "policies_by_kind": dict(sorted(Counter(r.kind for r in records).items())),
            "decision_cases": len(matrix.rows),
            "decision_mismatches": sum(not r.match for r in matrix.rows),
            # proven for every request (section Proofs) vs. only sampled (decision cases, red-team pairs)
            **_proof_summary(proof),
            "routes": len(plan.routing.as_rows()),
        },
        "rules": [r.as_dict() for r in sorted(RULES.values(), key=lambda r: (r.level != BLOCKING, r.id))],
        "findings": finding_dicts,
        "policies": policies,
        "routing_matrix": routing_matrix(plan),
        "settings": settings,
        # where a policy names another account than its stack's own, as the plan means it (landing_zone/plan/grants.py)
        "cross_account_grants": grants_section(records, assembly, plan.cross_account_grants),
        "decision_matrix": matrix.as_dict(),
        "threat_model": threat,
        "detection": detection_section(plan, assembly),
        # --access-analyzer: IAM Access Analyzer's checks (the client), next to the offline proofs
        "access_analyzer": _access_analyzer_section(access_analyzer, assembly, records, old, plan),
        "coverage": coverage,
        "proofs": proof,
        "cdk_nag": nag,
        "scanners": scan,
        "diff": diff,
    }
    return ReviewResult(data, runs)
