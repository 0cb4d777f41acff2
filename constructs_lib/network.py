"""The private network perimeter: an isolated VPC (or an imported one) with flow logs, and Bedrock endpoints."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from aws_cdk import RemovalPolicy, Stack, Tags
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_logs as logs
from constructs import Construct

from constructs_lib.cfn import cfn_child, render, render_name
from constructs_lib.compliance import acknowledge, nag_text
from landing_zone.core import arns, naming

# CloudWatch Logs accepts only these retention periods (PutRetentionPolicy API).
RETENTION_DAYS = {
    1: logs.RetentionDays.ONE_DAY,
    3: logs.RetentionDays.THREE_DAYS,
    5: logs.RetentionDays.FIVE_DAYS,
    7: logs.RetentionDays.ONE_WEEK,
    14: logs.RetentionDays.TWO_WEEKS,
    30: logs.RetentionDays.ONE_MONTH,
    60: logs.RetentionDays.TWO_MONTHS,
    90: logs.RetentionDays.THREE_MONTHS,
    120: logs.RetentionDays.FOUR_MONTHS,
    150: logs.RetentionDays.FIVE_MONTHS,
    180: logs.RetentionDays.SIX_MONTHS,
    365: logs.RetentionDays.ONE_YEAR,
    400: logs.RetentionDays.THIRTEEN_MONTHS,
    545: logs.RetentionDays.EIGHTEEN_MONTHS,
    731: logs.RetentionDays.TWO_YEARS,
    1096: logs.RetentionDays.THREE_YEARS,
    1827: logs.RetentionDays.FIVE_YEARS,
    2192: logs.RetentionDays.SIX_YEARS,
    2557: logs.RetentionDays.SEVEN_YEARS,
    2922: logs.RetentionDays.EIGHT_YEARS,
    3288: logs.RetentionDays.NINE_YEARS,
    3653: logs.RetentionDays.TEN_YEARS,
}


class PrivateNetwork(Construct):
    """``vpc`` and ``subnets`` (isolated: no internet route) for the endpoints; ``flow_log_group``.

    ``flow_log_policy``: the flow-log role's document from the plan (``plan.policies.flow_logs``)."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        vpc_cidr: str,
        availability_zones: Sequence[str],
        landing_zone_name: str,
        flow_log_group_name: str,
        flow_log_key: kms.IKey,
        flow_log_retention_days: int,
        flow_log_policy: Mapping[str, Any],
        vpc_id: str | None = None,
        subnet_ids: Sequence[str] = (),
    ) -> None:
        super().__init__(scope, construct_id)
        if vpc_id:
            self.vpc: ec2.IVpc = ec2.Vpc.from_vpc_attributes(
                self,
                "Vpc",
                vpc_id=vpc_id,
                vpc_cidr_block=vpc_cidr,
                availability_zones=list(availability_zones),
                isolated_subnet_ids=list(subnet_ids),
            )
        else:
            self.vpc = ec2.Vpc(
                self,
                "Vpc",
                ip_addresses=ec2.IpAddresses.cidr(vpc_cidr),
                availability_zones=list(availability_zones),
                nat_gateways=0,
                subnet_configuration=[
                    ec2.SubnetConfiguration(name="endpoints", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED, cidr_mask=24)
                ],
                restrict_default_security_group=True,
            )
        self.subnets = ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_ISOLATED)
        if not vpc_id:
            self.network_acl: ec2.NetworkAcl | None = _endpoint_subnets_acl(self, self.vpc, self.subnets, vpc_cidr)
        else:
            self.network_acl = None  # an imported VPC's subnets keep the ACL their owner gave them
        self.flow_log_group = logs.LogGroup(
            self,
            "FlowLogs",
            log_group_name=render_name(self, flow_log_group_name),
            encryption_key=flow_log_key,
            retention=RETENTION_DAYS[flow_log_retention_days],
            removal_policy=RemovalPolicy.RETAIN,
        )
        stack = Stack.of(self)
        flow_log_managed = iam.ManagedPolicy(
            self,
            "FlowLogPolicy",
            managed_policy_name=naming.flow_logs_policy_name(landing_zone_name),
            document=iam.PolicyDocument.from_json(render(self, flow_log_policy)),
        )
        acknowledge(
            flow_log_managed,
            "AwsSolutions-IAM5",
            finding="Resource::"
            + nag_text(
                self,
                arns.log_streams(stack.region, stack.account, render_name(self, flow_log_group_name), stack.partition),
            ),
            reason="VPC Flow Logs creates and names the log streams of this one log group",
        )
        self.flow_log_role = iam.Role(
            self,
            "FlowLogRole",
            role_name=naming.flow_logs_role_name(landing_zone_name),
            # confused deputy: only flow logs of this account and Region may use the role
            assumed_by=iam.ServicePrincipal(
                "vpc-flow-logs.amazonaws.com",
                conditions={
                    "StringEquals": {"aws:SourceAccount": stack.account},
                    "ArnLike": {
                        "aws:SourceArn": f"arn:{stack.partition}:ec2:{stack.region}:{stack.account}:vpc-flow-log/*"
                    },
                },
            ),
            managed_policies=[flow_log_managed],
            description="VPC Flow Logs delivery to the landing zone's encrypted log group",
        )
        self.flow_log = ec2.FlowLog(
            self,
            "FlowLog",
            resource_type=ec2.FlowLogResourceType.from_vpc(self.vpc),
            destination=ec2.FlowLogDestination.to_cloud_watch_logs(
                self.flow_log_group,
                # immutable: CDK must not add an inline policy to the managed-policy-only role
                iam.Role.from_role_arn(self, "FlowLogRoleRef", self.flow_log_role.role_arn, mutable=False),
            ),
            traffic_type=ec2.FlowLogTrafficType.ALL,
        )


