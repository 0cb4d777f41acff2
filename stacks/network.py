"""The private network perimeter: VPC, flow logs and Bedrock interface endpoints with least-privilege policies."""

from __future__ import annotations

from typing import Any

from aws_cdk import CfnOutput
from aws_cdk import aws_kms as kms
from constructs import Construct

from constructs_lib.network import BedrockEndpoints, PrivateNetwork
from landing_zone.plan import Plan
from stacks.base import LandingZoneStack
from landing_zone.policies.endpoints import endpoint_policy


class NetworkStack(LandingZoneStack):
    def __init__(self, scope: Construct, construct_id: str, *, plan: Plan, logs_key: kms.IKey, **kwargs: Any) -> None:
        super().__init__(scope, construct_id, plan=plan, **kwargs)
        cfg = plan.config
        net = cfg.network
        self.network = PrivateNetwork(
            self,
            "Network",
            vpc_cidr=net.vpc_cidr,
            vpc_id=net.vpc_id,
            subnet_ids=net.subnet_ids,
            availability_zones=self.availability_zones,
            flow_log_group_name=f"/{cfg.name}/vpc-flow-logs",
            flow_log_key=logs_key,
            flow_log_retention_days=net.flow_log_retention_days,
        )
        org_id = cfg.organization.organization_id if cfg.organization else None
        policies = {
            service: endpoint_policy(
                service,
                plan.routing,
                region=cfg.home_region,
                accounts=cfg.account_ids,
                organization_id=org_id,
            )
            for service in net.endpoints
        }
        self.endpoints = BedrockEndpoints(
            self,
            "BedrockEndpoints",
            vpc=self.network.vpc,
            subnets=self.network.subnets,
            allowed_cidr=net.vpc_cidr,
            policies=policies,
        )
        for service, endpoint in sorted(self.endpoints.endpoints.items()):
            CfnOutput(self, f"{endpoint.node.id}Id", value=endpoint.vpc_endpoint_id, description=f"{service} endpoint")
