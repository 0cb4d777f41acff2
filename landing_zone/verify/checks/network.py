"""The network around the endpoints: what an attacker changes to reach Bedrock around the landing zone.

* ``security-group-ingress`` / ``security-group-egress``: each ``AWS::EC2::SecurityGroup`` (found by
  CloudFormation's physical ID) holds exactly the synthesized rules — its ``SecurityGroupIngress``/``Egress`` plus
  the ``AWS::EC2::SecurityGroupIngress``/``Egress`` resources naming it; a group whose template sets no egress has
  CloudFormation's default (all traffic to 0.0.0.0/0).  A rule added (e.g. opened to 0.0.0.0/0) or revoked is DRIFT.
  Rules are compared as (protocol, ports, peer); descriptions are ignored.
* ``default-security-group``: where the template restricts a VPC's default group (CDK's
  ``Custom::VpcRestrictDefaultSG``), that group has no rule at all.
* ``route-table``: every route table of a VPC the assembly creates holds only its ``local`` routes, gateway-endpoint
  prefix-list routes and the synthesized ``AWS::EC2::Route`` s; in an imported VPC, the route tables of the endpoint
  subnets (explicitly associated, else the main table) hold no route to an internet or NAT gateway.
* ``vpc-internet-gateway``: no internet gateway is attached to, and no NAT gateway runs in, a VPC the assembly
  creates, unless the template defines one.
* ``vpc-endpoint-unexpected``: every VPC endpoint in the landing zone's VPCs is one the assembly defines; another
  one (a second Bedrock endpoint with an allow-all policy) is DRIFT, named with its ID, service and policy.

Every DRIFT row's detail ends with the command that puts it back.  Calls ec2 DescribeSecurityGroups,
DescribeRouteTables, DescribeInternetGateways, DescribeNatGateways and DescribeVpcEndpoints (and CloudFormation
ListStackResources, through the resolver, for the generated IDs).
"""

from __future__ import annotations

import json
from typing import Any

from landing_zone.assembly import Resource
from landing_zone.verify.checks.common import (
    DRIFT,
    MISSING,
    PASS,
    Context,
    error_rows,
    make_row,
    unresolvable_rows,
)
from landing_zone.verify.compare import Unresolved, unresolved_in
from landing_zone.verify.live import ApiError
from landing_zone.verify.report import CheckResult, summarize

__all__ = ["check_network", "vpcs"]

ALL_TRAFFIC = ("-1", None, None, "0.0.0.0/0")
Rule = tuple[str, int | None, int | None, str]  # protocol, from port, to port, peer (CIDR, sg-, pl-)


def check_network(ctx: Context) -> list[CheckResult]:
    rows: list[CheckResult] = []
    for res in ctx.resources("AWS::EC2::SecurityGroup"):
        rows += _check_group(ctx, res)
    for res in ctx.resources("Custom::VpcRestrictDefaultSG"):
        rows += _check_default_group(ctx, res)
    for vpc_id, vpc, region in vpcs(ctx):
        rows += _check_routes(ctx, vpc_id, vpc, region)
        if vpc is not None:
            rows += _check_gateways(ctx, vpc_id, vpc, region)
        rows += _check_extra_endpoints(ctx, vpc_id, vpc, region)
    return rows


# -- security groups ------------------------------------------------------------------------------------------
def _protocol(value: Any) -> str:
    text = str(value).lower()
    return {"6": "tcp", "17": "udp", "1": "icmp", "58": "icmpv6", "all": "-1"}.get(text, text)


def _port(value: Any) -> int | None:
    return None if value is None else int(value)


def _template_rule(rule: dict[str, Any]) -> Rule:
    peer = (
        rule.get("CidrIp")
        or rule.get("CidrIpv6")
        or rule.get("SourceSecurityGroupId")
        or rule.get("DestinationSecurityGroupId")
        or rule.get("SourcePrefixListId")
        or rule.get("DestinationPrefixListId")
    )
    protocol = _protocol(rule.get("IpProtocol"))
    if protocol == "-1":
        return (protocol, None, None, str(peer))
    return (protocol, _port(rule.get("FromPort")), _port(rule.get("ToPort")), str(peer))


