"""The network path to the endpoints: what reroutes or cuts off the invokers without touching a landing-zone resource,
where no SCP condition key can name the VPC (docs/THREAT_MODEL.md, "The network path to the endpoints").  For each VPC
of the assembly (created, or imported by literal ID):

* ``dns-firewall-association``: no Route 53 Resolver DNS Firewall rule group is associated with the VPC (the template
  associates none; a rule group can BLOCK or rewrite the Bedrock names).  ``AssociateFirewallRuleGroup`` is
  authorized on the association and the rule group, never the VPC, so only detection answers it.
* ``resolver-rule-association``: no Resolver rule other than the VPC's auto-defined ones is associated with it (a
  forwarding rule for ``amazonaws.com`` sends the endpoint names to a resolver of the attacker's choosing).
* ``private-hosted-zone``: no private hosted zone an account owns, associated with the VPC, is named for an endpoint
  name or a parent of it (``bedrock-runtime.<region>.amazonaws.com``, ``<region>.amazonaws.com``,
  ``amazonaws.com``): it would shadow the endpoints' private DNS.  Zones a service owns (the endpoints' own) pass.
* ``vpc-lattice``: the VPC is associated with no VPC Lattice service network and holds no resource gateway.
* ``ram-shared-subnet``: no subnet of the VPC is shared through AWS RAM.
* ``default-network-acl``: in a VPC the assembly creates, no subnet is associated with the default network ACL, which
  EC2 creates untagged (the endpoint subnets carry the landing zone's tagged ACL).

Every DRIFT row's detail ends with the command that undoes it.  Calls route53resolver
ListFirewallRuleGroupAssociations and ListResolverRuleAssociations, route53 ListHostedZonesByVPC, vpc-lattice
ListServiceNetworkVpcAssociations and ListResourceGateways, ec2 DescribeSubnets and DescribeNetworkAcls, ram
GetResourceShareAssociations.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from landing_zone.assembly import Resource
from landing_zone.verify.checks.common import DRIFT, PASS, Context, error_rows, make_row
from landing_zone.verify.checks.network import vpcs
from landing_zone.verify.live import ApiError
from landing_zone.verify.report import CheckResult

__all__ = ["CHECKS", "check_network_path"]

Finding = tuple[str, str, str]  # (what, live detail, remediation command)


def check_network_path(ctx: Context) -> list[CheckResult]:
    rows: list[CheckResult] = []
    names = _endpoint_names(ctx)
    for vpc_id, vpc, region in vpcs(ctx):
        here = _Where(ctx, vpc_id, region, names.get(region, ()))
        for check, expected, probe in PROBES:
            if check == "default-network-acl" and vpc is None:
                continue  # an imported VPC keeps its owner's network ACLs
            rows += _rows(check, expected, probe, here, vpc)
    return rows


@dataclass(frozen=True)
class _Where:
    ctx: Context
    vpc_id: str
    region: str
    endpoint_names: tuple[str, ...]


def _rows(
    check: str, expected: str, probe: Callable[[_Where], list[Finding]], where: _Where, res: Resource | None
) -> list[CheckResult]:
    label = f"VPC {where.vpc_id}"
    try:
        findings = probe(where)
    except ApiError as exc:
        return error_rows([check], label, expected, exc, res)
    if not findings:
        return [make_row(check, label, expected, "none", PASS, "", res)]
    return [
        make_row(check, f"{what} ({label})", expected, what, DRIFT, f"{detail}\nRemediate: {fix}", res)
        for what, detail, fix in findings
    ]


def _endpoint_names(ctx: Context) -> dict[str, tuple[str, ...]]:
    """Region -> the DNS names the assembly's interface endpoints answer for privately (``<service>.<region>.
    amazonaws.com`` from ``com.amazonaws.<region>.<service>``)."""
    names: dict[str, set[str]] = {}
    for endpoint in ctx.resources("AWS::EC2::VPCEndpoint"):
        service = endpoint.prop("ServiceName")
        if isinstance(service, str) and service.startswith("com.amazonaws."):
            _, _, region, rest = service.split(".", 3)
            names.setdefault(region, set()).add(f"{rest}.{region}.amazonaws.com")
    return {r: tuple(sorted(n)) for r, n in names.items()}


def _firewall(w: _Where) -> list[Finding]:
    ctx, vpc_id, region = w.ctx, w.vpc_id, w.region
    live = ctx.live.paginate(
        "route53resolver",
        "list_firewall_rule_group_associations",
        "FirewallRuleGroupAssociations",
        region=region,
        VpcId=vpc_id,
    )
    return [
        (
            str(a.get("Id")),
            f"DNS Firewall rule group {a.get('FirewallRuleGroupId')} associated with the landing zone's VPC "
            f"(priority {a.get('Priority')}, managed by {a.get('ManagedOwnerName') or 'the account'}): its rules can "
            "block or rewrite the Bedrock endpoint names",
            f"aws route53resolver disassociate-firewall-rule-group --firewall-rule-group-association-id {a.get('Id')} "
            f"--region {region}",
        )
        for a in live
        if str(a.get("Status", "")).upper() != "DELETING"
    ]


def _rules(w: _Where) -> list[Finding]:
    ctx, vpc_id, region = w.ctx, w.vpc_id, w.region
    live = ctx.live.paginate(
        "route53resolver",
        "list_resolver_rule_associations",
        "ResolverRuleAssociations",
        region=region,
        Filters=[{"Name": "VPCId", "Values": [vpc_id]}],
    )
    return [
        (
            str(a.get("ResolverRuleId")),
            f"Resolver rule {a.get('ResolverRuleId')} associated with the landing zone's VPC: a forwarding rule "
            "sends the names it matches (the endpoints' among them, if it covers amazonaws.com) to another resolver",
            f"aws route53resolver disassociate-resolver-rule --vpc-id {vpc_id} --resolver-rule-id "
            f"{a.get('ResolverRuleId')} --region {region}",
        )
        for a in live
        if not str(a.get("ResolverRuleId", "")).startswith("rslvr-autodefined-")
        and str(a.get("VPCId", vpc_id)) == vpc_id
    ]


def _shadows(zone: str, names: tuple[str, ...]) -> bool:
    zone = zone.rstrip(".").lower()
    return any(n == zone or n.endswith("." + zone) for n in names)


def _zones(w: _Where) -> list[Finding]:
    ctx, vpc_id, region, names = w.ctx, w.vpc_id, w.region, w.endpoint_names
    answer = ctx.live.call("route53", "list_hosted_zones_by_vpc", region=region, VPCId=vpc_id, VPCRegion=region)
    out = []
    for z in answer.get("HostedZoneSummaries") or []:
        owner = z.get("Owner") or {}
        if owner.get("OwningService") or not _shadows(str(z.get("Name", "")), names):
            continue
        zone_id = str(z.get("HostedZoneId"))
        out.append(
            (
                f"{z.get('Name')} {zone_id}",
                f"private hosted zone {z.get('Name')} ({zone_id}, account {owner.get('OwningAccount')}) is "
                f"associated with the landing zone's VPC and answers for {', '.join(names)} in place of the endpoints",
                f"aws route53 disassociate-vpc-from-hosted-zone --hosted-zone-id {zone_id} "
                f"--vpc VPCRegion={region},VPCId={vpc_id}",
            )
        )
    return out


def _lattice(w: _Where) -> list[Finding]:
    ctx, vpc_id, region = w.ctx, w.vpc_id, w.region
    associations = ctx.live.paginate(
        "vpc-lattice", "list_service_network_vpc_associations", "items", region=region, vpcIdentifier=vpc_id
    )
    gateways = ctx.live.paginate("vpc-lattice", "list_resource_gateways", "items", region=region)
    out: list[Finding] = [
        (
            str(a.get("id")),
            f"the landing zone's VPC is associated with VPC Lattice service network {a.get('serviceNetworkName')}",
            f"aws vpc-lattice delete-service-network-vpc-association --service-network-vpc-association-identifier "
            f"{a.get('id')} --region {region}",
        )
        for a in associations
        if str(a.get("status", "")).upper() not in ("DELETE_IN_PROGRESS", "DELETE_FAILED")
    ]
    out += [
        (
            str(g.get("id")),
            f"VPC Lattice resource gateway {g.get('name')} in the landing zone's VPC",
            f"aws vpc-lattice delete-resource-gateway --resource-gateway-identifier {g.get('id')} --region {region}",
        )
        for g in gateways
        if g.get("vpcIdentifier") == vpc_id
    ]
    return out


def _ram(w: _Where) -> list[Finding]:
    ctx, vpc_id, region = w.ctx, w.vpc_id, w.region
    subnets = ctx.live.paginate(
        "ec2", "describe_subnets", "Subnets", region=region, Filters=[{"Name": "vpc-id", "Values": [vpc_id]}]
    )
    arns = {str(s.get("SubnetArn")) for s in subnets if s.get("SubnetArn")}
    if not arns:
        return []
    associations = ctx.live.paginate(
        "ram", "get_resource_share_associations", "resourceShareAssociations", region=region, associationType="RESOURCE"
    )
    return [
        (
            str(a.get("associatedEntity")),
            f"subnet {a.get('associatedEntity')} of the landing zone's VPC is shared through AWS RAM "
            f"({a.get('resourceShareName')}): other accounts' workloads run in it under their own rules",
            f"aws ram disassociate-resource-share --resource-share-arn {a.get('resourceShareArn')} "
            f"--resource-arns {a.get('associatedEntity')} --region {region}",
        )
        for a in associations
        if a.get("associatedEntity") in arns and str(a.get("status", "")).upper() in ("ASSOCIATED", "ASSOCIATING")
    ]


def _default_acl(w: _Where) -> list[Finding]:
    ctx, vpc_id, region = w.ctx, w.vpc_id, w.region
    acls = ctx.live.paginate(
        "ec2", "describe_network_acls", "NetworkAcls", region=region, Filters=[{"Name": "vpc-id", "Values": [vpc_id]}]
    )
    ours = next((a for a in acls if not a.get("IsDefault")), None)
    target = str(ours.get("NetworkAclId")) if ours else "<the landing zone's network ACL>"
    return [
        (
            str(assoc.get("SubnetId")),
            f"subnet {assoc.get('SubnetId')} is on the VPC's default network ACL {acl.get('NetworkAclId')}, which "
            "EC2 creates untagged: no tag-scoped SCP protects its entries",
            f"aws ec2 replace-network-acl-association --association-id {assoc.get('NetworkAclAssociationId')} "
            f"--network-acl-id {target} --region {region}",
        )
        for acl in acls
        if acl.get("IsDefault")
        for assoc in acl.get("Associations") or []
    ]


# check, what is expected, the probe that lists what is found instead (in the order of CHECKS)
PROBES: tuple[tuple[str, str, Callable[[_Where], list[Finding]]], ...] = (
    ("dns-firewall-association", "no rule group", _firewall),
    ("resolver-rule-association", "auto-defined rules only", _rules),
    ("private-hosted-zone", "no zone shadowing an endpoint name", _zones),
    ("vpc-lattice", "no service network, no resource gateway", _lattice),
    ("ram-shared-subnet", "no subnet shared", _ram),
    ("default-network-acl", "no subnet on it", _default_acl),
)
CHECKS = tuple(check for check, _, _ in PROBES)
