"""Cost controls, tied to the token-cost model: alerts topic, monthly budget with kill switch, near-real-time
spend alarms from Bedrock/Mantle token metrics, Mantle usage alarm, Cost Anomaly Detection."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from aws_cdk import CfnOutput
from aws_cdk import aws_kms as kms
from aws_cdk import aws_sns as sns
from constructs import Construct

from constructs_lib.access import ApplicationProfile, InvokerRole, MantleProject
from constructs_lib.cost import AlertsTopic, CostAnomalyDetection, KillSwitch, MonthlyCostBudget, SpendAlarms
from constructs_lib.dashboard import OperationsDashboard
from landing_zone.core import markers, naming
from landing_zone.cost.alarms import AlarmSpec, application_profile_marker, mantle_project_marker
from landing_zone.cost.budget import MonthlyBudget
from landing_zone.plan import Plan
from stacks.access import AccessStack
from stacks.base import LandingZoneStack


@dataclass
class CostParts:
    alerts: AlertsTopic
    budget: MonthlyCostBudget
    budget_model: MonthlyBudget
    spend_specs: Sequence[AlarmSpec]
    spend_alarms: SpendAlarms
    coverage_note: str
    anomaly: CostAnomalyDetection
    kill_switch: KillSwitch | None = None
    application_budgets: Mapping[str, MonthlyCostBudget] = field(default_factory=dict)
    mantle_alarms: SpendAlarms | None = None
    dashboard: OperationsDashboard | None = None
    quota_alarms: SpendAlarms | None = None
    application_alarms: SpendAlarms | None = None  # access.mantle_projects: one per application, its Project


def add_cost_controls(
    scope: Construct,
    *,
    plan: Plan,
    account: str,
    alerts_key: kms.IKey,
    profiles: Mapping[str, ApplicationProfile],
    invokers: Mapping[str, InvokerRole],
    mantle_projects: Mapping[str, MantleProject] | None = None,
    alert_emails: Sequence[str] | None = None,
    budget_usd: float | None = None,
    threshold_usd_per_hour: float | None = None,
) -> CostParts:
    """Alerts topic, budget (+ kill switch), spend, Mantle and quota headroom alarms, anomaly detection.

    ``budget_usd`` / ``threshold_usd_per_hour`` replace the plan's numbers (StackSets pass per-account parameter
    tokens); ``alert_emails`` replaces ``cost.alert_emails``.
    """
    cfg = plan.config
    cost = cfg.cost
    emails = list(cost.alert_emails if alert_emails is None else alert_emails)
    alerts = AlertsTopic(
        scope,
        "Alerts",
        topic_name=naming.alerts_topic_name(cfg.name),
        key=alerts_key,
        emails=emails,
        recipients=[(r.protocol, r.endpoint) for r in cost.alert_recipients],
    )
    topic = alerts.topic
    policies = plan.policies  # the documents, from the plan; account and ARNs resolved here
    account_value = {markers.ACCOUNT: account}
    alerts.set_policy(markers.resolve(policies.alerts_topic, {**account_value, markers.TOPIC_ARN: topic.topic_arn}))
    budget_model = plan.budget
    budget = MonthlyCostBudget(
        scope,
        "Budget",
        budget_name=naming.budget_name(cfg.name),
        amount_usd=budget_model.usd if budget_usd is None else budget_usd,
        filter_expression=markers.resolve(policies.budget_filter, account_value),
        actual_percents=cost.notify_actual_percent,
        forecast_percents=cost.notify_forecast_percent,
        topic=topic,
        emails=emails,
    )
    kill_switch = _kill_switch(scope, plan, budget, invokers, topic, account_value)
    application_budgets: dict[str, MonthlyCostBudget] = {}
    for app in plan.applications if cost.per_application_budgets else ():
        name = app.app.name
        amount = app.app.monthly_budget_usd
        application_budgets[name] = app_budget = MonthlyCostBudget(
            scope,
            f"Budget-{name}",
            budget_name=naming.application_budget_name(cfg.name, name),
            amount_usd=amount if amount is not None else (budget_model.usd if budget_usd is None else budget_usd),
            filter_expression=markers.resolve(policies.application_budget_filters[name], account_value),
            actual_percents=cost.notify_actual_percent,
            forecast_percents=cost.notify_forecast_percent,
            topic=topic,
            emails=emails,
        )
        if kill_switch is not None and name in invokers:
            kill_switch.add_application_action(name, app_budget, invokers[name].role, topic)
    if kill_switch is not None:
        _add_reset_role(kill_switch, policies, account_value)
    alarms = plan.cost_alarms
    profile_arns = {application_profile_marker(name): profile.arn for name, profile in profiles.items()}
    # the AWS/BedrockMantle Project dimension is the project's ID
    project_ids = {mantle_project_marker(name): p.project_id for name, p in (mantle_projects or {}).items()}
    spend_alarms = SpendAlarms(
        scope,
        "SpendAlarms",
        alarm_name_prefix=cfg.name,
        specs=alarms.spend,
        topic=topic,
        dimension_values=profile_arns,
        threshold_override=threshold_usd_per_hour,
    )
    mantle_alarms, quota_alarms, application_alarms = _optional_alarms(scope, plan, topic, profile_arns, project_ids)
    dashboard = OperationsDashboard(
        scope,
        "Operations",
        plan=plan.dashboard,
        alarms=[
            *spend_alarms.alarms,
            *(a for group in (mantle_alarms, quota_alarms, application_alarms) if group for a in group.alarms),
        ],
        alarm_name_prefix=cfg.name,
        dimension_values={**profile_arns, **project_ids},
    )
    CfnOutput(
        scope,
        "OperationsDashboardUrl",
        value=dashboard.url,
        description="CloudWatch dashboard: spend per application, tokens, Mantle, health, alarms",
    )
    anomaly = CostAnomalyDetection(
        scope,
        "Anomalies",
        name=cfg.name,
        topic=topic,
        threshold_usd=cost.anomaly_threshold_usd,
        tags={"landing-zone": cfg.name},
        monitor_arn=cost.anomaly_monitor_arn,
    )
    note = alarms.coverage_note
    if budget_usd is None:
        CfnOutput(scope, "MonthlyBudgetUsd", value=f"{budget_model.usd:.2f}", description=budget_model.basis)
        CfnOutput(
            scope,
            "SpendAlarmThresholdUsdPerHour",
            value=f"{alarms.threshold_usd_per_hour:.4f}",
            description=alarms.threshold_basis,
        )
    CfnOutput(scope, "SpendAlarmCoverage", value=note[:1000])
    CfnOutput(scope, "AlertsTopicArn", value=topic.topic_arn)
    return CostParts(
        alerts=alerts,
        budget=budget,
        budget_model=budget_model,
        spend_specs=alarms.spend,
        spend_alarms=spend_alarms,
        coverage_note=note,
        anomaly=anomaly,
        kill_switch=kill_switch,
        application_budgets=application_budgets,
        mantle_alarms=mantle_alarms,
        dashboard=dashboard,
        quota_alarms=quota_alarms,
        application_alarms=application_alarms,
    )


def _kill_switch(
    scope: Construct,
    plan: Plan,
    budget: MonthlyCostBudget,
    invokers: Mapping[str, InvokerRole],
    topic: sns.ITopic,
    account_value: dict[str, str],
) -> KillSwitch | None:
    """The budget action that denies the invokers inference, when the plan has its documents and there are invokers."""
    policies = plan.policies
    roles = [inv.role for _, inv in sorted(invokers.items())]
    if not (policies.kill_switch and policies.budget_action_trust and policies.budget_action_execution and roles):
        return None
    role_arns = {markers.invoker_role_arn(name): inv.role.role_arn for name, inv in invokers.items()}
    execution = policies.budget_action_execution
    return KillSwitch(
        scope,
        "KillSwitch",
        landing_zone_name=plan.config.name,
        budget=budget,
        deny_policy=policies.kill_switch,
        execution_trust=markers.resolve(policies.budget_action_trust, account_value),
        execution_policy_for=lambda policy_arn, app_policy_arn: markers.resolve(
            execution,
            {
                **role_arns,
                markers.KILL_SWITCH_POLICY_ARN: policy_arn,
                **({markers.APPLICATION_KILL_SWITCH_POLICY_ARN: app_policy_arn} if app_policy_arn else {}),
            },
        ),
        invoker_roles=roles,
        topic=topic,
        per_application=plan.config.cost.per_application_budgets,
    )


def _optional_alarms(
    scope: Construct, plan: Plan, topic: sns.ITopic, profile_arns: dict[str, str], project_ids: dict[str, str]
) -> tuple[SpendAlarms | None, SpendAlarms | None, SpendAlarms | None]:
    """The alarms a configuration may not have: Mantle usage, quota headroom, spend per application."""
    name = plan.config.name
    mantle_alarms = None
    if plan.cost_alarms.mantle_usage:
        # Any Mantle token is worth a notice: Mantle calls are not in the model invocation logs.
        mantle_alarms = SpendAlarms(
            scope, "MantleUsage", alarm_name_prefix=name, specs=plan.cost_alarms.mantle_usage, topic=topic
        )
    quota_alarms = None
    if plan.quota_alarms.specs:
        # Quota headroom (cost.quota_alarms): the same topic; the thresholds are quota values, never per account.
        quota_alarms = SpendAlarms(
            scope,
            "QuotaAlarms",
            alarm_name_prefix=name,
            specs=plan.quota_alarms.specs,
            topic=topic,
            dimension_values=profile_arns,
        )
    application_alarms = None
    if plan.cost_alarms.application_spend:
        application_alarms = SpendAlarms(
            scope,
            "ApplicationSpend",
            alarm_name_prefix=name,
            specs=plan.cost_alarms.application_spend,
            topic=topic,
            dimension_values=project_ids,
        )
    return mantle_alarms, quota_alarms, application_alarms


def _add_reset_role(kill_switch: KillSwitch, policies: Any, account_value: dict[str, str]) -> None:
    """The role that may reset the kill switch, when the plan has its documents."""
    if not (policies.kill_switch_reset_trust and policies.kill_switch_reset):
        return
    reset = policies.kill_switch_reset
    kill_switch.add_reset_role(
        trust=policies.kill_switch_reset_trust,
        policy_for=lambda ids: markers.resolve(
            reset, {**account_value, **{markers.budget_action_id(app): i for app, i in ids.items()}}
        ),
    )


class CostStack(LandingZoneStack):
    """Attributes as :class:`CostParts` (``budget_model``, ``spend_specs``, ``kill_switch``, ...)."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        plan: Plan,
        alerts_key: kms.IKey,
        access: AccessStack,
        **kwargs: Any,
    ) -> None:
        super().__init__(scope, construct_id, plan=plan, **kwargs)
        parts = add_cost_controls(
            self,
            plan=plan,
            account=plan.config.deployment_account,
            alerts_key=alerts_key,
            profiles=access.profiles,
            invokers=access.invokers,
            mantle_projects=access.mantle_projects,
        )
        self.alerts = parts.alerts
        self.budget = parts.budget
        self.budget_model = parts.budget_model
        self.kill_switch = parts.kill_switch
        self.application_budgets = parts.application_budgets
        self.spend_specs = parts.spend_specs
        self.spend_alarms = parts.spend_alarms
        self.coverage_note = parts.coverage_note
        self.mantle_alarms = parts.mantle_alarms
        self.quota_alarms = parts.quota_alarms
        self.application_alarms = parts.application_alarms
        self.dashboard = parts.dashboard
        self.anomaly = parts.anomaly
