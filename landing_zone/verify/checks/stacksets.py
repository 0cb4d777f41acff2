"""CloudFormation StackSets (the member baseline roll-out), from the administrator account: each
``AWS::CloudFormation::StackSet`` exists and is ACTIVE, its instances are CURRENT, and every account the template
names has an instance in each Region of its group.  Calls cloudformation DescribeStackSet and ListStackInstances
(with the template's CallAs).  What a member account holds is checked by ``verify --stackset-member`` there.
"""

from __future__ import annotations

from botocore.exceptions import ClientError

from landing_zone import aws
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
        expected_accounts = sorted(
            {
                (account, r)
                for group in res.prop("StackInstancesGroup") or []
                if (group.get("DeploymentTargets") or {}).get("AccountFilterType") in (None, "INTERSECTION")
                for account in (group.get("DeploymentTargets") or {}).get("Accounts") or []
                for r in group.get("Regions") or []
            }
        )
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
        states: dict[str, int] = {}
        bad = []
        for i in instances:
            state = (i.get("StackInstanceStatus") or {}).get("DetailedStatus") or i.get("Status", "?")
            state = "CURRENT" if i.get("Status") == "CURRENT" else state
            states[state] = states.get(state, 0) + 1
            if i.get("Status") != "CURRENT":
                bad.append(
                    f"{i.get('Account')}/{i.get('Region')}: {i.get('Status')} {i.get('StatusReason') or ''}".strip()
                )
        have = {(i.get("Account"), i.get("Region")) for i in instances}
        missing = [f"{a}/{r}" for a, r in expected_accounts if (a, r) not in have]
        expected = f"all CURRENT, incl. {len(expected_accounts)} named account instance(s)"
        actual = ", ".join(f"{n} {k}" for k, n in sorted(states.items())) or "no instances"
        status = PASS if instances and not bad and not missing else (MISSING if not instances or missing else DRIFT)
        detail = "\n".join(([f"missing: {summarize(missing, limit=20)}"] if missing else []) + bad[:20])
        rows.append(make_row("stackset-instances", name, expected, actual, status, detail, res))
    return rows
