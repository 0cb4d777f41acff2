"""Slot arithmetic per target: the SCPs attached directly to a root, OU or account after the deploy, against the quota.

"Maximum number of SCPs attached to a root, OU, or account": 10 since 15 May 2026, FullAWSAccess included; SCPs
inherited from a parent do not count against a target's quota (AWS Organizations user guide, "Quotas for AWS
Organizations", https://docs.aws.amazon.com/organizations/latest/userguide/orgs_reference_limits.html; What's New,
https://aws.amazon.com/about-aws/whats-new/2026/05/aws-organizations-increased-scp-quotas/).  The quota preflight
uses is the plan's (catalog ``scp_max_per_target``, ``policy_guardrails.scp_max_per_target``).

After the deploy a target carries what is attached today (the landing zone's own SCPs of an earlier deploy aside:
the deploy replaces them) plus the landing zone's SCPs for it: the plan's layout attaches each SCP to the governed
targets and accounts, or (the perimeter SCP and the opt-ins) to the shared targets, so every target the layout names
is counted, ``organization.target_ids`` and the governed accounts alike.
"""

from __future__ import annotations

from landing_zone.preflight import intent
from landing_zone.preflight.model import Finding, Severity, SlotRow
from landing_zone.preflight.organization import (
    CONTROL_TOWER,
    CUSTOMER,
    FULL_AWS_ACCESS,
    LANDING_ZONE,
    LANDING_ZONE_ACCELERATOR,
    Organization,
)
from landing_zone.preflight.reading import Context

__all__ = ["check_slots"]

KIND_ORDER = (FULL_AWS_ACCESS, CONTROL_TOWER, LANDING_ZONE_ACCELERATOR, CUSTOMER)


def check_slots(ctx: Context, org: Organization) -> tuple[SlotRow, ...]:
    plan = ctx.plan
    assert plan.config.organization is not None
    rows = []
    for target in intent.attachment_targets(plan):
        where = f"target {target}"
        if target in org.missing:
            ctx.add(
                Finding(
                    "target", where, "not in the organization", "the deploy fails to attach the guardrail SCPs",
                    "correct organization.target_ids (an ID of the root, an OU or an account of this organization)",
                    Severity.CONFLICT,
                )
            )  # fmt: skip
            continue
        attached = org.attached.get(target)
        if attached is None:
            continue  # not read: unchecked already
        if target == org.management_account:
            ctx.add(Finding("target", where, "the management account", "SCPs do not apply to it", "", Severity.NOTE))
        kinds: dict[str, list[str]] = {kind: [] for kind in KIND_ORDER}
        for scp in attached:
            if scp.kind != LANDING_ZONE:
                kinds[scp.kind].append(scp.name)
        row = SlotRow(
            target=target,
            kinds={k: sorted(v) for k, v in kinds.items() if v},
            landing_zone=[name for name, _ in intent.landing_zone_scps(plan, target)],
            quota=intent.scp_quota(plan),
        )
        rows.append(row)
        _judge(ctx, org, row)
    return tuple(rows)


def _breakdown(row: SlotRow) -> str:
    parts = [f"{len(names)} {kind} ({', '.join(names)})" for kind, names in row.kinds.items()]
    parts.append(f"{len(row.landing_zone)} of this landing zone")
    return " + ".join(parts)


def _judge(ctx: Context, org: Organization, row: SlotRow) -> None:
    where = f"target {row.target}"
    found = f"{row.total} SCPs attached directly after the deploy: {_breakdown(row)}; quota {row.quota}"
    if row.over:
        path = org.paths.get(row.target, ())
        parent = path[-2] if len(path) > 1 else None
        movable = row.kinds.get(CUSTOMER, [])
        steps = []
        if movable:
            steps.append(
                f"move {min(row.over, len(movable))} of your own SCPs ({', '.join(movable)}) to "
                f"{'the parent ' + parent if parent else 'a parent'} or the root (inherited SCPs take no slot here; "
                "they then apply to every account below it)"
            )
        if len(movable) < row.over:
            governed = ctx.plan.policies.scp_set.perimeter.governs(row.target)
            ours = ", ".join(row.landing_zone) or "none"
            steps.append(
                f"{row.over - len(movable)} more slot(s) must come from the landing zone's side: "
                + (
                    f"its SCPs here ({ours}) bind a governed target; list the governed accounts below it in "
                    "organization.target_ids instead (each has slots of its own)"
                    if governed
                    else f"its SCPs here ({ours}) bind every account below this target; list the parent OU or the "
                    "root in organization.target_ids instead (inherited SCPs take no slot here)"
                )
                + "; Control Tower's and LZA's SCPs are theirs to place"
            )
        move = "; ".join(steps)
        ctx.add(
            Finding(
                "scp-slots", where, found,
                f"the deploy fails: attaching {len(row.landing_zone)} SCPs exceeds the quota by {row.over}",
                move, Severity.CONFLICT,
            )
        )  # fmt: skip
        return
    ctx.add(Finding("scp-slots", where, found, f"fits: {row.quota - row.total} slot(s) left", "", Severity.NOTE))
    others = row.total - len(row.landing_zone) - len(row.kinds.get(FULL_AWS_ACCESS, []))
    assumed = ctx.plan.config.policy_guardrails.other_scps_per_target
    if others > assumed:
        ctx.add(
            Finding(
                "scp-slots", where, f"{others} SCPs of others attached directly",
                f"validate assumed policy_guardrails.other_scps_per_target = {assumed}",
                f"set policy_guardrails.other_scps_per_target: {others} so that validate counts them", Severity.NOTE,
            )
        )  # fmt: skip
