"""verify reads intent by resource type: hand-written template fragments (a budget with a kill-switch action,
a plain metric alarm, an EKS cluster with a GPU node group from a launch template) are checked the same way
as the synthesized stacks, so stacks that appear later (self-hosting) are covered as soon as they exist."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from landing_zone.assembly import Assembly
from landing_zone.aws import use_client_factory
from landing_zone.verify import verify
from tests.moto.harness import Deployed, FakeServices, deploy_intent, moto_accounts

pytestmark = pytest.mark.moto

NAME = "kimi-frag"
ACCOUNT = "111111111111"  # cdk.json defaults: accounts[0]
REGION = "us-east-1"
MODEL = "moonshotai.kimi-k3.1-pro"


def write_assembly(root: Path, stacks: dict[str, dict]) -> Path:
    """A minimal cloud assembly: manifest.json + one template per stack, tagged like the landing zone's."""
    root.mkdir(parents=True, exist_ok=True)
    artifacts = {}
    for name, template in stacks.items():
        (root / f"{name}.template.json").write_text(json.dumps(template))
        artifacts[name] = {
            "type": "aws:cloudformation:stack",
            "environment": f"aws://{ACCOUNT}/{REGION}",
            "properties": {"templateFile": f"{name}.template.json", "tags": {"landing-zone": NAME}},
        }
    (root / "manifest.json").write_text(json.dumps({"version": "48.0.0", "artifacts": artifacts}))
    return root


COST = {
    "Resources": {
        "Topic": {"Type": "AWS::SNS::Topic", "Properties": {"TopicName": f"{NAME}-alerts"}},
        "Budget": {
            "Type": "AWS::Budgets::Budget",
            "Properties": {
                "Budget": {
                    "BudgetName": f"{NAME}-monthly",
                    "BudgetLimit": {"Amount": 1234.5, "Unit": "USD"},
                    "TimeUnit": "MONTHLY",
                    "BudgetType": "COST",
                },
                "NotificationsWithSubscribers": [
                    {
                        "Notification": {
                            "NotificationType": "ACTUAL",
                            "ComparisonOperator": "GREATER_THAN",
                            "Threshold": 100,
                            "ThresholdType": "PERCENTAGE",
                        },
                        "Subscribers": [{"SubscriptionType": "SNS", "Address": {"Ref": "Topic"}}],
                    }
                ],
            },
        },
        "KillPolicy": {
            "Type": "AWS::IAM::ManagedPolicy",
            "Properties": {
                "ManagedPolicyName": f"{NAME}-kill-switch",
                "PolicyDocument": {
                    "Version": "2012-10-17",
                    "Statement": [{"Effect": "Deny", "Action": "bedrock:InvokeModel", "Resource": "*"}],
                },
            },
        },
        "ActionRole": {
            "Type": "AWS::IAM::Role",
            "Properties": {
                "RoleName": f"{NAME}-automation-budget-action",
                "AssumeRolePolicyDocument": {
                    "Version": "2012-10-17",
                    "Statement": [
                        {
                            "Effect": "Allow",
                            "Principal": {"Service": "budgets.amazonaws.com"},
                            "Action": "sts:AssumeRole",
                        }
                    ],
                },
            },
        },
        "Action": {
            "Type": "AWS::Budgets::BudgetsAction",
            "Properties": {
                "BudgetName": {"Ref": "Budget"},
                "ActionType": "APPLY_IAM_POLICY",
                "ActionThreshold": {"Type": "PERCENTAGE", "Value": 100},
                "Definition": {
                    "IamActionDefinition": {"PolicyArn": {"Ref": "KillPolicy"}, "Roles": [f"{NAME}-invoker-app"]}
                },
                "ExecutionRoleArn": {"Fn::GetAtt": ["ActionRole", "Arn"]},
                "NotificationType": "ACTUAL",
                "ApprovalModel": "AUTOMATIC",
                "Subscribers": [{"Type": "SNS", "Address": {"Ref": "Topic"}}],
            },
        },
        "Throttles": {
            "Type": "AWS::CloudWatch::Alarm",
            "Properties": {
                "AlarmName": f"{NAME}-throttles",
                "Namespace": "AWS/Bedrock",
                "MetricName": "InvocationThrottles",
                "Statistic": "Sum",
                "Period": 300,
                "Dimensions": [{"Name": "ModelId", "Value": MODEL}],
                "EvaluationPeriods": 1,
                "Threshold": 10,
                "ComparisonOperator": "GreaterThanOrEqualToThreshold",
                "AlarmActions": [{"Ref": "Topic"}],
            },
        },
    }
}