def live_rules(permissions: list[dict[str, Any]]) -> set[Rule]:
    """DescribeSecurityGroups ``IpPermissions``/``IpPermissionsEgress`` as (protocol, ports, peer) rules."""
    found: set[Rule] = set()
    for perm in permissions or []:
        protocol = _protocol(perm.get("IpProtocol"))
        ports = (None, None) if protocol == "-1" else (_port(perm.get("FromPort")), _port(perm.get("ToPort")))
        peers = (
            [r.get("CidrIp") for r in perm.get("IpRanges") or []]
            + [r.get("CidrIpv6") for r in perm.get("Ipv6Ranges") or []]
            + [r.get("GroupId") for r in perm.get("UserIdGroupPairs") or []]
            + [r.get("PrefixListId") for r in perm.get("PrefixListIds") or []]
        )
        found |= {(protocol, ports[0], ports[1], str(p)) for p in peers}
    return found


def _rule_text(rule: Rule) -> str:
    protocol, low, high, peer = rule
    if protocol == "-1":
        return f"all {peer}"
    ports = "" if low is None else (f":{low}" if low == high else f":{low}-{high}")
    return f"{protocol}{ports} {peer}"


def _ip_permission(rule: Rule) -> str:
    protocol, low, high, peer = rule
    perm: dict[str, Any] = {"IpProtocol": protocol}
    if protocol != "-1" and low is not None:
        perm |= {"FromPort": low, "ToPort": high}
    if peer.startswith("sg-"):
        perm["UserIdGroupPairs"] = [{"GroupId": peer}]
    elif peer.startswith("pl-"):
        perm["PrefixListIds"] = [{"PrefixListId": peer}]
    elif ":" in peer:
        perm["Ipv6Ranges"] = [{"CidrIpv6": peer}]
    else:
        perm["IpRanges"] = [{"CidrIp": peer}]
    return json.dumps([perm], separators=(",", ":"))


def _expected_rules(ctx: Context, res: Resource, direction: str) -> list[Any]:
    """The synthesized rules of one direction (``Ingress``/``Egress``), resolved; None entries are unresolvable."""
    rules = list(ctx.resolve(res.prop(f"SecurityGroup{direction}") or [], res))
    for extra in ctx.resources(f"AWS::EC2::SecurityGroup{direction}"):
        if extra.stack is res.stack and extra.prop("GroupId") in (
            {"Ref": res.logical_id},
            {"Fn::GetAtt": [res.logical_id, "GroupId"]},
            {"Fn::GetAtt": f"{res.logical_id}.GroupId"},
        ):
            props = {k: v for k, v in extra.properties.items() if k != "GroupId"}
            rules.append(ctx.resolve(props, extra))
    if direction == "Egress" and res.prop("SecurityGroupEgress") is None and not rules:
        return [dict(zip(("IpProtocol", "FromPort", "ToPort", "CidrIp"), ALL_TRAFFIC, strict=True))]
    return rules


def _check_group(ctx: Context, res: Resource) -> list[CheckResult]:
    checks = ["security-group-ingress", "security-group-egress"]
    region = ctx.region_of(res.stack)
    label = str(res.prop("GroupDescription") or res.logical_id)[:60]
    group_id = ctx.resolver.physical_id(res)
    if isinstance(group_id, Unresolved):
        return unresolvable_rows(checks, label, group_id, res)
    label = f"{group_id} ({res.logical_id})"
    try:
        groups = ctx.live.paginate(
            "ec2", "describe_security_groups", "SecurityGroups", region=region, Filters=_group_filter(group_id)
        )
    except ApiError as exc:
        return error_rows(checks, label, "as synthesized", exc, res)
    if not groups:
        return [make_row(c, label, "as synthesized", "group not found", MISSING, "", res) for c in checks]
    group = groups[0]
    rows: list[CheckResult] = []
    for direction, check, live_key, verb in (
        ("Ingress", "security-group-ingress", "IpPermissions", "ingress"),
        ("Egress", "security-group-egress", "IpPermissionsEgress", "egress"),
    ):
        expected = _expected_rules(ctx, res, direction)
        if unresolved_in(expected):
            rows += unresolvable_rows([check], label, expected, res)
            continue
        want = {_template_rule(r) for r in expected}
        got = live_rules(group.get(live_key) or [])
        rows.append(_rules_row(check, label, want, got, group_id, verb, region, res))
    return rows


