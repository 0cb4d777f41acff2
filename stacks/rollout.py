"""Roll-out of the member baseline through CloudFormation StackSets (management or delegated admin account).

Service-managed permissions, automatic deployment to the target OUs (new accounts get the template defaults),
and one stack-instance group per configured account carrying its parameter overrides.
"""

from __future__ import annotations

from typing import Any, cast

from aws_cdk import CfnElement, CfnOutput
from cdk_stacksets import (
    Capability,
    DeploymentType,
    OperationPreferences,
    RegionConcurrencyType,
    StackSet,
    StackSetTarget,
    StackSetTemplate,
)
from constructs import Construct

from constructs_lib.compliance import acknowledge
from constructs_lib.stacksets import StackSetAssetBucket
from landing_zone.core import naming
from landing_zone.plan import Plan
from landing_zone.plan.rollout import member_instances
from stacks.base import LandingZoneStack
from stacks.member_baseline import MemberBaselineStack


class RolloutStack(LandingZoneStack):
    def __init__(self, scope: Construct, construct_id: str, *, plan: Plan, **kwargs: Any) -> None:
        super().__init__(scope, construct_id, plan=plan, **kwargs)
        cfg = plan.config
        assert cfg.organization is not None and cfg.organization.organization_id
        mb = cfg.member_baseline
        region = cfg.home_region
        self.assets = StackSetAssetBucket(
            self,
            "StackSetAssets",
            bucket_name=cfg.asset_bucket_name(region),
            organization_id=cfg.organization.organization_id,
        )
        self.member = MemberBaselineStack(
            self,
            "MemberBaseline",
            plan=plan,
            asset_bucket=self.assets.bucket,
            asset_bucket_prefix=cfg.asset_bucket_prefix,
        )
        delegated = cfg.stackset_administrator_account != cfg.organization.management_account_id
        self.stack_set = StackSet(
            self,
            "MemberBaselineStackSet",
            stack_set_name=naming.member_baseline_stack_set_name(cfg.name),
            description=f"{cfg.name}: Bedrock member baseline (keys, endpoints, access, logging, cost controls)",
            template=StackSetTemplate.from_stack_set_stack(self.member),
            deployment_type=DeploymentType.service_managed(
                auto_deploy_enabled=True,
                auto_deploy_retain_stacks=mb.retain_stacks_on_account_removal,
                delegated_admin=delegated,
            ),
            capabilities=[Capability.NAMED_IAM],
            operation_preferences=OperationPreferences(
                max_concurrent_percentage=mb.max_concurrent_percentage,
                failure_tolerance_percentage=mb.failure_tolerance_percentage,
                region_concurrency_type=RegionConcurrencyType.PARALLEL,
            ),
        )
        self.instances = member_instances(plan)
        configured = [i.account_id for i in self.instances]
        # Every other (and every future) account of the target OUs: the template defaults.
        self.stack_set.add_target(
            StackSetTarget.from_organizational_units(
                regions=[region], organizational_units=list(cfg.member_target_ous), exclude_accounts=configured or None
            )
        )
        for instance in self.instances:
            self.stack_set.add_target(
                StackSetTarget.from_organizational_units(
                    regions=[region],
                    organizational_units=[instance.ou_id],
                    intersection_accounts=[instance.account_id],
                    parameter_overrides=instance.parameters or None,
                )
            )
        self._acknowledge_asset_publisher(cfg.policy_guardrails.cdk_bootstrap_qualifier)
        CfnOutput(self, "MemberBaselineStackSetName", value=naming.member_baseline_stack_set_name(cfg.name))
        CfnOutput(self, "MemberAccounts", value=str(len(self.instances)))

    def _acknowledge_asset_publisher(self, qualifier: str) -> None:
        """cdk-stacksets publishes the member template's assets with CDK's BucketDeployment (a singleton)."""
        publisher = next((c for c in self.node.children if c.node.id.startswith("Custom::CDKBucketDeployment")), None)
        if publisher is None:
            return
        why = "CDK BucketDeployment (via cdk-stacksets) copying the member template's Lambda code to the asset bucket"
        bucket_id = self.get_logical_id(cast(CfnElement, self.assets.bucket.node.default_child))
        bootstrap = f"arn:<AWS::Partition>:s3:::cdk-{qualifier}-assets-{self.account}-{self.region}/*"
        acknowledge(
            publisher,
            "AwsSolutions-IAM4",
            finding="Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole",
            reason=f"{why}: writes only its own logs",
        )
        for finding in (
            "Action::s3:Abort*",
            "Action::s3:DeleteObject*",
            "Action::s3:GetBucket*",
            "Action::s3:GetObject*",
            "Action::s3:List*",
            f"Resource::<{bucket_id}.Arn>/*",
            f"Resource::{bootstrap}",
        ):
            acknowledge(
                publisher,
                "AwsSolutions-IAM5",
                finding=finding,
                reason=f"{why}: object-level access to exactly the asset bucket and the CDK bootstrap bucket",
            )
        acknowledge(publisher, "AwsSolutions-L1", reason=f"{why}: aws-cdk-lib pins the function's runtime")
        for pack in ("NIST.800.53.R5", "HIPAA.Security"):
            acknowledge(publisher, f"{pack}-IAMNoInlinePolicy", reason=f"{why}: inline policy generated by aws-cdk-lib")
            acknowledge(publisher, f"{pack}-LambdaConcurrency", reason=f"{why}: runs once per deployment")
            acknowledge(publisher, f"{pack}-LambdaDLQ", reason=f"{why}: invoked synchronously by CloudFormation")
            acknowledge(publisher, f"{pack}-LambdaInsideVPC", reason=f"{why}: needs S3 only, no VPC data access")
