"""``detection.central_event_bus_arn`` (issue 37, "Delivery ... or to a central account's event bus in organization
mode"; docs/DETECTION.md, "Delivery to a central event bus"): validated at the edge (an event-bus ARN of another
account, organization mode, the detection stack deployed), planned as a role policy allowing events:PutEvents on that
bus only, and declared as the one cross-account grant that names the central account."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from landing_zone.errors import ConfigError
from landing_zone.plan.grants import cross_account_grants
from tests.conftest import ROOT

EU = ROOT / "examples" / "eu-sovereign.yaml"  # organization mode; deployment account 222222222222
US_SINGLE = ROOT / "examples" / "us-single-account.yaml"
MULTI = ROOT / "examples" / "multi-account-100.yaml"  # member_baseline on
CENTRAL = "arn:aws:events:eu-west-1:555555555555:event-bus/security-events"


def _error(plan_for: Callable, config, **overrides) -> str:
    with pytest.raises(ConfigError) as err:
        plan_for(config, **overrides)
    return str(err.value)


def test_the_plan_allows_put_events_on_the_central_bus_only(plan_for: Callable) -> None:
    detection = plan_for(EU, detection={"central_event_bus_arn": CENTRAL}).policies.detection
    assert detection.central_bus_arn == CENTRAL
    assert detection.central_forwarder["Statement"] == [
        {"Sid": "ForwardToCentralBus", "Effect": "Allow", "Action": "events:PutEvents", "Resource": CENTRAL}
    ]


def test_omitted_there_is_no_central_delivery_and_no_grant(plan_for: Callable) -> None:
    plan = plan_for(EU)
    assert plan.policies.detection.central_bus_arn is None and plan.policies.detection.central_forwarder is None
    assert "detection-central-bus" not in {g.id for g in cross_account_grants(plan.config, plan.applications)}


def test_each_forwarding_stack_has_a_grant_and_its_policy_allows_the_central_bus(plan_for: Callable) -> None:
    """The grants name every stack the plan forwards from (workload_forwarders, and the management account's)."""
    from landing_zone.plan.detection import workload_forwarders

    plan = plan_for(EU, detection={"central_event_bus_arn": CENTRAL})
    grants = {g.id: g.stack for g in cross_account_grants(plan.config, plan.applications) if "central-bus" in g.id}
    parts = ["detection", *(f.part for f in workload_forwarders(plan.config)), "detection-management"]
    assert sorted(grants.values()) == sorted(f"kimi-eu-{p}" for p in parts)
    assert {s["Sid"]: s["Resource"] for s in plan.policies.detection.forwarder["Statement"]} == {
        "ForwardToHomeBus": "arn:aws:events:eu-central-1:222222222222:event-bus/default",
        "ForwardToCentralBus": CENTRAL,
    }


def test_no_grant_for_the_management_stack_when_it_is_the_central_account(plan_for: Callable) -> None:
    own = "arn:aws:events:us-east-1:444444444444:event-bus/security"  # the EU example's management account
    plan = plan_for(EU, detection={"central_event_bus_arn": own})
    grants = {g.stack for g in cross_account_grants(plan.config, plan.applications) if "central-bus" in g.id}
    assert grants == {"kimi-eu-detection", "kimi-eu-detection-global"}


def test_the_central_account_is_a_declared_grant_of_the_detection_stack(plan_for: Callable) -> None:
    plan = plan_for(EU, detection={"central_event_bus_arn": CENTRAL})
    (grant,) = [g for g in cross_account_grants(plan.config, plan.applications) if g.id == "detection-central-bus"]
    assert (grant.stack, grant.policy_kinds, grant.names, grant.accounts) == (
        "kimi-eu-detection",
        ("managed",),
        ("event-bus",),
        ("555555555555",),
    )
    assert CENTRAL in grant.reason and "kimi-eu-detect-central-forwarder" in grant.reason
    assert grant.admits("kimi-eu-detection", "managed", "event-bus", "555555555555")
    assert not grant.admits("kimi-eu-detection", "managed", "event-bus", "666666666666")


@pytest.mark.parametrize(
    "value",
    [
        "arn:aws:sns:eu-west-1:555555555555:security-events",  # a topic, not a bus
        "arn:aws:events:eu-west-1:555555555555:rule/security-events",  # a rule
        "arn:aws:events:eu-west-1:*:event-bus/security-events",  # no account
        "arn:aws:events::555555555555:event-bus/security-events",  # no Region
        "security-events",  # a name alone
    ],
)
def test_anything_but_an_event_bus_arn_is_refused(plan_for: Callable, value: str) -> None:
    text = _error(plan_for, EU, detection={"central_event_bus_arn": value})
    assert "detection.central_event_bus_arn" in text and value in text and "event bus ARN" in text


def test_refused_without_an_organization_block(plan_for: Callable) -> None:
    text = _error(plan_for, US_SINGLE, detection={"enabled": True, "central_event_bus_arn": CENTRAL})
    assert "detection.central_event_bus_arn" in text and CENTRAL in text and "organization block" in text


def test_refused_with_detection_off(plan_for: Callable) -> None:
    text = _error(plan_for, EU, detection={"enabled": False, "config_rules": False, "central_event_bus_arn": CENTRAL})
    assert "detection.central_event_bus_arn" in text and "detection.enabled is false" in text


def test_refused_with_the_member_baseline(plan_for: Callable) -> None:
    text = _error(plan_for, MULTI, detection={"central_event_bus_arn": CENTRAL})
    assert "detection.central_event_bus_arn" in text and "member_baseline" in text


def test_refused_when_it_names_the_deployment_account(plan_for: Callable) -> None:
    own = "arn:aws:events:eu-central-1:222222222222:event-bus/default"
    text = _error(plan_for, EU, detection={"central_event_bus_arn": own})
    assert "detection.central_event_bus_arn" in text and own in text and "another account's bus" in text


def test_another_region_is_accepted(plan_for: Callable) -> None:
    """EventBridge delivers to a bus of another account in another Region (eb-cross-account.html)."""
    other = "arn:aws:events:us-east-1:555555555555:event-bus/org-security"
    assert plan_for(EU, detection={"central_event_bus_arn": other}).policies.detection.central_bus_arn == other


def test_the_review_says_where_each_rule_delivers(plan_for: Callable) -> None:
    from landing_zone.review.detection import detection_section

    plan = plan_for(EU, detection={"central_event_bus_arn": CENTRAL})
    where = {r["id"]: r["where"] for r in detection_section(plan)["rules"]}
    assert where["account-settings-bedrock"].endswith(f"; kimi-eu-detection delivers them to {CENTRAL}")
    assert where["organizations-policy"].endswith(f"; kimi-eu-detection-management delivers them to {CENTRAL}")
    # a rule on IAM calls: home_region's own, and us-east-1's through the global forwarder
    assert where["bedrock-api-keys"].endswith(
        f"; kimi-eu-detection, kimi-eu-detection-global deliver them to {CENTRAL}"
    )
    assert all(CENTRAL not in w for w in (r["where"] for r in detection_section(plan_for(EU))["rules"]))


def test_deploy_plan_says_the_central_account_must_admit_the_rules(plan_for: Callable) -> None:
    from landing_zone.plan.deployment import deployment_steps

    note = f"the detection rules also deliver to {CENTRAL}: the central account must first admit them"
    steps = deployment_steps(plan_for(EU, detection={"central_event_bus_arn": CENTRAL}))
    noted = [s.command for s in steps if note in s.why]
    assert len(noted) == 2 and any("kimi-eu-detection-management" in c for c in noted)
    assert any(" kimi-eu-detection " in c for c in noted)
    assert not any(note in s.why for s in deployment_steps(plan_for(EU)))


def test_a_padded_arn_is_refused_with_the_exact_spelling(plan_for: Callable) -> None:
    text = _error(plan_for, EU, detection={"central_event_bus_arn": f" {CENTRAL}"})
    assert "detection.central_event_bus_arn" in text and f"did you mean {CENTRAL!r}" in text
