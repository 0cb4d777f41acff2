"""The source-Region forwarders as synthesized (issue 37; docs/DETECTION.md, "Where it runs"): one
``<name>-detection-<region>`` per source Region other than ``home_region`` and us-east-1, in the deployment account,
carrying exactly the regional workload rules and forwarding them to the home Region's default bus with a role of its
own; us-east-1 as a source Region adds the regional rules to ``<name>-detection-global``; the examples unchanged.

The schema confines ``inference_source_regions`` to ``home_region`` today, so the configuration is widened after
validation (as tests/unit/test_detection_regions.py does)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Template

from stacks.landing_zone import build_landing_zone
from tests.conftest import ROOT, cdk_context

EU = ROOT / "examples" / "eu-sovereign.yaml"
HOME_BUS = "arn:aws:events:eu-central-1:222222222222:event-bus/default"


@pytest.fixture(scope="module")
def wide(plan_for: Callable) -> Any:
    plan = plan_for(EU)
    sources = ("eu-central-1", "eu-west-1", "us-east-1")
    wider = dataclasses.replace(plan, config=plan.config.model_copy(update={"inference_source_regions": sources}))
    app = cdk.App(context=cdk_context())
    return build_landing_zone(app, wider)


def _rules(stack: cdk.Stack | Template) -> dict[str, dict[str, Any]]:
    template = stack if isinstance(stack, Template) else Template.from_stack(stack)
    found = template.find_resources("AWS::Events::Rule")
    return {r["Properties"]["Name"]: r["Properties"] for r in found.values()}


def test_one_forwarder_per_other_source_region_and_none_for_home(wide: Any) -> None:
    names = {s.stack_name: (s.account, s.region) for s in wide.stacks if "-detection" in s.stack_name}
    assert names == {
        "kimi-eu-detection": ("222222222222", "eu-central-1"),
        "kimi-eu-detection-global": ("222222222222", "us-east-1"),
        "kimi-eu-detection-eu-west-1": ("222222222222", "eu-west-1"),
        "kimi-eu-detection-management": ("444444444444", "us-east-1"),
    }
    assert set(wide.detection_regions) == {"eu-west-1"}


def test_the_source_region_forwarder_carries_exactly_the_regional_rules_home(wide: Any) -> None:
    rules = wide.plan.policies.detection.rules
    deployed = _rules(wide.detection_regions["eu-west-1"])
    expected = {f"kimi-eu-detect-{r.id}" for r in rules if r.placement == "workload" and r.regional}
    assert set(deployed) == expected
    for props in deployed.values():
        (target,) = props["Targets"]
        assert target["Arn"] == HOME_BUS and "InputTransformer" not in target  # forwarded as it is


def test_each_forwarder_role_is_its_own_and_may_only_put_events_on_the_home_bus(wide: Any) -> None:
    template = Template.from_stack(wide.detection_regions["eu-west-1"])
    (role,) = template.find_resources("AWS::IAM::Role").values()
    assert role["Properties"]["RoleName"] == "kimi-eu-detect-forwarder-eu-west-1"
    (policy,) = template.find_resources("AWS::IAM::ManagedPolicy").values()
    (stmt,) = policy["Properties"]["PolicyDocument"]["Statement"]
    assert (stmt["Action"], stmt["Resource"]) == ("events:PutEvents", HOME_BUS)
    global_role = Template.from_stack(wide.detection_global).find_resources("AWS::IAM::Role")
    assert [r["Properties"]["RoleName"] for r in global_role.values()] == ["kimi-eu-detect-forwarder"]


def test_us_east_1_as_a_source_region_adds_the_regional_rules_to_the_global_forwarder(wide: Any, synth) -> None:
    deployed = set(_rules(wide.detection_global))
    assert {"kimi-eu-detect-ec2-security-group", "kimi-eu-detect-bedrock-api-keys"} <= deployed
    unchanged = set(_rules(synth(EU).template("detection-global")))
    assert "kimi-eu-detect-ec2-security-group" not in unchanged and unchanged < deployed


# -- the member baseline: each member account's template carries the rules, alerting its own alerts topic ------------
MULTI = ROOT / "examples" / "multi-account-100.yaml"


def test_the_member_template_carries_the_member_rules_alerting_its_own_topic(synth) -> None:
    from landing_zone.plan.detection import member_rules

    rollout = synth(MULTI)
    (path,) = rollout.outdir.glob("*.stackset.template.json")
    resources = json.loads(path.read_text())["Resources"]
    deployed = {
        r["Properties"]["Name"]: r["Properties"] for r in resources.values() if r["Type"] == "AWS::Events::Rule"
    }
    planned = member_rules(rollout.plan.config, rollout.plan.policies.detection.rules)
    assert set(deployed) == {f"kimi-org-detect-{r.id}" for r in planned}
    (topic_id,) = [k for k, r in resources.items() if r["Type"] == "AWS::SNS::Topic"]
    for props in deployed.values():
        (target,) = props["Targets"]
        assert target["Arn"] == {"Ref": topic_id} and "InputTransformer" in target
    # the member's topic admits this account's detection rules only (the account as a pseudo parameter)
    (policy,) = [r for r in resources.values() if r["Type"] == "AWS::SNS::TopicPolicy"]
    (stmt,) = [
        s for s in policy["Properties"]["PolicyDocument"]["Statement"] if "events" in json.dumps(s.get("Principal"))
    ]
    assert "rule/kimi-org-detect-*" in json.dumps(stmt["Condition"]) and "AWS::AccountId" in json.dumps(stmt)
    assert not [n for n in rollout.templates if "detection" in n]  # no detection stack in that mode
