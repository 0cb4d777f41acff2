"""The account's Bedrock data retention mode (``data_retention.mode``) applied in the stack's Region.

CloudFormation has no resource type for the account mode (research: no type containing "Retention" in the
registry), so a custom resource (``handlers/data_retention``) calls ``PutAccountDataRetention``
(https://docs.aws.amazon.com/bedrock/latest/APIReference/API_PutAccountDataRetention.html).  The setting is per
Region (https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html); the access stack deploys to
``home_region``, so that is where it is applied.  The handler reads the mode first, refuses to replace one someone
else set unless ``take_over_existing``, and on Delete puts back the mode it found (kept in the SSM parameter
``<name>-automation-data-retention-saved``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aws_cdk import aws_kms as kms
from aws_cdk import aws_logs as logs
from constructs import Construct

from constructs_lib.compliance import acknowledge
from constructs_lib.custom_resource import PythonCustomResource
from landing_zone.core import naming


class DataRetentionMode(Construct):
    """The custom resource; ``handler_policy`` / ``provider_policy`` from the plan
    (``plan.policies.automation["data-retention"]``)."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        landing_zone_name: str,
        mode: str,
        take_over_existing: bool = False,
        handler_policy: Mapping[str, Any],
        provider_policy: Mapping[str, Any],
        logs_key: kms.IKey,
        log_retention: logs.RetentionDays,
    ) -> None:
        super().__init__(scope, construct_id)
        self.custom_resource = PythonCustomResource(
            self,
            "Mode",
            handler="data-retention",
            landing_zone_name=landing_zone_name,
            policy=handler_policy,
            provider_policy=provider_policy,
            logs_key=logs_key,
            log_retention=log_retention,
            resource_type="Custom::BedrockDataRetention",
            properties={
                "Mode": mode,
                "TakeOverExisting": str(take_over_existing).lower(),
                "SavedParameterName": naming.automation_saved_parameter_name(landing_zone_name, "data-retention"),
            },
        )
        acknowledge(
            self.custom_resource.policy,
            "AwsSolutions-IAM5",
            finding="Resource::*",
            reason="the account data retention mode has no resource ARN; the policy allows only the configured mode "
            "and the one it hands back (bedrock:DataRetentionMode)",
        )
