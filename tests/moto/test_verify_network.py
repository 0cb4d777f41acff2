"""verify sees the network, the tags, termination protection and moved aliases (issue 24 item 5).

Each test changes the moto deployment the way an attacker (or a careless operator) would, through the same boto3
APIs, and asserts exactly which rows stop passing, their status and the remediation their detail gives.  The PASS
side of every new check is asserted first, on the untouched deployment."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.moto.harness import Deployed
from tests.moto.test_verify import failing, rows

pytestmark = pytest.mark.moto

REGION = "eu-central-1"
ALLOW_ALL = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": "*", "Action": "*", "Resource": "*"}],
}


def _run(cli: Callable, verify_args: Callable) -> tuple[int, dict]:
    code, stdout, _ = cli(verify_args("--json"))
    return code, json.loads(stdout)


def _bad(data: dict) -> list[dict]:
    return [r for r in data["checks"] if r["status"] != "PASS"]


def _id(d: Deployed, resource_type: str) -> str:
    return str(d.ids[d.first(resource_type).path])


def _endpoint_group(d: Deployed) -> str:
    return next(
        str(d.ids[r.path])
        for r in d.assembly.resources("AWS::EC2::SecurityGroup")
        if r.prop("GroupDescription", "").startswith("Bedrock")
    )


def _default_group(d: Deployed) -> str:
    ec2 = d.client("ec2")
    return ec2.describe_security_groups(
        Filters=[
            {"Name": "vpc-id", "Values": [_id(d, "AWS::EC2::VPC")]},
            {"Name": "group-name", "Values": ["default"]},
        ]
    )["SecurityGroups"][0]["GroupId"]


# --------------------------------------------------------------------------------------------------
# PASS: the new checks on the untouched deployment
# --------------------------------------------------------------------------------------------------


def test_the_network_tags_aliases_and_protection_pass_as_deployed(deployed: Deployed, cli, verify_args) -> None:
    code, stdout, _ = cli(verify_args("--json"))
    assert code == 0, failing(stdout)
    group = _endpoint_group(deployed)
    ingress = next(r for r in rows(stdout, "security-group-ingress") if r["resource"].startswith(group))
    assert ingress["expected"] == ingress["actual"] == "tcp:443 10.60.0.0/16"
    egress = next(r for r in rows(stdout, "security-group-egress") if r["resource"].startswith(group))
    assert egress["expected"] == egress["actual"]  # CDK's "disallow all" placeholder rule, nothing else
    assert [r["actual"] for r in rows(stdout, "default-security-group")] == ["no rules"]
    assert {r["actual"] for r in rows(stdout, "route-table")} == {"as synthesized"}
    assert [r["actual"] for r in rows(stdout, "vpc-internet-gateway")] == ["none"]
    (endpoints,) = rows(stdout, "vpc-endpoint-unexpected")
    assert endpoints["actual"] == "3 endpoint(s), none other"
    aliases = {r["resource"]: r for r in rows(stdout, "kms-alias")}
    # management-logs: the cost-allocation activation in the management account (asked with its profile)
    assert set(aliases) == {"alias/kimi-eu/logs", "alias/kimi-eu/alerts", "alias/kimi-eu/management-logs"}
    assert all(r["expected"] == r["actual"] for r in aliases.values())
    protection = {r["resource"]: r["actual"] for r in rows(stdout, "stack-termination-protection")}
    assert protection["kimi-eu-keys"] == "enabled" and protection["kimi-eu-access"] == "disabled"
    tagged = {r["resource"].split(" (")[1].rstrip(")") for r in rows(stdout, "tags")}
    assert {"VPC", "VPCEndpoint", "Key", "SecurityGroup", "Subnet", "RouteTable", "Bucket", "Role"} <= tagged
    assert all("landing-zone=kimi-eu" in r["expected"] for r in rows(stdout, "tags"))


def test_keys_are_resolved_from_the_stack_not_the_alias(deployed: Deployed, cli, verify_args) -> None:
    code, stdout, _ = cli(verify_args("--json"))
    assert code == 0
    logs_key = str(deployed.ids["kimi-eu-keys/" + _logical(deployed, "alias/kimi-eu/logs")])
    (row,) = [r for r in rows(stdout, "kms-key") if r["resource"] == "alias/kimi-eu/logs"]
    assert logs_key in row["actual"]


def _logical(d: Deployed, alias: str) -> str:
    for res in d.assembly.resources("AWS::KMS::Alias"):
        if res.prop("AliasName") == alias:
            target = res.prop("TargetKeyId")
            return str(target["Fn::GetAtt"][0] if "Fn::GetAtt" in target else target["Ref"])
    raise AssertionError(alias)


# --------------------------------------------------------------------------------------------------
# DRIFT: one attack each
# --------------------------------------------------------------------------------------------------


def test_ingress_opened_to_the_internet(deployed: Deployed, cli, verify_args) -> None:
    group = _endpoint_group(deployed)
    deployed.client("ec2").authorize_security_group_ingress(
        GroupId=group,
        IpPermissions=[{"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}],
    )
    code, data = _run(cli, verify_args)
    assert code == 1
    (row,) = _bad(data)
    assert (row["check"], row["status"]) == ("security-group-ingress", "DRIFT")
    assert row["resource"].startswith(group)
    assert "ingress open to the internet: tcp:443 0.0.0.0/0" in row["detail"]
    assert f"aws ec2 revoke-security-group-ingress --group-id {group} --ip-permissions" in row["detail"]
    assert '"CidrIp":"0.0.0.0/0"' in row["detail"]


def test_ingress_revoked(deployed: Deployed, cli, verify_args) -> None:
    group = _endpoint_group(deployed)
    ec2 = deployed.client("ec2")
    permissions = ec2.describe_security_groups(GroupIds=[group])["SecurityGroups"][0]["IpPermissions"]
    ec2.revoke_security_group_ingress(GroupId=group, IpPermissions=permissions)
    code, data = _run(cli, verify_args)
    assert code == 1
    (row,) = _bad(data)
    assert (row["check"], row["status"], row["actual"]) == ("security-group-ingress", "DRIFT", "(none)")
    assert (
        "- tcp:443" in row["detail"] and f"aws ec2 authorize-security-group-ingress --group-id {group}" in row["detail"]
    )


def test_egress_opened_to_everything(deployed: Deployed, cli, verify_args) -> None:
    group = _endpoint_group(deployed)
    deployed.client("ec2").authorize_security_group_egress(
        GroupId=group, IpPermissions=[{"IpProtocol": "-1", "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}]
    )
    code, data = _run(cli, verify_args)
    assert code == 1
    (row,) = _bad(data)
    assert (row["check"], row["status"]) == ("security-group-egress", "DRIFT")
    assert "egress open to the internet: all 0.0.0.0/0" in row["detail"]
    assert f"aws ec2 revoke-security-group-egress --group-id {group}" in row["detail"]


def test_default_security_group_given_its_rules_back(deployed: Deployed, cli, verify_args) -> None:
    group = _default_group(deployed)
    ec2 = deployed.client("ec2")
    ec2.authorize_security_group_ingress(
        GroupId=group, IpPermissions=[{"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": group}]}]
    )
    ec2.authorize_security_group_egress(
        GroupId=group, IpPermissions=[{"IpProtocol": "-1", "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}]
    )
    code, data = _run(cli, verify_args)
    assert code == 1
    (row,) = _bad(data)
    assert (row["check"], row["status"], row["resource"]) == ("default-security-group", "DRIFT", f"{group} (default)")
    assert row["actual"] == f"in all {group}, out all 0.0.0.0/0"
    assert f"aws ec2 revoke-security-group-ingress --group-id {group}" in row["detail"]
    assert f"aws ec2 revoke-security-group-egress --group-id {group}" in row["detail"]


def test_internet_gateway_and_a_default_route_in_an_endpoint_subnet(deployed: Deployed, cli, verify_args) -> None:
    ec2 = deployed.client("ec2")
    vpc = _id(deployed, "AWS::EC2::VPC")
    table = _id(deployed, "AWS::EC2::RouteTable")
    igw = ec2.create_internet_gateway()["InternetGateway"]["InternetGatewayId"]
    ec2.attach_internet_gateway(InternetGatewayId=igw, VpcId=vpc)
    ec2.create_route(RouteTableId=table, DestinationCidrBlock="0.0.0.0/0", GatewayId=igw)
    code, data = _run(cli, verify_args)
    assert code == 1
    bad = {(r["check"], r["status"], r["resource"]): r for r in _bad(data)}
    assert set(bad) == {
        ("vpc-internet-gateway", "DRIFT", f"VPC {vpc}"),
        ("route-table", "DRIFT", f"{table} (VPC {vpc})"),
    }
    gateway = bad[("vpc-internet-gateway", "DRIFT", f"VPC {vpc}")]
    assert gateway["actual"] == igw
    assert f"aws ec2 detach-internet-gateway --internet-gateway-id {igw} --vpc-id {vpc}" in gateway["detail"]
    route = bad[("route-table", "DRIFT", f"{table} (VPC {vpc})")]
    assert route["actual"] == f"0.0.0.0/0 -> {igw}"
    assert f"aws ec2 delete-route --route-table-id {table} --destination-cidr-block 0.0.0.0/0" in route["detail"]


def test_a_second_untagged_bedrock_endpoint_with_an_allow_all_policy(deployed: Deployed, cli, verify_args) -> None:
    ec2 = deployed.client("ec2")
    vpc = _id(deployed, "AWS::EC2::VPC")
    rogue = ec2.create_vpc_endpoint(
        VpcId=vpc,
        ServiceName=f"com.amazonaws.{REGION}.bedrock-runtime",
        VpcEndpointType="Interface",
        SubnetIds=[_id(deployed, "AWS::EC2::Subnet")],
        PolicyDocument=json.dumps(ALLOW_ALL),
    )["VpcEndpoint"]["VpcEndpointId"]
    code, data = _run(cli, verify_args)
    assert code == 1
    (row,) = _bad(data)  # the synthesized endpoints still pass: they are found by their tags
    assert (row["check"], row["status"]) == ("vpc-endpoint-unexpected", "DRIFT")
    assert row["resource"] == f"{rogue} (VPC {vpc})"
    assert row["actual"] == f"{rogue} com.amazonaws.{REGION}.bedrock-runtime"
    assert '"Action": "*"' in row["detail"] or '"Action":"*"' in row["detail"]  # the policy, shown
    assert "tags (no tags)" in row["detail"]
    assert f"aws ec2 delete-vpc-endpoints --vpc-endpoint-ids {rogue}" in row["detail"]


@pytest.mark.parametrize("resource_type", ["AWS::EC2::VPCEndpoint", "AWS::EC2::VPC"])
def test_landing_zone_tag_removed_from_the_network(deployed: Deployed, cli, verify_args, resource_type) -> None:
    physical = _id(deployed, resource_type)
    deployed.client("ec2").delete_tags(Resources=[physical], Tags=[{"Key": "landing-zone"}])
    code, data = _run(cli, verify_args)
    assert code == 1
    (row,) = _bad(data)
    assert (row["check"], row["status"], row["actual"]) == ("tags", "DRIFT", "no landing-zone")
    assert row["resource"].startswith(physical)
    assert "tamper-deny SCPs key on" in row["detail"]
    assert f"aws ec2 create-tags --resources {physical} --tags Key=landing-zone,Value=kimi-eu" in row["detail"]


def test_landing_zone_tag_removed_from_the_logs_key(deployed: Deployed, cli, verify_args) -> None:
    key = str(deployed.ids["kimi-eu-keys/" + _logical(deployed, "alias/kimi-eu/logs")])
    deployed.client("kms").untag_resource(KeyId=key, TagKeys=["landing-zone"])
    code, data = _run(cli, verify_args)
    assert code == 1
    (row,) = _bad(data)
    assert (row["check"], row["status"], row["resource"]) == ("tags", "DRIFT", f"{key} (Key)")
    assert f"aws kms tag-resource --key-id {key} --tags TagKey=landing-zone,TagValue=kimi-eu" in row["detail"]


def test_termination_protection_turned_off(deployed: Deployed, cli, verify_args) -> None:
    deployed.moto_stack("kimi-eu-keys").enable_termination_protection = False  # moto lacks the Update API
    code, data = _run(cli, verify_args)
    assert code == 1
    (row,) = _bad(data)
    assert (row["check"], row["status"], row["resource"]) == ("stack-termination-protection", "DRIFT", "kimi-eu-keys")
    assert (row["expected"], row["actual"]) == ("enabled", "disabled")
    assert (
        "aws cloudformation update-termination-protection --enable-termination-protection --stack-name kimi-eu-keys"
        in row["detail"]
    )


def test_a_moved_alias_is_one_drift_row_and_the_rest_keep_the_right_key(deployed: Deployed, cli, verify_args) -> None:
    kms = deployed.client("kms")
    right = str(deployed.ids["kimi-eu-keys/" + _logical(deployed, "alias/kimi-eu/logs")])
    wrong = kms.create_key(Description="an attacker's key")["KeyMetadata"]["KeyId"]
    kms.update_alias(AliasName="alias/kimi-eu/logs", TargetKeyId=wrong)
    code, data = _run(cli, verify_args)
    assert code == 1
    (row,) = _bad(data)  # before issue 24: 5 rows told the operator to move the buckets and log groups to `wrong`
    assert (row["check"], row["status"], row["resource"]) == ("kms-alias", "DRIFT", "alias/kimi-eu/logs")
    assert (row["expected"], row["actual"]) == (f"-> {right}", f"-> {wrong}")
    assert f"aws kms update-alias --alias-name alias/kimi-eu/logs --target-key-id {right}" in row["detail"]
    assert wrong not in json.dumps([r for r in data["checks"] if r["check"] != "kms-alias"])


def test_a_deleted_alias_is_missing_and_the_key_is_still_checked(deployed: Deployed, cli, verify_args) -> None:
    right = str(deployed.ids["kimi-eu-keys/" + _logical(deployed, "alias/kimi-eu/alerts")])
    deployed.client("kms").delete_alias(AliasName="alias/kimi-eu/alerts")
    code, data = _run(cli, verify_args)
    assert code == 1
    (row,) = _bad(data)  # kms-key, rotation, policy and the topic's key still pass: the key comes from the stack
    assert (row["check"], row["status"], row["resource"]) == ("kms-alias", "MISSING", "alias/kimi-eu/alerts")
    assert f"aws kms create-alias --alias-name alias/kimi-eu/alerts --target-key-id {right}" in row["detail"]
