"""verify's network-path family (issue 35, deliverable 1): what reroutes or cuts off the endpoints where no SCP key
reaches.  Each test changes the moto deployment as an administrator of the governed account would (through the same
boto3 APIs) and asserts exactly which row stops passing, and the remediation its detail gives; the PASS side comes
first, on the untouched deployment."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.moto.harness import Deployed

pytestmark = pytest.mark.moto

REGION = "eu-central-1"
NETWORK_PATH = {
    "dns-firewall-association",
    "resolver-rule-association",
    "private-hosted-zone",
    "vpc-lattice",
    "ram-shared-subnet",
    "default-network-acl",
}


def _run(cli: Callable, verify_args: Callable) -> tuple[int, dict]:
    code, stdout, _ = cli(verify_args("--json"))
    return code, json.loads(stdout)


def _bad(data: dict) -> list[dict]:
    return [r for r in data["checks"] if r["status"] != "PASS"]


def _vpc(d: Deployed) -> str:
    return str(d.ids[d.first("AWS::EC2::VPC").path])


def test_every_network_path_check_passes_on_the_deployment(deployed: Deployed, cli, verify_args) -> None:
    code, data = _run(cli, verify_args)
    assert code == 0, _bad(data)
    ours = [r for r in data["checks"] if r["check"] in NETWORK_PATH]
    assert {r["check"] for r in ours} == NETWORK_PATH
    assert {r["resource"] for r in ours} == {f"VPC {_vpc(deployed)}"}


def test_a_private_zone_shadowing_the_runtime_endpoint_is_drift(deployed: Deployed, cli, verify_args) -> None:
    r53 = deployed.client("route53")
    zone = r53.create_hosted_zone(
        Name=f"bedrock-runtime.{REGION}.amazonaws.com",
        CallerReference="shadow",
        HostedZoneConfig={"Comment": "shadow", "PrivateZone": True},
        VPC={"VPCRegion": REGION, "VPCId": _vpc(deployed)},
    )["HostedZone"]
    # a private zone of an unrelated name on the same VPC is no finding
    r53.create_hosted_zone(
        Name="corp.example.",
        CallerReference="corp",
        HostedZoneConfig={"Comment": "corp", "PrivateZone": True},
        VPC={"VPCRegion": REGION, "VPCId": _vpc(deployed)},
    )
    code, data = _run(cli, verify_args)
    assert code == 1
    (row,) = _bad(data)
    zone_id = zone["Id"].rsplit("/", 1)[-1]
    assert row["check"] == "private-hosted-zone" and row["status"] == "DRIFT" and zone_id in row["resource"]
    assert f"disassociate-vpc-from-hosted-zone --hosted-zone-id {zone_id}" in row["detail"]


def test_a_forwarding_rule_on_the_vpc_is_drift(deployed: Deployed, cli, verify_args) -> None:
    resolver = deployed.client("route53resolver")
    ec2 = deployed.client("ec2")
    subnets = [
        s["SubnetId"] for s in ec2.describe_subnets(Filters=[{"Name": "vpc-id", "Values": [_vpc(deployed)]}])["Subnets"]
    ]
    group = ec2.create_security_group(GroupName="resolver", Description="resolver", VpcId=_vpc(deployed))["GroupId"]
    endpoint = resolver.create_resolver_endpoint(
        CreatorRequestId="out",
        SecurityGroupIds=[group],
        Direction="OUTBOUND",
        IpAddresses=[{"SubnetId": s} for s in subnets[:2]],
    )["ResolverEndpoint"]
    rule = resolver.create_resolver_rule(
        CreatorRequestId="fwd",
        RuleType="FORWARD",
        DomainName="amazonaws.com",
        TargetIps=[{"Ip": "192.0.2.53", "Port": 53}],
        ResolverEndpointId=endpoint["Id"],
    )["ResolverRule"]
    resolver.associate_resolver_rule(ResolverRuleId=rule["Id"], VPCId=_vpc(deployed))
    code, data = _run(cli, verify_args)
    assert code == 1
    bad = [r for r in _bad(data) if r["check"] != "security-group-ingress"]  # nothing else but our probe group
    (row,) = [r for r in bad if r["check"] == "resolver-rule-association"]
    assert row["status"] == "DRIFT" and rule["Id"] in row["resource"]
    assert f"disassociate-resolver-rule --vpc-id {_vpc(deployed)} --resolver-rule-id {rule['Id']}" in row["detail"]


def test_an_endpoint_subnet_back_on_the_default_acl_is_drift(deployed: Deployed, cli, verify_args) -> None:
    ec2 = deployed.client("ec2")
    acls = ec2.describe_network_acls(Filters=[{"Name": "vpc-id", "Values": [_vpc(deployed)]}])["NetworkAcls"]
    default = next(a["NetworkAclId"] for a in acls if a["IsDefault"])
    ours = next(a for a in acls if not a["IsDefault"] and a.get("Associations"))
    moved = ours["Associations"][0]
    ec2.replace_network_acl_association(AssociationId=moved["NetworkAclAssociationId"], NetworkAclId=default)
    code, data = _run(cli, verify_args)
    assert code == 1
    (row,) = _bad(data)
    assert row["check"] == "default-network-acl" and moved["SubnetId"] in row["resource"]
    assert f"--network-acl-id {ours['NetworkAclId']}" in row["detail"]


def test_a_lattice_service_network_association_is_drift(deployed: Deployed, cli, verify_args) -> None:
    lattice = deployed.client("vpc-lattice")
    network = lattice.create_service_network(name="elsewhere")
    association = lattice.create_service_network_vpc_association(
        serviceNetworkIdentifier=network["id"], vpcIdentifier=_vpc(deployed)
    )
    code, data = _run(cli, verify_args)
    assert code == 1
    (row,) = _bad(data)
    assert row["check"] == "vpc-lattice" and association["id"] in row["resource"]
    assert "delete-service-network-vpc-association" in row["detail"]
