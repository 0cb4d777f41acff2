"""What the plan provisions for a path, the invoker is granted (issue 35, deliverable 8: "Mantle Projects without a
Mantle endpoint: the project and its alarm are created, but the invoker has no Mantle allow").  The class is "a
resource created for a path the invoker policy does not allow", whatever drops the grant; the rule is derived from
the invoker policies the plan built (landing_zone/plan/provisioned.py)."""

from __future__ import annotations

from typing import Any

import pytest

from landing_zone.errors import ConfigError
from landing_zone.plan.policies import InvokerPolicies
from landing_zone.plan.provisioned import PATH_GRANTS, provisioned_paths, ungranted_path_problems

SINGLE = {"organization": None}
PER_REQUEST = {"content_guardrail": {"enabled": True, "enforcement": "per-request"}}
BATCH_APP = {"name": "chat", "cost_center": "cc-1", "batch_role_arns": ["arn:aws:iam::111111111111:role/batch"]}


def refused(plan_for, **overrides: Any) -> dict[str, str]:
    with pytest.raises(ConfigError) as info:
        plan_for(**SINGLE, **overrides)
    assert "Traceback" not in str(info.value)
    return {p.path: p.allowed for p in info.value.problems}


@pytest.mark.parametrize(
    ("overrides", "path", "fragment"),
    [
        # a Mantle Project (and its spend alarm) while per-request guardrail enforcement drops every Mantle grant
        (
            {"access": {"mantle_projects": True}, **PER_REQUEST},
            "access.mantle_projects",
            "for application workload the plan creates its Mantle Project and the project's spend alarm, but its "
            "invoker role would not be allowed bedrock-mantle:CreateInference: content_guardrail.enforcement is "
            "per-request",
        ),
        # batch roles while per-request enforcement drops the batch grant and the PassRole
        (
            {"applications": [BATCH_APP], **PER_REQUEST},
            "applications[0].batch_role_arns",
            "would not be allowed bedrock:CreateModelInvocationJob, iam:PassRole: content_guardrail.enforcement is "
            "per-request",
        ),
    ],
    ids=["mantle-project-per-request", "batch-roles-per-request"],
)
def test_a_path_provisioned_but_not_granted_is_refused(plan_for, overrides, path, fragment):
    problems = refused(plan_for, **overrides)
    assert fragment in problems[path], problems


@pytest.mark.parametrize(
    "overrides",
    [
        {"access": {"mantle_projects": True}},  # the project, granted through the Mantle endpoint
        {"access": {"mantle_projects": True}, "content_guardrail": {"enabled": True, "enforcement": "account"}},
        {"applications": [BATCH_APP]},  # batch, granted through the bedrock endpoint
        {"applications": [BATCH_APP], "content_guardrail": {"enabled": True, "enforcement": "account"}},
        PER_REQUEST,  # per-request enforcement with a runtime path only
    ],
    ids=["project", "project-account-guardrail", "batch", "batch-account-guardrail", "per-request-runtime"],
)
def test_the_neighbours_are_granted_what_is_provisioned(plan_for, overrides):
    plan = plan_for(**SINGLE, **overrides)
    assert ungranted_path_problems(plan.config, plan.applications, plan.policies.invokers) == []
    for app in plan.applications:  # and each provisioned path is really there to check
        assert provisioned_paths(app, plan.config)


def _without(document: dict[str, Any], action: str) -> dict[str, Any]:
    kept = [s for s in document["Statement"] if not (s["Effect"] == "Allow" and action in s["Action"])]
    return {**document, "Statement": kept}


@pytest.mark.parametrize("key", ["runtime", "mantle-project", "batch"])
def test_the_rule_reads_the_invoker_policy_not_the_options(plan_for, key):
    """Drop the path's Allow from a legitimate plan's invoker policy: the rule finds it, whatever removed it."""
    plan = plan_for(**SINGLE, access={"mantle_projects": True}, applications=[BATCH_APP])
    (app,) = plan.applications
    assert key in provisioned_paths(app, plan.config)
    action = PATH_GRANTS[key].actions[0]
    invoker = plan.policies.invokers["chat"]
    stripped = {"chat": InvokerPolicies(permissions=_without(invoker.permissions, action), trust=invoker.trust)}
    (problem,) = ungranted_path_problems(plan.config, plan.applications, stripped)
    assert action in problem.allowed and "the invoker policy the plan builds has no Allow of it" in problem.allowed
    assert ungranted_path_problems(plan.config, plan.applications, plan.policies.invokers) == []
