"""StackSet plumbing: the organization-readable asset bucket that member accounts fetch Lambda code from.

cdk-stacksets (cdklabs) copies the member template's file assets into buckets named
``<prefix>-<region>``; member accounts read them through a bucket policy scoped to the organization.
"""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3
from constructs import Construct

from constructs_lib.compliance import acknowledge


class StackSetAssetBucket(Construct):
    """``bucket``: versioned, TLS-only, private; readable by principals of ``organization_id`` only."""

    def __init__(self, scope: Construct, construct_id: str, *, bucket_name: str, organization_id: str) -> None:
        super().__init__(scope, construct_id)
        self.access_logs = s3.Bucket(
            self,
            "AccessLogs",
            encryption=s3.BucketEncryption.S3_MANAGED,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            enforce_ssl=True,
            versioned=True,
            removal_policy=RemovalPolicy.RETAIN,
            lifecycle_rules=[s3.LifecycleRule(expiration=Duration.days(400))],
        )
        self.bucket = s3.Bucket(
            self,
            "Bucket",
            bucket_name=bucket_name,
            # S3-managed keys: every member account's StackSet execution reads the code; SSE-KMS would need an
            # organization-wide key grant for the same effect.
            encryption=s3.BucketEncryption.S3_MANAGED,
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            enforce_ssl=True,
            versioned=True,
            # Deleted with the stack, objects and versions first (CDK's auto-delete custom resource): cdk-stacksets
            # needs this fixed name (<prefix>-<region>, written into the member template), so a retained bucket would
            # make the next deployment after `cdk destroy` fail ("already exists"; review rule
            # LZ-RETAINED-NAME-COLLISION). It holds deployment artifacts only, published again by every deployment;
            # its access logs (a generated name) are retained.
            removal_policy=RemovalPolicy.DESTROY,
            auto_delete_objects=True,
            server_access_logs_bucket=self.access_logs,
            server_access_logs_prefix="stackset-assets/",
        )
        self.bucket.add_to_resource_policy(
            iam.PolicyStatement(
                sid="OrganizationReadsStackSetAssets",
                actions=["s3:GetObject", "s3:GetObjectVersion"],
                resources=[self.bucket.arn_for_objects("*")],
                principals=[iam.AnyPrincipal()],
                conditions={"StringEquals": {"aws:PrincipalOrgID": organization_id}},
            )
        )
        # No AwsSolutions-S1 acknowledgment: cdk-nag does not flag a bucket that is itself a log destination, and
        # an acknowledgment that suppresses nothing is a review finding (LZ-NAG-UNUSED-ACK).
        for pack in ("NIST.800.53.R5", "HIPAA.Security"):
            for target, why in (
                (self.access_logs, "S3 server access logs can only be delivered to SSE-S3 buckets"),
                (
                    self.bucket,
                    "member accounts across the organization read the Lambda code; "
                    "SSE-KMS would need an organization-wide key grant",
                ),
            ):
                acknowledge(target, f"{pack}-S3DefaultEncryptionKMS", reason=why)
                acknowledge(
                    target,
                    f"{pack}-S3BucketReplicationEnabled",
                    reason="deployment artifacts, re-published by every deployment; no replica needed",
                )
