"""Optional self-hosting of Kimi K3.1 Pro's open weights on EKS (``self_hosting.enabled``).

Composition only: the private cluster and node groups come from ``constructs_lib.eks``, the Kubernetes
documents from the pure ``landing_zone.kubernetes.manifests`` renderer.  The rendered manifests are written at synth into
the cloud assembly, ``<outdir>/manifests/<stack name>/`` (``cdk.out/manifests/kimi-lz-self-hosting/``), one
file per document plus ``all.yaml``; with ``apply_manifests: true`` the same documents are also applied by
the cluster's kubectl provider.  The node group's Region is ``home_region`` (a compliant Region by
construction: config validation rejects an availability_zone outside it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aws_cdk import CfnOutput, Stage
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_kms as kms
from constructs import Construct

from constructs_lib.eks import GpuInferenceCluster
from landing_zone.kubernetes.manifests import Images, ServingSpec, render_manifests, write_manifests
from landing_zone.plan import Plan
from stacks.base import LandingZoneStack

MANIFESTS_DIR = "manifests"


class SelfHostingStack(LandingZoneStack):
    """``inference`` (the EKS construct), ``manifests`` (rendered documents), ``manifests_dir`` (where written)."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        plan: Plan,
        vpc: ec2.IVpc,
        secrets_key: kms.IKey,
        **kwargs: Any,
    ) -> None:
        super().__init__(scope, construct_id, plan=plan, **kwargs)
        cfg = plan.config
        sh = cfg.self_hosting
        policies = plan.policies.self_hosting
        assert policies is not None, "the plan builds the self-hosting documents whenever self_hosting is enabled"
        spec = ServingSpec(allowed_cidrs=(cfg.network.vpc_cidr,))
        self.manifests = render_manifests(spec, Images(vllm=sh.vllm_image))
        self.inference = GpuInferenceCluster(
            self,
            "Inference",
            name=cfg.name,
            vpc=vpc,
            vpc_cidr=cfg.network.vpc_cidr,
            secrets_key=secrets_key,
            data_key_policy=policies.data_key,
            secrets_key_use_policy=policies.secrets_key_use,
            s3_gateway_policy=policies.s3_gateway,
            kubernetes_version=sh.kubernetes_version,
            instance_type=sh.instance_type,
            capacity=sh.capacity,
            capacity_reservation_id=sh.capacity_reservation_id,
            availability_zone=sh.availability_zone,
            desired_size=sh.desired_size,
            max_size=sh.max_size,
            efa=sh.efa,
            network_cards=plan.prices.self_hosting[sh.instance_type].network_cards,
            system_instance_type=sh.system_instance_type,
            log_retention_days=cfg.network.flow_log_retention_days,
            manifests=self.manifests,
            apply_manifests=sh.apply_manifests,
        )
        stage = Stage.of(self)
        if stage is None:  # a stack always lives in an App (a Stage); kept for the type checker
            raise RuntimeError("SelfHostingStack must be created inside a cdk.App")
        self.manifests_dir = Path(stage.outdir) / MANIFESTS_DIR / self.stack_name
        write_manifests(self.manifests, self.manifests_dir)
        CfnOutput(
            self,
            "ManifestsApplied",
            value="kubectl-provider" if sh.apply_manifests else "no",
            description=f"rendered manifests: <cdk outdir>/{MANIFESTS_DIR}/{self.stack_name}/all.yaml",
        )
