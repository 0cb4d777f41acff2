"""Bedrock model invocation logging as code: encrypted S3 bucket + log group, and the configuration itself
(a custom resource: CloudFormation has no resource type for it).

Mantle (``bedrock-mantle``) calls are *not* captured by invocation logging; see the Mantle usage alarm.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aws_cdk import Duration, RemovalPolicy, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_logs as logs
from aws_cdk import aws_s3 as s3
from constructs import Construct

from constructs_lib.cfn import cfn_child, render, render_name
from constructs_lib.compliance import acknowledge, nag_text
from constructs_lib.custom_resource import PythonCustomResource
from constructs_lib.network import RETENTION_DAYS
from landing_zone.core import arns, markers, naming
from landing_zone.core.config import InvocationLogging as Settings


class InvocationLoggingConfig(Construct):
    """``bucket``, ``log_group``, ``role`` (assumed by Bedrock), ``configuration`` (custom resource).

    The documents come from the plan (``plan.policies.invocation_*`` and ``automation["invocation-logging"]``):
    ``bucket_policy`` (markers: the bucket's ARN), ``role_policy`` and ``trust_policy`` of the role Bedrock
    assumes, ``handler_policy`` / ``provider_policy`` of the custom resource (marker: the logging role's ARN).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        landing_zone_name: str,
        settings: Settings,
        logs_key: kms.IKey,
        key_prefix: str,
        bucket_policy: Mapping[str, Any],
        role_policy: Mapping[str, Any],
        trust_policy: Mapping[str, Any],
        handler_policy: Mapping[str, Any],
        provider_policy: Mapping[str, Any],
    ) -> None:
        super().__init__(scope, construct_id)
        stack = Stack.of(self)
        account, region = stack.account, stack.region
        self.access_log_bucket = s3.Bucket(
            self,
            "AccessLogs",
            # '<lz>-' names: the tamper guardrails protect buckets by name (they ignore aws:ResourceTag)
            bucket_name=render_name(self, naming.access_logs_bucket_name(landing_zone_name)),
            encryption=s3.BucketEncryption.S3_MANAGED,  # S3 server access logs cannot target SSE-KMS buckets
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            enforce_ssl=True,
            versioned=True,
            removal_policy=RemovalPolicy.RETAIN,
            lifecycle_rules=[s3.LifecycleRule(expiration=Duration.days(settings.s3_expiration_days))],
        )
        # No AwsSolutions-S1 acknowledgment: cdk-nag does not flag a log-destination bucket (LZ-NAG-UNUSED-ACK).
        for pack in ("NIST.800.53.R5", "HIPAA.Security"):
            acknowledge(
                self.access_log_bucket,
                f"{pack}-S3DefaultEncryptionKMS",
                reason="S3 server access logs can only be delivered to SSE-S3 buckets (S3 user guide)",
            )
        self.bucket = s3.Bucket(
            self,
            "Bucket",
            bucket_name=render_name(self, naming.invocation_logs_bucket_name(landing_zone_name)),
            encryption=s3.BucketEncryption.KMS,
            encryption_key=logs_key,
            bucket_key_enabled=True,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            versioned=True,
            removal_policy=RemovalPolicy.RETAIN,
            server_access_logs_bucket=self.access_log_bucket,
            server_access_logs_prefix="invocation-log-bucket/",
            lifecycle_rules=[
                s3.LifecycleRule(
                    transitions=[
                        s3.Transition(
                            storage_class=s3.StorageClass.INFREQUENT_ACCESS,
                            transition_after=Duration.days(settings.s3_infrequent_access_after_days),
                        )
                    ],
                    expiration=Duration.days(settings.s3_expiration_days),
                    noncurrent_version_expiration=Duration.days(30),
                    abort_incomplete_multipart_upload_after=Duration.days(7),
                )
            ],
        )
        policy = render(self, bucket_policy, {markers.BUCKET_ARN: self.bucket.bucket_arn})
        s3.CfnBucketPolicy(self, "BucketPolicy", bucket=self.bucket.bucket_name, policy_document=policy)
        log_group_name = render_name(self, naming.invocation_log_group_name(landing_zone_name))
        self.log_group = logs.LogGroup(
            self,
            "LogGroup",
            log_group_name=log_group_name,
            encryption_key=logs_key,
            retention=RETENTION_DAYS[settings.log_retention_days],
            removal_policy=RemovalPolicy.RETAIN,
        )
        for bucket in (self.access_log_bucket, self.bucket):
            for pack in ("NIST.800.53.R5", "HIPAA.Security"):
                acknowledge(
                    bucket,
                    f"{pack}-S3BucketReplicationEnabled",
                    reason="invocation logs must stay in home_region (data residency); versioning + retention instead",
                )
        streams = arns.log_streams(region, account, log_group_name, stack.partition)
        logging_policy = iam.ManagedPolicy(
            self,
            "BedrockLoggingPolicy",
            managed_policy_name=naming.invocation_logging_policy_name(landing_zone_name),
            document=iam.PolicyDocument.from_json(render(self, role_policy)),
        )
        acknowledge(
            logging_policy,
            "AwsSolutions-IAM5",
            finding=f"Resource::{nag_text(self, streams)}",
            reason="Bedrock writes streams it names itself, only in the invocation-log group",
        )
        self.role = iam.Role(
            self,
            "BedrockLoggingRole",
            role_name=naming.invocation_logging_role_name(landing_zone_name),
            assumed_by=iam.ServicePrincipal("bedrock.amazonaws.com"),
            description="Assumed by Bedrock to deliver model invocation logs to CloudWatch Logs",
            managed_policies=[logging_policy],
        )
        cfn_child(self.role, iam.CfnRole).assume_role_policy_document = render(self, trust_policy)
        self.configuration = PythonCustomResource(
            self,
            "Configuration",
            handler="invocation-logging",
            landing_zone_name=landing_zone_name,
            policy=handler_policy,
            provider_policy=provider_policy,
            values={markers.LOGGING_ROLE_ARN: self.role.role_arn},
            logs_key=logs_key,
            log_retention=RETENTION_DAYS[settings.log_retention_days],
            resource_type="Custom::BedrockInvocationLogging",
            properties={
                "LogGroupName": self.log_group.log_group_name,
                "RoleArn": self.role.role_arn,
                "BucketName": self.bucket.bucket_name,
                "KeyPrefix": key_prefix,
                "TextDataDeliveryEnabled": str(settings.text).lower(),
                "ImageDataDeliveryEnabled": str(settings.image).lower(),
                "EmbeddingDataDeliveryEnabled": str(settings.embedding).lower(),
                "VideoDataDeliveryEnabled": str(settings.video).lower(),
            },
        )
        acknowledge(
            self.configuration.policy,
            "AwsSolutions-IAM5",
            finding="Resource::*",
            reason="Bedrock's invocation-logging configuration is an account/Region singleton with no resource ARN",
        )
        self.configuration.resource.node.add_dependency(self.bucket, self.log_group, self.role)
