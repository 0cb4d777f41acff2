"""Self-hosted inference on EKS (aws_eks_v2): a private cluster in the isolated VPC with a GPU node group.

* :class:`NodeEndpoints` - the VPC endpoints nodes need when the VPC has no internet path (ECR API and
  registry, S3 gateway for image layers, STS, EC2 for the VPC CNI, EKS, EKS Auth for Pod Identity, CloudWatch
  Logs, Elastic Load Balancing; Lambda too when the kubectl provider runs in the VPC).
* :class:`GpuInferenceCluster` - the cluster (private endpoint, API authentication mode with access entries,
  secrets envelope-encrypted with the landing zone's ``secrets`` key, all control-plane log types to a
  KMS-encrypted log group), the managed add-ons a GPU node needs, a small system node group and the GPU node
  group (AL2023 NVIDIA AMI, instance type in the launch template, Capacity Block or on-demand, IMDSv2,
  KMS-encrypted gp3 root volume, NVMe RAID0 weight cache, ``nvidia.com/gpu`` NoSchedule taint, optional EFA).

The instance type of the GPU group lives in the launch template, not in the node group's
``instance_types``: aws-cdk-lib 2.275 rejects ``ec2.InstanceType("p6-b300.48xlarge")`` in node-group
validation (MalformedInstanceTypeIdentifier), and a launch template carries it verbatim.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping, Sequence
from typing import Any, cast

from aws_cdk import Annotations, CfnOutput, RemovalPolicy, Tags
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_logs as logs
from constructs import Construct

from constructs_lib.cfn import cfn_child, logical_id, render, render_name
from constructs_lib.compliance import acknowledge
from constructs_lib.keys import LandingZoneKey
from constructs_lib.network import RETENTION_DAYS, InterfaceEndpoints
from landing_zone.core import markers, naming
from landing_zone.kubernetes.manifests import (
    GPU_NODE_LABELS,
    GPU_TAINT_KEY,
    GPU_TAINT_VALUE,
    NVME_MOUNT_PATH,
    SYSTEM_NODE_LABELS,
    node_config_yaml,
    nvme_raid_script,
)

# Interface endpoints (com.amazonaws.<region>.<name>) the nodes use; why each one:
NODE_INTERFACE_ENDPOINTS: Mapping[str, str] = {
    "ecr.api": "ECR API: image manifests and auth tokens",
    "ecr.dkr": "ECR registry: image pulls (layers come from S3 through the gateway endpoint)",
    "sts": "STS: IAM roles and the kubelet's token exchange",
    "ec2": "EC2: the VPC CNI assigns ENIs and IP addresses",
    "eks": "EKS: cluster discovery by nodeadm and the kubectl provider",
    "eks-auth": "EKS Auth: Pod Identity credentials (AssumeRoleForPodIdentity)",
    "logs": "CloudWatch Logs: container and node logs",
    "elasticloadbalancing": "Elastic Load Balancing: the internal NLB of the vLLM Service",
}
KUBECTL_INTERFACE_ENDPOINTS: Mapping[str, str] = {
    "lambda": "Lambda: the in-VPC custom-resource framework invokes the kubectl handler",
}
CONTROL_PLANE_LOG_TYPES = (
    eks.ClusterLoggingTypes.API,
    eks.ClusterLoggingTypes.AUDIT,
    eks.ClusterLoggingTypes.AUTHENTICATOR,
    eks.ClusterLoggingTypes.CONTROLLER_MANAGER,
    eks.ClusterLoggingTypes.SCHEDULER,
)
# Managed add-ons: the first three are DaemonSets and may be installed before any node exists; CoreDNS is a
# Deployment and waits for the system nodes.
NODE_ADDONS = ("vpc-cni", "kube-proxy", "eks-pod-identity-agent")
CLUSTER_DNS_ADDON = "coredns"


class NodeEndpoints(Construct):
    """Interface endpoints (private DNS, 443 from the VPC only) and an S3 gateway endpoint for the nodes.

    ``endpoints``: service name -> interface endpoint; ``s3``: the gateway endpoint (None for an imported VPC
    whose route tables are unknown; add one there yourself) with ``s3_gateway_policy`` (the plan's
    ``policies.self_hosting.s3_gateway``, None for an imported VPC).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        vpc: ec2.IVpc,
        subnets: ec2.SubnetSelection,
        allowed_cidr: str,
        s3_gateway_policy: Mapping[str, Any] | None,
        include_kubectl: bool = False,
    ) -> None:
        super().__init__(scope, construct_id)
        services = dict(NODE_INTERFACE_ENDPOINTS)
        if include_kubectl:
            services.update(KUBECTL_INTERFACE_ENDPOINTS)
        interface = InterfaceEndpoints(
            self,
            "Interface",
            vpc=vpc,
            subnets=subnets,
            allowed_cidr=allowed_cidr,
            services=dict.fromkeys(services),
            tag_key="self-hosting-endpoint-service",
            description="EKS node endpoints: HTTPS from inside the VPC only",
        )
        self.security_group = interface.security_group
        self.endpoints: dict[str, ec2.InterfaceVpcEndpoint] = interface.endpoints
        for service, endpoint in self.endpoints.items():
            Tags.of(endpoint).add("purpose", services[service][:255])
        self.s3: ec2.GatewayVpcEndpoint | None = None
        if isinstance(vpc, ec2.Vpc):
            self.s3 = ec2.GatewayVpcEndpoint(
                self,
                "S3GatewayEndpoint",
                vpc=vpc,
                service=ec2.GatewayVpcEndpointAwsService.S3,
                subnets=[subnets],
            )
            if s3_gateway_policy is None:
                raise ValueError(f"{self.node.path}: a new VPC gets an S3 gateway endpoint, which needs its policy")
            cfn_child(self.s3, ec2.CfnVPCEndpoint).policy_document = render(self, s3_gateway_policy)
            Tags.of(self.s3).add("self-hosting-endpoint-service", "s3")
        else:
            Annotations.of(self).add_warning_v2(
                "landing-zone:self-hosting-s3-gateway",
                "imported VPC: no S3 gateway endpoint is created (its route tables are not known); nodes pull ECR "
                "image layers from S3, so add an S3 gateway endpoint to the subnets' route tables",
            )


