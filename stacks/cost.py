"""Cost controls, tied to the token-cost model: alerts topic, monthly budget with kill switch, near-real-time
spend alarms from Bedrock/Mantle token metrics, Mantle usage alarm, Cost Anomaly Detection."""

from __future__ import annotations

from typing import Any

from aws_cdk import CfnOutput
from aws_cdk import aws_kms as kms
from constructs import Construct

from constructs_lib.cost import AlertsTopic, CostAnomalyDetection, KillSwitch, MonthlyCostBudget, SpendAlarms
from landing_zone.cost_alarms import (
    build_spend_alarms,
    coverage_note,
    hourly_threshold_usd,
    load_metric_catalog,
    metric_sources_for_plan,
    monthly_budget,
)
from landing_zone.plan import Plan
from landing_zone.policies.cost import (
    alerts_topic_policy,
    budget_action_execution_policy,
    budget_action_trust_policy,
    budget_filter_expression,
    kill_switch_policy,
)
from stacks.access import AccessStack
from stacks.base import LandingZoneStack


class CostStack(LandingZoneStack):
    def __init__(
        self, scope: Construct, construct_id: str, *, plan: Plan, alerts_key: kms.IKey, access: AccessStack, **kwargs: Any
    ) -> None:
        super().__init__(scope, construct_id, plan=plan, **kwargs)
        cfg = plan.config
        cost = cfg.cost
        account, region = cfg.deployment_account, cfg.home_region
        self.alerts = AlertsTopic(self, "Alerts", topic_name=f"{cfg.name}-cost-alerts", key=alerts_key, emails=cost.alert_emails)
        topic = self.alerts.topic
        self.alerts.set_policy(alerts_topic_policy(topic_arn=topic.topic_arn, account=account, region=region))

        self.budget_model = monthly_budget(plan)
        self.budget = MonthlyCostBudget(
            self,
            "Budget",
            budget_name=f"{cfg.name}-bedrock-monthly",
            amount_usd=self.budget_model.usd,
            filter_expression=budget_filter_expression(
                scope=cost.budget_scope, account=account, tag_key="landing-zone", tag_value=cfg.name
            ),
            actual_percents=cost.notify_actual_percent,
            forecast_percents=cost.notify_forecast_percent,
            topic=topic,
            emails=cost.alert_emails,
        )
        self.kill_switch: KillSwitch | None = None
        invokers = [inv.role for inv in access.invokers.values()]
        if cost.kill_switch and invokers:
            self.kill_switch = KillSwitch(
                self,
                "KillSwitch",
                landing_zone_name=cfg.name,
                budget=self.budget,
                deny_policy=kill_switch_policy(),
                execution_trust=budget_action_trust_policy(account=account),
                execution_policy_for=lambda policy_arn: budget_action_execution_policy(
                    kill_switch_policy_arn=policy_arn, invoker_role_arns=[r.role_arn for r in invokers]
                ),
                invoker_roles=invokers,
                topic=topic,
            )

        metric_catalog = load_metric_catalog()
        sources = metric_sources_for_plan(plan, metric_catalog)
        runtime_metrics = metric_catalog.for_endpoint("runtime")
        for name, profile in sorted(access.profiles.items()):
            # calls through an application profile may report under its ARN: price those too
            sources.append(runtime_metrics.source_for(profile.arn, label=f"application profile {name}"))
        prices = plan.prices.prices(cost.price_source)
        threshold = hourly_threshold_usd(self.budget_model.usd, plan.prices.hours_per_month, cost.alarm_factor)
        self.spend_specs = build_spend_alarms(
            sources,
            prices,
            threshold_usd_per_hour=threshold,
            max_metrics_per_alarm=plan.catalog.limit("metric_math_max_metrics"),
            period_seconds=cost.alarm_period_seconds,
        )
        self.spend_alarms = SpendAlarms(self, "SpendAlarms", alarm_name_prefix=cfg.name, specs=self.spend_specs, topic=topic)
        self.coverage_note = coverage_note(self.spend_specs)

        self.mantle_alarms: SpendAlarms | None = None
        mantle_sources = [s for s in sources if s.namespace == metric_catalog.for_endpoint("mantle").namespace]
        if cost.alert_on_mantle_usage and mantle_sources:
            # Any Mantle token is worth a notice: Mantle calls are not in the model invocation logs.
            usage = build_spend_alarms(
                mantle_sources,
                prices,
                threshold_usd_per_hour=1e-9,
                max_metrics_per_alarm=plan.catalog.limit("metric_math_max_metrics"),
                period_seconds=cost.alarm_period_seconds,
                name_prefix="mantle-usage",
            )
            self.mantle_alarms = SpendAlarms(self, "MantleUsage", alarm_name_prefix=cfg.name, specs=usage, topic=topic)

        self.anomaly = CostAnomalyDetection(
            self, "Anomalies", name=cfg.name, topic=topic, threshold_usd=cost.anomaly_threshold_usd,
            tags={"landing-zone": cfg.name},
        )
        CfnOutput(self, "MonthlyBudgetUsd", value=f"{self.budget_model.usd:.2f}", description=self.budget_model.basis)
        CfnOutput(self, "SpendAlarmThresholdUsdPerHour", value=f"{threshold:.4f}",
                  description=f"monthly budget / {plan.prices.hours_per_month:g} h x {cost.alarm_factor:g}")
        CfnOutput(self, "SpendAlarmCoverage", value=self.coverage_note[:1000])
        CfnOutput(self, "AlertsTopicArn", value=topic.topic_arn)
