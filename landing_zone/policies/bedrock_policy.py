"""The Organizations Bedrock policy (``content_guardrail.organization_policy``) and the guardrail's resource-based
policy it needs.

* :func:`guardrail_inference_policy` — a ``BEDROCK_POLICY`` management policy
  (https://docs.amazonaws.cn/en_us/organizations/latest/userguide/orgs_manage_policies_bedrock_syntax.html):
  ``bedrock.guardrail_inference.<region>.<config>`` with ``identifier`` ("Guardrail ARN, followed by :version";
  owned by the management account, numbered, not DRAFT, in that Region) and ``input_tags`` (``honor`` | ``ignore``),
  both as ``@@assign``.  At most 10,000 characters (aws-cdk-lib ``CfnPolicy.content``: "Amazon Bedrock policies:
  10,000 characters").
* :func:`guardrail_resource_policy` — "The Guardrail must have a Resource Based Policy that allows organization
  members to call ApplyGuardrail" (same page; guardrails-resource-based-policies.html): ``bedrock:ApplyGuardrail``
  on the guardrail to the organization's principals (``aws:PrincipalOrgID``).  AWS's stored pages show only a
  same-account example; the organization-wide pattern is this landing zone's, not quoted from AWS.
"""

from __future__ import annotations

import json
from typing import Any

from landing_zone.core import arns
from landing_zone.errors import LandingZoneError
from landing_zone.policies.common import document, statement

__all__ = [
    "BEDROCK_POLICY_MAX_CHARACTERS",
    "CONFIG_NAME",
    "BedrockPolicyError",
    "guardrail_inference_policy",
    "guardrail_resource_policy",
    "policy_identifier",
]

BEDROCK_POLICY_MAX_CHARACTERS = 10_000
# The configuration's name under the Region; AWS's example names it config_1 (no naming rule was found).
CONFIG_NAME = "config_1"


class BedrockPolicyError(LandingZoneError):
    """The Bedrock policy would be malformed (identifier shape) or too large."""


def guardrail_inference_policy(
    *, region: str, identifier: str, input_tags: str, sample_identifier: str, account: str
) -> dict[str, Any]:
    """The BEDROCK_POLICY document; ``identifier`` is what the construct renders (markers), ``sample_identifier``
    the same with sample values, checked for shape and size here (raises :class:`BedrockPolicyError`)."""
    if input_tags not in ("honor", "ignore"):
        raise BedrockPolicyError(f"input_tags {input_tags!r}: allowed honor, ignore")
    problem = arns.guardrail_identifier_problem(sample_identifier, region=region, account=account)
    if problem:
        raise BedrockPolicyError(f"BEDROCK_POLICY identifier: {problem}")
    policy = _document(region, identifier, input_tags)
    size = len(json.dumps(_document(region, sample_identifier, input_tags), separators=(",", ":")))
    if size > BEDROCK_POLICY_MAX_CHARACTERS:
        raise BedrockPolicyError(
            f"BEDROCK_POLICY document of {size} characters: at most {BEDROCK_POLICY_MAX_CHARACTERS} are allowed"
        )
    return policy


def _document(region: str, identifier: str, input_tags: str) -> dict[str, Any]:
    return {
        "bedrock": {
            "guardrail_inference": {
                region: {
                    CONFIG_NAME: {
                        "identifier": {"@@assign": identifier},
                        "input_tags": {"@@assign": input_tags},
                    }
                }
            }
        }
    }


def policy_identifier(content: Any, region: str) -> Any:
    """The identifier a BEDROCK_POLICY (or effective policy) content names for ``region``'s configuration, with or
    without its ``@@assign`` operator; None when absent."""
    if isinstance(content, str):
        content = json.loads(content)
    node: Any = content
    for key in ("bedrock", "guardrail_inference", region, CONFIG_NAME, "identifier"):
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node.get("@@assign") if isinstance(node, dict) else node


def guardrail_resource_policy(*, guardrail_arn: str, organization_id: str) -> dict[str, Any]:
    return document(
        [
            statement(
                "OrganizationMembersApplyGuardrail",
                actions=["bedrock:ApplyGuardrail"],
                resources=[guardrail_arn],
                principal={"AWS": "*"},
                condition={"StringEquals": {"aws:PrincipalOrgID": organization_id}},
            )
        ]
    )