class GpuInferenceCluster(Construct):
    """Private EKS cluster with a system node group and a GPU node group for vLLM.

    Public attributes: ``cluster``, ``gpu_nodegroup``, ``system_nodegroup``, ``gpu_launch_template``,
    ``system_launch_template``, ``addons`` (name -> Addon), ``data_key``, ``log_group``, ``endpoints``.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        name: str,
        vpc: ec2.IVpc,
        vpc_cidr: str,
        secrets_key: kms.IKey,
        data_key_policy: Mapping[str, Any],
        secrets_key_use_policy: Mapping[str, Any],
        s3_gateway_policy: Mapping[str, Any] | None,
        kubernetes_version: str,
        instance_type: str,
        capacity: str,
        capacity_reservation_id: str | None,
        availability_zone: str | None,
        desired_size: int,
        max_size: int,
        efa: bool,
        network_cards: int | None = None,
        system_instance_type: str,
        log_retention_days: int,
        manifests: Sequence[Mapping[str, Any]] = (),
        apply_manifests: bool = False,
        admin_role_arns: Sequence[str] = (),
        gpu_root_volume_gib: int = 100,
        system_root_volume_gib: int = 50,
    ) -> None:
        super().__init__(scope, construct_id)
        # the name ends with the stack's suffix (its control-plane log group is retained: landing_zone.core.naming)
        self.cluster_name = render_name(self, naming.eks_cluster_name(name))
        self._label = f"{name}-inference"  # the cluster in descriptions (no deploy-time token)
        log_group_name = render_name(self, naming.eks_log_group_name(name))
        isolated = ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_ISOLATED)

        # -- network: endpoints so that isolated nodes can pull images and call AWS APIs ----------------
        self.endpoints = NodeEndpoints(
            self,
            "NodeEndpoints",
            vpc=vpc,
            subnets=isolated,
            allowed_cidr=vpc_cidr,
            s3_gateway_policy=s3_gateway_policy,
            include_kubectl=apply_manifests,
        )

        self._keys_and_logs(name, data_key_policy, log_group_name, log_retention_days)
        cluster_role = self._cluster_role(name, secrets_key, secrets_key_use_policy)
        gpu_role = self._node_role("GpuNodeRole", "GPU", role_name=naming.eks_node_role_name(name, "gpu"))
        system_role = self._node_role("SystemNodeRole", "system", role_name=naming.eks_node_role_name(name, "system"))
        cluster_ref = self._cluster(
            vpc, isolated, secrets_key, cluster_role, kubernetes_version, apply_manifests, admin_role_arns
        )
        self._system_nodes(cluster_ref, system_role, isolated, system_instance_type, system_root_volume_gib)
        self._gpu_nodes(
            cluster_ref,
            gpu_role,
            isolated,
            instance_type=instance_type,
            capacity=capacity,
            capacity_reservation_id=capacity_reservation_id,
            availability_zone=availability_zone,
            desired_size=desired_size,
            max_size=max_size,
            efa=efa,
            network_cards=network_cards,
            root_volume_gib=gpu_root_volume_gib,
        )

        # -- Kubernetes manifests (only with a kubectl provider) ------------------------------------------
        self.manifest: eks.KubernetesManifest | None = None
        if apply_manifests and manifests:
            self.manifest = self.cluster.add_manifest("Serving", *[dict(m) for m in manifests])
            self.manifest.node.add_dependency(self.addons[CLUSTER_DNS_ADDON])
            self.manifest.node.add_dependency(self.gpu_nodegroup)
            _acknowledge_kubectl_provider(self.cluster)
            _name_kubectl_roles(self.cluster, name)

        CfnOutput(self, "ClusterName", value=self.cluster.cluster_name, description="EKS cluster (private endpoint)")

    # -- parts of __init__, in the order the resources are created ----------------------------------------
    def _keys_and_logs(
        self, name: str, data_key_policy: Mapping[str, Any], log_group_name: str, log_retention_days: int
    ) -> None:
        # -- keys and logs ----------------------------------------------------------------------------
        self.data_key: kms.Key = LandingZoneKey(
            self,
            "DataKey",
            alias=naming.eks_key_alias(name),
            description=f"{name}: EKS node root volumes and control-plane log group",
            policy=render(self, data_key_policy),
        ).key
        self.log_group = logs.LogGroup(
            self,
            "ControlPlaneLogs",
            log_group_name=log_group_name,  # EKS writes here; creating it first sets KMS and retention
            encryption_key=self.data_key,
            retention=RETENTION_DAYS[log_retention_days],
            removal_policy=RemovalPolicy.RETAIN,
        )

    def _cluster_role(self, name: str, secrets_key: kms.IKey, secrets_key_use_policy: Mapping[str, Any]) -> iam.Role:
        # -- IAM ---------------------------------------------------------------------------------------
        cluster_role = iam.Role(
            self,
            "ClusterRole",
            role_name=naming.eks_cluster_role_name(name),
            assumed_by=iam.ServicePrincipal("eks.amazonaws.com"),
            description=f"{self._label}: EKS cluster role",
            managed_policies=[
                iam.ManagedPolicy.from_aws_managed_policy_name("AmazonEKSClusterPolicy"),
                iam.ManagedPolicy(
                    self,
                    "SecretsKeyUse",
                    managed_policy_name=naming.eks_secrets_policy_name(name),
                    document=iam.PolicyDocument.from_json(
                        render(self, secrets_key_use_policy, {markers.SECRETS_KEY_ARN: secrets_key.key_arn})
                    ),
                ),
            ],
        )
        _acknowledge_aws_managed(cluster_role, "AmazonEKSClusterPolicy", "the cluster role policy EKS requires")
        return cluster_role

    def _cluster(
        self,
        vpc: ec2.IVpc,
        isolated: ec2.SubnetSelection,
        secrets_key: kms.IKey,
        cluster_role: iam.Role,
        kubernetes_version: str,
        apply_manifests: bool,
        admin_role_arns: Sequence[str],
    ) -> eks.ICluster:
        # -- cluster -----------------------------------------------------------------------------------
        kubectl_options = None
        if apply_manifests:
            kubectl_options = eks.KubectlProviderOptions(kubectl_layer=kubectl_layer(self, kubernetes_version))
        self.cluster = eks.Cluster(
            self,
            "Cluster",
            cluster_name=self.cluster_name,
            version=eks.KubernetesVersion.of(kubernetes_version),
            vpc=vpc,
            vpc_subnets=[isolated],
            endpoint_access=eks.EndpointAccess.PRIVATE,
            secrets_encryption_key=secrets_key,
            cluster_logging=list(CONTROL_PLANE_LOG_TYPES),
            role=cluster_role,
            bootstrap_self_managed_addons=False,  # the four add-ons below are EKS-managed instead
            # Not EKS Auto Mode (the CDK default): GPU capacity comes from our managed node groups.
            default_capacity_type=eks.DefaultCapacityType.NODEGROUP,
            default_capacity=0,
            kubectl_provider_options=kubectl_options,
        )
        # jsii declares the interface with @jsii.implements, which mypy cannot see: Cluster is an ICluster.
        cluster_ref = cast(eks.ICluster, self.cluster)
        self.cluster.node.add_dependency(self.log_group)
        self.cluster.node.add_dependency(self.endpoints)
        Annotations.of(self.cluster).acknowledge_warning(
            "@aws-cdk/aws-eks:isolatedSubnetsForKubectlPrivateSubnets",
            "the STS, EKS, ECR, S3 (and Lambda) endpoints are created by NodeEndpoints in this construct",
        )
        for i, arn in enumerate(admin_role_arns):
            self.cluster.grant_access(
                f"Admin{i}",
                arn,
                [
                    eks.AccessPolicy.from_access_policy_name(
                        "AmazonEKSClusterAdminPolicy", access_scope_type=eks.AccessScopeType.CLUSTER
                    )
                ],
            )

        self.addons: dict[str, eks.Addon] = {}
        for addon_name in NODE_ADDONS:
            self.addons[addon_name] = eks.Addon(
                self, _pascal(addon_name), cluster=cluster_ref, addon_name=addon_name, preserve_on_delete=False
            )

        return cluster_ref

    def _system_nodes(
        self,
        cluster_ref: eks.ICluster,
        system_role: iam.Role,
        isolated: ec2.SubnetSelection,
        system_instance_type: str,
        system_root_volume_gib: int,
    ) -> None:
        # -- system node group (CoreDNS, anything without a GPU toleration) ------------------------------
        system_type = ec2.InstanceType(system_instance_type)
        self.system_launch_template = self._launch_template(
            "SystemLaunchTemplate",
            root_volume_gib=system_root_volume_gib,
            user_data=None,
        )
        self.system_nodegroup = eks.Nodegroup(
            self,
            "SystemNodes",
            cluster=cluster_ref,
            node_role=system_role,
            instance_types=[system_type],
            ami_type=(
                eks.NodegroupAmiType.AL2023_ARM_64_STANDARD
                if system_type.architecture == ec2.InstanceArchitecture.ARM_64
                else eks.NodegroupAmiType.AL2023_X86_64_STANDARD
            ),
            launch_template_spec=eks.LaunchTemplateSpec(
                id=_launch_template_id(self.system_launch_template),
                version=self.system_launch_template.latest_version_number,
            ),
            min_size=2,
            desired_size=2,
            max_size=3,
            subnets=isolated,
            labels=dict(SYSTEM_NODE_LABELS),
        )
        for addon in self.addons.values():
            self.system_nodegroup.node.add_dependency(addon)
        self.addons[CLUSTER_DNS_ADDON] = eks.Addon(
            self, "Coredns", cluster=cluster_ref, addon_name=CLUSTER_DNS_ADDON, preserve_on_delete=False
        )
        self.addons[CLUSTER_DNS_ADDON].node.add_dependency(self.system_nodegroup)

    def _gpu_nodes(
        self,
        cluster_ref: eks.ICluster,
        gpu_role: iam.Role,
        isolated: ec2.SubnetSelection,
        *,
        instance_type: str,
        capacity: str,
        capacity_reservation_id: str | None,
        availability_zone: str | None,
        desired_size: int,
        max_size: int,
        efa: bool,
        network_cards: int | None,
        root_volume_gib: int,
    ) -> None:
        # -- GPU node group ----------------------------------------------------------------------------
        gpu_subnets = (
            ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_ISOLATED, availability_zones=[availability_zone])
            if availability_zone
            else isolated
        )
        self.gpu_launch_template = self._launch_template(
            "GpuLaunchTemplate",
            root_volume_gib=root_volume_gib,
            user_data=_gpu_user_data(),
            instance_type=instance_type,
        )
        lt_data_overrides: dict[str, Any] = {}
        if capacity == "capacity-block":
            lt_data_overrides["InstanceMarketOptions"] = {"MarketType": "capacity-block"}
        if capacity_reservation_id:
            lt_data_overrides["CapacityReservationSpecification"] = {
                "CapacityReservationTarget": {"CapacityReservationId": capacity_reservation_id}
            }
        if efa:
            # EFA needs a security group that admits all traffic from itself: the EKS-created cluster security
            # group does exactly that (and is what nodes get when the launch template names no interfaces).
            lt_data_overrides["NetworkInterfaces"] = efa_network_interfaces(
                instance_type, network_cards, [self.cluster.cluster_security_group_id]
            )
        lt_resource = cfn_child(self.gpu_launch_template, ec2.CfnLaunchTemplate)
        for key, value in lt_data_overrides.items():
            lt_resource.add_property_override(f"LaunchTemplateData.{key}", value)

        self.gpu_nodegroup = eks.Nodegroup(
            self,
            "GpuNodes",
            cluster=cluster_ref,
            node_role=gpu_role,
            ami_type=eks.NodegroupAmiType.AL2023_X86_64_NVIDIA,
            capacity_type=eks.CapacityType.CAPACITY_BLOCK
            if capacity == "capacity-block"
            else eks.CapacityType.ON_DEMAND,
            launch_template_spec=eks.LaunchTemplateSpec(
                id=_launch_template_id(self.gpu_launch_template),
                version=self.gpu_launch_template.latest_version_number,
            ),
            min_size=0,
            desired_size=desired_size,
            max_size=max_size,
            subnets=gpu_subnets,
            labels=dict(GPU_NODE_LABELS),
            taints=[eks.TaintSpec(effect=eks.TaintEffect.NO_SCHEDULE, key=GPU_TAINT_KEY, value=GPU_TAINT_VALUE)],
        )
        for addon_name in NODE_ADDONS:
            self.gpu_nodegroup.node.add_dependency(self.addons[addon_name])

    # -- helpers -----------------------------------------------------------------------------------------
    def _node_role(self, construct_id: str, kind: str, *, role_name: str) -> iam.Role:
        policies = {
            "AmazonEKSWorkerNodePolicy": "the node role policy EKS requires for node registration",
            "AmazonEKS_CNI_Policy": "the VPC CNI (aws-node) assigns ENIs and IPs with the node role",
            "AmazonEC2ContainerRegistryPullOnly": "nodes pull images from ECR (pull-only, no push)",
        }
        role = iam.Role(
            self,
            construct_id,
            role_name=role_name,
            assumed_by=iam.ServicePrincipal("ec2.amazonaws.com"),
            description=f"{self._label}: {kind} node role",
            managed_policies=[iam.ManagedPolicy.from_aws_managed_policy_name(p) for p in policies],
        )
        for policy_name, why in policies.items():
            _acknowledge_aws_managed(role, policy_name, why)
        return role

    def _launch_template(
        self,
        construct_id: str,
        *,
        root_volume_gib: int,
        user_data: ec2.UserData | None,
        instance_type: str | None = None,
    ) -> ec2.LaunchTemplate:
        lt = ec2.LaunchTemplate(
            self,
            construct_id,
            # IMDSv2 only, hop limit 1: pods cannot reach the node role's credentials through IMDS.  Nothing
            # here needs them: pods get AWS credentials from EKS Pod Identity, and the host-network daemons
            # (aws-node, kube-proxy, eks-pod-identity-agent) are one hop away.
            require_imdsv2=True,
            http_tokens=ec2.LaunchTemplateHttpTokens.REQUIRED,
            http_put_response_hop_limit=1,
            http_endpoint=True,
            detailed_monitoring=True,
            block_devices=[
                ec2.BlockDevice(
                    device_name="/dev/xvda",  # root device of the EKS AL2023 AMIs
                    volume=ec2.BlockDeviceVolume.ebs(
                        root_volume_gib,
                        volume_type=ec2.EbsDeviceVolumeType.GP3,
                        encrypted=True,
                        kms_key=self.data_key,
                        delete_on_termination=True,
                    ),
                )
            ],
            user_data=user_data,
        )
        if instance_type:
            # Verbatim string: ec2.InstanceType("p6-b300.48xlarge") fails the node group's validation.
            cfn_child(lt, ec2.CfnLaunchTemplate).add_property_override("LaunchTemplateData.InstanceType", instance_type)
        return lt


def _launch_template_id(template: ec2.LaunchTemplate) -> str:
    """The template's ID token (typed optional by the CDK; always set for a template this stack creates)."""
    if template.launch_template_id is None:
        raise ValueError(f"{template.node.path}: launch template without an ID")
    return template.launch_template_id


