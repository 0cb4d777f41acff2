"""cdk-nag is a gate: zero unacknowledged findings in AwsSolutions, NIST 800-53 rev 5 and HIPAA Security.

These apps are separate from the ordinary test apps (a registered plugin also runs in Template.from_stack).
"""

from __future__ import annotations

import json

import aws_cdk as cdk
import pytest

from constructs_lib.compliance import (
    ACKNOWLEDGEABLE_RULES,
    AcknowledgmentNotAllowed,
    acknowledge,
)
from constructs_lib.nag import PACK_NAMES, add_nag_checks
from stacks.landing_zone import build_landing_zone
from tests.conftest import EXAMPLES, cdk_context

pytestmark = pytest.mark.nag


def nag_report(plan, outdir) -> dict:
    app = cdk.App(context=cdk_context(), outdir=str(outdir))
    add_nag_checks(app)
    build_landing_zone(app, plan)
    try:
        app.synth()
    except RuntimeError as exc:  # jsii surfaces ValidationFailed as RuntimeError; the report says why
        if "ValidationFailed" not in str(exc):
            raise
    return json.loads((outdir / "validation-report.json").read_text())


def nag_violations(report: dict) -> list[str]:
    return sorted(
        f"{v['ruleName']} at {c['constructPath']}"
        for plugin in report["pluginReports"]
        if plugin["pluginName"] in PACK_NAMES
        for v in plugin["violations"]
        for c in v["violatingConstructs"]
    )


@pytest.mark.parametrize("example", [None, *EXAMPLES], ids=lambda p: getattr(p, "name", "default"))
def test_no_unacknowledged_findings(plan_for, tmp_path, example):
    report = nag_report(plan_for(example), tmp_path)
    assert {p["pluginName"] for p in report["pluginReports"]} >= set(PACK_NAMES)
    assert nag_violations(report) == []


def test_gate_catches_a_real_finding(plan_for, tmp_path):
    """Sanity: the same harness reports an unencrypted, public-ish bucket added to a stack."""
    from aws_cdk import aws_s3 as s3

    app = cdk.App(context=cdk_context(), outdir=str(tmp_path))
    add_nag_checks(app, packs=("AwsSolutions",))
    lz = build_landing_zone(app, plan_for())
    s3.CfnBucket(lz.access, "DeliberatelyBadBucket")
    with pytest.raises(RuntimeError, match="ValidationFailed"):
        app.synth()
    report = json.loads((tmp_path / "validation-report.json").read_text())
    assert any("DeliberatelyBadBucket" in v for v in nag_violations(report))


def test_only_allow_listed_rules_can_be_acknowledged():
    app = cdk.App()
    stack = cdk.Stack(app, "S")
    with pytest.raises(AcknowledgmentNotAllowed, match="may not be acknowledged"):
        acknowledge(stack, "AwsSolutions-S3", reason="public buckets are fine here, promise")
    with pytest.raises(AcknowledgmentNotAllowed, match="needs a reason with evidence"):
        acknowledge(stack, "AwsSolutions-IAM5", reason="because")
    assert all(ACKNOWLEDGEABLE_RULES.values())


def test_no_unacknowledged_findings_with_a_central_event_bus(plan_for, tmp_path):
    """detection.central_event_bus_arn adds a role per detection stack's target (no example sets it)."""
    from tests.conftest import ROOT

    bus = "arn:aws:events:eu-west-1:555555555555:event-bus/security-events"
    plan = plan_for(ROOT / "examples" / "eu-sovereign.yaml", detection={"central_event_bus_arn": bus})
    assert plan.policies.detection.central_bus_arn == bus
    assert nag_violations(nag_report(plan, tmp_path)) == []
