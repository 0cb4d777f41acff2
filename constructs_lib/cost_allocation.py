"""Cost allocation as code: activate the landing zone's cost-allocation tag keys in Billing.

A custom resource (``handlers/cost_allocation_tags``) reads the keys' status (``ce:ListCostAllocationTags``) and calls
``ce:UpdateCostAllocationTagsStatus`` in us-east-1 (the Cost Explorer endpoint) with the keys not yet active; a key AWS
has not seen on a resource yet (up to 24 h after it is first applied) is left pending and reported by ``verify``.  On
delete it deactivates only the keys it activated itself.  It depends on the resources carrying the tags, so the
keys are applied before the first attempt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from aws_cdk import Duration
from aws_cdk import aws_kms as kms
from aws_cdk import aws_logs as logs
from constructs import Construct, IDependable

from constructs_lib.compliance import acknowledge
from constructs_lib.custom_resource import PythonCustomResource
from landing_zone.core import naming

RESOURCE_TYPE = "Custom::CostAllocationTags"


class CostAllocationTags(Construct):
    """The activation custom resource; ``handler_policy`` / ``provider_policy`` from the plan
    (``plan.policies.automation["cost-allocation-tags"]``)."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        landing_zone_name: str,
        tag_keys: Sequence[str],
        handler_policy: Mapping[str, Any],
        provider_policy: Mapping[str, Any],
        logs_key: kms.IKey,
        log_retention: logs.RetentionDays,
        tagged: Sequence[IDependable] = (),
    ) -> None:
        super().__init__(scope, construct_id)
        self.custom_resource = PythonCustomResource(
            self,
            "Activation",
            handler="cost-allocation-tags",
            landing_zone_name=landing_zone_name,
            policy=handler_policy,
            provider_policy=provider_policy,
            logs_key=logs_key,
            log_retention=log_retention,
            resource_type=RESOURCE_TYPE,
            # 3 attempts 20 s apart fit the 2-minute default; a little room for the Cost Explorer calls
            timeout=Duration.minutes(3),
            properties={
                "TagKeys": ",".join(sorted(tag_keys)),
                "Attempts": "3",
                "RetrySeconds": "20",
                # the keys it activated itself (never one already active): deactivated on delete
                "SavedParameterName": naming.automation_saved_parameter_name(landing_zone_name, "cost-allocation-tags"),
            },
        )
        for resource in tagged:
            self.custom_resource.resource.node.add_dependency(resource)
        acknowledge(
            self.custom_resource.policy,
            "AwsSolutions-IAM5",
            finding="Resource::*",
            reason="ce:UpdateCostAllocationTagsStatus takes no resource (Service Authorization Reference)",
        )
