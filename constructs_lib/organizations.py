"""Service control policies, attached to organization targets."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from aws_cdk import CfnTag
from aws_cdk import aws_organizations as organizations
from constructs import Construct

from landing_zone.core import naming


class ServiceControlPolicies(Construct):
    """One ``AWS::Organizations::Policy`` per document.

    ``contents``: each SCP as the minified JSON *string* the plan measured against the SCP size limit
    (``plan.policies.scp_contents``), so those are exactly the characters Organizations receives.
    ``policies``: the CfnPolicy resources, in order.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        contents: Sequence[str],
        landing_zone_name: str,
        description: str,
        target_ids: Sequence[str],
        tags: Mapping[str, str],
        detached: bool = False,
    ) -> None:
        super().__init__(scope, construct_id)
        self.policies: list[organizations.CfnPolicy] = []
        for index, content in enumerate(contents, start=1):
            policy = organizations.CfnPolicy(
                self,
                f"Scp{index}",
                name=naming.scp_name(landing_zone_name, index),
                description=f"{description} (part {index} of {len(contents)})",
                type="SERVICE_CONTROL_POLICY",
                content=json.loads(content),
                # detached: an explicit empty list; on update CloudFormation detaches every target no longer listed
                # (AWS::Organizations::Policy resource handler, UpdateHandler.handleTargets:
                # https://github.com/aws-cloudformation/aws-cloudformation-resource-providers-organizations)
                target_ids=list(target_ids) if detached else list(target_ids) or None,
                tags=[CfnTag(key=k, value=v) for k, v in sorted(tags.items())],
            )
            # CDK's prop validation insists on an object; the template carries the exact minified string.
            policy.add_property_override("Content", content)
            self.policies.append(policy)