def _group_filter(group_id: str) -> list[dict[str, Any]]:
    return [{"Name": "group-id", "Values": [group_id]}]


def _rules_row(
    check: str, label: str, want: set[Rule], got: set[Rule], group_id: str, verb: str, region: str, res: Resource
) -> CheckResult:
    expected = summarize(sorted(_rule_text(r) for r in want))
    actual = summarize(sorted(_rule_text(r) for r in got))
    if want == got:
        return make_row(check, label, expected, actual, PASS, "", res)
    added, removed = sorted(got - want), sorted(want - got)
    lines = [f"+ {_rule_text(r)} (live only)" for r in added] + [
        f"- {_rule_text(r)} (synthesized only)" for r in removed
    ]
    fixes = [
        f"aws ec2 revoke-security-group-{verb} --group-id {group_id} --ip-permissions '{_ip_permission(r)}' "
        f"--region {region}"
        for r in added
    ] + [
        f"aws ec2 authorize-security-group-{verb} --group-id {group_id} --ip-permissions '{_ip_permission(r)}' "
        f"--region {region}"
        for r in removed
    ]
    opened = [r for r in added if r[3] in ("0.0.0.0/0", "::/0")]
    headline = f"{verb} open to the internet: {', '.join(_rule_text(r) for r in opened)}" if opened else ""
    detail = "\n".join([*([headline] if headline else []), *lines, "Remediate:", *fixes])
    return make_row(check, label, expected, actual, DRIFT, detail, res)


def _check_default_group(ctx: Context, res: Resource) -> list[CheckResult]:
    region = ctx.region_of(res.stack)
    group_id = ctx.resolve(res.prop("DefaultSecurityGroupId"), res)
    if isinstance(group_id, Unresolved):
        return unresolvable_rows(["default-security-group"], "default security group", group_id, res)
    label = f"{group_id} (default)"
    try:
        groups = ctx.live.paginate(
            "ec2", "describe_security_groups", "SecurityGroups", region=region, Filters=_group_filter(str(group_id))
        )
    except ApiError as exc:
        return error_rows(["default-security-group"], label, "no rules", exc, res)
    if not groups:
        return [make_row("default-security-group", label, "no rules", "group not found", MISSING, "", res)]
    ingress = live_rules(groups[0].get("IpPermissions") or [])
    egress = live_rules(groups[0].get("IpPermissionsEgress") or [])
    if not ingress and not egress:
        return [make_row("default-security-group", label, "no rules", "no rules", PASS, "", res)]
    actual = summarize(
        [f"in {_rule_text(r)}" for r in sorted(ingress)] + [f"out {_rule_text(r)}" for r in sorted(egress)]
    )
    fixes = [
        f"aws ec2 revoke-security-group-{verb} --group-id {group_id} --ip-permissions '{_ip_permission(r)}' "
        f"--region {region}"
        for verb, rules in (("ingress", ingress), ("egress", egress))
        for r in sorted(rules)
    ]
    detail = (
        "the template restricts the VPC's default security group (Custom::VpcRestrictDefaultSG), but it has "
        "rules again: anything launched without a group gets them.\nRemediate:\n" + "\n".join(fixes)
    )
    return [make_row("default-security-group", label, "no rules", actual, DRIFT, detail, res)]


