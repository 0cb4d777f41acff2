"""The CloudFormation limit check (landing_zone/plan/stack_limits.py) counts what the stacks really create.

Each case synthesizes the app and compares the counted resources and outputs of the templates that grow with
the configuration with the ones the plan predicts; a construct that adds a resource makes this fail and
names the template whose count to update."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from landing_zone.core.config import LANDING_ZONE_TAGS_MAX, RESERVED_TAG_KEYS
from landing_zone.errors import ConfigError
from landing_zone.plan.detection import member_detection_resources
from landing_zone.plan.stack_limits import template_footprints
from tests.conftest import EXAMPLES

MEMBER_BASELINE = {
    "organization": {
        "management_account_id": "444444444444",
        "organization_id": "o-exampleorg1",
        "target_ids": ["ou-abcd-11111111"],
    },
    "member_baseline": {"enabled": True},
}


def accounts(n: int) -> list[dict]:
    return [{"id": f"{100000000000 + i}", "name": f"acct-{i:03d}"} for i in range(n)]


def applications(n: int) -> list[dict]:
    return [{"name": f"app-{i:03d}", "cost_center": "cc-1"} for i in range(n)]


def synthesized_templates(outdir: Path) -> dict[str, dict]:
    """Every template of the cloud assembly (stacks and StackSet templates) by file name."""
    return {p.name.removesuffix(".template.json"): json.loads(p.read_text()) for p in outdir.rglob("*.template.json")}


def actual_counts(plan, templates: dict[str, dict]) -> dict[str, tuple[int, int]]:
    name = plan.config.name
    if plan.config.member_baseline.enabled:
        (stackset,) = [t for k, t in templates.items() if k.endswith(".stackset")]
        return {
            f"{name}-rollout member-baseline StackSet": (len(stackset["Resources"]), len(stackset.get("Outputs", {})))
        }
    return {
        f"{name}-access": (
            len(templates[f"{name}-access"]["Resources"]),
            len(templates[f"{name}-access"].get("Outputs", {})),
        ),
        f"{name}-cost": (
            len(templates[f"{name}-cost"]["Resources"]),
            len(templates[f"{name}-cost"].get("Outputs", {})),
        ),
    }


CASES = {
    "1 account": {"accounts": accounts(1)},
    "10 accounts": {"accounts": accounts(10)},
    "33 accounts (the most that fit)": {"accounts": accounts(33)},  # each with its Mantle Project (auto)
    "49 accounts, no kill switch": {"accounts": accounts(49), "cost": {"kill_switch": False}},
    "3 apps, everything on": {
        "applications": applications(3),
        "content_guardrail": {"enabled": True},
        "model_access": {"accept_agreements": True},
        "cost": {"alert_emails": ["a@finops.test", "b@finops.test"]},
        "models": ["kimi-k3.1-pro", "kimi-k2-thinking"],
    },
    "2 apps, per-request guardrail, no logging, no Mantle": {
        "applications": applications(2),
        "content_guardrail": {"enabled": True, "enforcement": "per-request"},
        "invocation_logging": {"enabled": False},
        "network": {"endpoints": ["bedrock-runtime"]},
        "cost": {"alert_on_mantle_usage": False},
    },
    "member baseline, 1 app": {**MEMBER_BASELINE, "applications": applications(1)},
    "member baseline, 10 apps, 3 AZs": {
        **MEMBER_BASELINE,
        "applications": applications(10),
        "network": {"az_count": 3},
    },
    "member baseline, 50 apps, no logging": {
        **MEMBER_BASELINE,
        "applications": applications(50),
        "invocation_logging": {"enabled": False},
    },
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_counted_resources_and_outputs_match_the_synthesized_templates(synth_with, case):
    lz = synth_with(f"stack-limits-{re.sub(r'[^a-z0-9]+', '-', case.lower()).strip('-')}", **CASES[case])
    plan = lz.plan
    predicted = {
        fp.template: (fp.resources, fp.outputs)
        for fp in template_footprints(
            plan.config,
            plan.catalog,
            plan.applications,
            plan.cost_alarms,
            quota_alarms=len(plan.quota_alarms.specs),
            member_detection=member_detection_resources(plan.config, plan.routing, plan.catalog),
        )
    }
    assert predicted == actual_counts(plan, synthesized_templates(lz.outdir))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_counts_match_every_example(synth, example):
    lz = synth(example)
    templates = synthesized_templates(lz.outdir)
    predicted = {
        fp.template: (fp.resources, fp.outputs)
        for fp in template_footprints(
            lz.plan.config,
            lz.plan.catalog,
            lz.plan.applications,
            lz.plan.cost_alarms,
            quota_alarms=len(lz.plan.quota_alarms.specs),
            member_detection=member_detection_resources(lz.plan.config, lz.plan.routing, lz.plan.catalog),
        )
    }
    assert predicted == actual_counts(lz.plan, templates)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_the_landing_zone_puts_at_most_its_reserved_number_of_tags_on_a_resource(synth, example):
    """`tags` leaves room for LANDING_ZONE_TAGS_MAX of the landing zone's own tags: no resource gets more."""
    lz = synth(example)
    worst = (0, "")
    for path in lz.outdir.rglob("*.template.json"):
        for logical_id, resource in json.loads(path.read_text()).get("Resources", {}).items():
            for prop, value in (resource.get("Properties") or {}).items():
                if prop.lower().endswith("tags") and isinstance(value, (list, dict)):
                    keys = [t.get("Key") for t in value] if isinstance(value, list) else list(value)
                    worst = max(worst, (len(keys), f"{path.name} {logical_id} {keys}"))
    assert worst[0] <= LANDING_ZONE_TAGS_MAX, worst
    assert set(RESERVED_TAG_KEYS) >= {"landing-zone", "managed-by", "application", "cost-center"}


def test_200_accounts_without_member_baseline_are_refused_with_the_numbers(plan_for):
    """Before: a jsii traceback (TooManyResourcesInStack, 616 > 500 resources in the access stack)."""
    with pytest.raises(ConfigError) as info:
        plan_for(accounts=accounts(200))
    (problem,) = info.value.problems
    assert problem.path == "accounts"
    text = str(problem)
    assert "got 200 accounts, each with a default application" in text
    # 818: a Mantle Project per default application (access.mantle_projects auto); with an organization the
    # cost-allocation activation (10 resources) sits in the guardrails stack
    assert "818 resources (CloudFormation allows 500 per stack; each application adds 4)" in text
    assert "1202 outputs (CloudFormation allows 200 per template; each application adds 6)" in text
    assert "at most 33 application(s) fit" in text and "member_baseline.enabled" in text


def test_40_default_applications_exceed_the_output_limit_first(plan_for):
    with pytest.raises(ConfigError, match=r"242 outputs .* at most 33 application\(s\) fit"):
        plan_for(accounts=accounts(40))


def test_member_baseline_with_too_many_applications_is_refused(plan_for):
    with pytest.raises(ConfigError) as info:
        plan_for(**MEMBER_BASELINE, applications=applications(140))
    (problem,) = info.value.problems
    assert problem.path == "applications"
    assert "member-baseline StackSet template would hold" in str(problem)
    assert "configure fewer applications" in str(problem)
