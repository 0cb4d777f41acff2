"""data_retention.mode applied: the access stack's Custom::BedrockDataRetention, its role (bedrock:PutAccountDataRetention
only for the configured mode and the inherit it hands back, GetAccountDataRetention, its own saved-state parameter) and
the SCP exemption that lets it set the mode."""

from __future__ import annotations

import fnmatch
import json
from typing import Any

import pytest
from aws_cdk.assertions import Template

from tests.conftest import ROOT

EU = ROOT / "examples" / "eu-sovereign.yaml"
ROLE = "kimi-eu-automation-data-retention"


@pytest.fixture(scope="module")
def retention(synth_with: Any) -> tuple[Any, Template]:
    lz = synth_with("eu-sovereign-retention-none", EU, data_retention={"mode": "none"})
    return lz.plan, lz.template("access")


def test_the_mode_is_applied_by_a_custom_resource(retention: tuple[Any, Template]) -> None:
    _, t = retention
    t.resource_count_is("Custom::BedrockDataRetention", 1)
    t.has_resource_properties(
        "Custom::BedrockDataRetention",
        {"Mode": "none", "TakeOverExisting": "false", "SavedParameterName": "kimi-eu-automation-data-retention-saved"},
    )


def test_the_handler_may_set_only_the_configured_mode_and_hand_back_inherit(retention: tuple[Any, Template]) -> None:
    plan, t = retention
    raw = t.to_json()["Resources"]
    roles = {r["Properties"].get("RoleName") for r in raw.values() if r["Type"] == "AWS::IAM::Role"}
    assert ROLE in roles and "kimi-eu-automation-retention-provider" in roles
    policies = [
        r["Properties"]["PolicyDocument"]
        for r in raw.values()
        if r["Type"] == "AWS::IAM::ManagedPolicy" and r["Properties"].get("ManagedPolicyName") == ROLE
    ]
    assert len(policies) == 1
    statements = {s["Sid"]: s for s in policies[0]["Statement"]}
    assert statements["SetAccountDataRetention"] == {
        "Sid": "SetAccountDataRetention",
        "Effect": "Allow",
        "Action": "bedrock:PutAccountDataRetention",
        "Resource": "*",
        "Condition": {"StringEquals": {"bedrock:DataRetentionMode": ["inherit", "none"]}},
    }
    assert statements["ReadAccountDataRetention"]["Action"] == "bedrock:GetAccountDataRetention"
    # the saved mode: its own parameter only
    assert statements["KeepSavedState"]["Resource"] == (
        f"arn:aws:ssm:eu-central-1:{plan.config.deployment_account}:parameter/kimi-eu-automation-data-retention-saved"
    )
    # no other Bedrock action anywhere in the policy
    bedrock = {a for s in policies[0]["Statement"] for a in [s["Action"]] if str(a).startswith("bedrock")}
    assert bedrock == {"bedrock:PutAccountDataRetention", "bedrock:GetAccountDataRetention"}
    # no other policy of the stack may set the mode
    others = [
        r["Properties"].get("ManagedPolicyName")
        for r in raw.values()
        if r["Type"] == "AWS::IAM::ManagedPolicy" and "PutAccountDataRetention" in json.dumps(r["Properties"])
    ]
    assert others == [ROLE]


def test_the_handler_role_is_exempt_from_the_retention_deny(retention: tuple[Any, Template]) -> None:
    plan, _ = retention
    deny = next(
        s for d in plan.policies.scp_set.documents for s in d["Statement"] if s["Sid"] == "DenyDataRetentionModeChange"
    )
    exempt = deny["Condition"]["ArnNotLike"]["aws:PrincipalARN"]
    arn = f"arn:aws:iam::{plan.config.deployment_account}:role/{ROLE}"
    assert any(fnmatch.fnmatchcase(arn, pattern) for pattern in exempt), exempt


def test_take_over_lets_the_handler_hand_back_any_mode(plan_for: Any) -> None:
    from landing_zone.plan.policies import retention_handler_policy

    plan = plan_for(EU, data_retention={"mode": "none", "take_over_existing": True})
    (put,) = [s for s in retention_handler_policy(plan.config)["Statement"] if s["Sid"] == "SetAccountDataRetention"]
    assert "Condition" not in put  # the mode it took over is known only at deploy time


def test_no_custom_resource_without_a_mode(plan_for: Any, tmp_path: Any) -> None:
    plan = plan_for(EU, data_retention={"mode": None})  # the example sets mode none
    assert plan.config.data_retention.mode is None and "data-retention" not in plan.policies.automation
