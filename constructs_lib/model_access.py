"""Optional: accept the model agreement offers of Marketplace-backed models (once per account).

Bedrock enables serverless models on first invocation; third-party models sold through AWS Marketplace (such
as Moonshot's) additionally need their agreement accepted.  This custom resource's role is the only one with
``aws-marketplace:Subscribe``; invoker roles never get Marketplace permissions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from aws_cdk import aws_kms as kms
from aws_cdk import aws_logs as logs
from constructs import Construct

from constructs_lib.compliance import acknowledge
from constructs_lib.custom_resource import PythonCustomResource


class ModelAgreements(Construct):
    """The agreements custom resource; ``handler_policy`` / ``provider_policy`` from the plan
    (``plan.policies.automation["model-agreement"]``)."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        landing_zone_name: str,
        model_ids: Sequence[str],
        handler_policy: Mapping[str, Any],
        provider_policy: Mapping[str, Any],
        logs_key: kms.IKey,
        log_retention: logs.RetentionDays,
    ) -> None:
        super().__init__(scope, construct_id)
        self.custom_resource = PythonCustomResource(
            self,
            "Agreements",
            handler="model-agreement",
            landing_zone_name=landing_zone_name,
            policy=handler_policy,
            provider_policy=provider_policy,
            logs_key=logs_key,
            log_retention=log_retention,
            resource_type="Custom::BedrockModelAgreements",
            properties={"ModelIds": ",".join(sorted(model_ids)), "OfferType": "PUBLIC"},
        )
        acknowledge(
            self.custom_resource.policy,
            "AwsSolutions-IAM5",
            finding="Resource::*",
            reason="model agreement offers and Marketplace subscriptions have no resource ARN to scope to",
        )