def _endpoint_subnets_acl(
    scope: Construct, vpc: ec2.IVpc, subnets: ec2.SubnetSelection, vpc_cidr: str
) -> ec2.NetworkAcl:
    """An explicit network ACL for the endpoint subnets, in place of the VPC's default one.

    The default network ACL is created by EC2 untagged, so no tag-scoped SCP protects its entries: an administrator
    could add a DENY for port 443 and cut every invoker off the endpoints.  This ACL carries the stack's tags
    (``landing-zone`` among them), so ``DenyTaggedResourceTampering`` denies changing its entries or replacing the
    subnets' association (ReplaceNetworkAclAssociation is authorized on the subnet and the ACL, both tagged).  It
    filters no more than a default ACL would where traffic can come from (the security groups filter): everything
    within the VPC, return traffic on ephemeral ports from gateway endpoints (S3 for image layers), all egress.
    """
    acl = ec2.NetworkAcl(scope, "EndpointSubnetsAcl", vpc=vpc, subnet_selection=subnets)
    acl.add_entry(
        "InboundFromVpc",
        cidr=ec2.AclCidr.ipv4(vpc_cidr),
        rule_number=100,
        traffic=ec2.AclTraffic.all_traffic(),
        direction=ec2.TrafficDirection.INGRESS,
    )
    acl.add_entry(
        "InboundReturnTraffic",
        cidr=ec2.AclCidr.any_ipv4(),
        rule_number=200,
        traffic=ec2.AclTraffic.tcp_port_range(1024, 65535),
        direction=ec2.TrafficDirection.INGRESS,
    )
    acl.add_entry(
        "OutboundAll",
        cidr=ec2.AclCidr.any_ipv4(),
        rule_number=100,
        traffic=ec2.AclTraffic.all_traffic(),
        direction=ec2.TrafficDirection.EGRESS,
    )
    acknowledge(
        acl,
        "AwsSolutions-VPC3",
        reason="the ACL replaces the subnets' untagged default ACL so that DenyTaggedResourceTampering protects it; "
        "its entries admit what the default ACL would from inside the VPC, and the security groups filter",
    )
    return acl


class InterfaceEndpoints(Construct):
    """Interface endpoints with private DNS behind one security group that admits only HTTPS from the VPC.

    ``services``: service name -> endpoint policy (set verbatim on the CloudFormation resource, so the template
    carries exactly what the pure builder produced) or None for the service's default policy.  Each endpoint is
    tagged ``<tag_key> = <service>``.  ``endpoints``: service name -> endpoint.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        vpc: ec2.IVpc,
        subnets: ec2.SubnetSelection,
        allowed_cidr: str,
        services: Mapping[str, Mapping[str, Any] | None],
        tag_key: str,
        description: str,
    ) -> None:
        super().__init__(scope, construct_id)
        self.security_group = ec2.SecurityGroup(
            self, "SecurityGroup", vpc=vpc, description=description, allow_all_outbound=False
        )
        self.security_group.add_ingress_rule(ec2.Peer.ipv4(allowed_cidr), ec2.Port.tcp(443), "HTTPS from the VPC")
        self.endpoints: dict[str, ec2.InterfaceVpcEndpoint] = {}
        for service, policy in sorted(services.items()):
            endpoint = ec2.InterfaceVpcEndpoint(
                self,
                _construct_id(service),
                vpc=vpc,
                # The generic form: no CDK constant exists for some services (e.g. bedrock-mantle).
                service=ec2.InterfaceVpcEndpointAwsService(service),
                private_dns_enabled=True,
                open=False,
                security_groups=[self.security_group],
                subnets=subnets,
            )
            if policy is not None:
                cfn_child(endpoint, ec2.CfnVPCEndpoint).policy_document = dict(policy)
            Tags.of(endpoint).add(tag_key, service)
            self.endpoints[service] = endpoint


class BedrockEndpoints(InterfaceEndpoints):
    """The Bedrock endpoints (runtime, mantle, control plane), each with its least-privilege policy."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        vpc: ec2.IVpc,
        subnets: ec2.SubnetSelection,
        allowed_cidr: str,
        policies: Mapping[str, Mapping[str, Any]],
    ) -> None:
        super().__init__(
            scope,
            construct_id,
            vpc=vpc,
            subnets=subnets,
            allowed_cidr=allowed_cidr,
            services=policies,
            tag_key="bedrock-endpoint-service",
            description="Bedrock interface endpoints: HTTPS from inside the VPC only",
        )


def _construct_id(service: str) -> str:
    return "".join(part.capitalize() for part in service.replace(".", "-").split("-")) + "Endpoint"
