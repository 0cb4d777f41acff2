"""Organizations service control policies: each ``AWS::Organizations::Policy`` of type SERVICE_CONTROL_POLICY
exists with the synthesized content and is attached to every target of the template (and to each target of the
configuration's ``organization.target_ids`` that no SCP of the template attaches to: the assembly is older).
Calls, with the management account's credentials in the partition's global Region, organizations ListPolicies
(filter SERVICE_CONTROL_POLICY), DescribePolicy and ListTargetsForPolicy.
"""

from __future__ import annotations

from typing import Any

from landing_zone.assembly import Resource
from landing_zone.verify.checks.common import (
    MISSING,
    PASS,
    Context,
    error_rows,
    make_row,
    policy_row,
    unresolvable_rows,
)
from landing_zone.verify.compare import Unresolved, short_hash, unresolved_in
from landing_zone.verify.live import ApiError
from landing_zone.verify.report import CheckResult, summarize

SCP_TYPE = "AWS::Organizations::Policy"


def check_scps(ctx: Context) -> list[CheckResult]:
    policies = [r for r in ctx.resources(SCP_TYPE) if r.prop("Type") == "SERVICE_CONTROL_POLICY"]
    if not policies:
        return []
    region = ctx.global_region()
    rows: list[CheckResult] = []
    try:
        live_policies = ctx.live.paginate(
            "organizations",
            "list_policies",
            "Policies",
            region=region,
            management=True,
            Filter="SERVICE_CONTROL_POLICY",
        )
    except ApiError as exc:
        for res in policies:
            rows += _scp_error_rows(ctx, res, exc)
        return rows
    for res in policies:
        rows += _scp_rows(ctx, res, live_policies, region)
    return rows


def _scp_rows(ctx: Context, res: Resource, live_policies: list[dict[str, Any]], region: str) -> list[CheckResult]:
    """The content and attachment rows of one service control policy."""
    rows: list[CheckResult] = []
    name = ctx.resolve(res.prop("Name"), res)
    expected = ctx.resolve(res.prop("Content"), res)
    targets, config_only = _scp_targets(ctx, res)
    label = name if isinstance(name, str) else res.logical_id
    if isinstance(name, Unresolved) or unresolved_in(expected):
        rows += unresolvable_rows(["scp-content"], label, name if isinstance(name, Unresolved) else expected, res)
        return rows
    match = [p for p in live_policies if p.get("Name") == name]
    if not match:
        rows.append(
            make_row(
                "scp-content",
                name,
                f"exists, as synthesized ({short_hash(expected)})",
                "not found",
                MISSING,
                f"no service control policy named {name!r} in the organization",
                res,
            )
        )
        rows += [
            make_row("scp-attachment", f"{name} -> {t}", "attached", "policy not found", MISSING, "", res)
            for t in targets
        ]
        return rows
    policy_id = match[0]["Id"]
    try:
        content = ctx.live.call("organizations", "describe_policy", region=region, management=True, PolicyId=policy_id)[
            "Policy"
        ]["Content"]
        rows.append(policy_row("scp-content", name, expected, content, res))
        attached = {
            t["TargetId"]
            for t in ctx.live.paginate(
                "organizations",
                "list_targets_for_policy",
                "Targets",
                region=region,
                management=True,
                PolicyId=policy_id,
            )
        }
    except ApiError as exc:
        rows += error_rows(["scp-attachment"], f"{name} -> {', '.join(targets)}", "attached", exc, res)
        return rows
    for target in targets:
        note = (
            " (configured in organization.target_ids but not in the assembly: synthesize and deploy again)"
            if target in config_only
            else ""
        )
        if target in attached:
            rows.append(make_row("scp-attachment", f"{name} -> {target}", "attached", "attached", PASS, "", res))
        else:
            others = sorted(attached)
            rows.append(
                make_row(
                    "scp-attachment",
                    f"{name} -> {target}",
                    "attached",
                    "not attached",
                    MISSING,
                    f"{name} ({policy_id}) is attached to {summarize(others) if others else 'nothing'}{note}",
                    res,
                )
            )
    return rows


def _scp_error_rows(ctx: Context, res: Resource, exc: ApiError) -> list[CheckResult]:
    rows: list[CheckResult] = []
    name = str(res.prop("Name", res.logical_id))
    rows += error_rows(["scp-content"], name, "exists", exc, res)
    rows += error_rows(
        ["scp-attachment"],
        f"{name} -> {', '.join(_scp_targets(ctx, res)[0]) or '(no targets)'}",
        "attached",
        exc,
        res,
    )
    return rows


def _synthesized_targets(ctx: Context, res: Resource) -> list[str]:
    return [t for t in ctx.resolve(res.prop("TargetIds") or [], res) if isinstance(t, str)]


def _scp_targets(ctx: Context, res: Resource) -> tuple[list[str], set[str]]:
    """The policy's synthesized targets, plus the configured targets that no SCP of the assembly attaches to (the
    plan's layout attaches each SCP where the perimeter says: a configured target carries some of them, not all)."""
    targets = _synthesized_targets(ctx, res)
    everywhere = {
        t
        for other in ctx.resources(SCP_TYPE)
        if other.prop("Type") == "SERVICE_CONTROL_POLICY"
        for t in _synthesized_targets(ctx, other)
    }
    config_only = {t for t in ctx.config_target_ids if t not in everywhere}
    return targets + sorted(config_only), config_only
