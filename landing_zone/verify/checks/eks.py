"""EKS node groups (self-hosting): each ``AWS::EKS::Nodegroup`` exists (by its name, CloudFormation's record,
or its CloudFormation tags or labels) with the synthesized capacity type, instance types (from the launch
template when it names one) and scaling bounds; the GPU node group takes capacity and maximum size from the
configuration's ``self_hosting``, and one must be in the assembly when self-hosting is enabled.  Calls eks
DescribeNodegroup and ListNodegroups and ec2 DescribeLaunchTemplateVersions (and CloudFormation
ListStackResources, through the resolver, for a generated node group name).
"""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from landing_zone.assembly import Resource
from landing_zone.verify.checks.common import (
    DRIFT,
    ERROR,
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

_CAPACITY = {"capacity-block": "CAPACITY_BLOCK", "on-demand": "ON_DEMAND"}


def check_nodegroups(ctx: Context) -> list[CheckResult]:
    rows: list[CheckResult] = []
    gpu_type = ctx.self_hosting.instance_type if ctx.self_hosting is not None and ctx.self_hosting.enabled else None
    gpu_found = False
    for res in ctx.resources("AWS::EKS::Nodegroup"):
        want, is_gpu = _wanted(ctx, res, gpu_type)
        gpu_found = gpu_found or is_gpu
        rows += _nodegroup_rows(ctx, res, want)
    if gpu_type is not None and not gpu_found:
        rows.append(
            make_row(
                "eks-gpu-nodegroup",
                f"self_hosting ({gpu_type})",
                "a node group in the assembly",
                "none synthesized",
                ERROR,
                "self_hosting.enabled is true in the configuration, but the assembly holds no AWS::EKS::Nodegroup "
                f"with instance type {gpu_type}: synthesize with the self-hosting stack, then verify again",
            )
        )
    return rows


def _wanted(ctx: Context, res: Resource, gpu_type: str | None) -> tuple[dict[str, Any], bool]:
    """The node group as synthesized (the self-hosting settings for the GPU one), and whether it is the GPU one."""
    scaling = res.prop("ScalingConfig") or {}
    want_types = sorted(ctx.resolve(res.prop("InstanceTypes") or [], res)) or _launch_template_types(ctx, res)
    is_gpu = gpu_type is not None and gpu_type in want_types
    want = {
        "capacityType": res.prop("CapacityType", "ON_DEMAND"),
        "instanceTypes": want_types,
        "minSize": scaling.get("MinSize"),
        "maxSize": scaling.get("MaxSize"),
    }
    if is_gpu:
        want["capacityType"] = _CAPACITY.get(ctx.self_hosting.capacity, want["capacityType"])
        want["maxSize"] = ctx.self_hosting.max_size
    return want, is_gpu


def _nodegroup_rows(ctx: Context, res: Resource, want: dict[str, Any]) -> list[CheckResult]:
    rows: list[CheckResult] = []
    region = ctx.region_of(res.stack)
    expected = f"{want['capacityType']} {summarize(want['instanceTypes'])} min {want['minSize']} max {want['maxSize']}"
    cluster = ctx.resolve(res.prop("ClusterName"), res)
    if isinstance(cluster, Unresolved):
        rows += unresolvable_rows(["eks-nodegroup"], res.logical_id, cluster, res)
        return rows
    try:
        live, how = _find_nodegroup(ctx, res, region, cluster)
    except ApiError as exc:
        rows += error_rows(["eks-nodegroup"], f"{cluster}/{res.logical_id}", expected, exc, res)
        return rows
    if isinstance(live, Unresolved):
        rows += unresolvable_rows(["eks-nodegroup"], f"{cluster}/{res.logical_id}", live, res)
        return rows
    if live is None:
        rows.append(
            make_row(
                "eks-nodegroup",
                f"{cluster}/{res.prop('NodegroupName') or res.logical_id}",
                expected,
                "not found",
                MISSING,
                how,
                res,
            )
        )
        return rows
    label = f"{cluster}/{live['nodegroupName']}"
    # An instance type in the launch template wins over the node group's list (which EKS may fill by default).
    try:
        got_types = _live_template_types(ctx, region, live.get("launchTemplate") or {}) or sorted(
            live.get("instanceTypes") or []
        )
    except ApiError as exc:
        rows += error_rows(["eks-nodegroup"], label, expected, exc, res)
        return rows
    rows.append(_nodegroup_row(res, label, want, got_types, live, how, expected))
    return rows


def _nodegroup_row(
    res: Resource, label: str, want: dict[str, Any], got_types: list[Any], live: dict[str, Any], how: str, expected: str
) -> CheckResult:
    live_scaling = live.get("scalingConfig") or {}
    got = {
        "capacityType": live.get("capacityType", "ON_DEMAND"),
        "instanceTypes": got_types,
        "minSize": live_scaling.get("minSize"),
        "maxSize": live_scaling.get("maxSize"),
    }
    diff = [k for k in want if _differs(want[k], got[k], k)]
    actual = (
        f"{got['capacityType']} {summarize(got['instanceTypes'])} min {got['minSize']} max {got['maxSize']} "
        f"(desired {live_scaling.get('desiredSize')}, {live.get('status')})"
    )
    detail = "\n".join(f"{k}: expected {want[k]}, live {got[k]}" for k in diff)
    return make_row(
        "eks-nodegroup",
        label,
        expected,
        actual,
        DRIFT if diff else PASS,
        detail or (f"found {how}" if how else ""),
        res,
    )


def _differs(wanted: Any, got: Any, key: str) -> bool:
    """Whether a synthesized setting differs from the live one (an empty instance type list means EKS's default)."""
    if wanted is None or (key == "instanceTypes" and not wanted):
        return False
    return bool(wanted != got)


def _find_nodegroup(
    ctx: Context, res: Resource, region: str, cluster: str
) -> tuple[dict[str, Any] | None | Unresolved, str]:
    """The live node group: by its name in the template, else CloudFormation's record, else (generated name,
    no record reachable) the one node group of the cluster whose CloudFormation tags or labels match."""
    named = ctx.resolve(res.prop("NodegroupName"), res) if res.prop("NodegroupName") is not None else None
    how = "by name in the template" if named else ""
    if named is None:
        physical = ctx.resolver.cloudformation_physical_id(res)
        if isinstance(physical, str):
            named, how = physical.rsplit("/", 1)[-1], "by CloudFormation ListStackResources"
    if isinstance(named, str):
        return _named_nodegroup(ctx, region, cluster, named, how)
    return _nodegroup_by_tags(ctx, res, region, cluster)


def _named_nodegroup(
    ctx: Context, region: str, cluster: str, named: str, how: str
) -> tuple[dict[str, Any] | None | Unresolved, str]:
    try:
        return ctx.live.call("eks", "describe_nodegroup", region=region, clusterName=cluster, nodegroupName=named)[
            "nodegroup"
        ], how
    except ClientError as exc:
        if not is_not_found(exc, "ResourceNotFoundException"):
            raise
        return None, f"no node group {named!r} in cluster {cluster}"


def _nodegroup_by_tags(
    ctx: Context, res: Resource, region: str, cluster: str
) -> tuple[dict[str, Any] | None | Unresolved, str]:
    try:
        names = ctx.live.paginate("eks", "list_nodegroups", "nodegroups", region=region, clusterName=cluster)
    except ClientError as exc:
        if not is_not_found(exc, "ResourceNotFoundException"):
            raise
        return None, f"cluster {cluster} not found"
    labels = ctx.resolve(res.prop("Labels") or {}, res)
    candidates = []
    for name in names:
        group = ctx.live.call("eks", "describe_nodegroup", region=region, clusterName=cluster, nodegroupName=name)[
            "nodegroup"
        ]
        if _created_by(ctx, group, res):
            return group, "by its aws:cloudformation:* tags"
        if _carries(group, labels):
            candidates.append(group)
    if len(candidates) == 1:
        return candidates[0], f"by its labels {', '.join(f'{k}={v}' for k, v in sorted(labels.items()))}"
    if not labels:
        return Unresolved(f"{res.path}: generated node group name, no CloudFormation record and no labels to match"), ""
    return None, f"no single node group of {cluster} carries the labels {labels}"


def _created_by(ctx: Context, group: dict[str, Any], res: Resource) -> bool:
    """Whether the node group's CloudFormation tags name this resource of its stack (the stack's name is looked up
    only when the logical ID matches)."""
    tags = group.get("tags") or {}
    return bool(
        tags.get("aws:cloudformation:logical-id") == res.logical_id
        and tags.get("aws:cloudformation:stack-name") == ctx.resolver.stack_name(res.stack)
    )


def _carries(group: dict[str, Any], labels: dict[str, Any]) -> bool:
    """Whether the node group carries every one of the (non-empty) labels."""
    return bool(labels) and all((group.get("labels") or {}).get(k) == v for k, v in labels.items())


def _launch_template_types(ctx: Context, res: Resource) -> list[str]:
    ref = res.prop("LaunchTemplate.Id") or res.prop("LaunchTemplate.Name")
    if isinstance(ref, dict) and "Ref" in ref:
        lt = res.stack.resource(ref["Ref"])
        if lt is not None:
            t = ctx.resolve(lt.prop("LaunchTemplateData.InstanceType"), lt)
            return [t] if isinstance(t, str) else []
    return []


def _live_template_types(ctx: Context, region: str, template: dict[str, Any]) -> list[str]:
    if not template.get("id") and not template.get("name"):
        return []
    params: dict[str, Any] = {"Versions": [str(template.get("version") or "$Default")]}
    params["LaunchTemplateId" if template.get("id") else "LaunchTemplateName"] = template.get("id") or template.get(
        "name"
    )
    try:
        versions = (
            ctx.live.call("ec2", "describe_launch_template_versions", region=region, **params).get(
                "LaunchTemplateVersions"
            )
            or []
        )
    except ClientError:
        return []
    types = {(v.get("LaunchTemplateData") or {}).get("InstanceType") for v in versions}
    return sorted(str(t) for t in types if t is not None)
