"""Where the detection rules run (issue 37, "in each Region that matters: the home Region and the source Regions";
docs/DETECTION.md, "Where it runs"): the deployment account's forwarders follow ``inference_source_regions``.

The schema confines the source Regions to ``home_region`` today (tests/unit/test_guarantee_settings.py), so every
valid configuration has the us-east-1 forwarder at most; these tests widen a validated configuration the way
tests/unit/test_facts_moved.py does, so the rule holds if that confinement is ever lifted."""

from __future__ import annotations

import dataclasses

import pytest

from landing_zone.plan.deployment import deployment_steps, stack_placements
from landing_zone.plan.detection import (
    Forwarder,
    legacy_alarm_names,
    member_detection_resources,
    member_rules,
    workload_forwarders,
)
from landing_zone.review.detection import detection_section
from tests.conftest import ROOT

EU = ROOT / "examples" / "eu-sovereign.yaml"
EU_CORE = ROOT / "examples" / "eu-core-regions.yaml"


def _widened(plan, *sources: str):
    """``plan`` with these source Regions (the schema would refuse them: see the module docstring)."""
    return dataclasses.replace(plan, config=plan.config.model_copy(update={"inference_source_regions": sources}))


@pytest.fixture(scope="module")
def eu(plan_for):
    return plan_for(EU)


@pytest.mark.parametrize("example", [EU, EU_CORE], ids=["eu-sovereign", "eu-core-regions"])
def test_with_the_home_region_as_only_source_only_the_global_forwarder_exists(plan_for, example) -> None:
    cfg = plan_for(example).config
    assert cfg.source_regions == (cfg.home_region,)
    assert workload_forwarders(cfg) == (
        Forwarder("detection-global", "us-east-1", f"{cfg.name}-detect-forwarder", global_events=True, regional=False),
    )


def test_each_other_source_region_gets_a_forwarder_with_a_role_of_its_own(eu) -> None:
    wide = _widened(eu, "eu-central-1", "eu-west-1", "eu-west-3")
    forwarders = {f.part: f for f in workload_forwarders(wide.config)}
    assert set(forwarders) == {"detection-global", "detection-eu-west-1", "detection-eu-west-3"}
    assert "detection-eu-central-1" not in forwarders  # the home Region holds every rule already
    west = forwarders["detection-eu-west-1"]
    assert (west.region, west.role_name, west.global_events, west.regional) == (
        "eu-west-1",
        "kimi-eu-detect-forwarder-eu-west-1",
        False,
        True,
    )
    # IAM role names are account-wide: one per forwarder of the deployment account
    assert len({f.role_name for f in forwarders.values()}) == len(forwarders)


def test_a_source_region_forwarder_carries_exactly_the_regional_workload_rules(eu) -> None:
    (_, west) = workload_forwarders(_widened(eu, "eu-central-1", "eu-west-1").config)
    rules = eu.policies.detection.rules
    carried = {r.id for r in rules if west.carries(r)}
    assert carried == {r.id for r in rules if r.placement == "workload" and r.regional}
    # calls CloudTrail records in the Region they are made in are carried; IAM / Route 53 (us-east-1 only) and the
    # management account's Organizations rules are not
    assert {"account-settings-bedrock", "ec2-security-group", "kms-key", "s3-bucket"} <= carried
    assert not carried & {"bedrock-api-keys", "route53-hostedzone", "organizations-policy", "organizations-root"}
    assert any(i.startswith("denied-") for i in carried)


def test_us_east_1_as_a_source_region_goes_into_the_global_forwarder(eu) -> None:
    wide = _widened(eu, "eu-central-1", "us-east-1")
    (forwarder,) = workload_forwarders(wide.config)
    assert (forwarder.part, forwarder.global_events, forwarder.regional) == ("detection-global", True, True)
    rules = eu.policies.detection.rules
    carried = {r.id for r in rules if forwarder.carries(r)}
    assert carried == {r.id for r in rules if r.placement == "workload" and (r.regional or r.global_sources)}
    assert "bedrock-api-keys" in carried and "ec2-security-group" in carried


