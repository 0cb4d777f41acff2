"""The self-hosting stack: private EKS cluster, GPU node group on a Capacity Block, endpoints, manifests.

Each configuration is synthesized once (``synth``, through the synthesis cache: the variants of the example are
derived configuration files).  The nag test builds the app with the packs itself, as app.py does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest
import yaml
from aws_cdk.assertions import Template

from landing_zone.assembly.intrinsics import STACK_SUFFIX
from landing_zone.core.config import deep_merge
from landing_zone.kubernetes.manifests import (
    GPU_NODE_LABELS,
    Images,
    ServingSpec,
    render_manifests,
    to_yaml,
)
from stacks.landing_zone import build_landing_zone
from stacks.self_hosting import SelfHostingStack
from tests.conftest import ROOT, AssemblyStack, cdk_context, derived_config

EXAMPLE = ROOT / "examples" / "self-hosting.yaml"
ON_DEMAND = {"capacity": "on-demand", "capacity_reservation_id": None, "availability_zone": None, "desired_size": 1}


def build(app: cdk.App, plan) -> tuple[Any, SelfHostingStack | None]:
    lz = build_landing_zone(app, plan)
    stack = getattr(lz, "self_hosting", None)
    if stack is None and plan.config.self_hosting.enabled:
        cfg = plan.config
        stack = SelfHostingStack(
            app,
            f"{cfg.name}-self-hosting",
            plan=plan,
            vpc=lz.network.network.vpc,
            secrets_key=lz.keys.keys["secrets"],
            env=cdk.Environment(account=cfg.deployment_account, region=cfg.home_region),
        )
    return lz, stack


@dataclass
class Hosted:
    plan: Any
    stack: AssemblyStack  # the self-hosting stack, as the assembly's manifest gives it
    template: Template
    network: Template
    keys: Template
    outdir: Path

    def resources(self, type_: str) -> dict[str, dict]:
        return self.template.find_resources(type_)

    def one(self, type_: str, predicate=lambda r: True) -> dict:
        (found,) = [r["Properties"] for r in self.resources(type_).values() if predicate(r)]
        return found


def _hosted(synth, plan_for, variant: str = "", **self_hosting: Any) -> Hosted:
    """The example, or the example with ``self_hosting`` overrides as a derived configuration file (cached)."""
    config = EXAMPLE
    if self_hosting:
        merged = deep_merge(yaml.safe_load(EXAMPLE.read_text()), {"self_hosting": self_hosting})
        config = derived_config(f"self-hosting-{variant}.json", json.dumps(merged, indent=1, sort_keys=True) + "\n")
    lz = synth(config)
    assert lz.plan.config == plan_for(EXAMPLE, self_hosting=self_hosting).config  # the file is the overrides
    stack = lz.stack("self-hosting")
    assert stack is not None
    return Hosted(lz.plan, stack, lz.template("self-hosting"), lz.template("network"), lz.template("keys"), lz.outdir)


@pytest.fixture(scope="module")
def block(synth, plan_for) -> Hosted:
    return _hosted(synth, plan_for)


@pytest.fixture(scope="module")
def on_demand(synth, plan_for) -> Hosted:
    return _hosted(synth, plan_for, "on-demand-efa", **ON_DEMAND, efa=True)


def _gpu_nodegroup(h: Hosted) -> dict:
    return h.one("AWS::EKS::Nodegroup", lambda r: r["Properties"]["AmiType"] == "AL2023_x86_64_NVIDIA")


def _gpu_launch_template(h: Hosted) -> dict:
    lt_id = _gpu_nodegroup(h)["LaunchTemplate"]["Id"]["Ref"]
    return h.resources("AWS::EC2::LaunchTemplate")[lt_id]["Properties"]["LaunchTemplateData"]


def _subnet_ids_by_az(network: Template) -> dict[str, str]:
    return {r["Properties"]["AvailabilityZone"]: lid for lid, r in network.find_resources("AWS::EC2::Subnet").items()}


# -- disabled ----------------------------------------------------------------------------------------------
def test_disabled_creates_no_eks_resource_in_any_template(default_lz):
    assert default_lz.plan.config.self_hosting.enabled is False
    assert default_lz.stack("self-hosting") is None
    for name, template in default_lz.templates.items():
        types = {r["Type"] for r in template.to_json()["Resources"].values()}
        assert not {t for t in types if t.startswith("AWS::EKS::") or "EKS-KubernetesResource" in t}, name
    assert not any("self-hosting" in p.name for p in default_lz.outdir.glob("*.template.json"))


# -- GPU node group and launch template ----------------------------------------------------------------
def test_gpu_node_group_uses_the_nvidia_ami_and_a_capacity_block(block):
    ng = _gpu_nodegroup(block)
    assert ng["CapacityType"] == "CAPACITY_BLOCK"
    assert "InstanceTypes" not in ng  # the type is in the launch template (CDK 2.275 rejects p6-b300 here)
    assert ng["ScalingConfig"] == {"DesiredSize": 0, "MinSize": 0, "MaxSize": 1}


def test_gpu_launch_template_carries_instance_type_and_reservation(block):
    data = _gpu_launch_template(block)
    assert data["InstanceType"] == "p6-b300.48xlarge"
    assert data["InstanceMarketOptions"] == {"MarketType": "capacity-block"}
    assert data["CapacityReservationSpecification"] == {
        "CapacityReservationTarget": {"CapacityReservationId": "cr-0a1b2c3d4e5f60718"}
    }


def test_gpu_subnets_are_only_in_the_capacity_block_az(block):
    by_az = _subnet_ids_by_az(block.network)
    subnets = json.dumps(_gpu_nodegroup(block)["Subnets"])
    assert len(_gpu_nodegroup(block)["Subnets"]) == 1
    assert by_az["us-east-1a"] in subnets and by_az["us-east-1b"] not in subnets


def test_gpu_nodes_are_tainted_and_labelled(block):
    ng = _gpu_nodegroup(block)
    assert ng["Taints"] == [{"Effect": "NO_SCHEDULE", "Key": "nvidia.com/gpu", "Value": "true"}]
    assert ng["Labels"] == dict(GPU_NODE_LABELS)


def test_launch_templates_require_imdsv2_and_encrypt_gp3_root_volumes_with_kms(block):
    data_key = block.template.find_resources("AWS::KMS::Key")
    (data_key_id,) = data_key
    for lt in block.resources("AWS::EC2::LaunchTemplate").values():
        data = lt["Properties"]["LaunchTemplateData"]
        assert data["MetadataOptions"] == {
            "HttpEndpoint": "enabled",
            "HttpPutResponseHopLimit": 1,
            "HttpTokens": "required",
        }
        (root,) = data["BlockDeviceMappings"]
        assert root["Ebs"]["Encrypted"] is True and root["Ebs"]["VolumeType"] == "gp3"
        assert root["Ebs"]["KmsKeyId"] == {"Fn::GetAtt": [data_key_id, "Arn"]}


def test_node_volume_key_admits_the_auto_scaling_service_linked_role(block):
    (key,) = block.template.find_resources("AWS::KMS::Key").values()
    assert key["Properties"]["EnableKeyRotation"] is True and key["DeletionPolicy"] == "Retain"
    sids = {s["Sid"]: s for s in key["Properties"]["KeyPolicy"]["Statement"]}
    slr = "arn:aws:iam::666666666666:role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling"
    assert sids["AutoScalingUsesKeyForNodeVolumes"]["Condition"]["ArnEquals"]["aws:PrincipalArn"] == slr
    assert sids["AutoScalingGrantsForAttachedVolumes"]["Condition"]["Bool"] == {"kms:GrantIsForAWSResource": "true"}


def test_gpu_user_data_asks_nodeadm_for_nvme_raid0_with_an_mdadm_fallback(block):
    user_data = _gpu_launch_template(block)["UserData"]["Fn::Base64"]
    assert "Content-Type: multipart/mixed" in user_data
    assert "Content-Type: application/node.eks.aws" in user_data
    assert "kind: NodeConfig" in user_data and "strategy: RAID0" in user_data and "mountPath: /mnt/nvme" in user_data
    assert "Content-Type: text/x-shellscript" in user_data and "mdadm --create" in user_data


def test_on_demand_group_has_no_market_options_and_uses_every_isolated_subnet(on_demand):
    ng = _gpu_nodegroup(on_demand)
    assert ng["CapacityType"] == "ON_DEMAND"
    assert ng["ScalingConfig"]["DesiredSize"] == 1
    assert len(ng["Subnets"]) == 2
    data = _gpu_launch_template(on_demand)
    assert "InstanceMarketOptions" not in data and "CapacityReservationSpecification" not in data


def test_efa_puts_one_interface_per_network_card_in_the_launch_template(on_demand, block):
    interfaces = _gpu_launch_template(on_demand)["NetworkInterfaces"]
    assert len(interfaces) == 17
    assert interfaces[0] | {"Groups": None} == {
        "NetworkCardIndex": 0,
        "DeviceIndex": 0,
        "InterfaceType": "efa",
        "Groups": None,
        "DeleteOnTermination": True,
    }
    assert {(i["DeviceIndex"], i["InterfaceType"]) for i in interfaces[1:]} == {(1, "efa-only")}
    assert "NetworkInterfaces" not in _gpu_launch_template(block)


# -- cluster ---------------------------------------------------------------------------------------------
def test_cluster_is_private_with_api_auth_and_no_auto_mode(block):
    c = block.one("AWS::EKS::Cluster")
    assert c["ResourcesVpcConfig"]["EndpointPrivateAccess"] is True
    assert c["ResourcesVpcConfig"]["EndpointPublicAccess"] is False
    assert c["AccessConfig"]["AuthenticationMode"] == "API"
    assert c["ComputeConfig"] == {"Enabled": False}
    assert c["BootstrapSelfManagedAddons"] is False
    assert c["Version"] == "1.34"


def test_cluster_secrets_are_encrypted_with_the_landing_zone_secrets_key(block):
    (enc,) = block.one("AWS::EKS::Cluster")["EncryptionConfig"]
    assert enc["Resources"] == ["secrets"]
    aliases = block.keys.find_resources("AWS::KMS::Alias").values()
    name = block.plan.config.name
    (target,) = [
        a["Properties"]["TargetKeyId"] for a in aliases if a["Properties"]["AliasName"] == f"alias/{name}/secrets"
    ]
    export = enc["Provider"]["KeyArn"]["Fn::ImportValue"]
    assert export.startswith(f"{name}-keys:")
    (output,) = [o for o in block.keys.to_json()["Outputs"].values() if o.get("Export", {}).get("Name") == export]
    assert output["Value"] == target == {"Fn::GetAtt": [target["Fn::GetAtt"][0], "Arn"]}  # the secrets key's ARN


def test_cluster_logs_every_control_plane_type_to_an_encrypted_retained_log_group(block):
    types = [t["Type"] for t in block.one("AWS::EKS::Cluster")["Logging"]["ClusterLogging"]["EnabledTypes"]]
    assert types == ["api", "audit", "authenticator", "controllerManager", "scheduler"]
    (lg,) = block.resources("AWS::Logs::LogGroup").values()
    # the cluster's name ends with the stack's suffix: its retained log group is new after a destroy and redeploy
    assert lg["Properties"]["LogGroupName"] == {
        "Fn::Join": ["", ["/aws/eks/kimi-selfhost-inference-", STACK_SUFFIX, "/cluster"]]
    }
    assert block.one("AWS::EKS::Cluster")["Name"] == {"Fn::Join": ["", ["kimi-selfhost-inference-", STACK_SUFFIX]]}
    assert "KmsKeyId" in lg["Properties"] and lg["DeletionPolicy"] == "Retain"


def test_managed_addons_a_gpu_node_needs(block):
    names = {r["Properties"]["AddonName"] for r in block.resources("AWS::EKS::Addon").values()}
    assert names == {"vpc-cni", "coredns", "kube-proxy", "eks-pod-identity-agent"}


def test_small_system_node_group(block):
    ng = block.one("AWS::EKS::Nodegroup", lambda r: r["Properties"]["AmiType"] == "AL2023_x86_64_STANDARD")
    assert ng["InstanceTypes"] == ["m7i.large"]
    assert ng["ScalingConfig"] == {"DesiredSize": 2, "MinSize": 2, "MaxSize": 3}


def test_no_kubectl_lambda_without_apply_manifests(block):
    assert block.resources("AWS::Lambda::Function") == {}
    assert block.resources("Custom::AWSCDK-EKS-KubernetesResource") == {}


def test_stack_is_in_home_region(block):
    assert block.stack.region == block.plan.config.home_region == "us-east-1"


def test_stateful_logical_ids_are_stable(block):
    assert set(block.resources("AWS::KMS::Key")) == {"InferenceDataKeyC4C643D4"}
    assert set(block.resources("AWS::Logs::LogGroup")) == {"InferenceControlPlaneLogs3ED505B4"}
    assert set(block.resources("AWS::EKS::Cluster")) == {"InferenceCluster6D181EAC"}


# -- endpoints -----------------------------------------------------------------------------------------
def test_node_endpoints_with_private_dns_and_an_s3_gateway(block):
    endpoints = block.resources("AWS::EC2::VPCEndpoint").values()
    interface = [e["Properties"] for e in endpoints if e["Properties"].get("VpcEndpointType") == "Interface"]
    services = {
        e["Properties"]["ServiceName"].split("us-east-1.", 1)[1]
        for e in endpoints
        if isinstance(e["Properties"]["ServiceName"], str)
    }
    assert {"ecr.api", "ecr.dkr", "sts", "ec2", "eks", "eks-auth", "logs", "elasticloadbalancing"} <= services
    assert len(interface) == 8 and all(p["PrivateDnsEnabled"] is True for p in interface)
    (gateway,) = [e["Properties"] for e in endpoints if e["Properties"].get("VpcEndpointType") == "Gateway"]
    assert "s3" in json.dumps(gateway["ServiceName"])
    for e in endpoints:
        assert any(t["Key"] == "self-hosting-endpoint-service" for t in e["Properties"]["Tags"])


# -- manifests ----------------------------------------------------------------------------------------
def test_rendered_manifests_are_written_into_the_cloud_assembly(block):
    directory = block.outdir / "manifests" / block.stack.stack_name
    manifests = render_manifests(
        ServingSpec(allowed_cidrs=("10.80.0.0/16",)), Images(vllm=block.plan.config.self_hosting.vllm_image)
    )
    assert (directory / "all.yaml").read_text() == to_yaml(manifests)
    deployment = next(d for d in manifests if d["kind"] == "Deployment")
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"].startswith("666666666666.dkr.ecr.")


# -- apply_manifests ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def applied(synth, plan_for) -> Hosted:
    return _hosted(synth, plan_for, "apply-manifests", apply_manifests=True)


def test_apply_manifests_adds_a_kubectl_provider_in_the_vpc(applied):
    (manifest,) = applied.resources("Custom::AWSCDK-EKS-KubernetesResource").values()
    body = json.dumps(manifest["Properties"]["Manifest"])
    assert "kimi-vllm" in body and "nvidia-device-plugin-daemonset" in body
    handler = next(
        f["Properties"]
        for f in applied.resources("AWS::Lambda::Function").values()
        if "kubectl" in f["Properties"].get("Description", "")
    )
    assert "VpcConfig" in handler
    services = json.dumps([e["Properties"]["ServiceName"] for e in applied.resources("AWS::EC2::VPCEndpoint").values()])
    assert ".lambda" in services


def test_apply_manifests_without_the_kubectl_layer_package_is_a_config_error(plan_for):
    """Caught by the plan (exit 2 at synth with the pip command), not by a construct halfway through a synth."""
    from landing_zone.errors import ConfigError

    block = {"enabled": True, "capacity": "on-demand", "apply_manifests": True, "kubernetes_version": "1.39"}
    with pytest.raises(
        ConfigError, match=r"self_hosting.apply_manifests.*pip install aws-cdk.lambda-layer-kubectl-v39"
    ):
        plan_for(self_hosting=block)  # no such layer package is installed
    assert plan_for(self_hosting={**block, "kubernetes_version": "1.34"}).config.self_hosting.apply_manifests


def test_efa_without_a_network_card_count_is_a_config_error(plan_for, tmp_path):
    """The EFA interfaces need the instance's network-card count from the price catalog; without it the plan
    refuses efa: true, naming the field and what to add."""

    block = {
        "enabled": True,
        "capacity": "on-demand",
        "efa": True,
        "hourly_usd": 100.0,
        "instance_type": "p6-b300.48xlarge",
    }
    assert plan_for(self_hosting=block).config.self_hosting.efa  # catalogued: 8 cards
    plan = plan_for(self_hosting=block)
    no_cards = replace(
        plan.prices,
        self_hosting={
            **plan.prices.self_hosting,
            "p6-b300.48xlarge": replace(plan.prices.self_hosting["p6-b300.48xlarge"], network_cards=None),
        },
    )
    from landing_zone.plan.checks import self_hosting_problems

    (problem,) = self_hosting_problems(plan.config, no_cards)
    assert problem.path == "self_hosting.efa" and "network_cards" in problem.allowed


def _nag_violations(plan, outdir: Path) -> list[str]:
    from constructs_lib.nag import PACK_NAMES, add_nag_checks

    app = cdk.App(context=cdk_context(), outdir=str(outdir))
    add_nag_checks(app)
    build(app, plan)
    try:
        app.synth()
    except RuntimeError as exc:
        if "ValidationFailed" not in str(exc):
            raise
    report = json.loads((outdir / "validation-report.json").read_text())
    return sorted(
        f"{v['ruleName']} at {c['constructPath']}"
        for p in report["pluginReports"]
        if p["pluginName"] in PACK_NAMES
        for v in p["violations"]
        for c in v["violatingConstructs"]
    )


@pytest.mark.nag  # the cdk-nag packs: a stamped layer (tests/support/layers.py)
@pytest.mark.parametrize(
    "overrides",
    [{}, {**ON_DEMAND, "efa": True}, {"apply_manifests": True}],
    ids=["capacity-block", "on-demand-efa", "apply-manifests"],
)
def test_no_unacknowledged_nag_findings(plan_for, tmp_path, overrides):
    assert _nag_violations(plan_for(EXAMPLE, self_hosting=overrides), tmp_path) == []


def test_the_kubectl_provider_may_invoke_its_handler_under_the_guardrails(applied, plan_for, defaults):
    """Attacker/legitimate pair (analyzer finding): once the SCPs are attached, the provider framework's role must
    still invoke the kubectl handler (a tagged landing-zone function), and a member-account administrator must not.

    Request: lambda:InvokeFunction on the handler's ARN, aws:ResourceTag/landing-zone = <name> (Lambda evaluates the
    function's tags: Service Authorization Reference, AWS Lambda, InvokeFunction)."""
    from landing_zone.policies.evaluator import FULL_AWS_ACCESS, Request, evaluate_scp_levels

    roles = {r["Properties"].get("RoleName") for r in applied.resources("AWS::IAM::Role").values()}
    name = applied.plan.config.name
    assert {f"{name}-automation-kubectl-handler", f"{name}-automation-kubectl-provider"} <= roles
    org_plan = plan_for(EXAMPLE, organization=defaults["organization"], self_hosting={"apply_manifests": True})
    documents = org_plan.policies.scps.inside_documents
    levels = [[("FullAWSAccess", FULL_AWS_ACCESS), *((f"scp-{i}", d) for i, d in enumerate(documents, 1))]]
    account, region = org_plan.config.deployment_account, org_plan.config.home_region
    handler = f"arn:aws:lambda:{region}:{account}:function:{name}-self-hosting-InferenceClusterKubectlProvide-abc"

    def invoke(principal: str) -> str:
        context = {
            "aws:PrincipalARN": f"arn:aws:iam::{account}:role/{principal}",
            "aws:RequestedRegion": region,
            "aws:ResourceTag/landing-zone": name,
        }
        return evaluate_scp_levels(levels, Request("lambda:InvokeFunction", handler, context)).decision

    assert invoke(f"{name}-automation-kubectl-provider") == "allow"
    assert invoke("AWSReservedSSO_AdministratorAccess_0123") == "explicit_deny"
