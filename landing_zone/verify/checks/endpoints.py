"""VPC endpoints: each ``AWS::EC2::VPCEndpoint`` exists and is available (found by its landing-zone and
service tags, else by service name in the landing zone's VPCs), private DNS is as synthesized for interface
endpoints, and the endpoint policy is the synthesized document.  Calls ec2 DescribeVpcEndpoints and, when the
endpoint lacks its tags and the template does not name its VPC, ec2 DescribeVpcs.
"""

from __future__ import annotations

from typing import Any

from landing_zone.assembly import Resource
from landing_zone.verify.checks.common import (
    DRIFT,
    MISSING,
    PASS,
    Context,
    error_rows,
    make_row,
    policy_row,
    tag_map,
    unresolvable_rows,
)
from landing_zone.verify.compare import Unresolved, as_bool, unresolved_in
from landing_zone.verify.live import ApiError
from landing_zone.verify.report import CheckResult


def check_endpoints(ctx: Context) -> list[CheckResult]:
    rows: list[CheckResult] = []
    checks = ["vpc-endpoint", "vpc-endpoint-private-dns", "vpc-endpoint-policy"]
    for res in ctx.resources("AWS::EC2::VPCEndpoint"):
        region = ctx.region_of(res.stack)
        service_name = ctx.resolve(res.prop("ServiceName"), res)
        tags = tag_map(ctx.resolve(res.prop("Tags") or [], res))
        service_tag = _service_tag(tags)
        label = (tags[service_tag] if service_tag else None) or (
            service_name.split(".", 3)[-1] if isinstance(service_name, str) else res.logical_id
        )
        if isinstance(service_name, Unresolved):
            rows += unresolvable_rows(checks, label, service_name, res)
            continue
        try:
            found, how = _find_endpoint(ctx, res, region, service_name, tags)
        except ApiError as exc:
            rows += error_rows(checks, label, service_name, exc, res)
            continue
        if not found:
            rows.append(
                make_row(
                    "vpc-endpoint",
                    label,
                    f"{service_name} available",
                    "not found",
                    MISSING,
                    f"no endpoint found {how}",
                    res,
                )
            )
            rows += [make_row(c, label, "-", "endpoint not found", MISSING, "", res) for c in checks[1:]]
            continue
        endpoint = found[0]
        more = f"; {len(found)} endpoints match, checked {endpoint['VpcEndpointId']}" if len(found) > 1 else ""
        state = str(endpoint.get("State", "")).lower()
        rows.append(
            make_row(
                "vpc-endpoint",
                label,
                f"{service_name} available",
                f"{endpoint['VpcEndpointId']} {state}",
                PASS if state == "available" else DRIFT,
                f"found {how}{more}",
                res,
            )
        )
        if str(res.prop("VpcEndpointType", "Gateway")) == "Interface" or res.prop("PrivateDnsEnabled") is not None:
            want_dns = bool(as_bool(res.prop("PrivateDnsEnabled", False)))
            got_dns = bool(endpoint.get("PrivateDnsEnabled"))
            rows.append(
                make_row(
                    "vpc-endpoint-private-dns",
                    label,
                    "enabled" if want_dns else "disabled",
                    "enabled" if got_dns else "disabled",
                    PASS if want_dns == got_dns else DRIFT,
                    "",
                    res,
                )
            )
        expected_policy = ctx.resolve(res.prop("PolicyDocument"), res)
        if expected_policy is None:
            continue  # no policy in the template: the endpoint's default (full access) is the intent
        if unresolved_in(expected_policy):
            rows += unresolvable_rows(["vpc-endpoint-policy"], label, expected_policy, res)
            continue
        rows.append(policy_row("vpc-endpoint-policy", label, expected_policy, endpoint.get("PolicyDocument"), res))
    return rows


def _service_tag(tags: dict[str, str]) -> str | None:
    """The tag the stacks put on endpoints to name their service (``bedrock-endpoint-service``,
    ``self-hosting-endpoint-service``, ...)."""
    return next((k for k in sorted(tags) if k.endswith("-endpoint-service")), None)


def _find_endpoint(
    ctx: Context, res: Resource, region: str, service_name: str, tags: dict[str, str]
) -> tuple[list[dict[str, Any]], str]:
    def live_endpoints(filters: list[dict[str, Any]]) -> list[dict[str, Any]]:
        found = ctx.live.paginate("ec2", "describe_vpc_endpoints", "VpcEndpoints", region=region, Filters=filters)
        return [e for e in found if str(e.get("State", "")).lower() not in ("deleted", "deleting")]

    tag_filters = [
        {"Name": "tag:landing-zone", "Values": [ctx.name]},
        {"Name": "service-name", "Values": [service_name]},
    ]
    service_tag = _service_tag(tags)
    if service_tag:
        tag_filters.insert(1, {"Name": f"tag:{service_tag}", "Values": [tags[service_tag]]})
    found = live_endpoints(tag_filters)
    if found:
        return found, "by tags " + ", ".join(
            f"{f['Name'][4:]}={f['Values'][0]}" for f in tag_filters if str(f["Name"]).startswith("tag:")
        )
    vpc_id = ctx.resolve(res.prop("VpcId"), res)
    vpc_ids = (
        [vpc_id]
        if isinstance(vpc_id, str)
        else [
            v["VpcId"]
            for v in ctx.live.paginate(
                "ec2",
                "describe_vpcs",
                "Vpcs",
                region=region,
                Filters=[{"Name": "tag:landing-zone", "Values": [ctx.name]}],
            )
        ]
    )
    if not vpc_ids:
        return [], f"tagged landing-zone={ctx.name}, and no VPC of the landing zone was found to search by service name"
    found = live_endpoints([{"Name": "service-name", "Values": [service_name]}, {"Name": "vpc-id", "Values": vpc_ids}])
    return found, f"by service name {service_name} in {', '.join(vpc_ids)} (the endpoint lacks the landing-zone tags)"
