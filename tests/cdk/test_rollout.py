"""Multi-account roll-out: one StackSet template, service-managed, auto-deployed, per-account parameters."""

from __future__ import annotations

import json

import pytest

from landing_zone.errors import ConfigError
from landing_zone.plan.rollout import (
    PARAM_BUDGET,
    PARAM_COST_CENTER,
    PARAM_THRESHOLD,
    member_instances,
)
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "multi-account-100.yaml"


@pytest.fixture(scope="module")
def rollout(synth):
    return synth(EXAMPLE)


def stack_set(rollout) -> dict:
    (ss,) = rollout.template("rollout").find_resources("AWS::CloudFormation::StackSet").values()
    return ss["Properties"]


def member_template(rollout) -> dict:
    (path,) = rollout.outdir.glob("*.stackset.template.json")
    return json.loads(path.read_text())


def test_only_the_rollout_and_guardrails_stacks_exist(rollout):
    names = {s.stack_name for s in rollout.stacks}
    assert names == {"kimi-org-rollout", "kimi-org-guardrails"}
    assert rollout.stack("rollout").account == "444444444444"


def test_stack_set_is_service_managed_with_automatic_deployment(rollout):
    props = stack_set(rollout)
    assert props["PermissionModel"] == "SERVICE_MANAGED"
    assert props["AutoDeployment"] == {"Enabled": True, "RetainStacksOnAccountRemoval": True}
    assert props["CallAs"] == "SELF"  # deployed from the management account
    assert props["Capabilities"] == ["CAPABILITY_NAMED_IAM"]
    assert props["OperationPreferences"]["MaxConcurrentPercentage"] == 25
    assert "TemplateURL" in props  # the member template is an asset, not inlined


def test_targets_cover_every_configured_account_and_the_rest_of_the_ous(rollout):
    groups = stack_set(rollout)["StackInstancesGroup"]
    assert len(groups) == 101
    rest = [g for g in groups if g["DeploymentTargets"]["AccountFilterType"] == "DIFFERENCE"]
    (rest,) = rest
    assert sorted(rest["DeploymentTargets"]["OrganizationalUnitIds"]) == [
        "ou-abcd-11111111",
        "ou-abcd-22222222",
        "ou-abcd-33333333",
        "ou-abcd-44444444",
    ]
    assert len(rest["DeploymentTargets"]["Accounts"]) == 100
    per_account = {g["DeploymentTargets"]["Accounts"][0]: g for g in groups if g is not rest}
    assert len(per_account) == 100
    for group in per_account.values():
        assert group["DeploymentTargets"]["AccountFilterType"] == "INTERSECTION"
        assert group["Regions"] == ["eu-central-1"]


def test_per_account_differences_are_parameter_overrides(rollout):
    groups = stack_set(rollout)["StackInstancesGroup"]
    by_account = {
        g["DeploymentTargets"]["Accounts"][0]: {
            p["ParameterKey"]: p["ParameterValue"] for p in g.get("ParameterOverrides", [])
        }
        for g in groups
        if g["DeploymentTargets"]["AccountFilterType"] == "INTERSECTION"
    }
    # member-003 has monthly_budget_usd 2800: budget and the alarm threshold derived from it
    assert by_account["100000000003"][PARAM_BUDGET] == "2800.00"
    assert by_account["100000000003"][PARAM_THRESHOLD] == f"{2800 / 730 * 2.0:.4f}"
    assert by_account["100000000007"]["AlertEmail1"] == "team-007@example.com"
    assert by_account["100000000001"][PARAM_COST_CENTER] == "cc-1001"
    assert PARAM_BUDGET not in by_account["100000000001"]  # default budget: no override
    # the OU of each instance is the account's own
    ous = {
        g["DeploymentTargets"]["Accounts"][0]: g["DeploymentTargets"]["OrganizationalUnitIds"]
        for g in groups
        if g["DeploymentTargets"]["AccountFilterType"] == "INTERSECTION"
    }
    assert ous["100000000001"] == ["ou-abcd-22222222"]


