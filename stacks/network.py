"""The private network perimeter: VPC, flow logs and Bedrock interface endpoints with least-privilege policies."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from aws_cdk import CfnOutput
from aws_cdk import aws_kms as kms
from constructs import Construct

from constructs_lib.network import BedrockEndpoints, PrivateNetwork
from landing_zone.core import markers, naming
from landing_zone.plan import Plan
from stacks.base import LandingZoneStack


@dataclass(frozen=True)
class NetworkParts:
    network: PrivateNetwork
    endpoints: BedrockEndpoints


def add_network(
    scope: Construct,
    *,
    plan: Plan,
    logs_key: kms.IKey,
    availability_zones: Sequence[str],
    account: str,
) -> NetworkParts:
    """VPC + flow logs + endpoints with the plan's policies (``account`` replaces the account marker: the member
    baseline's endpoints admit their own account's principals, the per-account ones the configured accounts or
    the organization)."""
    cfg = plan.config
    net = cfg.network
    network = PrivateNetwork(
        scope,
        "Network",
        vpc_cidr=net.vpc_cidr,
        vpc_id=net.vpc_id,
        subnet_ids=net.subnet_ids,
        availability_zones=availability_zones,
        landing_zone_name=cfg.name,
        flow_log_group_name=naming.flow_log_group_name(cfg.name),
        flow_log_key=logs_key,
        flow_log_retention_days=net.flow_log_retention_days,
        flow_log_policy=plan.policies.flow_logs,
    )
    policies: dict[str, dict[str, Any]] = {
        service: markers.resolve(doc, {markers.ACCOUNT: account}) for service, doc in plan.policies.endpoints.items()
    }
    endpoints = BedrockEndpoints(
        scope,
        "BedrockEndpoints",
        vpc=network.vpc,
        subnets=network.subnets,
        allowed_cidr=net.vpc_cidr,
        policies=policies,
    )
    for service, endpoint in sorted(endpoints.endpoints.items()):
        CfnOutput(scope, f"{endpoint.node.id}Id", value=endpoint.vpc_endpoint_id, description=f"{service} endpoint")
    return NetworkParts(network=network, endpoints=endpoints)


class NetworkStack(LandingZoneStack):
    """``network`` (PrivateNetwork) and ``endpoints`` (BedrockEndpoints)."""

    def __init__(self, scope: Construct, construct_id: str, *, plan: Plan, logs_key: kms.IKey, **kwargs: Any) -> None:
        super().__init__(scope, construct_id, plan=plan, **kwargs)
        cfg = plan.config
        parts = add_network(
            self,
            plan=plan,
            logs_key=logs_key,
            availability_zones=self.availability_zones,
            account=cfg.deployment_account,
        )
        self.network = parts.network
        self.endpoints = parts.endpoints