SELF_HOSTING = {
    "Resources": {
        "GpuTemplate": {
            "Type": "AWS::EC2::LaunchTemplate",
            "Properties": {
                "LaunchTemplateName": f"{NAME}-gpu",
                "LaunchTemplateData": {"InstanceType": "p6-b300.48xlarge"},
            },
        },
        "Cluster": {
            "Type": "AWS::EKS::Cluster",
            "Properties": {
                "Name": f"{NAME}-eks",
                "RoleArn": f"arn:aws:iam::{ACCOUNT}:role/{NAME}-eks",
                "ResourcesVpcConfig": {"SubnetIds": ["subnet-0123456789abcdef0"]},
            },
        },
        "GpuNodes": {
            "Type": "AWS::EKS::Nodegroup",
            "Properties": {
                "ClusterName": {"Ref": "Cluster"},
                "NodegroupName": "gpu",
                "NodeRole": f"arn:aws:iam::{ACCOUNT}:role/{NAME}-nodes",
                "Subnets": ["subnet-0123456789abcdef0"],
                "CapacityType": "ON_DEMAND",
                "AmiType": "AL2023_x86_64_NVIDIA",
                "ScalingConfig": {"MinSize": 0, "MaxSize": 1, "DesiredSize": 0},
                "LaunchTemplate": {
                    "Id": {"Ref": "GpuTemplate"},
                    "Version": {"Fn::GetAtt": ["GpuTemplate", "LatestVersionNumber"]},
                },
            },
        },
        "SystemNodes": {
            "Type": "AWS::EKS::Nodegroup",
            "Properties": {
                "ClusterName": {"Ref": "Cluster"},
                "NodegroupName": "system",
                "NodeRole": f"arn:aws:iam::{ACCOUNT}:role/{NAME}-nodes",
                "Subnets": ["subnet-0123456789abcdef0"],
                "InstanceTypes": ["m7i.large"],
                "ScalingConfig": {"MinSize": 1, "MaxSize": 3, "DesiredSize": 2},
            },
        },
    }
}


@pytest.fixture(scope="module")
def fragment_plan(plan_for):
    return plan_for(None, name=NAME, self_hosting={"enabled": True, "capacity": "on-demand", "max_size": 1})


@pytest.fixture
def fragment(tmp_path: Path, fragment_plan, aws_mock) -> Iterator[Deployed]:
    root = write_assembly(tmp_path / "cdk.out", {f"{NAME}-cost": COST, f"{NAME}-selfhosting": SELF_HOSTING})
    assembly = Assembly.load(root)
    state = deploy_intent(assembly, fragment_plan, moto_accounts(assembly, fragment_plan))
    with use_client_factory(state.factory()):
        yield state


def failing(report: Any) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for r in report.results:
        if not r.passed:
            out.setdefault(r.check, set()).add(r.status.value)
    return out


def test_fragments_pass_when_deployed(fragment: Deployed, fragment_plan) -> None:
    report = verify(fragment.assembly.path, plan=fragment_plan)
    assert report.ok, report.text()
    assert [r.check for r in report.results] == [
        "account",
        "stack-status",
        "stack-drift",
        "stack-termination-protection",
        "stack-status",
        "stack-drift",
        "stack-termination-protection",
        "iam-role",
        "iam-role-trust",
        "iam-role-boundary",
        "iam-role-managed-policies",
        "iam-role-inline-policies",
        "iam-policy",
        "sns-topic",
        "budget",
        "budget-notification",
        "budget-subscribers",
        "budget-action",
        "alarm",
        "eks-nodegroup",
        "eks-nodegroup",
    ]
    gpu = next(r for r in report.results if r.resource == f"{NAME}-eks/gpu")
    assert gpu.expected == "ON_DEMAND p6-b300.48xlarge min 0 max 1"  # instance type from the launch template
    fragment.accounts.assert_stubs_consumed()


def test_budget_amount_drift(fragment: Deployed, fragment_plan) -> None:
    budgets = fragment.client("budgets")
    budgets.delete_budget(AccountId=ACCOUNT, BudgetName=f"{NAME}-monthly")
    budgets.create_budget(
        AccountId=ACCOUNT,
        Budget={
            "BudgetName": f"{NAME}-monthly",
            "BudgetLimit": {"Amount": "99", "Unit": "USD"},
            "TimeUnit": "MONTHLY",
            "BudgetType": "COST",
        },
    )
    report = verify(fragment.assembly.path, plan=fragment_plan)
    # the notification went with the old budget: both are reported
    assert failing(report) == {"budget": {"DRIFT"}, "budget-notification": {"MISSING"}}
    row = next(r for r in report.results if r.check == "budget")
    assert (row.expected, row.actual) == ("1234.5 USD MONTHLY COST", "99 USD MONTHLY COST")