def _gpu_user_data() -> ec2.MultipartUserData:
    """MIME multi-part user data: the nodeadm NodeConfig (RAID0 of the NVMe disks) and the shell fallback."""
    user_data = ec2.MultipartUserData()
    user_data.add_part(
        ec2.MultipartBody.from_raw_body(content_type="application/node.eks.aws", body=node_config_yaml(NVME_MOUNT_PATH))
    )
    user_data.add_part(
        ec2.MultipartBody.from_raw_body(
            content_type='text/x-shellscript; charset="us-ascii"', body=nvme_raid_script(NVME_MOUNT_PATH)
        )
    )
    return user_data


def efa_network_interfaces(
    instance_type: str, network_cards: int | None, security_group_ids: Sequence[str]
) -> list[dict[str, Any]]:
    """One EFA interface per network card: card 0 / device 0 EFA with ENA, the others device 1 EFA-only.

    ``network_cards`` comes from the price catalog (``self_hosting.<type>.network_cards``)."""
    cards = network_cards
    if cards is None:  # the plan refuses efa without a count (landing_zone.plan.checks.self_hosting_problems)
        raise ValueError(f"no network-card count for {instance_type}: the plan should have refused efa")
    interfaces = []
    for card in range(cards):
        interfaces.append(
            {
                "NetworkCardIndex": card,
                "DeviceIndex": 0 if card == 0 else 1,
                "InterfaceType": "efa" if card == 0 else "efa-only",
                "Groups": list(security_group_ids),
                "DeleteOnTermination": True,
            }
        )
    return interfaces


