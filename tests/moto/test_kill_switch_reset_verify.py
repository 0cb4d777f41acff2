"""verify reads the kill switch's reset role (issue 33 item 5): its policy names the budget actions by their IDs
(``Fn::GetAtt <action>.ActionId``), which verify finds live (DescribeBudgetActionsForBudget: the action of the budget
that applies the same policy).  Deployed into moto: the policy passes as synthesized, and a reset policy that names
another action (a widened or stale one) is drift."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from landing_zone.assembly import Assembly
from landing_zone.aws import use_client_factory
from tests.conftest import ROOT
from tests.moto.conftest import run_cli
from tests.moto.harness import Deployed, deploy_intent
from tests.moto.test_verify import rows

pytestmark = pytest.mark.moto

US_ORG = ROOT / "examples" / "us-organization.yaml"
ACCOUNT = "777777777777"
RESET = "kimi-us-org-automation-kill-switch-reset"


@pytest.fixture
def apps_deployed(synth, aws_mock) -> Iterator[tuple[Deployed, list[str]]]:
    synthesized = synth(US_ORG)
    state = deploy_intent(Assembly.load(synthesized.outdir), synthesized.plan)
    args = [
        "verify",
        "--assembly",
        str(synthesized.outdir),
        "--config",
        str(US_ORG),
        "--management-profile",
        "management",
    ]
    with use_client_factory(state.factory()):
        yield state, args


def _reset_policy_row(stdout: str) -> dict:
    (row,) = [r for r in rows(stdout, "iam-policy") if r["resource"] == RESET]
    return row


def test_the_reset_policy_passes_with_the_live_action_ids(apps_deployed) -> None:
    state, args = apps_deployed
    _, stdout, _ = run_cli([*args, "--json"])
    row = _reset_policy_row(stdout)
    assert row["status"] == "PASS", row
    (role,) = [r for r in rows(stdout, "iam-role-trust") if r["resource"] == RESET]
    assert role["status"] == "PASS", role


def test_a_reset_policy_naming_another_action_is_drift(apps_deployed) -> None:
    state, args = apps_deployed
    iam = state.client("iam")
    arn = f"arn:aws:iam::{ACCOUNT}:policy/{RESET}"
    version = iam.get_policy(PolicyArn=arn)["Policy"]["DefaultVersionId"]
    doc = iam.get_policy_version(PolicyArn=arn, VersionId=version)["PolicyVersion"]["Document"]
    doc = json.loads(doc) if isinstance(doc, str) else doc
    doc["Statement"][0]["Resource"] = f"arn:aws:budgets::{ACCOUNT}:budget/team-b/action/*"
    iam.create_policy_version(PolicyArn=arn, PolicyDocument=json.dumps(doc), SetAsDefault=True)
    _, stdout, _ = run_cli([*args, "--json"])
    assert _reset_policy_row(stdout)["status"] == "DRIFT"
