"""Issue 26 "done when": examples/two-applications-mantle.yaml (two applications on Mantle, an organization) shows in
its templates each application's cost-allocation tags, the tags' activation in the management account, its Mantle
Project, its budget and kill switch, its spend alarm on its Project series and its dashboard line, and SCPs that let
its invoker run inference in its tagged project."""

from __future__ import annotations

import json

import pytest

from landing_zone.core import naming
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "two-applications-mantle.yaml"
NAME = "kimi-apps-org"
APPS = {"chat": "cc-1001", "search": "cc-2002"}


@pytest.fixture(scope="module")
def lz(synth):
    return synth(EXAMPLE)


def _tags(props) -> dict[str, str]:
    return {t["Key"]: t["Value"] for t in props.get("Tags", [])}


def test_each_application_has_a_tagged_project_and_a_tagged_invoker(lz):
    access = lz.template("access")
    projects = {
        r["Properties"]["Name"]: r["Properties"] for r in access.find_resources("AWS::BedrockMantle::Project").values()
    }
    roles = {r["Properties"].get("RoleName"): r["Properties"] for r in access.find_resources("AWS::IAM::Role").values()}
    for app, cost_center in APPS.items():
        want = {"application": app, "cost-center": cost_center, "landing-zone": NAME}
        assert want.items() <= _tags(projects[naming.mantle_project_name(NAME, app)]).items()
        assert want.items() <= _tags(roles[naming.invoker_role_name(NAME, app)]).items()


def test_the_tags_are_activated_in_the_management_account_not_in_the_workload_account(lz):
    assert not lz.template("access").find_resources("Custom::CostAllocationTags")
    guardrails = lz.template("guardrails")
    (activation,) = guardrails.find_resources("Custom::CostAllocationTags").values()
    assert activation["Properties"]["TagKeys"] == "application,cost-center,landing-zone"
    assert guardrails.find_resources("AWS::KMS::Key")  # its logs' key, in the management account
    manifest = json.loads((lz.outdir / "manifest.json").read_text())
    env = manifest["artifacts"][f"{NAME}-guardrails"]["environment"]
    assert env == "aws://888888888888/us-east-1"


def test_each_application_has_its_budget_and_kill_switch(lz):
    cost = lz.template("cost")
    budgets = {
        r["Properties"]["Budget"]["BudgetName"]: r["Properties"]["Budget"]
        for r in cost.find_resources("AWS::Budgets::Budget").values()
    }
    actions = {r["Properties"]["BudgetName"] for r in cost.find_resources("AWS::Budgets::BudgetsAction").values()}
    for app, amount in (("chat", 1500), ("search", 600)):
        budget = budgets[naming.application_budget_name(NAME, app)]
        assert budget["BudgetLimit"] == {"Amount": amount, "Unit": "USD"}
        assert {"Tags": {"Key": "application", "Values": [app], "MatchOptions": ["EQUALS"]}} in budget[
            "FilterExpression"
        ]["And"]
        assert naming.application_budget_name(NAME, app) in actions


def test_each_application_alarms_on_its_projects_id(lz):
    cost = lz.template("cost")
    alarms = {
        r["Properties"]["AlarmName"]: r["Properties"] for r in cost.find_resources("AWS::CloudWatch::Alarm").values()
    }
    for app in APPS:
        alarm = alarms[naming.alarm_name(NAME, f"spend-{app}")]
        metrics = [q["MetricStat"]["Metric"] for q in alarm["Metrics"] if "MetricStat" in q]
        assert {m["Namespace"] for m in metrics} == {"AWS/BedrockMantle"}
        dims = [d for m in metrics for d in m["Dimensions"]]
        assert {d["Name"] for d in dims} == {"Project"}
        # the project's Id attribute, exported by the access stack
        assert all("Fn::ImportValue" in d["Value"] and "MantleProject" in json.dumps(d["Value"]) for d in dims)
        assert alarms[naming.alarm_name(NAME, f"spend-{app}")]["AlarmActions"]


def test_the_dashboard_shows_each_applications_project(lz):
    (dashboard,) = lz.template("cost").find_resources("AWS::CloudWatch::Dashboard").values()
    body = json.dumps(dashboard["Properties"]["DashboardBody"])
    for app in APPS:
        assert f"Mantle Project of {app}" in body
    assert "each application's Project" in body


def test_the_scps_leave_inference_in_a_tagged_project_to_its_invoker(lz):
    contents = [
        json.loads(r["Properties"]["Content"])
        for r in lz.template("guardrails").find_resources("AWS::Organizations::Policy").values()
    ]
    (tamper,) = [s for c in contents for s in c["Statement"] if s["Sid"] == "DenyTaggedResourceTampering"]
    assert "bedrock-mantle:CreateInference" in tamper["NotAction"]
    assert not {"bedrock-mantle:TagResource", "bedrock-mantle:UntagResource", "bedrock-mantle:ArchiveProject"} & set(
        tamper["NotAction"]
    )
