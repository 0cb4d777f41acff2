"""What the tamper guardrails claim to protect really is protected: every synthesized resource of a type they
protect by name carries a name inside the protected namespace, and every resource of a type they protect by tag
carries the landing-zone tag.  A resource named outside the namespace (or left untagged) would be open to a
member-account administrator however good the SCP is.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from landing_zone.assembly.intrinsics import template_resolver
from landing_zone.policies.evaluator import _resource_match
from landing_zone.policies.guardrails import (
    LANDING_ZONE_TAG,
    exemptions,
    protected_resources,
)
from tests.conftest import EXAMPLES

ACCOUNT, REGION = "123456789012", "eu-west-1"

# type -> (name property, ARN built from the name) for the types DenyLandingZoneTampering protects by name
NAMED_TYPES = {
    "AWS::IAM::ManagedPolicy": ("ManagedPolicyName", "arn:aws:iam::{a}:policy/{n}"),
    "AWS::S3::Bucket": ("BucketName", "arn:aws:s3:::{n}"),
    "AWS::Logs::LogGroup": ("LogGroupName", "arn:aws:logs:{r}:{a}:log-group:{n}"),
    "AWS::Lambda::Function": ("FunctionName", "arn:aws:lambda:{r}:{a}:function:{n}"),
    "AWS::Budgets::Budget": ("Budget.BudgetName", "arn:aws:budgets::{a}:budget/{n}"),
    "AWS::SNS::Topic": ("TopicName", "arn:aws:sns:{r}:{a}:{n}"),
    "AWS::CloudWatch::Alarm": ("AlarmName", "arn:aws:cloudwatch:{r}:{a}:alarm:{n}"),
    "AWS::KMS::Alias": ("AliasName", "arn:aws:kms:{r}:{a}:{n}"),
    "AWS::IAM::Role": ("RoleName", "arn:aws:iam::{a}:role/{n}"),
}
# types DenyTaggedResourceTampering protects by the landing-zone tag (and the property holding the tags)
TAGGED_TYPES = {
    "AWS::KMS::Key": "Tags",
    "AWS::EC2::VPCEndpoint": "Tags",
    "AWS::EC2::FlowLog": "Tags",
    "AWS::Bedrock::Guardrail": "Tags",
    "AWS::Bedrock::ApplicationInferenceProfile": "Tags",
    "AWS::CE::AnomalyMonitor": "ResourceTags",
    "AWS::CE::AnomalySubscription": "ResourceTags",
    "AWS::EKS::Cluster": "Tags",
}
# Resources CDK itself adds, with why leaving them outside the namespace is harmless
UNPROTECTED = {
    "CustomVpcRestrictDefaultSGCustomResourceProvider": "CDK's handler that empties the default security group once "
    "at deployment (feature flag restrictDefaultSecurityGroup); its role may only revoke default-SG rules",
}
STACKS_OUTSIDE_TARGETS = ("-guardrails", "-rollout")  # management / StackSet administrator account: no SCP applies


def _prop(props: dict, dotted: str) -> Any:
    for part in dotted.split("."):
        props = props.get(part, {}) if isinstance(props, dict) else {}
    return props or None


def _templates(synthesized) -> list[tuple[str, dict]]:
    from landing_zone.assembly import load_assembly

    return [
        (t.name, dict(t.template))
        for t in load_assembly(synthesized.outdir).templates
        if not t.name.endswith(STACKS_OUTSIDE_TARGETS) or t.nested_in
    ]


@pytest.mark.parametrize("example", [None, *EXAMPLES], ids=["default", *[e.stem for e in EXAMPLES]])
def test_every_named_resource_is_inside_the_protected_namespace(synth, example):
    synthesized = synth(example)
    config = synthesized.plan.config
    patterns = protected_resources(config)
    roles = exemptions(config).protected_roles
    outside = []
    for stack, body in _templates(synthesized):
        for logical_id, res in body.get("Resources", {}).items():
            kind = res.get("Type")
            if kind not in NAMED_TYPES or any(logical_id.startswith(u) for u in UNPROTECTED):
                continue
            prop, arn = NAMED_TYPES[kind]
            name = template_resolver(body, account=ACCOUNT, region=REGION)(_prop(res.get("Properties", {}), prop))
            if name is None:
                outside.append(f"{stack}/{logical_id} ({kind}): no literal {prop}")
                continue
            full = arn.format(a=ACCOUNT, r=REGION, n=name)
            if not any(_resource_match(p, full) for p in (roles if kind == "AWS::IAM::Role" else patterns)):
                outside.append(f"{stack}/{logical_id} ({kind}): {full} matches no protected pattern")
    assert not outside, "\n".join(outside)


@pytest.mark.parametrize("example", [None, *EXAMPLES], ids=["default", *[e.stem for e in EXAMPLES]])
def test_every_resource_a_tag_keyed_deny_protects_carries_the_tag(synth, example):
    synthesized = synth(example)
    name = synthesized.plan.config.name
    untagged = []
    for stack, body in _templates(synthesized):
        for logical_id, res in body.get("Resources", {}).items():
            prop = TAGGED_TYPES.get(res.get("Type"))
            if prop is None:
                continue
            tags = res.get("Properties", {}).get(prop) or []
            items = (
                [(t.get("Key") or t.get("key"), t.get("Value") or t.get("value")) for t in tags]
                if isinstance(tags, list)
                else list(tags.items())
            )
            pairs = {(k, v if isinstance(v, str) else json.dumps(v)) for k, v in items}
            if (LANDING_ZONE_TAG, name) not in pairs:
                untagged.append(f"{stack}/{logical_id} ({res['Type']}): tags {json.dumps(tags)[:120]}")
    assert not untagged, "\n".join(untagged)


def test_the_unprotected_allow_list_is_still_needed(synth):
    """An entry that matches nothing in the default synth is stale and must go."""
    found = {
        u
        for _, body in _templates(synth(None))
        for lid in body.get("Resources", {})
        for u in UNPROTECTED
        if lid.startswith(u)
    }
    assert found == set(UNPROTECTED)