def kubectl_layer(scope: Construct, kubernetes_version: str) -> Any:
    """The kubectl Lambda layer matching ``kubernetes_version`` (package aws-cdk.lambda-layer-kubectl-vNN)."""
    # Installed: the plan checked the distribution (landing_zone.plan.checks.self_hosting_problems).
    minor = kubernetes_version.split(".")[1]
    module = importlib.import_module(f"aws_cdk.lambda_layer_kubectl_v{minor}")
    return getattr(module, f"KubectlV{minor}Layer")(scope, "KubectlLayer")


def _acknowledge_aws_managed(role: iam.Role, policy_name: str, why: str) -> None:
    acknowledge(
        role,
        "AwsSolutions-IAM4",
        finding=f"Policy::arn:<AWS::Partition>:iam::aws:policy/{policy_name}",
        reason=f"AWS managed {policy_name}: {why} (EKS documents it as the required policy; AWS maintains it)",
    )


def _pascal(text: str) -> str:
    return "".join(p.capitalize() for p in text.replace(".", "-").split("-"))


def _name_kubectl_roles(cluster: eks.Cluster, landing_zone_name: str) -> None:
    """Name the kubectl provider's roles under the landing zone's automation prefix.

    The framework's onEvent function invokes the kubectl handler, a landing-zone function the tamper guardrails
    protect; with CloudFormation-generated names its role is not exempt and the SCPs would deny that invocation
    (lambda:InvokeFunction on a tagged function), so the manifest could never deploy.  Named
    ``<name>-automation-kubectl-*`` they are the landing zone's automation roles, which the guardrails exempt and
    protect from being created or re-trusted by anyone else.
    """
    roles = sorted(
        (c for c in cluster.node.find_all() if isinstance(c, iam.CfnRole) and "KubectlProvider" in c.node.path),
        key=lambda c: c.node.path,
    )
    for role in roles:
        kind = "provider" if "framework" in role.node.path else "handler"
        role.role_name = naming.kubectl_role_name(landing_zone_name, kind)


