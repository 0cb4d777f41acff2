"""Service control policies, attached to organization targets."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from aws_cdk import CfnTag
from aws_cdk import aws_organizations as organizations
from constructs import Construct

from landing_zone.core import naming
from landing_zone.policies.common import minified


class ServiceControlPolicies(Construct):
    """One ``AWS::Organizations::Policy`` per document.

    The content is passed as a minified JSON *string*, so the characters counted against the SCP size limit at
    synth are exactly the characters Organizations receives.  ``policies``: the CfnPolicy resources, in order.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        documents: Sequence[Mapping[str, Any]],
        landing_zone_name: str,
        description: str,
        target_ids: Sequence[str],
        tags: Mapping[str, str],
    ) -> None:
        super().__init__(scope, construct_id)
        self.policies: list[organizations.CfnPolicy] = []
        for index, doc in enumerate(documents, start=1):
            policy = organizations.CfnPolicy(
                self,
                f"Scp{index}",
                name=naming.scp_name(landing_zone_name, index),
                description=f"{description} (part {index} of {len(documents)})",
                type="SERVICE_CONTROL_POLICY",
                content=dict(doc),
                target_ids=list(target_ids) or None,
                tags=[CfnTag(key=k, value=v) for k, v in sorted(tags.items())],
            )
            # CDK's prop validation insists on an object; the template carries the exact minified string.
            policy.add_property_override("Content", minified(doc))
            self.policies.append(policy)