def test_one_member_template_for_all_accounts_with_no_account_literal(rollout):
    template = member_template(rollout)
    text = json.dumps(template)
    assert "100000000042" not in text and "100000000000" not in text
    assert set(template["Parameters"]) >= {PARAM_BUDGET, PARAM_THRESHOLD, PARAM_COST_CENTER, "AlertEmail1"}
    types = {r["Type"] for r in template["Resources"].values()}
    assert {
        "AWS::KMS::Key",
        "AWS::EC2::VPCEndpoint",
        "AWS::IAM::Role",
        "AWS::Bedrock::ApplicationInferenceProfile",
        "AWS::Budgets::Budget",
        "AWS::Budgets::BudgetsAction",
        "AWS::CloudWatch::Alarm",
        "Custom::BedrockInvocationLogging",
    } <= types
    (budget,) = [r for r in template["Resources"].values() if r["Type"] == "AWS::Budgets::Budget"]
    assert budget["Properties"]["Budget"]["BudgetLimit"]["Amount"] == {"Ref": PARAM_BUDGET}
    alarms = [
        r
        for r in template["Resources"].values()
        if r["Type"] == "AWS::CloudWatch::Alarm" and r["Properties"]["AlarmName"].endswith("-spend")
    ]
    assert alarms and alarms[0]["Properties"]["Threshold"] == {"Ref": PARAM_THRESHOLD}
    (rollout_assets,) = (
        rollout.template("rollout")
        .find_resources(
            "AWS::S3::Bucket", {"Properties": {"BucketName": "kimi-org-stackset-assets-444444444444-eu-central-1"}}
        )
        .values()
    )
    assert rollout_assets


def test_asset_bucket_is_readable_by_the_organization_only(rollout):
    policies = rollout.template("rollout").find_resources("AWS::S3::BucketPolicy")
    statements = [s for p in policies.values() for s in p["Properties"]["PolicyDocument"]["Statement"]]
    (org_read,) = [s for s in statements if s.get("Sid") == "OrganizationReadsStackSetAssets"]
    assert org_read["Condition"] == {"StringEquals": {"aws:PrincipalOrgID": "o-exampleorg1"}}
    assert org_read["Action"] == ["s3:GetObject", "s3:GetObjectVersion"]


def test_member_instances_are_pure_and_ordered(plan_for):
    plan = plan_for(EXAMPLE)
    instances = member_instances(plan)
    assert [i.account_id for i in instances] == [a.id for a in plan.config.accounts]


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        ({"organization": {"organization_id": None}}, "needs organization.organization_id"),
        ({"accounts": [{"id": "100000000000", "name": "a-b-c", "ou_id": "ou-zzzz-99999999"}]}, "one of"),
        ({"applications": [{"name": "x-y-z", "cost_center": "c", "account": "member-000"}]}, "remove `account`"),
        ({"cost": {"alert_emails": ["a@x.io", "b@x.io", "c@x.io", "d@x.io"]}}, "at most 3"),
    ],
)
def test_member_baseline_config_errors(plan_for, overrides, fragment):
    with pytest.raises(ConfigError) as info:
        plan_for(EXAMPLE, **overrides)
    assert fragment in str(info.value)


def test_the_asset_bucket_of_fixed_name_is_emptied_and_deleted_with_the_stack_its_access_logs_retained(rollout):
    """cdk-stacksets writes the asset bucket's name into the member template, so it cannot end with the stack's
    suffix: a retained bucket of that name would make the deployment after `cdk destroy` fail ("already exists").
    It is deleted, its objects first (CDK's auto-delete custom resource); its access logs (generated name) stay."""
    template = rollout.template("rollout").to_json()
    buckets = {k: r for k, r in template["Resources"].items() if r["Type"] == "AWS::S3::Bucket"}
    (named,) = (k for k, r in buckets.items() if "BucketName" in r["Properties"])
    assert buckets[named]["DeletionPolicy"] == "Delete"
    (emptier,) = (r for r in template["Resources"].values() if r["Type"] == "Custom::S3AutoDeleteObjects")
    assert emptier["Properties"]["BucketName"] == {"Ref": named}
    (logs,) = (r for k, r in buckets.items() if k != named)
    assert logs["DeletionPolicy"] == "Retain" and "BucketName" not in logs["Properties"]
