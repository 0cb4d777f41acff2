"""CloudFormation StackSets (the member baseline roll-out), from the administrator account: each
``AWS::CloudFormation::StackSet`` exists and is ACTIVE, its instances are CURRENT, and every account the template
names has an instance in each Region of its group.  Calls cloudformation DescribeStackSet and ListStackInstances
(with the template's CallAs).  What a member account holds is checked by ``verify --stackset-member`` there.
"""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from landing_zone import aws
from landing_zone.assembly import Resource
from landing_zone.verify.checks.common import (
    DRIFT,
    MISSING,
    PASS,
    Context,
    error_rows,
    is_not_found,
    make_row,
    unresolvable_rows,
)
from landing_zone.verify.compare import Unresolved
from landing_zone.verify.live import ApiError
from landing_zone.verify.report import CheckResult, summarize


def check_stack_sets(ctx: Context) -> list[CheckResult]:
    """The StackSet exists and is ACTIVE; its instances are CURRENT, and every account the template names
    explicitly (per-account parameter overrides) has an instance in each Region of its group.  What a member
    account holds is checked with ``verify --stackset-member`` in that account."""
    rows: list[CheckResult] = []
    for res in ctx.resources("AWS::CloudFormation::StackSet"):
        region = ctx.region_of(res.stack)
        name = ctx.resolve(res.prop("StackSetName"), res)
        if isinstance(name, Unresolved):
            rows += unresolvable_rows(["stackset"], res.logical_id, name, res)
            continue
        call_as = {"CallAs": res.prop("CallAs")} if res.prop("CallAs") else {}
        expected_accounts = _named_instances(res)
        try:
            stack_set = ctx.live.call(
                "cloudformation", "describe_stack_set", region=region, StackSetName=name, **call_as
            )["StackSet"]
        except ApiError as exc:
            rows += error_rows(["stackset", "stackset-instances"], name, "ACTIVE", exc, res)
            continue
        except ClientError as exc:
            if aws.error_code(exc) not in ("StackSetNotFoundException",) and not is_not_found(exc):
                raise
            rows.append(make_row("stackset", name, "ACTIVE", "not found", MISSING, "", res))
            rows.append(
                make_row(
                    "stackset-instances",
                    name,
                    f"{len(expected_accounts)} named account instance(s) CURRENT",
                    "stack set not found",
                    MISSING,
                    "",
                    res,
                )
            )
            continue
        status = stack_set.get("Status", "?")
        rows.append(make_row("stackset", name, "ACTIVE", status, PASS if status == "ACTIVE" else DRIFT, "", res))
        try:
            instances = ctx.live.paginate(
                "cloudformation", "list_stack_instances", "Summaries", region=region, StackSetName=name, **call_as
            )
        except ApiError as exc:
            rows += error_rows(["stackset-instances"], name, "instances CURRENT", exc, res)
            continue
        rows.append(_instances_row(res, name, instances, expected_accounts))
    return rows


def _named_instances(res: Resource) -> list[tuple[str, str]]:
    """(account, Region) of every instance the template names explicitly (an account list, not excluded)."""
    return sorted(
        {
            (account, region)
            for group in res.prop("StackInstancesGroup") or []
            if _lists_accounts(group)
            for account in (group.get("DeploymentTargets") or {}).get("Accounts") or []
            for region in group.get("Regions") or []
        }
    )


def _lists_accounts(group: dict[str, Any]) -> bool:
    return (group.get("DeploymentTargets") or {}).get("AccountFilterType") in (None, "INTERSECTION")


def _instance_state(instance: dict[str, Any]) -> str:
    """CURRENT, else the detailed status (else the status) of a stack instance."""
    if instance.get("Status") == "CURRENT":
        return "CURRENT"
    return str((instance.get("StackInstanceStatus") or {}).get("DetailedStatus") or instance.get("Status", "?"))


def _instances_row(
    res: Resource, name: str, instances: list[dict[str, Any]], expected_accounts: list[tuple[str, str]]
) -> CheckResult:
    """The StackSet's instances: all CURRENT, and one in each Region of every account the template names."""
    states: dict[str, int] = {}
    bad = []
    for i in instances:
        state = _instance_state(i)
        states[state] = states.get(state, 0) + 1
        if i.get("Status") != "CURRENT":
            bad.append(f"{i.get('Account')}/{i.get('Region')}: {i.get('Status')} {i.get('StatusReason') or ''}".strip())
    have = {(i.get("Account"), i.get("Region")) for i in instances}
    missing = [f"{a}/{r}" for a, r in expected_accounts if (a, r) not in have]
    expected = f"all CURRENT, incl. {len(expected_accounts)} named account instance(s)"
    actual = ", ".join(f"{n} {k}" for k, n in sorted(states.items())) or "no instances"
    status = MISSING if not instances or missing else (DRIFT if bad else PASS)
    detail = "\n".join(([f"missing: {summarize(missing, limit=20)}"] if missing else []) + bad[:20])
    return make_row("stackset-instances", name, expected, actual, status, detail, res)
