"""Issue 33, deliverable 3: the account-level singletons the landing zone writes (invocation logging, the data
retention mode, cost-allocation tags, the AWS services anomaly monitor).

* the configuration keys that take a setting over (``take_over_existing``) or reuse one (``cost.anomaly_monitor_arn``):
  defaults, contradictions refused at validate with field, value and what is allowed;
* the handlers' policies: the saved-state parameter, and the role a take-over restores;
* the SCPs let each handler write and remove its saved state and hand a setting back, and deny a member-account
  administrator the same requests (the saved state is inside the landing zone's name scope).
"""

from __future__ import annotations

from typing import Any

import pytest

from landing_zone.core import naming
from landing_zone.errors import ConfigError
from landing_zone.policies.evaluator import FULL_AWS_ACCESS, Request, evaluate_scp_levels
from landing_zone.policies.scp_layout import scp_documents

ACC, HOME = "111111111111", "us-east-1"  # the default configuration's deployment account and home_region
ADMIN = f"arn:aws:iam::{ACC}:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_AdministratorAccess_0123456789abcdef"
MONITOR = f"arn:aws:ce::{ACC}:anomalymonitor/0a1b2c3d-4e5f-6789-abcd-ef0123456789"
HANDLERS = ("invocation-logging", "data-retention", "cost-allocation-tags")


def _problem(plan_for: Any, path: str, **overrides: Any) -> Any:
    with pytest.raises(ConfigError) as info:
        plan_for(**overrides)
    (problem,) = [p for p in info.value.problems if p.path == path]
    return problem


def test_nothing_is_taken_over_or_reused_by_default(plan_for: Any) -> None:
    config = plan_for().config
    assert config.invocation_logging.take_over_existing is False
    assert config.data_retention.take_over_existing is False
    assert config.cost.anomaly_monitor_arn is None


def test_take_over_without_the_setting_is_refused(plan_for: Any) -> None:
    off = _problem(
        plan_for,
        "invocation_logging.take_over_existing",
        invocation_logging={"enabled": False, "take_over_existing": True},
    )
    assert "enabled: true" in off.allowed
    no_mode = _problem(plan_for, "data_retention.take_over_existing", data_retention={"take_over_existing": True})
    assert "with a mode" in no_mode.allowed


@pytest.mark.parametrize(
    ("arn", "allowed"),
    [
        ("arn:aws:ce::111111111111:monitor/abc", "Cost Anomaly Detection monitor ARN"),
        ("arn:aws:ce::222222222222:anomalymonitor/0a1b2c3d", "cost stack deploys to 111111111111"),
    ],
)
def test_a_monitor_the_cost_stack_cannot_use_is_refused(plan_for: Any, arn: str, allowed: str) -> None:
    problem = _problem(plan_for, "cost.anomaly_monitor_arn", cost={"anomaly_monitor_arn": arn})
    assert allowed in problem.allowed and arn in str(problem.got)


def test_a_monitor_arn_with_the_member_baseline_is_refused(plan_for: Any) -> None:
    problem = _problem(
        plan_for,
        "cost.anomaly_monitor_arn",
        cost={"anomaly_monitor_arn": MONITOR},
        member_baseline={"enabled": True},
    )
    assert "member_baseline" in problem.allowed


def test_a_reused_monitor_takes_one_resource_off_the_cost_stack(plan_for: Any) -> None:
    from landing_zone.plan.stack_limits import template_footprints

    def cost_resources(plan: Any) -> int:
        footprints = template_footprints(plan.config, plan.catalog, plan.applications, plan.cost_alarms)
        (cost,) = [f for f in footprints if f.template.endswith("-cost")]
        return int(cost.resources)

    assert cost_resources(plan_for(cost={"anomaly_monitor_arn": MONITOR})) == cost_resources(plan_for()) - 1


