"""Service control policies, attached to organization targets."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from aws_cdk import CfnTag
from aws_cdk import aws_organizations as organizations
from constructs import Construct


@dataclass(frozen=True)
class ScpSpec:
    """One SCP to render: its Organizations ``name``, ``content`` (the minified JSON string the plan measured against
    the size limit, exactly the characters Organizations receives), ``description`` and the ``target_ids`` it
    attaches to (roots, OUs or accounts, as the plan's layout decided)."""

    name: str
    content: str
    description: str
    target_ids: tuple[str, ...]


def _construct_id(name: str, landing_zone_name: str) -> str:
    """'kimi-eu-guardrails-api-keys' -> 'ScpApiKeys' (stable while the concern keeps its name)."""
    suffix = name.removeprefix(f"{landing_zone_name}-guardrails-")
    return "Scp" + "".join(part.capitalize() for part in suffix.split("-"))


class ServiceControlPolicies(Construct):
    """One ``AWS::Organizations::Policy`` per SCP of the plan's layout.  ``policies``: the CfnPolicy resources, in
    order; ``detached``: every policy with an explicit empty target list (the first step of a removal)."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        scps: Sequence[ScpSpec],
        landing_zone_name: str,
        tags: Mapping[str, str],
        detached: bool = False,
    ) -> None:
        super().__init__(scope, construct_id)
        self.policies: list[organizations.CfnPolicy] = []
        for scp in scps:
            targets = [] if detached else list(scp.target_ids)
            policy = organizations.CfnPolicy(
                self,
                _construct_id(scp.name, landing_zone_name),
                name=scp.name,
                description=scp.description[:512],
                type="SERVICE_CONTROL_POLICY",
                content=json.loads(scp.content),
                # detached: an explicit empty list; on update CloudFormation detaches every target no longer listed
                # (AWS::Organizations::Policy resource handler, UpdateHandler.handleTargets:
                # https://github.com/aws-cloudformation/aws-cloudformation-resource-providers-organizations)
                target_ids=targets if detached else targets or None,
                tags=[CfnTag(key=k, value=v) for k, v in sorted(tags.items())],
            )
            # CDK's prop validation insists on an object; the template carries the exact minified string.
            policy.add_property_override("Content", scp.content)
            self.policies.append(policy)
