"""IAM: each ``AWS::IAM::Role`` (the invoker roles ``<name>-invoker-*``, the automation roles
``<name>-automation-*``, the log-delivery roles, and CDK's own provider roles) exists with the synthesized trust
policy, permissions boundary, attached managed policies and inline policies (its ``Policies`` and the
``AWS::IAM::Policy``/``AWS::IAM::RolePolicy`` resources naming it); each customer-managed ``AWS::IAM::ManagedPolicy``
(``<name>-invoke-*``, the boundary ``<name>-invoker-boundary``, the kill switch ``<name>-kill-switch`` ...) has the
synthesized document as its **default version**: a new default version (``iam:CreatePolicyVersion
--set-as-default``, the way to change a managed policy without touching the stack) is DRIFT.

The kill switch attached to the roles its budget action names (``AWS::Budgets::BudgetsAction``) is the landing zone
working as intended, not drift: such a role passes, with the attachment noted.  Calls, in the partition's global
Region, iam GetRole, ListAttachedRolePolicies, ListRolePolicies, GetRolePolicy, GetPolicy and GetPolicyVersion (and
CloudFormation ListStackResources, through the resolver, for a role without a literal name).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any

from botocore.exceptions import ClientError

from landing_zone.assembly import Resource
from landing_zone.verify.checks.common import (
    DRIFT,
    MISSING,
    PASS,
    Context,
    guarded,
    is_not_found,
    make_row,
    policy_row,
    unresolvable_rows,
)
from landing_zone.verify.compare import Unresolved, document_diff, same_document, short_hash, unresolved_in
from landing_zone.verify.report import CheckResult, summarize

ROLE_CHECKS = (
    "iam-role",
    "iam-role-trust",
    "iam-role-boundary",
    "iam-role-managed-policies",
    "iam-role-inline-policies",
)


def check_iam(ctx: Context) -> list[CheckResult]:
    roles = ctx.resources("AWS::IAM::Role")
    policies = ctx.resources("AWS::IAM::ManagedPolicy")
    if not roles and not policies:
        return []
    region = ctx.global_region()
    attached = _attached_elsewhere(ctx, policies)
    inline = _inline_elsewhere(ctx)
    kill_switch = _kill_switch(ctx)
    rows: list[CheckResult] = []
    for res in roles:
        name = ctx.resolver.physical_id(res)
        if isinstance(name, Unresolved):
            rows += unresolvable_rows(ROLE_CHECKS, res.logical_id, name, res)
            continue
        rows += guarded(
            ROLE_CHECKS, name, res, partial(_check_role, ctx, res, name, region, attached, inline, kill_switch)
        )
    for res in policies:
        arn = ctx.resolver.ref_of(res)
        label = str(
            res.prop("ManagedPolicyName") or (arn.rsplit("/", 1)[-1] if isinstance(arn, str) else res.logical_id)
        )
        if isinstance(arn, Unresolved):
            rows += unresolvable_rows(["iam-policy"], label, arn, res)
            continue
        rows += guarded(["iam-policy"], label, res, partial(_check_policy, ctx, res, arn, label, region))
    return rows


# -- what other resources attach to a role --------------------------------------------------------------------


def _names_role(ctx: Context, entries: Any, owner: Resource) -> list[tuple[str | None, str | None]]:
    """(logical ID in the owner's stack, resolved name) for each entry of a ``Roles`` list."""
    out: list[tuple[str | None, str | None]] = []
    for entry in entries if isinstance(entries, list) else []:
        logical = entry.get("Ref") if isinstance(entry, dict) and isinstance(entry.get("Ref"), str) else None
        resolved = ctx.resolve(entry, owner)
        out.append((logical, resolved if isinstance(resolved, str) else None))
    return out


def _targets(role: Resource, name: str, roles: list[tuple[str | None, str | None]], owner: Resource) -> bool:
    return any(
        (logical == role.logical_id and owner.stack is role.stack) or resolved == name for logical, resolved in roles
    )


def _attached_elsewhere(ctx: Context, policies: list[Resource]) -> list[tuple[Resource, list[Any]]]:
    """Managed policies whose ``Roles`` property attaches them to roles: (policy, its role entries)."""
    return [(p, _names_role(ctx, p.prop("Roles"), p)) for p in policies if p.prop("Roles")]


def _inline_elsewhere(ctx: Context) -> list[tuple[Resource, list[Any]]]:
    """``AWS::IAM::Policy`` (``Roles``) and ``AWS::IAM::RolePolicy`` (``RoleName``): inline policies of roles."""
    found = []
    for res in ctx.resources("AWS::IAM::Policy", "AWS::IAM::RolePolicy"):
        entries = res.prop("Roles") if res.type == "AWS::IAM::Policy" else [res.prop("RoleName")]
        found.append((res, _names_role(ctx, entries, res)))
    return found


def _kill_switch(ctx: Context) -> dict[str, set[str]]:
    """Role name -> policy ARNs a budget action attaches to it when it fires (the kill switch)."""
    out: dict[str, set[str]] = {}
    for action in ctx.resources("AWS::Budgets::BudgetsAction"):
        policy = ctx.resolve(action.prop("Definition.IamActionDefinition.PolicyArn"), action)
        roles = ctx.resolve(action.prop("Definition.IamActionDefinition.Roles") or [], action)
        if isinstance(policy, str) and isinstance(roles, list):
            for role in roles:
                if isinstance(role, str):
                    out.setdefault(role.rsplit("/", 1)[-1], set()).add(policy)
    return out


# -- roles ----------------------------------------------------------------------------------------------------


def _check_role(
    ctx: Context,
    res: Resource,
    name: str,
    region: str,
    attached: list[tuple[Resource, list[Any]]],
    inline: list[tuple[Resource, list[Any]]],
    kill_switch: dict[str, set[str]],
) -> list[CheckResult]:
    try:
        role = ctx.role(name, management=ctx.management_of(res.stack))
    except ClientError as exc:
        if not is_not_found(exc, "NoSuchEntity"):
            raise
        return [
            make_row("iam-role", name, "exists", "not found", MISSING, f"iam:GetRole {name}: no such role", res)
        ] + [make_row(c, name, "-", "role not found", MISSING, "", res) for c in ROLE_CHECKS[1:]]
    rows: list[CheckResult] = []
    path, got_path = str(res.prop("Path", "/")), str(role.get("Path", "/"))
    rows.append(
        make_row(
            "iam-role",
            name,
            f"exists, path {path}",
            f"exists, path {got_path}",
            PASS if path == got_path else DRIFT,
            ctx.resolver.notes.get(res.path, ""),
            res,
        )
    )
    trust = ctx.resolve(res.prop("AssumeRolePolicyDocument"), res)
    if unresolved_in(trust):
        rows += unresolvable_rows(["iam-role-trust"], name, trust, res)
    else:
        rows.append(policy_row("iam-role-trust", name, trust, role.get("AssumeRolePolicyDocument"), res))
    rows.append(_boundary_row(ctx, res, name, role))
    rows.append(_managed_row(ctx, res, name, region, attached, kill_switch.get(name, set())))
    rows.append(_inline_row(ctx, res, name, region, inline))
    return rows


def _policy_name(arn: Any) -> str:
    return str(arn).rsplit("/", 1)[-1] if arn else "(none)"


def _boundary_row(ctx: Context, res: Resource, name: str, role: dict[str, Any]) -> CheckResult:
    want = ctx.resolve(res.prop("PermissionsBoundary"), res) if res.prop("PermissionsBoundary") is not None else None
    if isinstance(want, Unresolved):
        return unresolvable_rows(["iam-role-boundary"], name, want, res)[0]
    got = (role.get("PermissionsBoundary") or {}).get("PermissionsBoundaryArn")
    ok = (want or None) == (got or None)
    return make_row(
        "iam-role-boundary",
        name,
        _policy_name(want),
        _policy_name(got),
        PASS if ok else DRIFT,
        "" if ok else f"expected {want or 'no permissions boundary'}, live {got or 'no permissions boundary'}",
        res,
    )


def _managed_row(
    ctx: Context,
    res: Resource,
    name: str,
    region: str,
    attached: list[tuple[Resource, list[Any]]],
    kill_switch: set[str],
) -> CheckResult:
    wanted = ctx.resolve(res.prop("ManagedPolicyArns") or [], res)
    wanted = list(wanted) if isinstance(wanted, list) else [wanted]
    wanted += [ctx.resolver.ref_of(p) for p, roles in attached if _targets(res, name, roles, p)]
    if unresolved_in(wanted):
        return unresolvable_rows(["iam-role-managed-policies"], name, wanted, res)[0]
    want = {str(a) for a in wanted}
    live = {
        str(p.get("PolicyArn"))
        for p in ctx.live.paginate(
            "iam",
            "list_attached_role_policies",
            "AttachedPolicies",
            region=region,
            management=ctx.management_of(res.stack),
            RoleName=name,
        )
    }
    return _managed_policies_row(res, name, want, live, kill_switch)


def _managed_policies_row(
    res: Resource, name: str, want: set[str], live: set[str], kill_switch: set[str]
) -> CheckResult:
    """The role's managed policies, synthesized against attached (the kill switch's policy named as such)."""
    missing, extra = sorted(want - live), sorted(live - want)
    engaged = [a for a in extra if a in kill_switch]
    other = [a for a in extra if a not in kill_switch]
    expected = summarize(_policy_name(a) for a in sorted(want))
    if missing or other:
        actual = summarize(_policy_name(a) for a in sorted(live))
    else:
        actual = "as synthesized" if want else "(none)"
    notes = [
        f"{what}: {', '.join(arns)}"
        for what, arns in (("not attached", missing), ("attached, not synthesized", other))
        if arns
    ]
    if engaged:
        actual += " + kill switch"
        notes.append(
            "the kill switch is engaged: the budget action attached " + ", ".join(engaged) + " (inference is denied "
            "until someone detaches it)"
        )
    return make_row(
        "iam-role-managed-policies", name, expected, actual, DRIFT if missing or other else PASS, "\n".join(notes), res
    )


def _inline_row(
    ctx: Context, res: Resource, name: str, region: str, inline: list[tuple[Resource, list[Any]]]
) -> CheckResult:
    want: dict[str, Any] = {}
    for policy in ctx.resolve(res.prop("Policies") or [], res):
        if isinstance(policy, dict):
            want[str(policy.get("PolicyName"))] = policy.get("PolicyDocument")
    for owner, roles in inline:
        if _targets(res, name, roles, owner):
            want[str(ctx.resolve(owner.prop("PolicyName"), owner))] = ctx.resolve(owner.prop("PolicyDocument"), owner)
    if unresolved_in(want):
        return unresolvable_rows(["iam-role-inline-policies"], name, list(want.values()), res)[0]
    names = ctx.live.paginate(
        "iam",
        "list_role_policies",
        "PolicyNames",
        region=region,
        management=ctx.management_of(res.stack),
        RoleName=name,
    )
    got = {
        str(n): ctx.live.call(
            "iam",
            "get_role_policy",
            region=region,
            management=ctx.management_of(res.stack),
            RoleName=name,
            PolicyName=n,
        ).get("PolicyDocument")
        for n in names
    }
    problems = []
    for policy_name in sorted(set(want) | set(got)):
        if policy_name not in got:
            problems.append(f"- {policy_name}: missing")
        elif policy_name not in want:
            problems.append(f"+ {policy_name}: not synthesized ({short_hash(got[policy_name])})")
        elif not same_document(want[policy_name], got[policy_name]):
            problems.append(f"~ {policy_name}:\n" + document_diff(want[policy_name], got[policy_name]))
    expected = summarize(f"{n} ({short_hash(d)})" for n, d in sorted(want.items())) if want else "(none)"
    if problems:
        actual = summarize(sorted(got)) if got else "(none)"
    else:
        actual = "as synthesized" if want else "(none)"
    return make_row(
        "iam-role-inline-policies", name, expected, actual, DRIFT if problems else PASS, "\n".join(problems), res
    )


# -- customer-managed policies ----------------------------------------------------------------------------------


def _check_policy(ctx: Context, res: Resource, arn: str, label: str, region: str) -> list[CheckResult]:
    expected = ctx.resolve(res.prop("PolicyDocument"), res)
    try:
        policy = ctx.live.call(
            "iam", "get_policy", region=region, management=ctx.management_of(res.stack), PolicyArn=arn
        )["Policy"]
    except ClientError as exc:
        if not is_not_found(exc, "NoSuchEntity"):
            raise
        return [make_row("iam-policy", label, "exists, default version as synthesized", "not found", MISSING, arn, res)]
    if unresolved_in(expected):
        return unresolvable_rows(["iam-policy"], label, expected, res)
    default = str(policy.get("DefaultVersionId", "?"))
    version = ctx.live.call(
        "iam",
        "get_policy_version",
        region=region,
        management=ctx.management_of(res.stack),
        PolicyArn=arn,
        VersionId=default,
    )["PolicyVersion"]
    row = policy_row("iam-policy", label, expected, version.get("Document"), res)
    created = version.get("CreateDate")
    detail = row.detail
    if row.status is DRIFT:
        detail = (
            f"the default version {default} of {arn}{' (created ' + str(created) + ')' if created else ''} is not "
            f"the synthesized document: a new default version changes the policy without the stack\n{row.detail}"
        )
    return [replace(row, expected=f"default version {row.expected}", actual=f"{default}: {row.actual}", detail=detail)]
