"""CloudFormation stacks, checked before any resource: each stack of the assembly exists and its last operation
completed (``CREATE_COMPLETE``, ``UPDATE_COMPLETE``, ``IMPORT_COMPLETE``), CloudFormation's own drift detection does
not report it ``DRIFTED``, and its termination protection is as the manifest synthesizes it
(``stack-termination-protection``: the keys stack's protection turned off is DRIFT). A stack that rolled back
(``ROLLBACK_*``, ``UPDATE_ROLLBACK_*``), failed (``*_FAILED``), is being changed or deleted is DRIFT; an absent stack
is MISSING. The status is recorded in the context (:data:`Context.stack_status`), and
:func:`~landing_zone.verify.checks.run_checks` turns every passing row of a resource of such a stack into DRIFT: what
is there was not left by a completed deployment of this assembly (e.g. VPC endpoints left behind by a stack that
rolled back).

Calls cloudformation DescribeStacks (through the resolver, once per stack and run: the resolver reuses the answer for
stack outputs and parameters), with the management profile for a stack of another account than the deployment account
(the SCP stack), after checking with STS GetCallerIdentity that those credentials are that account's; for a StackSet
member (``--stackset-member``) the instance stack is found with ListStacks. ``DriftInformation`` is read as
CloudFormation last recorded it: verify never starts a drift detection (DetectStackDrift is not read-only).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from botocore.exceptions import ClientError

from landing_zone import aws
from landing_zone.assembly import Stack
from landing_zone.verify.checks.common import DRIFT, ERROR, MISSING, PASS, Context, error_rows
from landing_zone.verify.compare import Unresolved
from landing_zone.verify.live import ApiError
from landing_zone.verify.report import CheckResult, Status

CHECKS = ("stack-status", "stack-drift", "stack-termination-protection")

# The statuses of a stack whose last operation deployed its template.
DEPLOYED = frozenset({"CREATE_COMPLETE", "UPDATE_COMPLETE", "IMPORT_COMPLETE", "UPDATE_COMPLETE_CLEANUP_IN_PROGRESS"})
ABSENT = "MISSING"


def check_stacks(ctx: Context) -> list[CheckResult]:
    rows: list[CheckResult] = []
    for stack in ctx.assembly.stacks:
        rows += _check_stack(ctx, stack)
    return rows


def _checks(stack: Stack) -> tuple[str, ...]:
    return CHECKS[:2] if stack.stack_set else CHECKS


def _row(check: str, stack: Stack, expected: str, actual: str, status: Status, detail: str = "") -> CheckResult:
    return CheckResult(check, stack.name, expected, actual, status, detail, stack.name)


def _check_stack(ctx: Context, stack: Stack) -> list[CheckResult]:
    expected_status = "CREATE_COMPLETE or UPDATE_COMPLETE"
    if ctx.management_of(stack):
        try:
            account = ctx.live.account(management=True)
        except ApiError as exc:
            return _with_source(error_rows(_checks(stack), stack.name, expected_status, exc, None), stack)
        if account != stack.account:
            why = (
                f"stack {stack.name} is in account {stack.account}; the management credentials (--management-profile) "
                f"are for account {account}"
            )
            return [_row(c, stack, expected_status, "other account", ERROR, why) for c in _checks(stack)]
    try:
        described = ctx.resolver.describe_stack(stack)
    except ApiError as exc:
        return _with_source(error_rows(_checks(stack), stack.name, expected_status, exc, None), stack)
    except ClientError as exc:
        code = aws.error_code(exc) or "error"
        return [_row(c, stack, expected_status, f"ERROR: {code}", ERROR, str(exc)) for c in _checks(stack)]
    if described is None:
        ctx.stack_status[stack.name] = ABSENT
        name = ctx.resolver.stack_name(stack)
        why = name.why if isinstance(name, Unresolved) else f"CloudFormation has no stack named {name}"
        return [
            _row("stack-status", stack, expected_status, "not found", MISSING, why),
            _row("stack-drift", stack, "not drifted", "stack not found", MISSING),
            *(
                []
                if stack.stack_set
                else [_row("stack-termination-protection", stack, "as synthesized", "stack not found", MISSING)]
            ),
        ]
    status = str(described.get("StackStatus", "?"))
    ctx.stack_status[stack.name] = status
    name = str(described.get("StackName", stack.name))
    rows = [_status_row(stack, described, status, name, expected_status)]
    rows.append(_drift_row(stack, described, name))
    rows += _termination_protection_row(ctx, stack, described, name)
    return rows


def _status_row(stack: Stack, described: dict[str, Any], status: str, name: str, expected_status: str) -> CheckResult:
    """The stack's status: deployed, else DRIFT with what to do."""
    reason = described.get("StackStatusReason") or ""
    if status in DEPLOYED:
        detail = "the update succeeded; CloudFormation is removing replaced resources" if "CLEANUP" in status else ""
        return _row("stack-status", stack, expected_status, status, PASS, detail)
    detail = (
        f"{name} is {status}{': ' + reason if reason else ''}. Its resources are not the deployed assembly: "
        "every check of them that matched is reported as DRIFT. "
        + (
            "Fix the cause and deploy again."
            if "ROLLBACK" in status or "FAILED" in status
            else "Verify again when the operation has finished."
        )
    )
    return _row("stack-status", stack, expected_status, status, DRIFT, detail)