# -- VPCs: routes, gateways, endpoints -------------------------------------------------------------------------
def vpcs(ctx: Context) -> list[tuple[str, Resource | None, str]]:
    """(VPC ID, its template resource or None when imported, Region): the VPCs the assembly creates, then those
    its endpoints are placed in by literal ID."""
    found: list[tuple[str, Resource | None, str]] = []
    for vpc in ctx.resources("AWS::EC2::VPC"):
        vpc_id = ctx.resolver.physical_id(vpc)
        if isinstance(vpc_id, str):
            found.append((vpc_id, vpc, ctx.region_of(vpc.stack)))
    seen = {v for v, _, _ in found}
    for endpoint in ctx.resources("AWS::EC2::VPCEndpoint"):
        literal = endpoint.prop("VpcId")
        if isinstance(literal, str) and literal not in seen:
            seen.add(literal)
            found.append((literal, None, ctx.region_of(endpoint.stack)))
    return found


def _synthesized_routes(ctx: Context, vpc_id: str) -> set[tuple[str, str]]:
    """(destination, target kind) of the template's routes in this VPC's route tables."""
    routes: set[tuple[str, str]] = set()
    for route in ctx.resources("AWS::EC2::Route"):
        table_ref = route.prop("RouteTableId")
        table = route.stack.resource(str(table_ref.get("Ref", ""))) if isinstance(table_ref, dict) else None
        if table is None or ctx.resolve(table.prop("VpcId"), table) != vpc_id:
            continue  # a route in a table the assembly does not create: not this check's to allow
        destination = route.prop("DestinationCidrBlock") or route.prop("DestinationIpv6CidrBlock") or ""
        kind = next((k for k in _TARGETS if route.prop(k) is not None), "other")
        routes.add((str(destination), _TARGETS.get(kind, kind)))
    return routes


_TARGETS = {
    "GatewayId": "gateway",
    "NatGatewayId": "nat",
    "TransitGatewayId": "transit",
    "VpcPeeringConnectionId": "peering",
    "VpcEndpointId": "endpoint",
    "NetworkInterfaceId": "interface",
    "InstanceId": "instance",
}


def _live_route(route: dict[str, Any]) -> tuple[str, str, str]:
    """(destination, target kind, target ID) of a DescribeRouteTables route."""
    destination = route.get("DestinationCidrBlock") or route.get("DestinationIpv6CidrBlock") or ""
    destination = destination or route.get("DestinationPrefixListId") or ""
    gateway = str(route.get("GatewayId") or "")
    if gateway == "local":
        return (destination, "local", "local")
    for key, kind in _TARGETS.items():
        value = route.get(key)
        if value:
            if key == "GatewayId" and str(value).startswith("vpce-"):
                return (destination, "endpoint", str(value))
            return (destination, kind, str(value))
    return (destination, "other", "?")


def _check_routes(ctx: Context, vpc_id: str, vpc: Resource | None, region: str) -> list[CheckResult]:
    try:
        tables = ctx.live.paginate(
            "ec2",
            "describe_route_tables",
            "RouteTables",
            region=region,
            Filters=[{"Name": "vpc-id", "Values": [vpc_id]}],
        )
    except ApiError as exc:
        return error_rows(["route-table"], f"VPC {vpc_id}", "only the synthesized routes", exc, vpc)
    allowed = _synthesized_routes(ctx, vpc_id)
    if vpc is None:  # imported: only the endpoint subnets' tables, and only internet-bound routes
        tables = _endpoint_tables(ctx, vpc_id, tables)
    rows: list[CheckResult] = []
    for table in sorted(tables, key=lambda t: str(t.get("RouteTableId"))):
        table_id = str(table.get("RouteTableId"))
        extra = _extra_routes(table, allowed, imported=vpc is None)
        label = f"{table_id} (VPC {vpc_id})"
        expected = summarize(sorted(f"{d} -> {k}" for d, k in allowed)) if allowed else "local routes only"
        if vpc is None:
            expected = "no route to an internet or NAT gateway"
        if not extra:
            rows.append(make_row("route-table", label, expected, "as synthesized", PASS, "", vpc))
            continue
        fixes = [
            f"aws ec2 delete-route --route-table-id {table_id} --destination-"
            f"{'ipv6-' if ':' in d else ''}cidr-block {d} --region {region}"
            for d, _, _ in extra
        ]
        rows.append(
            make_row(
                "route-table",
                label,
                expected,
                summarize(f"{d} -> {t}" for d, _, t in extra),
                DRIFT,
                f"routes the template does not define in a route table of the landing zone's VPC {vpc_id} (the "
                "endpoint subnets are meant to reach nothing outside the VPC)\nRemediate:\n" + "\n".join(fixes),
                vpc,
            )
        )
    return rows


