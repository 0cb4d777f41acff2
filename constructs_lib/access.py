"""Application access: an application inference profile and a Mantle Project (cost allocation, isolation) and a
least-privilege invoker role."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aws_cdk import CfnTag, Tags
from aws_cdk import aws_bedrock as bedrock
from aws_cdk import aws_bedrockmantle as bedrockmantle
from aws_cdk import aws_iam as iam
from constructs import Construct

from constructs_lib.cfn import cfn_child
from constructs_lib.compliance import acknowledge


class ApplicationProfile(Construct):
    """``AWS::Bedrock::ApplicationInferenceProfile`` copied from a compliant model or system profile.

    Replaced when ``copy_from`` changes (CloudFormation replacement semantics); callers use ``arn``/``profile_id``.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        profile_name: str,
        copy_from: str,
        description: str,
        tags: Mapping[str, str],
    ) -> None:
        super().__init__(scope, construct_id)
        self.profile = bedrock.CfnApplicationInferenceProfile(
            self,
            "Profile",
            inference_profile_name=profile_name,
            description=description,
            model_source=bedrock.CfnApplicationInferenceProfile.InferenceProfileModelSourceProperty(
                copy_from=copy_from
            ),
            tags=[CfnTag(key=k, value=v) for k, v in sorted(tags.items())],
        )
        self.arn: str = self.profile.attr_inference_profile_arn
        self.profile_id: str = self.profile.attr_inference_profile_identifier


class MantleProject(Construct):
    """``AWS::BedrockMantle::Project``: the application's own Mantle Project (workload isolation and cost tags,
    https://docs.aws.amazon.com/bedrock/latest/userguide/projects.html); its invoker may call Mantle only in it."""

    def __init__(self, scope: Construct, construct_id: str, *, project_name: str, tags: Mapping[str, str]) -> None:
        super().__init__(scope, construct_id)
        self.project = bedrockmantle.CfnProject(
            self, "Project", name=project_name, tags=[CfnTag(key=k, value=v) for k, v in sorted(tags.items())]
        )
        self.arn: str = self.project.attr_arn
        self.project_id: str = self.project.attr_id


class InvokerRole(Construct):
    """``role``: assumed by the application; ``policy``: its managed policy (document from a pure builder)."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        role_name: str,
        policy_name: str,
        trust_policy: Mapping[str, Any],
        permissions: Mapping[str, Any],
        boundary: iam.IManagedPolicy | None,
        description: str,
        tags: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        self.policy = iam.ManagedPolicy(
            self,
            "Policy",
            managed_policy_name=policy_name,
            # A managed policy's Description is create-only (resource provider schema) and the policy has a name of
            # its own: a description that changed with the application's model would make CloudFormation replace it,
            # which it cannot (review rule LZ-FORCED-REPLACEMENT). The role's description (updatable) says more.
            description=f"permissions of the invoker role {role_name}",
            document=iam.PolicyDocument.from_json(dict(permissions)),
        )
        self.role = iam.Role(
            self,
            "Role",
            role_name=role_name,
            # replaced below by the exact trust document; the principal here only satisfies the L2 API
            assumed_by=iam.AccountRootPrincipal(),
            managed_policies=[self.policy],
            permissions_boundary=boundary,
            description=description,
        )
        cfn_child(self.role, iam.CfnRole).assume_role_policy_document = dict(trust_policy)
        for key, value in sorted((tags or {}).items()):  # cost allocation (principal tags) and chargeback
            Tags.of(self.role).add(key, value)


class PermissionsBoundary(Construct):
    """``policy``: a managed policy used as the invoker roles' permissions boundary (document from a builder)."""

    def __init__(self, scope: Construct, construct_id: str, *, policy_name: str, document: Mapping[str, Any]) -> None:
        super().__init__(scope, construct_id)
        self.policy = iam.ManagedPolicy(
            self,
            "Policy",
            managed_policy_name=policy_name,
            description="Permissions boundary of the invoker roles: an inference ceiling minus the guardrail denies",
            document=iam.PolicyDocument.from_json(dict(document)),
        )
        acknowledge(
            self.policy,
            "AwsSolutions-IAM5",
            finding="Resource::*",
            reason="a permissions boundary is a ceiling, not a grant: each invoker policy scopes the resources",
        )
