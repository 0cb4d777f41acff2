"""Multi-account roll-out: per-account parameters of the member-baseline StackSet (pure).

One template serves every member account; what differs per account (budget, alarm threshold, e-mails, cost
center) comes from config as StackSet parameter overrides, so 100 accounts cost one template, not 100.
"""

from __future__ import annotations

from dataclasses import dataclass

from landing_zone.core.config import MEMBER_ALERT_EMAILS_MAX
from landing_zone.cost.alarms import hourly_threshold_usd
from landing_zone.plan.model import Plan

PARAM_BUDGET = "MonthlyBudgetUsd"
PARAM_THRESHOLD = "SpendAlarmThresholdUsdPerHour"
PARAM_COST_CENTER = "CostCenter"
PARAM_EMAILS = tuple(f"AlertEmail{i}" for i in range(1, MEMBER_ALERT_EMAILS_MAX + 1))


@dataclass(frozen=True)
class MemberInstance:
    account_id: str
    account_name: str
    ou_id: str
    parameters: dict[str, str]


def default_parameters(plan: Plan) -> dict[str, str]:
    """Template defaults: what an account that is not listed in config (auto-deployed into an OU) gets."""
    cfg = plan.config
    params = {
        PARAM_BUDGET: f"{plan.budget.usd:.2f}",
        PARAM_THRESHOLD: f"{plan.cost_alarms.threshold_usd_per_hour:.4f}",
        PARAM_COST_CENTER: cfg.name,
    }
    emails = list(cfg.cost.alert_emails)
    for i, name in enumerate(PARAM_EMAILS):
        params[name] = emails[i] if i < len(emails) else ""
    return params


def member_instances(plan: Plan) -> list[MemberInstance]:
    """One instance per configured account, with its overrides (only the values that differ are overrides)."""
    cfg = plan.config
    ous = cfg.member_target_ous
    defaults = default_parameters(plan)
    instances = []
    for acct in cfg.accounts:
        params = dict(defaults)
        if acct.monthly_budget_usd is not None:
            params[PARAM_BUDGET] = f"{acct.monthly_budget_usd:.2f}"
            params[PARAM_THRESHOLD] = (
                f"{hourly_threshold_usd(acct.monthly_budget_usd, plan.prices.hours_per_month, cfg.cost.alarm_factor):.4f}"
            )
        if acct.cost_center:
            params[PARAM_COST_CENTER] = acct.cost_center
        if acct.alert_emails:
            for i, name in enumerate(PARAM_EMAILS):
                params[name] = acct.alert_emails[i] if i < len(acct.alert_emails) else ""
        instances.append(
            MemberInstance(
                account_id=acct.id,
                account_name=acct.name,
                ou_id=acct.ou_id or ous[0],
                parameters={k: v for k, v in params.items() if v != defaults[k]},
            )
        )
    return instances
