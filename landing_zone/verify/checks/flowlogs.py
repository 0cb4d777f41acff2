"""VPC flow logs: each ``AWS::EC2::FlowLog`` is active on its VPC (or subnet / network interface) with the
synthesized traffic type, destination (the log group, or the S3 / Firehose ARN), delivery role, and — where the
template sets them — log format and aggregation interval.  The VPC is the one CloudFormation created
(ListStackResources, through the resolver), else the one VPC carrying the tags the template gives it
(ec2 DescribeVpcs).  Calls ec2 DescribeFlowLogs (filter ``resource-id``).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from landing_zone.assembly import Resource
from landing_zone.verify.checks.common import DRIFT, MISSING, PASS, Context, guarded, make_row, unresolvable_rows
from landing_zone.verify.compare import Unresolved, same_number, unresolved_in
from landing_zone.verify.report import CheckResult


def check_flow_logs(ctx: Context) -> list[CheckResult]:
    rows: list[CheckResult] = []
    for res in ctx.resources("AWS::EC2::FlowLog"):
        kind = str(res.prop("ResourceType", "VPC"))
        label = f"{kind} {res.logical_id}"
        rows += guarded(["flow-log"], label, res, partial(_check_flow_log, ctx, res, kind, label))
    return rows


def _intent(ctx: Context, res: Resource) -> dict[str, Any]:
    destination_type = str(res.prop("LogDestinationType", "cloud-watch-logs"))
    want: dict[str, Any] = {
        "TrafficType": ctx.resolve(res.prop("TrafficType"), res),
        "LogDestinationType": destination_type,
    }
    if res.prop("LogGroupName") is not None:
        want["LogGroupName"] = ctx.resolve(res.prop("LogGroupName"), res)
    if res.prop("LogDestination") is not None:
        want["LogDestination"] = ctx.resolve(res.prop("LogDestination"), res)
    if res.prop("DeliverLogsPermissionArn") is not None:
        want["DeliverLogsPermissionArn"] = ctx.resolve(res.prop("DeliverLogsPermissionArn"), res)
    if res.prop("LogFormat") is not None:
        want["LogFormat"] = ctx.resolve(res.prop("LogFormat"), res)
    if res.prop("MaxAggregationInterval") is not None:
        want["MaxAggregationInterval"] = ctx.resolve(res.prop("MaxAggregationInterval"), res)
    return want


def _shown(values: dict[str, Any]) -> str:
    where = values.get("LogGroupName") or values.get("LogDestination") or "?"
    role = str(values.get("DeliverLogsPermissionArn") or "").rsplit("/", 1)[-1]
    return f"{values.get('TrafficType')} to {where}" + (f" via {role}" if role else "")


def _resource_ids(ctx: Context, res: Resource) -> tuple[list[str], str]:
    """The ID the flow log should be on (resolved like any reference: CloudFormation, a stack output, or for a VPC
    its tags), and how it was found."""
    resource_id = ctx.resolve(res.prop("ResourceId"), res)
    if not isinstance(resource_id, str):
        return [], resource_id.why if isinstance(resource_id, Unresolved) else str(resource_id)
    ref = res.prop("ResourceId")
    target = res.stack.resource(ref["Ref"]) if isinstance(ref, dict) and isinstance(ref.get("Ref"), str) else None
    how = ctx.resolver.notes.get(target.path, "") if target is not None else ""
    return [resource_id], how or "the template's ResourceId"


def _check_flow_log(ctx: Context, res: Resource, kind: str, label: str) -> list[CheckResult]:
    want = _intent(ctx, res)
    expected = _shown(want)
    if unresolved_in(list(want.values())):
        return unresolvable_rows(["flow-log"], label, list(want.values()), res)
    ids, how = _resource_ids(ctx, res)
    if not ids and " 0 VPCs carry its tags" in how:
        return [make_row("flow-log", label, expected, f"no {kind} found", MISSING, how, res)]
    if not ids:
        return unresolvable_rows(["flow-log"], label, Unresolved(how), res)
    label = f"{kind} {', '.join(ids)}"
    flows = ctx.live.paginate(
        "ec2",
        "describe_flow_logs",
        "FlowLogs",
        region=ctx.region_of(res.stack),
        Filters=[{"Name": "resource-id", "Values": ids}],
    )
    if not flows:
        return [make_row("flow-log", label, expected, "no flow log", MISSING, f"{kind} found by {how}", res)]
    best: tuple[list[str], dict[str, Any]] | None = None
    for flow in flows:
        diff = [k for k in want if not _same(k, want[k], flow.get(k))]
        if str(flow.get("FlowLogStatus", "ACTIVE")) != "ACTIVE":
            diff.append("FlowLogStatus")
        if best is None or len(diff) < len(best[0]):
            best = (diff, flow)
    assert best is not None
    diff, flow = best
    actual = _shown(flow) + (
        "" if str(flow.get("FlowLogStatus", "ACTIVE")) == "ACTIVE" else f" {flow['FlowLogStatus']}"
    )
    detail = (
        "\n".join(f"{k}: expected {want.get(k, 'ACTIVE')}, live {flow.get(k)}" for k in diff)
        or f"{flow.get('FlowLogId')} on {flow.get('ResourceId')} ({kind} found by {how})"
    )
    return [make_row("flow-log", label, expected, actual, DRIFT if diff else PASS, detail, res)]


def _same(key: str, want: Any, got: Any) -> bool:
    if key == "MaxAggregationInterval":
        return same_number(want, got)
    if key == "LogDestination" and isinstance(want, str) and isinstance(got, str):
        return want.rstrip("/") == got.rstrip("/")
    return bool(want == got)
