"""Issue 33, deliverable 3, in the synthesized templates: the invocation-logging custom resource carries the take-over
choice and its saved-state parameter, its role may pass a taken-over role back to Bedrock only with the take-over, and
``cost.anomaly_monitor_arn`` subscribes to the account's monitor instead of creating a second one.  The take-over
configuration passes the cdk-nag gate with no unacknowledged finding and no unused acknowledgment."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from landing_zone.assembly import load_assembly
from landing_zone.review.nag import nag_findings, nag_section
from tests.conftest import ROOT
from tests.nag.test_nag_gate import nag_report, nag_violations

FIXTURE = ROOT / "tests" / "fixtures" / "shared-settings.yaml"
ACC = "111111111111"
MONITOR = f"arn:aws:ce::{ACC}:anomalymonitor/0a1b2c3d-4e5f-6789-abcd-ef0123456789"


@pytest.fixture(scope="module")
def taken_over(synth: Any) -> dict[str, Any]:
    """The fixture's templates (synthesized once, through the synthesis cache)."""
    return synth(FIXTURE).templates


def _logging(template: Any) -> dict[str, Any]:
    (resource,) = template.find_resources("Custom::BedrockInvocationLogging").values()
    return dict(resource["Properties"])


def _handler_statements(template: Any) -> dict[str, dict[str, Any]]:
    (policy,) = [
        r["Properties"]["PolicyDocument"]
        for r in template.find_resources("AWS::IAM::ManagedPolicy").values()
        if r["Properties"].get("ManagedPolicyName") == "kimi-lz-automation-invocation-logging"
    ]
    return {s["Sid"]: s for s in policy["Statement"]}


def test_by_default_nothing_is_taken_over_and_one_monitor_is_created(default_lz: Any) -> None:
    props = _logging(default_lz.template("access"))
    assert props["TakeOverExisting"] == "false"
    assert props["SavedParameterName"] == "kimi-lz-automation-invocation-logging-saved"
    assert "PassTakenOverRoleToBedrock" not in _handler_statements(default_lz.template("access"))
    cost = default_lz.template("cost")
    (monitor_id,) = cost.find_resources("AWS::CE::AnomalyMonitor")
    (subscription,) = cost.find_resources("AWS::CE::AnomalySubscription").values()
    assert subscription["Properties"]["MonitorArnList"] == [{"Fn::GetAtt": [monitor_id, "MonitorArn"]}]


def test_take_over_is_passed_to_the_handler_with_the_role_it_restores(taken_over: dict[str, Any]) -> None:
    templates = taken_over
    access = templates["kimi-lz-access"]
    assert _logging(access)["TakeOverExisting"] == "true"
    statements = _handler_statements(access)
    assert statements["PassTakenOverRoleToBedrock"] == {
        "Sid": "PassTakenOverRoleToBedrock",
        "Effect": "Allow",
        "Action": "iam:PassRole",
        "Resource": f"arn:aws:iam::{ACC}:role/*",
        "Condition": {"StringEquals": {"iam:PassedToService": "bedrock.amazonaws.com"}},
    }
    assert statements["KeepSavedState"]["Resource"] == (
        f"arn:aws:ssm:us-east-1:{ACC}:parameter/kimi-lz-automation-invocation-logging-saved"
    )


def test_the_data_retention_take_over_reaches_its_handler(taken_over: dict[str, Any]) -> None:
    templates = taken_over
    (resource,) = templates["kimi-lz-access"].find_resources("Custom::BedrockDataRetention").values()
    assert resource["Properties"]["TakeOverExisting"] == "true"


def test_the_accounts_monitor_is_reused_not_duplicated(taken_over: dict[str, Any]) -> None:
    templates = taken_over
    cost = templates["kimi-lz-cost"]
    assert cost.find_resources("AWS::CE::AnomalyMonitor") == {}
    (subscription,) = cost.find_resources("AWS::CE::AnomalySubscription").values()
    assert subscription["Properties"]["MonitorArnList"] == [MONITOR]


@pytest.mark.nag  # the cdk-nag packs: a stamped layer (tests/support/layers.py)
def test_the_take_over_configuration_passes_the_nag_gate(plan_for: Any, tmp_path: Path) -> None:
    outdir = tmp_path / "cdk.out"
    report = nag_report(plan_for(FIXTURE), outdir)
    assert nag_violations(report) == []
    found = nag_findings(nag_section(load_assembly(outdir)))
    assert [f for f in found if f.rule == "LZ-NAG-UNUSED-ACK"] == []
