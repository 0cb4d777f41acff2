"""``detection.central_event_bus_arn`` as synthesized (issue 37; docs/DETECTION.md, "Delivery to a central event
bus"): each rule of ``<name>-detection`` keeps its alert to the alerts topic and delivers the CloudTrail event, as it
is, to the central bus with the role ``<name>-detect-central-forwarder``, whose policy is exactly events:PutEvents on
that bus; the forwarding stacks deliver there themselves; the review admits the central account by the declared
grants only, one per stack."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from constructs_lib.detection import ALERT_FIELDS
from landing_zone.assembly import load_assembly
from landing_zone.review.deployability import deployability_findings, grants_section
from landing_zone.review.inventory import build_inventory
from tests.conftest import ROOT, derived_config

EU = ROOT / "examples" / "eu-sovereign.yaml"
CENTRAL = "arn:aws:events:eu-west-1:555555555555:event-bus/security-events"
ROLE = "kimi-eu-detect-central-forwarder"


@pytest.fixture(scope="module")
def central(synth: Callable) -> Any:
    text = EU.read_text()
    old = "\ndetection: {config_rules: true}\n"
    assert old in text  # the example's detection block, extended
    new = f"\ndetection: {{config_rules: true, central_event_bus_arn: '{CENTRAL}'}}\n"
    return synth(derived_config("eu-central-bus.yaml", text.replace(old, new, 1)))


def _resources(template: Any, kind: str) -> dict[str, dict[str, Any]]:
    return template.find_resources(kind)


def _role_id(template: Any) -> str:
    (role_id,) = [k for k, r in _resources(template, "AWS::IAM::Role").items() if r["Properties"]["RoleName"] == ROLE]
    return role_id


def test_every_rule_alerts_the_topic_and_delivers_the_event_to_the_central_bus(central: Any) -> None:
    template = central.template("detection")
    role_id = _role_id(template)
    rules = {r["Properties"]["Name"]: r["Properties"] for r in _resources(template, "AWS::Events::Rule").values()}
    planned = {f"kimi-eu-detect-{r.id}" for r in central.plan.policies.detection.rules}
    assert planned <= set(rules)
    for name in planned:
        targets = {t["Id"]: t for t in rules[name]["Targets"]}
        assert set(targets) == {"alerts", "central-bus"}, name
        assert targets["alerts"]["InputTransformer"]["InputPathsMap"] == dict(ALERT_FIELDS)
        assert targets["central-bus"] == {
            "Arn": CENTRAL,
            "Id": "central-bus",
            "RoleArn": {"Fn::GetAtt": [role_id, "Arn"]},
        }  # the event as it is: no input, no transformer


def test_the_central_role_may_put_events_on_that_bus_only_for_this_accounts_rules(central: Any) -> None:
    template = central.template("detection")
    role_id = _role_id(template)
    role = _resources(template, "AWS::IAM::Role")[role_id]["Properties"]
    (trust,) = role["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"Service": "events.amazonaws.com"}
    assert trust["Condition"] == {"StringEquals": {"aws:SourceAccount": "222222222222"}}
    (policy_ref,) = role["ManagedPolicyArns"]
    policies = _resources(template, "AWS::IAM::ManagedPolicy")
    (policy,) = [p["Properties"] for k, p in policies.items() if {"Ref": k} == policy_ref]
    assert policy["ManagedPolicyName"] == ROLE
    assert policy["PolicyDocument"]["Statement"] == [
        {"Sid": "ForwardToCentralBus", "Effect": "Allow", "Action": "events:PutEvents", "Resource": CENTRAL}
    ]


def test_the_forwarding_stacks_deliver_to_the_central_bus_themselves(central: Any) -> None:
    """us-east-1's and the management account's rules forward home and deliver to the central bus with the same role
    (EventBridge does not send an event received from another account on to a third), whose policy allows both."""
    home_bus = "arn:aws:events:eu-central-1:222222222222:event-bus/default"
    for part in ("detection-global", "detection-management"):
        template = central.template(part)
        (role_id,) = _resources(template, "AWS::IAM::Role")
        rules = _resources(template, "AWS::Events::Rule").values()
        assert rules
        for rule in rules:
            targets = {t["Id"]: t for t in rule["Properties"]["Targets"]}
            assert {k: t["Arn"] for k, t in targets.items()} == {"home-bus": home_bus, "central-bus": CENTRAL}
            assert all(t["RoleArn"] == {"Fn::GetAtt": [role_id, "Arn"]} for t in targets.values())
            assert all("InputTransformer" not in t for t in targets.values())
        (policy,) = _resources(template, "AWS::IAM::ManagedPolicy").values()
        assert sorted(
            (s["Sid"], s["Action"], s["Resource"]) for s in policy["Properties"]["PolicyDocument"]["Statement"]
        ) == [
            ("ForwardToCentralBus", "events:PutEvents", CENTRAL),
            ("ForwardToHomeBus", "events:PutEvents", home_bus),
        ]


def test_the_review_admits_the_central_account_by_its_grant_only(central: Any) -> None:
    assembly = load_assembly(central.outdir)
    records = build_inventory(assembly)
    grants = central.plan.cross_account_grants
    assert deployability_findings(records, assembly, grants) == []
    section = {g["id"]: g for g in grants_section(records, assembly, grants)}
    stacks = {
        "detection-central-bus": "kimi-eu-detection",
        "detection-global-central-bus": "kimi-eu-detection-global",
        "detection-management-central-bus": "kimi-eu-detection-management",
    }
    assert {g: section[g]["stack"] for g in stacks} == stacks
    for grant_id, stack in stacks.items():
        listed = section[grant_id]
        assert listed["accounts"] == ["555555555555"] and listed["used_by"]
        assert {use.rsplit(": ", 1)[1] for use in listed["used_by"]} == {"event-bus 555555555555"}
        without = [g for g in grants if g.id != grant_id]
        found = deployability_findings(records, assembly, without)
        assert {(f.rule, f.stack) for f in found} == {("LZ-FOREIGN-ACCOUNT", stack)}


def test_the_central_role_is_a_checked_name(central: Any) -> None:
    """The plan's name checks (length limits) cover every detection name this configuration synthesizes (rules, stacks,
    roles and policies), the new role's too."""
    from landing_zone.plan.checks import plan_names
    from tests.cdk.test_config_names_synth import _literal_names

    checked = {n.name for n in plan_names(central.plan)}
    synthesized = {n for n in _literal_names(central.outdir) if n.startswith("kimi-eu-detect")}
    assert ROLE in synthesized and ROLE in checked
    assert synthesized - checked == set()