def _endpoint_tables(ctx: Context, vpc_id: str, tables: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The route tables of an imported VPC's endpoint subnets (explicitly associated, else the main table)."""
    subnets = {
        s
        for e in ctx.resources("AWS::EC2::VPCEndpoint")
        if e.prop("VpcId") == vpc_id
        for s in (e.prop("SubnetIds") or [])
        if isinstance(s, str)
    }
    explicit = {a.get("SubnetId") for t in tables for a in t.get("Associations") or [] if a.get("SubnetId")}
    unassociated = bool(subnets - explicit)
    return [t for t in tables if _serves(t, subnets, unassociated)]


def _serves(table: dict[str, Any], subnets: set[Any], unassociated: bool) -> bool:
    """Whether the table routes one of the subnets: associated with it, or the main table of an unassociated one."""
    associations = table.get("Associations") or []
    if any(a.get("SubnetId") in subnets for a in associations):
        return True
    return unassociated and any(a.get("Main") for a in associations)


def _extra_routes(
    table: dict[str, Any], allowed: set[tuple[str, str]], *, imported: bool
) -> list[tuple[str, str, str]]:
    """The table's routes the template does not define (of an imported VPC: only those to an internet or NAT
    gateway; the rest of its routing is its owner's)."""
    extra = []
    for route in table.get("Routes") or []:
        destination, kind, target = _live_route(route)
        if _expected_route(destination, kind, allowed, imported=imported):
            continue
        extra.append((destination, kind, target))
    return extra


def _expected_route(destination: str, kind: str, allowed: set[tuple[str, str]], *, imported: bool) -> bool:
    if kind == "local" or (kind == "endpoint" and destination.startswith("pl-")):
        return True
    if (destination, kind) in allowed:
        return True
    return imported and kind not in ("gateway", "nat")


def _check_gateways(ctx: Context, vpc_id: str, vpc: Resource, region: str) -> list[CheckResult]:
    label = f"VPC {vpc_id}"
    expected = "no internet or NAT gateway"
    defines_igw = bool(ctx.resources("AWS::EC2::VPCGatewayAttachment"))
    defines_nat = bool(ctx.resources("AWS::EC2::NatGateway"))
    try:
        gateways = ctx.live.paginate(
            "ec2",
            "describe_internet_gateways",
            "InternetGateways",
            region=region,
            Filters=[{"Name": "attachment.vpc-id", "Values": [vpc_id]}],
        )
        gateways += ctx.live.paginate(
            "ec2",
            "describe_egress_only_internet_gateways",
            "EgressOnlyInternetGateways",
            region=region,
        )
        nats = ctx.live.paginate(
            "ec2",
            "describe_nat_gateways",
            "NatGateways",
            region=region,
            Filter=[{"Name": "vpc-id", "Values": [vpc_id]}],
        )
    except ApiError as exc:
        return error_rows(["vpc-internet-gateway"], label, expected, exc, vpc)
    igws = [
        str(g.get("InternetGatewayId") or g.get("EgressOnlyInternetGatewayId"))
        for g in gateways
        if any(a.get("VpcId") == vpc_id for a in g.get("Attachments") or [])
    ]
    nat_ids = [
        str(n.get("NatGatewayId"))
        for n in nats
        if str(n.get("State", "")).lower() not in ("deleted", "deleting", "failed")
    ]
    found = ([] if defines_igw else igws) + ([] if defines_nat else nat_ids)
    if not found:
        return [make_row("vpc-internet-gateway", label, expected, "none", PASS, "", vpc)]
    fixes = [
        f"aws ec2 detach-internet-gateway --internet-gateway-id {g} --vpc-id {vpc_id} --region {region}"
        if g.startswith("igw-")
        else f"aws ec2 delete-egress-only-internet-gateway --egress-only-internet-gateway-id {g} --region {region}"
        for g in ([] if defines_igw else igws)
    ] + [f"aws ec2 delete-nat-gateway --nat-gateway-id {n} --region {region}" for n in ([] if defines_nat else nat_ids)]
    return [
        make_row(
            "vpc-internet-gateway",
            label,
            expected,
            ", ".join(found),
            DRIFT,
            f"the landing zone's VPC {vpc_id} is isolated by design (its template defines no internet or NAT "
            "gateway): with one, traffic can reach Bedrock's public endpoints around the VPC endpoints and their "
            "policies.\nRemediate (and remove the routes to it, see route-table):\n" + "\n".join(fixes),
            vpc,
        )
    ]


def _check_extra_endpoints(ctx: Context, vpc_id: str, vpc: Resource | None, region: str) -> list[CheckResult]:
    label = f"VPC {vpc_id}"
    ours: dict[str, str] = {}
    unresolved: list[str] = []
    for endpoint in ctx.resources("AWS::EC2::VPCEndpoint"):
        endpoint_id = ctx.resolver.physical_id(endpoint)
        if isinstance(endpoint_id, str):
            ours[endpoint_id] = endpoint.path
        else:
            unresolved.append(endpoint_id.why)
    expected = f"only the {len(ctx.resources('AWS::EC2::VPCEndpoint'))} synthesized endpoint(s)"
    try:
        live = [
            e
            for e in ctx.live.paginate(
                "ec2",
                "describe_vpc_endpoints",
                "VpcEndpoints",
                region=region,
                Filters=[{"Name": "vpc-id", "Values": [vpc_id]}],
            )
            if str(e.get("State", "")).lower() not in ("deleted", "deleting")
        ]
    except ApiError as exc:
        return error_rows(["vpc-endpoint-unexpected"], label, expected, exc, vpc)
    extra = [e for e in live if e.get("VpcEndpointId") not in ours]
    if not extra:
        return [
            make_row("vpc-endpoint-unexpected", label, expected, f"{len(live)} endpoint(s), none other", PASS, "", vpc)
        ]
    if unresolved:  # cannot tell ours from theirs
        return unresolvable_rows(["vpc-endpoint-unexpected"], label, Unresolved("; ".join(unresolved)), vpc)
    rows = []
    for e in sorted(extra, key=lambda e: str(e.get("VpcEndpointId"))):
        endpoint_id = str(e.get("VpcEndpointId"))
        policy = e.get("PolicyDocument") or "(none: full access)"
        tags = ", ".join(f"{t.get('Key')}={t.get('Value')}" for t in e.get("Tags") or []) or "(no tags)"
        rows.append(
            make_row(
                "vpc-endpoint-unexpected",
                f"{endpoint_id} (VPC {vpc_id})",
                expected,
                f"{endpoint_id} {e.get('ServiceName')}",
                DRIFT,
                f"a VPC endpoint the assembly does not define: {endpoint_id}, service {e.get('ServiceName')}, "
                f"tags {tags}, policy {policy if isinstance(policy, str) else json.dumps(policy)}\n"
                f"Remediate: aws ec2 delete-vpc-endpoints --vpc-endpoint-ids {endpoint_id} --region {region}",
                vpc,
            )
        )
    return rows
