"""The moto state a test gets restored (tests/support/moto_state.py) is the deployment the calls made, and what a test
changes in its copy never reaches the next test."""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import boto3
import pytest
from moto import mock_aws

from landing_zone.assembly import Assembly
from landing_zone.aws import use_client_factory
from tests.moto.harness import Deployed, deploy_intent
from tests.support import moto_state

pytestmark = pytest.mark.moto


@contextmanager
def _deployment(eu) -> Iterator[Deployed]:
    with mock_aws():
        state = deploy_intent(Assembly.load(eu.outdir), eu.plan)
        with use_client_factory(state.factory()):
            yield state


def _verify(cli: Callable, verify_args: Callable) -> dict:
    code, stdout, stderr = cli(verify_args("--json"))
    assert code == 0, stdout + stderr
    return json.loads(stdout)


def _scps(state: Deployed) -> dict[str, str]:
    org = state.client("organizations", management=True)
    policies = org.list_policies(Filter="SERVICE_CONTROL_POLICY")["Policies"]
    return {p["Id"]: org.describe_policy(PolicyId=p["Id"])["Policy"]["Content"] for p in policies}


def test_a_restored_deployment_is_the_one_made_and_a_tests_changes_stay_in_its_copy(
    eu, cli, verify_args, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MOTO_EC2_LOAD_DEFAULT_AMIS", "false")
    monkeypatch.setattr(moto_state, "_KEPT", OrderedDict())  # this worker's earlier deployments are not used
    made, restored = moto_state.STATS["deployed"], moto_state.STATS["restored"]

    with _deployment(eu) as first:
        assert moto_state.STATS["deployed"] == made + 1  # the calls were made
        before, scps = _verify(cli, verify_args), _scps(first)
        # the test changes its deployment: a guardrail SCP detached and deleted, an alias moved
        org = first.client("organizations", management=True)
        victim = next(p for p, content in scps.items() if "Deny" in content)
        for target in org.list_targets_for_policy(PolicyId=victim)["Targets"]:
            org.detach_policy(PolicyId=victim, TargetId=target["TargetId"])
        org.delete_policy(PolicyId=victim)
        assert victim not in _scps(first)

    with _deployment(eu) as second:
        assert moto_state.STATS["restored"] == restored + 1  # restored, not made again
        assert _scps(second) == scps  # the deleted SCP is back, with the same ID and content
        assert _verify(cli, verify_args) == before  # verify reads exactly what it read from the deployment made
        second.accounts.assert_stubs_consumed()


def test_a_deployment_into_a_mock_that_holds_state_makes_its_calls(eu, monkeypatch: pytest.MonkeyPatch) -> None:
    """Restoring would wipe what the mock already holds (e.g. a StackSet's management account next to its member)."""
    monkeypatch.setattr(moto_state, "_KEPT", OrderedDict())
    assembly = Assembly.load(eu.outdir)
    made: list[str] = []

    def deploy(*_: object, **__: object) -> str:
        made.append("calls")
        return "deployed"

    with mock_aws():
        boto3.client("s3", region_name="us-east-1").create_bucket(Bucket="already-here")
        assert not moto_state.moto_is_empty()
        assert moto_state.deploy_once(deploy, assembly, eu.plan, None, None) == "deployed"
        assert moto_state.deploy_once(deploy, assembly, eu.plan, None, None) == "deployed"
    assert made == ["calls", "calls"] and not moto_state._KEPT


def _next_automatic_addresses(state: Deployed) -> dict[str, str]:
    """Per subnet of the deployment (by CIDR): the address a Resolver endpoint created without one gets there (the
    service picks it, in AWS as in moto)."""
    ec2, resolver = state.client("ec2"), state.client("route53resolver")
    subnets = {s["SubnetId"]: s["CidrBlock"] for s in ec2.describe_subnets()["Subnets"] if not s["DefaultForAz"]}
    vpc = next(s["VpcId"] for s in ec2.describe_subnets(SubnetIds=[next(iter(subnets))])["Subnets"])
    group = ec2.create_security_group(GroupName="probe", Description="probe", VpcId=vpc)["GroupId"]
    endpoint = resolver.create_resolver_endpoint(
        CreatorRequestId="probe",
        SecurityGroupIds=[group],
        Direction="OUTBOUND",
        IpAddresses=[{"SubnetId": s} for s in subnets],
    )["ResolverEndpoint"]
    addresses = resolver.list_resolver_endpoint_ip_addresses(ResolverEndpointId=endpoint["Id"])["IpAddresses"]
    return {subnets[a["SubnetId"]]: a["Ip"] for a in addresses}


def test_a_restored_subnet_hands_out_the_address_the_deployed_one_would(eu, monkeypatch: pytest.MonkeyPatch) -> None:
    """moto keeps a subnet's address allocator outside its backend: a restored subnet gives the next free address, as
    the deployment made does, never a host AWS reserves (a CIDR's first three hosts, VPC Resolver endpoints refuse
    them)."""
    import ipaddress

    monkeypatch.setattr(moto_state, "_KEPT", OrderedDict())
    with _deployment(eu) as first:
        made = _next_automatic_addresses(first)
    with _deployment(eu) as second:
        assert moto_state.STATS["restored"] and _next_automatic_addresses(second) == made
    assert len(made) >= 2  # the deployment's own subnets (an endpoint needs two)
    for cidr, address in made.items():
        reserved = list(ipaddress.ip_network(cidr).hosts())[:3]
        assert (
            ipaddress.ip_address(address) in ipaddress.ip_network(cidr)
            and ipaddress.ip_address(address) not in reserved
        )
