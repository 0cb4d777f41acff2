"""The routing matrix (from the plan) and the decision matrix (standard cases against the synthesized guardrails).

Decision matrix: with an ``organization`` block the guardrails are the ``AWS::Organizations::Policy`` SCPs in the
assembly, evaluated together with FullAWSAccess (one level: the target), against the standard cases and the red-team
table of ``redteam.py`` (each attack must be denied by its statement, each legitimate neighbour allowed); in
single-account mode they are the
invoker roles' permissions boundary, the managed policy named ``<name>-invoker-boundary``.  Each case of
``cases.py`` is evaluated with ``landing_zone.policies.evaluator``; a decision other than the expected one
is a blocking finding (``LZ-DECISION-MISMATCH``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from landing_zone.plan import Plan
from landing_zone.policies.evaluator import FULL_AWS_ACCESS, Request, evaluate, evaluate_scp_levels
from landing_zone.review.findings import Finding, finding
from landing_zone.review.inventory import PolicyRecord
from landing_zone.review.rules import BLOCKING, define
from landing_zone.tables.attacks import AttackResult, evaluate_attacks
from landing_zone.tables.decision_cases import Case, cases_for

__all__ = [
    "DecisionMatrix",
    "DecisionRow",
    "decision_findings",
    "decision_matrix",
    "routing_matrix",
    "service_tiers",
    "tier_text",
]


def service_tiers(plan: Plan, model_id: str, path: str) -> list[dict[str, Any]]:
    """The allowed service tiers (``policy_guardrails.allowed_service_tiers``) of one compliant path: per tier the
    price entry, its basis (catalog or config rule), whether it is verified, and whether the catalog says the model
    offers the tier in a compliant Region (offered / not-offered / unknown)."""
    model = next((m for m in plan.models if m.id == model_id), None)
    out: list[dict[str, Any]] = []
    for tier in plan.config.policy_guardrails.allowed_service_tiers:
        offered = model.tier_status(tier, plan.config.compliant_regions) if model is not None else "unknown"
        cell: dict[str, Any] = {"tier": tier, "offered": offered, "price_entry": None, "basis": "", "verified": None}
        if tier == "reserved":
            cell["basis"] = "reserved capacity billed monthly: not a per-token price, outside the token cost"
        elif tier == "default" and (model_id, path) in plan.model_prices.by_path:
            p = plan.model_prices.by_path[(model_id, path)]
            cell |= {"price_entry": p.source_name, "basis": "standard prices", "verified": p.verified}
        elif (model_id, path, tier) in plan.model_prices.by_tier:
            p = plan.model_prices.by_tier[(model_id, path, tier)]
            rule = plan.model_prices.tier_rules[(model_id, path, tier)]
            cell |= {"price_entry": p.source_name, "basis": f"{rule.basis}, {rule.where}", "verified": p.verified}
        out.append(cell)
    return out


def tier_text(cells: Iterable[dict[str, Any]]) -> str:
    """One line of :func:`service_tiers`: ``default 'bedrock' (unverified); flex 'bedrock+flex' (1 x standard ...)``."""
    parts = []
    for c in cells:
        state = {True: "verified", False: "unverified", None: ""}[c["verified"]]
        bits = [b for b in (c["basis"] if c["tier"] != "default" else "", state) if b]
        if c["offered"] != "offered":
            bits.append(f"offer {c['offered']}")
        entry = f" {c['price_entry']!r}" if c["price_entry"] else ""
        parts.append(f"{c['tier']}{entry}" + (f" ({'; '.join(bits)})" if bits else ""))
    return "; ".join(parts)


def routing_matrix(plan: Plan) -> list[dict[str, Any]]:
    """model x path x Region: allowed or rejected, with the reason (the routing resolver's decision), and for an
    allowed path the service tiers inference may request on it with their prices (:func:`service_tiers`)."""
    rows = plan.routing.as_rows()
    for r in rows:
        r["service_tiers"] = service_tiers(plan, r["model_id"], r["path"]) if r["decision"] == "allowed" else []
        r["service_tiers_text"] = tier_text(r["service_tiers"])
    return sorted(rows, key=lambda r: (r["model_id"], r["path"], r["invoke_id"], r["source_regions"]))


@dataclass(frozen=True)
class DecisionRow:
    case: str
    action: str
    resource: str
    region: str
    principal: str
    context: dict[str, Any]
    expected: str
    actual: str
    deciding: tuple[str, ...]
    expected_by: str | None = None  # red-team attacks: the Sid that must decide the deny

    @property
    def match(self) -> bool:
        if self.expected != self.actual:
            return False
        return self.expected_by is None or any(d.endswith("/" + self.expected_by) for d in self.deciding)

    def as_dict(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "action": self.action,
            "resource": self.resource,
            "region": self.region,
            "principal": self.principal,
            "context": self.context,
            "expected": self.expected,
            "actual": self.actual,
            "deciding": list(self.deciding),
            "expected_by": self.expected_by,
            "match": self.match,
        }


@dataclass(frozen=True)
class DecisionMatrix:
    mode: str  # "scp" | "boundary" | "none"
    source: str  # what was evaluated, in words
    policies: tuple[PolicyRecord, ...]
    rows: tuple[DecisionRow, ...]
    skipped: int = 0  # cases not applicable in this mode
    threat_model: tuple[AttackResult, ...] = ()  # the red-team table (organization mode)
    threat_model_skipped: int = 0  # its rows whose preconditions this configuration lacks

    def as_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "source": self.source,
            "policies": [p.id for p in self.policies],
            "cases": len(self.rows),
            "mismatches": sum(not r.match for r in self.rows),
            "not_applicable": self.skipped,
            "rows": [r.as_dict() for r in self.rows],
        }


def _row(case: Case, expected: str, decide: Any) -> DecisionRow:
    try:
        decision = decide(Request(action=case.action, resource=case.resource, context=case.request_context()))
        actual = decision.decision
        matches = decision.matched_denies if decision.decision == "explicit_deny" else decision.matched_allows
        deciding = tuple(sorted({m.label for m in matches}))
    except Exception as exc:  # noqa: BLE001 - an unsupported policy element is reported, not raised
        actual, deciding = f"error: {exc}", ()
    return DecisionRow(
        case.case,
        case.action,
        case.resource,
        case.region,
        case.principal,
        dict(case.context),
        expected,
        actual,
        deciding,
    )


def _attack_rows(result: AttackResult) -> tuple[DecisionRow, DecisionRow]:
    c = result.case
    attack = DecisionRow(
        f"[red team, goal {c.goal}] {c.path}",
        c.attack.action,
        c.attack.resource,
        c.attack.region,
        c.attack.principal,
        dict(c.attack.context),
        c.attacker_expected,
        result.attack_actual,
        result.attack_deciding,
        expected_by=c.stops if c.attacker_expected == "explicit_deny" else None,
    )
    legit = DecisionRow(
        f"[red team, goal {c.goal}] legitimate neighbour: {c.legit_path}",
        c.legit.action,
        c.legit.resource,
        c.legit.region,
        c.legit.principal,
        dict(c.legit.context),
        "allow",
        result.legit_actual,
        result.legit_deciding,
    )
    return attack, legit


def decision_matrix(plan: Plan, records: Iterable[PolicyRecord]) -> DecisionMatrix:
    records = tuple(records)
    cases = cases_for(plan)
    if plan.config.organization is not None:
        scps = tuple(r for r in records if r.kind == "scp")
        if not scps:
            return DecisionMatrix("none", "no service control policy in the assembly", (), ())
        levels = [[("FullAWSAccess", FULL_AWS_ACCESS), *((r.name, dict(r.document)) for r in scps)]]
        rows = tuple(_row(c, c.expected, lambda req: evaluate_scp_levels(levels, req)) for c in cases)
        attacks, attacks_skipped = evaluate_attacks(plan, levels)
        rows += tuple(row for result in attacks for row in _attack_rows(result))
        source = (
            "FullAWSAccess + "
            + ", ".join(r.name for r in scps)
            + " (SCPs as synthesized; each red-team request against those on its account's path, as the plan "
            "attaches them)"
        )
        return DecisionMatrix("scp", source, scps, rows, threat_model=attacks, threat_model_skipped=attacks_skipped)
    boundary_name = f"{plan.config.name}-invoker-boundary"
    boundaries = tuple(r for r in records if r.kind == "managed" and r.name == boundary_name)
    if not boundaries:
        return DecisionMatrix("none", f"no managed policy named {boundary_name!r} in the assembly", (), ())
    policies = [(r.name, dict(r.document)) for r in boundaries]
    applicable = [c for c in cases if c.expected_boundary is not None]
    rows = tuple(_row(c, str(c.expected_boundary), lambda req: evaluate(policies, req)) for c in applicable)
    source = f"permissions boundary {boundary_name} of the invoker roles (single-account mode; no SCPs)"
    return DecisionMatrix("boundary", source, boundaries, rows, skipped=len(cases) - len(applicable))


DECISION_MISMATCH = define(
    "LZ-DECISION-MISMATCH",
    BLOCKING,
    "Guardrail decision differs from the expected one",
    "A standard request case evaluated against the synthesized SCPs (or the invoker permissions boundary) "
    "gets a decision other than the expected one.",
    "The guardrail does not decide a standard request the way the design says. Fix the guardrail, or the "
    "case in cases.py if the design changed on purpose.",
)


GUARDRAILS_MISSING = define(
    "LZ-GUARDRAILS-MISSING",
    BLOCKING,
    "No guardrail policy to evaluate",
    "The assembly has neither the guardrail SCPs (organization mode) nor the invoker permissions boundary "
    "'<name>-invoker-boundary' (single-account mode).",
    "Nothing to evaluate the requests against: the assembly lacks its guardrail stack, or was not "
    "synthesized from this configuration. Synthesize again and review the new assembly.",
)


def decision_findings(matrix: DecisionMatrix) -> list[Finding]:
    if matrix.mode == "none":
        return [finding(GUARDRAILS_MISSING, f"the decision matrix cannot be evaluated: {matrix.source}")]
    policy = matrix.policies[0]
    out = []
    for row in matrix.rows:
        if row.match:
            continue
        by = f" by {row.expected_by}" if row.expected_by else ""
        out.append(
            finding(
                DECISION_MISMATCH,
                f"case {row.case!r}: expected {row.expected}{by}, got {row.actual} "
                f"({', '.join(row.deciding) or 'no statement matched'})",
                template=policy.template,
                stack=policy.stack,
                logical_id=policy.logical_id,
                policy_id=policy.id,
                element=f"{row.action} on {row.resource} in {row.region}",
            )
        )
    return out