def test_a_us_east_1_home_has_no_global_forwarder_and_forwards_its_other_source_regions(plan_for) -> None:
    plan = plan_for()  # cdk.json's defaults: home_region us-east-1
    assert plan.config.home_region == "us-east-1" and workload_forwarders(plan.config) == ()
    (forwarder,) = workload_forwarders(_widened(plan, "us-east-1", "us-west-2").config)
    assert (forwarder.part, forwarder.region, forwarder.global_events) == ("detection-us-west-2", "us-west-2", False)


def test_deploy_plan_places_and_bootstraps_the_source_region_forwarders(eu) -> None:
    wide = _widened(eu, "eu-central-1", "eu-west-1")
    placements = [(p.name, p.account, p.region) for p in stack_placements(wide)]
    assert ("kimi-eu-detection-eu-west-1", "222222222222", "eu-west-1") in placements
    assert [p for p in placements if p[0].startswith("kimi-eu-detection")] == [
        ("kimi-eu-detection", "222222222222", "eu-central-1"),
        ("kimi-eu-detection-global", "222222222222", "us-east-1"),
        ("kimi-eu-detection-eu-west-1", "222222222222", "eu-west-1"),
        ("kimi-eu-detection-management", "444444444444", "us-east-1"),
    ]
    commands = [s.command for s in deployment_steps(wide)]
    assert any(" bootstrap " in c and "aws://222222222222/eu-west-1" in c for c in commands)
    assert any(" deploy " in c and "kimi-eu-detection-eu-west-1" in c for c in commands)
    assert not [p for p in stack_placements(eu) if p.region == "eu-west-1"]  # the example itself: unchanged


def test_the_review_says_which_stack_forwards_a_regional_rule(eu) -> None:
    def where(plan, rule_id: str) -> str:
        rows = detection_section(plan, None)["rules"]
        return next(r["where"] for r in rows if r["id"] == rule_id)

    wide = _widened(eu, "eu-central-1", "eu-west-1")
    assert "kimi-eu-detection-eu-west-1 (eu-west-1)" in where(wide, "ec2-security-group")
    assert "eu-west-1" not in where(wide, "bedrock-api-keys")  # IAM: recorded in us-east-1 only
    assert "other source Regions" not in where(eu, "ec2-security-group")


# -- the member accounts (member_baseline): each member's template carries the rules ----------------------------------
MULTI = ROOT / "examples" / "multi-account-100.yaml"


def test_the_member_baseline_carries_the_rules_recorded_in_home_region(plan_for) -> None:
    plan = plan_for(MULTI)  # organization mode, detection omitted: on
    detection = plan.policies.detection
    assert plan.config.member_baseline.enabled and detection is not None
    carried = {r.id for r in member_rules(plan.config, detection.rules)}
    assert carried == {r.id for r in detection.rules if r.placement == "workload" and r.regional}
    assert {"account-settings-bedrock", "ec2-security-group", "kms-key"} <= carried
    # recorded in us-east-1 only (home_region is eu-central-1), or in the management account: not carried
    assert not carried & {"bedrock-api-keys", "route53-hostedzone", "organizations-policy", "organizations-root"}
    assert detection.home_bus_statement is None  # no deployment-account bus admits anyone in that mode
    assert member_detection_resources(plan.config, plan.routing, plan.catalog) == len(carried) + len(
        legacy_alarm_names(plan.config, plan.routing)
    )
    assert plan_for(MULTI, detection={"enabled": False}).policies.detection is None


def test_a_us_east_1_home_carries_the_global_services_rules_too(plan_for) -> None:
    plan = plan_for(MULTI)
    east = plan.config.model_copy(update={"home_region": "us-east-1"})
    carried = {r.id for r in member_rules(east, plan.policies.detection.rules)}
    assert "bedrock-api-keys" in carried and "route53-hostedzone" in carried
    assert not carried & {"organizations-policy", "organizations-root"}


def test_the_review_says_what_the_member_baseline_leaves_unwatched(plan_for) -> None:
    section = detection_section(plan_for(MULTI), None)
    assert section["on"] and "kimi-org-member-baseline instance" in section["rules"][0]["where"]
    assert "bedrock-api-keys" not in {r["id"] for r in section["rules"]}
    by_class = {c["class"]: c for c in section["classes"]}
    scp = by_class["SCP detached, updated or deleted; SCP policy type disabled"]
    assert scp["detected_by"] == [] and "organizations-policy" in scp["residual"]
    assert "management account's SCP and policy-type changes" in section["why"]
    assert detection_section(plan_for(EU), None)["why"] == ""