def _drift_row(stack: Stack, described: dict[str, Any], name: str) -> CheckResult:
    """CloudFormation's own drift detection of the stack, as last run."""
    drift = described.get("DriftInformation") or {}
    drift_status = str(drift.get("StackDriftStatus") or "NOT_CHECKED")
    checked = drift.get("LastCheckTimestamp")
    when = f" (detected {checked})" if checked else ""
    if drift_status == "DRIFTED":
        return _row(
            "stack-drift",
            stack,
            "not drifted",
            f"DRIFTED{when}",
            DRIFT,
            "CloudFormation drift detection found resources that differ from the stack's template: "
            f"aws cloudformation describe-stack-resource-drifts --stack-name {name} "
            "--stack-resource-drift-status-filters MODIFIED DELETED",
        )
    note = (
        f"CloudFormation has not detected drift on {name}"
        f" (aws cloudformation detect-stack-drift --stack-name {name}); verify's own checks compare the resources"
        if drift_status == "NOT_CHECKED"
        else ""
    )
    return _row("stack-drift", stack, "not drifted", f"{drift_status}{when}", PASS, note)


def _termination_protection_row(ctx: Context, stack: Stack, described: dict[str, Any], name: str) -> list[CheckResult]:
    """``stack-termination-protection``: as the manifest says (``terminationProtection`` of the stack artifact; a
    StackSet's instance stacks are not the CDK CLI's and have none)."""
    if stack.stack_set:
        return []
    want = synthesized_termination_protection(ctx.assembly.path).get(stack.name, False)
    got = bool(described.get("EnableTerminationProtection"))
    fix = f"aws cloudformation update-termination-protection --{'' if want else 'no-'}enable-termination-protection "
    return [
        _row(
            "stack-termination-protection",
            stack,
            "enabled" if want else "disabled",
            "enabled" if got else "disabled",
            PASS if want == got else DRIFT,
            ""
            if want == got
            else f"{name}: termination protection is {'off' if want else 'on'}, the assembly has it "
            f"{'on' if want else 'off'}.  Remediate: {fix}--stack-name {name} --region {ctx.region_of(stack)}",
        )
    ]


def synthesized_termination_protection(root: Path) -> dict[str, bool]:
    """Stack name -> ``terminationProtection`` of its artifact, over the assembly's manifests (stages included)."""
    found: dict[str, bool] = {}

    def visit(directory: Path) -> None:
        try:
            manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        for artifact_id, artifact in sorted((manifest.get("artifacts") or {}).items()):
            props = artifact.get("properties") or {}
            if artifact.get("type") == "cdk:cloud-assembly" and props.get("directoryName"):
                visit(directory / str(props["directoryName"]))
            elif artifact.get("type") == "aws:cloudformation:stack":
                name = str(props.get("stackName") or artifact.get("displayName") or artifact_id)
                found[name] = bool(props.get("terminationProtection"))

    visit(Path(root))
    return found


def _with_source(rows: list[CheckResult], stack: Stack) -> list[CheckResult]:
    return [CheckResult(r.check, r.resource, r.expected, r.actual, r.status, r.detail, stack.name) for r in rows]


def not_deployed(ctx: Context, rows: list[CheckResult]) -> list[CheckResult]:
    """Every passing row of a resource whose stack is not deployed (see :data:`DEPLOYED`) becomes DRIFT."""
    out: list[CheckResult] = []
    for row in rows:
        stack = row.source.split("/", 1)[0] if row.source else ""
        status = ctx.stack_status.get(stack)
        if row.status is not PASS or status is None or status in DEPLOYED or row.check in CHECKS:
            out.append(row)
            continue
        why = "not found" if status == ABSENT else status
        out.append(
            CheckResult(
                row.check,
                row.resource,
                row.expected,
                f"{row.actual}; stack {why}",
                DRIFT,
                f"matches the intent, but its stack {stack} is {why}: it was not left by a completed deployment of "
                f"this assembly{' (' + row.detail + ')' if row.detail else ''}",
                row.source,
            )
        )
    return out