def test_budget_deleted_takes_its_action_with_it(fragment: Deployed, fragment_plan) -> None:
    fragment.client("budgets").delete_budget(AccountId=ACCOUNT, BudgetName=f"{NAME}-monthly")
    fragment.fake.budget_actions.clear()
    report = verify(fragment.assembly.path, plan=fragment_plan)
    assert failing(report) == {"budget": {"MISSING"}, "budget-notification": {"MISSING"}, "budget-action": {"MISSING"}}


def test_alarm_threshold_drift(fragment: Deployed, fragment_plan) -> None:
    cw = fragment.client("cloudwatch")
    alarm = cw.describe_alarms(AlarmNames=[f"{NAME}-throttles"])["MetricAlarms"][0]
    cw.put_metric_alarm(
        AlarmName=alarm["AlarmName"],
        Namespace="AWS/Bedrock",
        MetricName="InvocationThrottles",
        Statistic="Sum",
        Period=300,
        Dimensions=alarm["Dimensions"],
        EvaluationPeriods=1,
        Threshold=1000,
        ComparisonOperator="GreaterThanOrEqualToThreshold",
        AlarmActions=alarm["AlarmActions"],
    )
    report = verify(fragment.assembly.path, plan=fragment_plan)
    assert failing(report) == {"alarm": {"DRIFT"}}
    assert "Threshold: expected 10, live 1000.0" in next(r for r in report.results if r.check == "alarm").detail


def test_gpu_node_group_deleted(fragment: Deployed, fragment_plan) -> None:
    fragment.client("eks").delete_nodegroup(clusterName=f"{NAME}-eks", nodegroupName="gpu")
    report = verify(fragment.assembly.path, plan=fragment_plan)
    assert failing(report) == {"eks-nodegroup": {"MISSING"}}


def test_gpu_node_group_scaled_beyond_the_configured_maximum(fragment: Deployed, fragment_plan) -> None:
    fragment.client("eks").update_nodegroup_config(
        clusterName=f"{NAME}-eks", nodegroupName="gpu", scalingConfig={"minSize": 0, "maxSize": 4, "desiredSize": 4}
    )
    report = verify(fragment.assembly.path, plan=fragment_plan)
    assert failing(report) == {"eks-nodegroup": {"DRIFT"}}
    assert "maxSize: expected 1, live 4" in next(r for r in report.results if not r.passed).detail


def test_self_hosting_enabled_but_not_synthesized_is_an_error(eu, deployed, plan_for) -> None:
    from tests.moto.conftest import EU

    plan = plan_for(EU, self_hosting={"enabled": True, "capacity": "on-demand"})
    report = verify(eu.outdir, plan=plan, management_profile="management", families=["eks"])
    assert [(r.check, r.status.value) for r in report.results] == [("account", "PASS"), ("eks-gpu-nodegroup", "ERROR")]
    assert "no AWS::EKS::Nodegroup with instance type p6-b300.48xlarge" in report.results[1].detail


def test_an_unnamed_alarm_without_a_cloudformation_record_is_an_error(tmp_path: Path, fragment_plan, aws_mock) -> None:
    template = {
        "Resources": {
            "Anonymous": {
                "Type": "AWS::CloudWatch::Alarm",
                "Properties": {
                    "Namespace": "AWS/Bedrock",
                    "MetricName": "Invocations",
                    "Statistic": "Sum",
                    "Period": 300,
                    "EvaluationPeriods": 1,
                    "Threshold": 1,
                    "ComparisonOperator": "GreaterThanThreshold",
                },
            }
        }
    }
    root = write_assembly(tmp_path / "cdk.out", {f"{NAME}-cost": template})
    accounts = moto_accounts(Assembly.load(root), fragment_plan)
    with use_client_factory(accounts.factory(Assembly.load(root), FakeServices())):
        report = verify(root, plan=fragment_plan)
    row = next(r for r in report.results if r.check == "alarm")
    assert row.status.value == "ERROR" and "CloudFormation" in row.detail
    assert report.exit_code == 1
