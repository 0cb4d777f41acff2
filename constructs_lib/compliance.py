"""Granular, reasoned cdk-nag acknowledgments, limited to an allow-list of rules.

Constructs call :func:`acknowledge` next to the resource that causes a finding.  Only rules listed in
``ACKNOWLEDGEABLE_RULES`` may be acknowledged at all; anything else must be fixed.  (cdk-nag itself is
imported only by ``constructs_lib/nag.py``; acknowledgments use CDK's own ``Validations`` API.)
"""

from __future__ import annotations

import json

from aws_cdk import Acknowledgment, Validations
from constructs import IConstruct

# rule -> why acknowledging it can be legitimate at all (each call still gives its own evidence)
ACKNOWLEDGEABLE_RULES: dict[str, str] = {
    "AwsSolutions-IAM4": "AWS managed policies on CDK-generated framework roles",
    "AwsSolutions-IAM5": "wildcards that are bounded by account/Region/name prefix or required by the API",
    "AwsSolutions-L1": "CDK-managed framework functions whose runtime CDK chooses",
    "AwsSolutions-S1": "the access-log bucket itself cannot log to itself",
    "AwsSolutions-VPC3": "an explicit network ACL that filters no more than the default one, there to carry the "
    "landing-zone tag that the SCPs protect (EC2 creates the default ACL untagged)",
    "NIST.800.53.R5-IAMNoInlinePolicy": "CDK-generated inline policies of framework roles",
    "HIPAA.Security-IAMNoInlinePolicy": "CDK-generated inline policies of framework roles",
    "NIST.800.53.R5-LambdaConcurrency": "custom-resource handlers run once per deployment",
    "HIPAA.Security-LambdaConcurrency": "custom-resource handlers run once per deployment",
    "NIST.800.53.R5-LambdaDLQ": "custom-resource handlers are invoked synchronously by CloudFormation",
    "HIPAA.Security-LambdaDLQ": "custom-resource handlers are invoked synchronously by CloudFormation",
    "NIST.800.53.R5-LambdaInsideVPC": "custom-resource handlers must reach the CloudFormation response URL",
    "HIPAA.Security-LambdaInsideVPC": "custom-resource handlers must reach the CloudFormation response URL",
    "NIST.800.53.R5-S3BucketReplicationEnabled": "single-Region log buckets by design (data residency)",
    "HIPAA.Security-S3BucketReplicationEnabled": "single-Region log buckets by design (data residency)",
    "NIST.800.53.R5-S3BucketLoggingEnabled": "the access-log bucket itself",
    "HIPAA.Security-S3BucketLoggingEnabled": "the access-log bucket itself",
    "NIST.800.53.R5-S3DefaultEncryptionKMS": "access-log buckets (no SSE-KMS delivery) and organization-read artifacts",
    "HIPAA.Security-S3DefaultEncryptionKMS": "access-log buckets (no SSE-KMS delivery) and organization-read artifacts",
}

PACKS = {"AwsSolutions": "AwsSolutions", "NIST.800.53.R5": "NIST.800.53.R5", "HIPAA.Security": "HIPAA.Security"}


class AcknowledgmentNotAllowed(ValueError):
    pass


def acknowledge(construct: IConstruct, rule: str, *, reason: str, finding: str | None = None) -> None:
    """Acknowledge one finding of ``rule`` (optionally one ``finding`` such as 'Resource::*') on ``construct``."""
    if rule not in ACKNOWLEDGEABLE_RULES:
        raise AcknowledgmentNotAllowed(
            f"rule {rule!r} may not be acknowledged (allow-list: {', '.join(sorted(ACKNOWLEDGEABLE_RULES))}); fix it"
        )
    if len(reason.strip()) < 20:
        raise AcknowledgmentNotAllowed(f"acknowledging {rule} needs a reason with evidence, got {reason!r}")
    pack = rule.rsplit("-", 1)[0]
    ack_id = f"{pack}::{rule}" + (f"[{finding}]" if finding else "")
    Validations.of(construct).acknowledge(Acknowledgment(id=ack_id, reason=reason))


def nag_text(scope: IConstruct, value: str) -> str:
    """``value`` (an ARN that may hold CDK tokens) written the way cdk-nag prints it in a finding ID.

    cdk-nag flattens CloudFormation references: ``{"Ref": X}`` -> ``<X>``, ``{"Fn::GetAtt": [L, A]}`` ->
    ``<L.A>``, ``{"Fn::Join": [sep, parts]}`` -> the parts joined, anything else (``Fn::Select``) its JSON text;
    literals stay as they are (cdk-nag's ``flattenCfnReference``).
    """
    from aws_cdk import Stack

    def flat(node: object) -> str:
        if isinstance(node, str):
            return node
        if isinstance(node, dict) and "Ref" in node:
            return f"<{node['Ref']}>"
        if isinstance(node, dict) and "Fn::GetAtt" in node:
            logical_id, attribute = node["Fn::GetAtt"]
            return f"<{logical_id}.{attribute}>"
        if isinstance(node, dict) and "Fn::Join" in node:
            separator, parts = node["Fn::Join"]
            return str(separator).join(flat(p) for p in parts)
        if isinstance(node, dict) and "Fn::Select" in node:  # cdk-nag's fallback: the JSON text (JSON.stringify)
            return json.dumps(node, separators=(",", ":"))
        raise ValueError(f"cannot flatten {node!r} the way cdk-nag does")

    return flat(Stack.of(scope).resolve(value))
