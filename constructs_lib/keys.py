"""A customer-managed KMS key: rotation on, retained on stack deletion, policy from a pure builder."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from constructs import Construct


class LandingZoneKey(Construct):
    """``key``: the KMS key.  The key policy is exactly ``policy`` (CDK grants may append statements)."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        alias: str,
        description: str,
        policy: Mapping[str, Any],
        pending_window_days: int = 30,
    ) -> None:
        super().__init__(scope, construct_id)
        self.key: kms.Key = kms.Key(
            self,
            "Key",
            alias=alias,
            description=description,
            enable_key_rotation=True,
            pending_window=Duration.days(pending_window_days),
            removal_policy=RemovalPolicy.RETAIN,
            policy=iam.PolicyDocument.from_json(dict(policy)),
        )