def _statements(plan: Any, handler: str) -> dict[str, dict[str, Any]]:
    return {s["Sid"]: s for s in plan.policies.automation[handler].handler["Statement"]}


def test_each_handler_may_keep_only_its_own_saved_state(plan_for: Any) -> None:
    plan = plan_for(data_retention={"mode": "none"})
    for handler in HANDLERS:
        saved = _statements(plan, handler)["KeepSavedState"]
        name = naming.automation_saved_parameter_name("kimi-lz", handler)
        assert saved["Resource"] == f"arn:${{lz:partition}}:ssm:${{lz:region}}:${{lz:account}}:parameter/{name}"
        assert sorted(saved["Action"]) == ["ssm:DeleteParameter", "ssm:GetParameter", "ssm:PutParameter"]


def test_only_a_take_over_lets_the_logging_handler_pass_another_role(plan_for: Any) -> None:
    assert "PassTakenOverRoleToBedrock" not in _statements(plan_for(), "invocation-logging")
    passing = _statements(plan_for(invocation_logging={"take_over_existing": True}), "invocation-logging")
    restore = passing["PassTakenOverRoleToBedrock"]
    assert restore["Resource"] == "arn:${lz:partition}:iam::${lz:account}:role/*"
    assert restore["Condition"] == {"StringEquals": {"iam:PassedToService": "bedrock.amazonaws.com"}}


def _scp(plan: Any, principal: str, action: str, resource: str, **keys: Any) -> str:
    scps = scp_documents(plan.config, plan.routing, plan.catalog)
    level = [("FullAWSAccess", FULL_AWS_ACCESS)] + [(f"scp{i}", d) for i, d in enumerate(scps.inside_documents)]
    context = {"aws:RequestedRegion": HOME, "aws:PrincipalARN": principal, **keys}
    return evaluate_scp_levels([level], Request(action, resource, context)).decision


@pytest.mark.parametrize("handler", ["invocation-logging", "data-retention"])
@pytest.mark.parametrize("action", ["ssm:PutParameter", "ssm:DeleteParameter"])
def test_the_saved_state_is_written_by_its_handler_and_by_no_administrator(
    plan_for: Any, handler: str, action: str
) -> None:
    """Attacker: a member-account administrator rewrites the saved configuration (the delete would then 'restore'
    logging to a bucket of their choosing) or removes it. Neighbour: the handler's own role."""
    plan = plan_for(data_retention={"mode": "none"})
    parameter = f"arn:aws:ssm:{HOME}:{ACC}:parameter/{naming.automation_saved_parameter_name('kimi-lz', handler)}"
    role = f"arn:aws:iam::{ACC}:role/{naming.automation_role_name('kimi-lz', handler)}"
    assert _scp(plan, role, action, parameter) == "allow"
    assert _scp(plan, ADMIN, action, parameter) == "explicit_deny"
    assert _scp(plan, ADMIN, "ssm:GetParameter", parameter) == "allow"  # anyone may read what will be handed back


def test_the_handlers_may_hand_the_settings_back(plan_for: Any) -> None:
    """The restore on delete: another team's logging configuration, and the mode found at deploy (inherit)."""
    plan = plan_for(data_retention={"mode": "none"})
    logging_role = f"arn:aws:iam::{ACC}:role/{naming.automation_role_name('kimi-lz', 'invocation-logging')}"
    retention_role = f"arn:aws:iam::{ACC}:role/{naming.automation_role_name('kimi-lz', 'data-retention')}"
    put_logging = "bedrock:PutModelInvocationLoggingConfiguration"
    assert _scp(plan, logging_role, put_logging, "*") == "allow"
    put_mode = "bedrock:PutAccountDataRetention"
    assert _scp(plan, retention_role, put_mode, "*", **{"bedrock:DataRetentionMode": "inherit"}) == "allow"
    assert _scp(plan, ADMIN, put_mode, "*", **{"bedrock:DataRetentionMode": "inherit"}) == "explicit_deny"
