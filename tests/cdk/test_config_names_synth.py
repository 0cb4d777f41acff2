"""The names `validate` checks (landing_zone.plan.checks.plan_names) are the names synth writes: every literal name
property of every synthesized template is among the checked names, and every checked name is in a template.  A name
that ends with the stack's suffix (a retained resource's, landing_zone.core.naming) is read with the sample stack ID,
whose suffix is the sample the check measures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from landing_zone.assembly.intrinsics import SAMPLE_STACK_UUID, template_resolver
from landing_zone.core.naming import STACK_SUFFIX_SAMPLE
from landing_zone.plan.checks import plan_names

ROOT = Path(__file__).resolve().parents[2]
LONG_NAMES = ROOT / "tests" / "fixtures" / "long-names.yaml"

# The properties through which a template names a resource explicitly (AWS::Bedrock::Guardrail, AWS::EKS::Cluster
# and AWS::Organizations::Policy use `Name`; AWS::SNS::Topic sets a DisplayName too).
NAME_PROPERTIES = {
    "AliasName",
    "AlarmName",
    "BucketName",
    "BudgetName",
    "DashboardName",
    "DisplayName",
    "FunctionName",
    "InferenceProfileName",
    "LogGroupName",
    "ManagedPolicyName",
    "MonitorName",
    "Name",
    "RoleName",
    "StackSetName",
    "SubscriptionName",
    "TopicName",
}


def _literal_names(outdir: Path) -> set[str]:
    """Every literal (not token-built) name property of every resource in the assembly, plus the stack names."""
    names: set[str] = set()
    manifest = json.loads((outdir / "manifest.json").read_text())
    for artifact in manifest["artifacts"].values():
        if artifact.get("type") == "aws:cloudformation:stack":
            names.add(artifact["properties"].get("stackName") or artifact["displayName"])
    for path in outdir.rglob("*.json"):
        try:
            template = json.loads(path.read_text())
        except (UnicodeDecodeError, json.JSONDecodeError):
            continue
        resources = template.get("Resources") if isinstance(template, dict) else None
        resolve = template_resolver(template, account="123456789012", region="us-east-1") if resources else None
        for resource in (resources or {}).values():
            if not str(resource.get("Type", "")).startswith("AWS::"):
                continue
            props = resource.get("Properties") or {}
            for key, value in [*props.items(), *(props.get("Budget") or {}).items()]:
                if key in NAME_PROPERTIES and isinstance(value, str):
                    names.add(value)
                elif key in NAME_PROPERTIES and resolve and "AWS::StackId" in json.dumps(value):
                    names.add(resolve(value))  # the name of a retained resource: ends with the stack's suffix
    return names


def test_the_sample_stack_id_gives_the_sample_suffix():
    assert SAMPLE_STACK_UUID.split("-")[0] == STACK_SUFFIX_SAMPLE


@pytest.mark.parametrize("config", [LONG_NAMES, ROOT / "examples" / "self-hosting.yaml"], ids=lambda p: p.stem)
def test_checked_names_are_exactly_the_synthesized_names(synth, config):
    lz = synth(config)
    checked = {n.name for n in plan_names(lz.plan)}
    synthesized = {n for n in _literal_names(lz.outdir) if lz.plan.config.name in n}
    assert len(synthesized) > 30  # roles, policies, functions, log groups, buckets, aliases, alarms, stacks ...
    assert synthesized - checked == set(), "synthesized but not checked"
    assert checked - synthesized == set(), "checked but not synthesized"


def test_the_long_names_fixture_reaches_the_role_limit(synth):
    lz = synth(LONG_NAMES)
    roles = [n for n in plan_names(lz.plan) if n.limit == "iam_role_name_max_length"]
    assert max(len(n.name) for n in roles) == lz.plan.catalog.limit("iam_role_name_max_length")


def test_member_baseline_names_are_all_checked(synth):
    lz = synth(ROOT / "examples" / "multi-account-100.yaml")
    checked = {n.name for n in plan_names(lz.plan)}
    synthesized = {n for n in _literal_names(lz.outdir) if lz.plan.config.name in n}
    assert synthesized - checked == set()
