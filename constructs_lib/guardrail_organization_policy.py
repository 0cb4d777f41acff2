"""The content guardrail enforced across the organization (``content_guardrail.organization_policy``).

In the management account (the guardrails stack): a copy of the content guardrail with its numbered version ("The
Guardrail must be owned by the Management account ... must have a version, and that version cannot be DRAFT ...
must be created and used in the specified region",
https://docs.amazonaws.cn/en_us/organizations/latest/userguide/orgs_manage_policies_bedrock_syntax.html), its
resource-based policy (``AWS::Bedrock::ResourcePolicy``: the organization's principals may call ApplyGuardrail),
and an ``AWS::Organizations::Policy`` of ``Type: BEDROCK_POLICY`` naming ``<guardrail ARN>:<version>``, attached
to ``target_ids`` (the canary targets first; the rest with ``organization_policy_rollout: all``).

The BEDROCK_POLICY type must be enabled on the root first (``organizations:EnablePolicyType
PolicyType=BEDROCK_POLICY``); CloudFormation has no resource for that.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from aws_cdk import CfnTag, Stack
from aws_cdk import aws_bedrock as bedrock
from aws_cdk import aws_organizations as organizations
from constructs import Construct

from constructs_lib.cfn import render
from constructs_lib.content_guardrail import ContentGuardrail
from landing_zone.core import markers
from landing_zone.core.config import ContentGuardrail as Settings

IDENTIFIER = f"{markers.GUARDRAIL_ARN}:{markers.GUARDRAIL_VERSION}"


class GuardrailOrganizationPolicy(Construct):
    """``guardrail`` (the management account's copy), ``resource_policy``, ``policy`` (the BEDROCK_POLICY) and
    ``identifier`` (a CDK token: ``<guardrail ARN>:<version>``).

    ``inference_policy`` / ``resource_policy`` come from the plan (``plan.policies.guardrail_organization``), which
    checked the identifier's shape and the size; here the identifier must be exactly ``<ARN marker>:<version
    marker>`` under this stack's Region (refused otherwise: a malformed identifier breaks every Bedrock call of the
    targets)."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        guardrail_name: str,
        policy_name: str,
        settings: Settings,
        inference_policy: Mapping[str, Any],
        resource_policy: Mapping[str, Any],
        target_ids: Sequence[str],
        tags: dict[str, str],
    ) -> None:
        super().__init__(scope, construct_id)
        region = Stack.of(self).region
        check_identifier(inference_policy, region)
        self.guardrail = ContentGuardrail(
            self, "Guardrail", name=guardrail_name, settings=settings, tags=tags, enforce_in_account=False
        )
        values = {
            markers.GUARDRAIL_ARN: self.guardrail.arn,
            markers.GUARDRAIL_VERSION: self.guardrail.version.attr_version,
        }
        self.identifier: str = f"{self.guardrail.arn}:{self.guardrail.version.attr_version}"
        self.resource_policy = bedrock.CfnResourcePolicy(
            self,
            "ResourcePolicy",
            resource_arn=self.guardrail.arn,
            policy_document=render(self, resource_policy, values),
        )
        self.policy = organizations.CfnPolicy(
            self,
            "Policy",
            name=policy_name,
            type="BEDROCK_POLICY",
            description="Enforces the landing zone's content guardrail on every Bedrock call of the targets",
            content=Stack.of(self).to_json_string(render(self, inference_policy, values)),
            target_ids=list(target_ids),
            tags=[CfnTag(key=k, value=v) for k, v in sorted(tags.items())],
        )
        # members may call Bedrock only once the guardrail admits them: the policy after the resource policy
        self.policy.node.add_dependency(self.resource_policy)


def check_identifier(inference_policy: Mapping[str, Any], region: str) -> None:
    """Raise ValueError unless the document is ``bedrock.guardrail_inference.<region>.<config>`` with identifier
    exactly ``<guardrail ARN marker>:<version marker>`` and input_tags honor or ignore."""
    regions = (inference_policy.get("bedrock") or {}).get("guardrail_inference") or {}
    if list(regions) != [region]:
        raise ValueError(
            f"BEDROCK_POLICY: guardrail_inference must name exactly this stack's Region {region}, got {sorted(regions)}"
        )
    for name, config in regions[region].items():
        identifier = (config.get("identifier") or {}).get("@@assign")
        if identifier != IDENTIFIER:
            raise ValueError(
                f"BEDROCK_POLICY {region}.{name}: identifier {identifier!r} is not '<guardrail ARN>:<numbered version>' "
                f"({IDENTIFIER!r}); a malformed identifier makes every Bedrock call of the targets fail"
            )
        if (config.get("input_tags") or {}).get("@@assign") not in ("honor", "ignore"):
            raise ValueError(f"BEDROCK_POLICY {region}.{name}: input_tags must be honor or ignore")
