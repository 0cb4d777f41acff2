"""The detection stacks as synthesized (issue 37; docs/DETECTION.md): every planned rule on the default bus of the
deployment account's home Region, each alerting the alerts topic with a message that names statement, principal and
resource; the us-east-1 and management-account forwarders; the legacy-model alarms; the alerts topic's and key's
policies admitting only these rules; and, off, nothing of it."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from constructs_lib.detection import ALERT_FIELDS
from tests.conftest import ROOT

EU = ROOT / "examples" / "eu-sovereign.yaml"
US_SINGLE = ROOT / "examples" / "us-single-account.yaml"


def _resources(template: Any, kind: str) -> dict[str, dict[str, Any]]:
    return template.find_resources(kind)


@pytest.fixture(scope="module")
def eu(synth: Callable) -> Any:
    return synth(EU)


def test_every_planned_rule_is_deployed_with_its_pattern(eu: Any) -> None:
    rules = _resources(eu.template("detection"), "AWS::Events::Rule")
    deployed = {r["Properties"]["Name"]: r["Properties"] for r in rules.values()}
    planned = eu.plan.policies.detection.rules
    # and the AWS Config compliance alert (test_config_non_compliance_alerts_the_alerts_topic)
    assert set(deployed) == {f"kimi-eu-detect-{r.id}" for r in planned} | {"kimi-eu-detect-config-compliance"}
    for rule in planned:
        assert deployed[f"kimi-eu-detect-{rule.id}"]["EventPattern"] == json.loads(json.dumps(rule.pattern))


def test_each_alert_names_statement_principal_and_resource(eu: Any) -> None:
    rules = _resources(eu.template("detection"), "AWS::Events::Rule")
    by_id = {r.id: r for r in eu.plan.policies.detection.rules}
    for props in (
        r["Properties"] for r in rules.values() if r["Properties"]["Name"] != "kimi-eu-detect-config-compliance"
    ):
        (target,) = props["Targets"]
        transformer = target["InputTransformer"]
        assert transformer["InputPathsMap"] == dict(ALERT_FIELDS)
        text = json.loads(transformer["InputTemplate"])
        rule = by_id[props["Name"].removeprefix("kimi-eu-detect-")]
        assert all(f"<{f}>" in text for f in ("principal", "resource", "call"))
        for sid in rule.statements:
            assert sid in text
        assert "Statement: " in text


def test_alerts_go_to_the_alerts_topic(eu: Any) -> None:
    rules = _resources(eu.template("detection"), "AWS::Events::Rule")
    arns = {json.dumps(r["Properties"]["Targets"][0]["Arn"]) for r in rules.values()}
    assert len(arns) == 1 and "Alerts" in arns.pop()  # the cost stack's alerts topic, imported by reference


def test_the_topic_and_its_key_admit_only_the_detection_rules_of_their_account(eu: Any) -> None:
    policies = _resources(eu.template("cost"), "AWS::SNS::TopicPolicy")
    (policy,) = policies.values()
    events = [
        s
        for s in policy["Properties"]["PolicyDocument"]["Statement"]
        if s.get("Principal", {}).get("Service") == "events.amazonaws.com"
    ]
    (stmt,) = events
    assert stmt["Action"] == "sns:Publish"
    assert stmt["Condition"]["StringEquals"]["aws:SourceAccount"] == "222222222222"
    assert (
        stmt["Condition"]["ArnLike"]["aws:SourceArn"]
        == "arn:aws:events:eu-central-1:222222222222:rule/kimi-eu-detect-*"
    )


def test_the_global_forwarder_sends_iam_and_route53_events_home(eu: Any) -> None:
    rules = _resources(eu.template("detection-global"), "AWS::Events::Rule")
    names = {r["Properties"]["Name"] for r in rules.values()}
    assert "kimi-eu-detect-bedrock-api-keys" in names
    assert "kimi-eu-detect-route53-hostedzone" in names
    assert "kimi-eu-detect-ec2-security-group" not in names  # regional: recorded in home_region itself
    for r in rules.values():
        assert r["Properties"]["Targets"][0]["Arn"] == "arn:aws:events:eu-central-1:222222222222:event-bus/default"


def test_the_management_account_forwards_organizations_changes(eu: Any) -> None:
    rules = _resources(eu.template("detection-management"), "AWS::Events::Rule")
    names = {r["Properties"]["Name"] for r in rules.values()}
    assert names == {"kimi-eu-detect-organizations-policy", "kimi-eu-detect-organizations-root"}
    (bus_policy,) = _resources(eu.template("detection"), "AWS::Events::EventBusPolicy").values()
    assert bus_policy["Properties"]["Statement"]["Principal"] == {"AWS": "arn:aws:iam::444444444444:root"}


def test_legacy_model_alarms(eu: Any) -> None:
    alarms = _resources(eu.template("detection"), "AWS::CloudWatch::Alarm")
    assert alarms
    for alarm in alarms.values():
        props = alarm["Properties"]
        assert (props["Namespace"], props["MetricName"]) == ("AWS/Bedrock", "LegacyModelInvocations")
        assert props["ComparisonOperator"] == "GreaterThanThreshold" and props["Threshold"] == 0


def test_off_in_single_account_mode_by_default(synth: Callable) -> None:
    single = synth(US_SINGLE)
    assert not [n for n in single.templates if "detection" in n]
    (policy,) = _resources(single.template("cost"), "AWS::SNS::TopicPolicy").values()
    assert "events.amazonaws.com" not in json.dumps(policy)


def test_config_rules_are_the_planned_managed_rules(eu: Any) -> None:
    """detection.config_rules (the EU example opts in): one AWS managed rule per planned check, named
    <name>-config-<id>, scoped to its resource types, with its parameters."""
    planned = eu.plan.policies.detection.config_rules
    assert {r.identifier for r in planned} == {"VPC_DEFAULT_SECURITY_GROUP_CLOSED", "REQUIRED_TAGS"}
    deployed = {
        r["Properties"]["ConfigRuleName"]: r["Properties"]
        for r in _resources(eu.template("detection"), "AWS::Config::ConfigRule").values()
        if r["Properties"]["Source"]["Owner"] == "AWS"  # the custom rule: tests/cdk/test_config_checks.py
    }
    assert set(deployed) == {f"kimi-eu-config-{r.id}" for r in planned}
    for rule in planned:
        props = deployed[f"kimi-eu-config-{rule.id}"]
        assert props["Source"] == {"Owner": "AWS", "SourceIdentifier": rule.identifier}
        assert props["Scope"]["ComplianceResourceTypes"] == list(rule.resource_types)
        assert ("ComplianceResourceId" in props["Scope"]) == (
            rule.resource_id is not None
        )  # tests/cdk/test_config_checks
        assert props.get("InputParameters") == (json.loads(rule.input_parameters) if rule.input_parameters else None)
    assert deployed["kimi-eu-config-tags"]["InputParameters"] == {"tag1Key": "landing-zone", "tag1Value": "kimi-eu"}


def test_no_template_creates_a_config_recorder_or_delivery_channel(eu: Any, synth: Callable) -> None:
    """The rules run on the account's recorder (Control Tower's): AWS Config allows one per account and Region."""
    for synthesized in (eu, synth(US_SINGLE)):
        for name, template in synthesized.templates.items():
            for kind in ("AWS::Config::ConfigurationRecorder", "AWS::Config::DeliveryChannel"):
                assert not _resources(template, kind), (name, kind)


def test_config_non_compliance_alerts_the_alerts_topic(eu: Any) -> None:
    """A resource becoming NON_COMPLIANT with one of the landing zone's Config rules (and no other's) alerts the
    alerts topic, naming the rule, the resource and the command that lists the details."""
    rules = _resources(eu.template("detection"), "AWS::Events::Rule")
    (alert,) = [
        r["Properties"] for r in rules.values() if r["Properties"]["Name"] == "kimi-eu-detect-config-compliance"
    ]
    assert alert["EventPattern"] == {
        "source": ["aws.config"],
        "detail-type": ["Config Rules Compliance Change"],
        "detail": {
            "configRuleName": sorted(eu.plan.policies.detection.config_rule_names.values()),
            "newEvaluationResult": {"complianceType": ["NON_COMPLIANT"]},
        },
    }
    (target,) = alert["Targets"]
    assert "Alerts" in json.dumps(target["Arn"])  # the cost stack's alerts topic (test_alerts_go_to_the_alerts_topic)
    transformer = target["InputTransformer"]
    assert transformer["InputPathsMap"]["rule"] == "$.detail.configRuleName"
    assert "<rule>" in transformer["InputTemplate"] and "<resource>" in transformer["InputTemplate"]