def _acknowledge_kubectl_provider(cluster: eks.Cluster) -> None:
    """The kubectl provider is CDK's framework code (Lambda handler + custom-resource provider framework)."""
    provider = cluster.node.try_find_child("KubectlProvider")
    if provider is None:
        return

    handler = provider.node.find_child("Handler")
    handler_id = logical_id(handler)
    ecr_public_condition = logical_id(handler.node.find_child("HasEcrPublic"))
    ecr_public = json.dumps(
        {
            "Fn::If": [
                ecr_public_condition,
                {
                    "Fn::Join": [
                        "",
                        [
                            "arn:",
                            {"Ref": "AWS::Partition"},
                            ":iam::aws:policy/AmazonElasticContainerRegistryPublicReadOnly",
                        ],
                    ]
                },
                {"Ref": "AWS::NoValue"},
            ]
        },
        separators=(",", ":"),
    )
    framework = "CDK's kubectl provider (handler and custom-resource framework functions, in the VPC)"
    for policy, why in (
        ("arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole", "writes its own logs"),
        (
            "arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole",
            "manages its ENIs in the VPC",
        ),
        ("arn:<AWS::Partition>:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly", "reads ECR for Helm OCI charts"),
        (ecr_public, "reads ECR Public for Helm OCI charts (aws partition only)"),
    ):
        acknowledge(provider, "AwsSolutions-IAM4", finding=f"Policy::{policy}", reason=f"{framework} {why}")
    acknowledge(
        provider,
        "AwsSolutions-IAM5",
        finding=f"Resource::<{handler_id}.Arn>:*",
        reason="the custom-resource framework invokes the versions of its own kubectl handler (function ARN:*)",
    )
    reasons = {
        "AwsSolutions-L1": "CDK chooses the Python runtime of its kubectl handler",
        "NIST.800.53.R5-IAMNoInlinePolicy": "CDK-generated inline policies of the kubectl provider's framework roles",
        "HIPAA.Security-IAMNoInlinePolicy": "CDK-generated inline policies of the kubectl provider's framework roles",
        "NIST.800.53.R5-LambdaConcurrency": "kubectl custom-resource handlers run once per deployment",
        "HIPAA.Security-LambdaConcurrency": "kubectl custom-resource handlers run once per deployment",
        "NIST.800.53.R5-LambdaDLQ": "kubectl custom-resource handlers are invoked synchronously by CloudFormation",
        "HIPAA.Security-LambdaDLQ": "kubectl custom-resource handlers are invoked synchronously by CloudFormation",
    }
    for rule, reason in reasons.items():
        acknowledge(provider, rule, reason=reason)
