"""Cost controls: the alerts topic, the budget (+ kill switch), spend alarms and anomaly detection.

Every number comes from the pure cost model (``landing_zone.cost.alarms`` / ``landing_zone.cost.pricing``); these
constructs only wire it into CloudFormation.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from aws_cdk import CfnCondition, Duration, Fn, Token
from aws_cdk import aws_budgets as budgets
from aws_cdk import aws_ce as ce
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as cw_actions
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_sns as sns
from constructs import Construct

from constructs_lib.cfn import cfn_child
from landing_zone.core import naming
from landing_zone.cost.alarms import APPLICATION_PROFILE, MANTLE_PROJECT, AlarmSpec


class AlertsTopic(Construct):
    """``topic``: KMS-encrypted, TLS-only, published to only by this account's Budgets, Cost Anomaly
    Detection and CloudWatch alarms (policy from a pure builder); subscribers from config: ``emails``
    (``cost.alert_emails``) and ``recipients`` (``cost.alert_recipients``: ``(protocol, endpoint)``, e-mail or HTTPS)."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        topic_name: str,
        key: kms.IKey,
        emails: Sequence[str],
        recipients: Sequence[tuple[str, str]] = (),
    ) -> None:
        super().__init__(scope, construct_id)
        self.topic = sns.Topic(self, "Topic", topic_name=topic_name, master_key=key, display_name=topic_name)
        for i, email in enumerate(emails):
            sns.Subscription(
                self, f"Email{i}", topic=self.topic, protocol=sns.SubscriptionProtocol.EMAIL, endpoint=email
            )
        for i, (protocol, endpoint) in enumerate(recipients):
            sns.Subscription(
                self,
                f"Recipient{i}",
                topic=self.topic,
                protocol=sns.SubscriptionProtocol[protocol.upper()],
                endpoint=endpoint,
            )

    def set_policy(self, policy: Mapping[str, Any]) -> None:
        sns.CfnTopicPolicy(self, "Policy", topics=[self.topic.topic_arn], policy_document=dict(policy))


class MonthlyCostBudget(Construct):
    """A monthly COST budget with notifications to the topic (+ e-mails) and, optionally, the kill switch."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        budget_name: str,
        amount_usd: float,  # or a number token (a CloudFormation parameter)
        filter_expression: Mapping[str, Any],
        actual_percents: Sequence[float],
        forecast_percents: Sequence[float],
        topic: sns.ITopic,
        emails: Sequence[str],
    ) -> None:
        super().__init__(scope, construct_id)
        self.budget_name = budget_name
        subscribers = [budgets.CfnBudget.SubscriberProperty(subscription_type="SNS", address=topic.topic_arn)]
        subscribers += [budgets.CfnBudget.SubscriberProperty(subscription_type="EMAIL", address=e) for e in emails]

        def notification(kind: str, percent: float) -> budgets.CfnBudget.NotificationWithSubscribersProperty:
            return budgets.CfnBudget.NotificationWithSubscribersProperty(
                notification=budgets.CfnBudget.NotificationProperty(
                    comparison_operator="GREATER_THAN",
                    notification_type=kind,
                    threshold=percent,
                    threshold_type="PERCENTAGE",
                ),
                subscribers=subscribers,
            )

        self.budget = budgets.CfnBudget(
            self,
            "Budget",
            budget=budgets.CfnBudget.BudgetDataProperty(
                budget_name=budget_name,
                budget_type="COST",
                time_unit="MONTHLY",
                budget_limit=budgets.CfnBudget.SpendProperty(
                    amount=amount_usd if Token.is_unresolved(amount_usd) else round(amount_usd, 2), unit="USD"
                ),
            ),
            notifications_with_subscribers=[notification("ACTUAL", p) for p in actual_percents]
            + [notification("FORECASTED", p) for p in forecast_percents],
        )
        # The filter goes in verbatim (CloudFormation shape): the L1 struct would drop a plain dict's keys.
        self.budget.add_property_override("Budget.FilterExpression", dict(filter_expression))


class KillSwitch(Construct):
    """A deny-inference managed policy and a budget action that attaches it to the invoker roles at 100%.

    The execution role is named ``<lz>-automation-budget-action`` so the tamper guardrails let it attach the
    policy to the (tagged) invoker roles; it may attach/detach exactly the kill-switch policies on exactly these roles
    (Budgets reverses an action with the same role).  With ``per_application`` the applications' own budget actions
    attach a second policy, ``<lz>-kill-switch-application``, so that reversing the landing-zone action never lifts an
    application's own.  :meth:`add_reset_role` adds ``<lz>-automation-kill-switch-reset``, the role that may reverse
    and re-arm exactly these actions.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        landing_zone_name: str,
        budget: MonthlyCostBudget,
        deny_policy: Mapping[str, Any],
        execution_trust: Mapping[str, Any],
        execution_policy_for: Any,  # callable(kill_switch_policy_arn, application_policy_arn | None) -> document
        invoker_roles: Sequence[iam.IRole],
        topic: sns.ITopic,
        threshold_percent: float = 100,
        per_application: bool = False,
    ) -> None:
        super().__init__(scope, construct_id)
        self.landing_zone_name = landing_zone_name
        self.policy = iam.ManagedPolicy(
            self,
            "DenyInference",
            managed_policy_name=naming.kill_switch_policy_name(landing_zone_name),
            description="Attached by the budget action when the monthly budget is exhausted: no inference",
            document=iam.PolicyDocument.from_json(dict(deny_policy)),
        )
        self.application_policy: iam.ManagedPolicy | None = None
        if per_application:
            self.application_policy = iam.ManagedPolicy(
                self,
                "DenyApplicationInference",
                managed_policy_name=naming.application_kill_switch_policy_name(landing_zone_name),
                description="Attached by an application's budget action when its own budget is exhausted: no inference",
                document=iam.PolicyDocument.from_json(dict(deny_policy)),
            )
        app_arn = self.application_policy.managed_policy_arn if self.application_policy else None
        execution_policy = iam.ManagedPolicy(
            self,
            "ExecutionPolicy",
            managed_policy_name=naming.budget_action_policy_name(landing_zone_name),
            document=iam.PolicyDocument.from_json(execution_policy_for(self.policy.managed_policy_arn, app_arn)),
        )
        self.execution_role = iam.Role(
            self,
            "ExecutionRole",
            role_name=naming.budget_action_role_name(landing_zone_name),
            assumed_by=iam.ServicePrincipal("budgets.amazonaws.com"),
            managed_policies=[execution_policy],
            description="AWS Budgets applies the kill-switch policy to the invoker roles",
        )
        cfn_child(self.execution_role, iam.CfnRole).assume_role_policy_document = dict(execution_trust)
        self.threshold_percent = threshold_percent
        self.action = self._action("Action", budget, invoker_roles, topic, self.policy)
        self.application_actions: dict[str, budgets.CfnBudgetsAction] = {}
        self.reset_role: iam.Role | None = None

    def add_application_action(
        self, application: str, budget: MonthlyCostBudget, role: iam.IRole, topic: sns.ITopic
    ) -> budgets.CfnBudgetsAction:
        """``cost.per_application_budgets``: the application deny, attached by ``budget``'s action to ``role`` only
        (the execution role may already attach it to every invoker role)."""
        policy = self.application_policy or self.policy
        action = self._action(f"Action-{application}", budget, [role], topic, policy)
        self.application_actions[application] = action
        return action

    def add_reset_role(self, *, trust: Mapping[str, Any], policy_for: Any) -> iam.Role:
        """``cost.kill_switch_reset_principal_arns``: the role that may reverse and re-arm exactly the budget actions
        of this kill switch.  ``policy_for(action_ids)`` gets ``{None: the landing-zone action's ID, <application>:
        its action's ID}``; call it after the last :meth:`add_application_action`."""
        ids: dict[str | None, str] = {None: self.action.attr_action_id}
        ids.update({app: a.attr_action_id for app, a in self.application_actions.items()})
        policy = iam.ManagedPolicy(
            self,
            "ResetPolicy",
            managed_policy_name=naming.kill_switch_reset_policy_name(self.landing_zone_name),
            document=iam.PolicyDocument.from_json(policy_for(ids)),
        )
        self.reset_role = iam.Role(
            self,
            "ResetRole",
            role_name=naming.kill_switch_reset_role_name(self.landing_zone_name),
            assumed_by=iam.AccountRootPrincipal(),  # replaced by the plan's trust policy below
            managed_policies=[policy],
            description="Reverses and re-arms the kill switch's budget actions (cost.kill_switch_reset_principal_arns)",
        )
        cfn_child(self.reset_role, iam.CfnRole).assume_role_policy_document = dict(trust)
        return self.reset_role

    def _action(
        self,
        construct_id: str,
        budget: MonthlyCostBudget,
        roles: Sequence[iam.IRole],
        topic: sns.ITopic,
        policy: iam.ManagedPolicy,
    ) -> budgets.CfnBudgetsAction:
        action = budgets.CfnBudgetsAction(
            self,
            construct_id,
            budget_name=budget.budget_name,
            action_type="APPLY_IAM_POLICY",
            action_threshold=budgets.CfnBudgetsAction.ActionThresholdProperty(
                type="PERCENTAGE", value=self.threshold_percent
            ),
            definition=budgets.CfnBudgetsAction.DefinitionProperty(
                iam_action_definition=budgets.CfnBudgetsAction.IamActionDefinitionProperty(
                    policy_arn=policy.managed_policy_arn, roles=[r.role_name for r in roles]
                )
            ),
            execution_role_arn=self.execution_role.role_arn,
            notification_type="ACTUAL",
            approval_model="AUTOMATIC",
            subscribers=[budgets.CfnBudgetsAction.SubscriberProperty(type="SNS", address=topic.topic_arn)],
        )
        action.node.add_dependency(budget.budget)
        return action


class SpendAlarms(Construct):
    """One CloudWatch metric-math alarm per :class:`AlarmSpec` of the plan, notifying the topic.

    ``dimension_values`` replaces the plan's placeholders (``application-profile:<name>``, ``mantle-project:<name>``)
    with what only the stack knows, the profiles' ARNs and the projects' IDs; ``threshold_override`` replaces the
    threshold of the alarms whose spec allows it (a per-account CloudFormation parameter in the StackSet template).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        alarm_name_prefix: str,
        specs: Sequence[AlarmSpec],
        topic: sns.ITopic,
        dimension_values: Mapping[str, str] | None = None,
        threshold_override: float | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        self.alarms: list[cloudwatch.Alarm] = []
        action = cw_actions.SnsAction(topic)
        values = dict(dimension_values or {})
        for spec in specs:
            expression = cloudwatch.MathExpression(
                expression=spec.expression,
                label=spec.expression_label,
                period=Duration.seconds(spec.period_seconds),
                using_metrics={
                    m.id: cloudwatch.Metric(
                        namespace=m.namespace,
                        metric_name=m.metric_name,
                        dimensions_map={k: resolve_dimension(v, values) for k, v in m.dimensions.items()},
                        statistic=m.statistic,
                        period=Duration.seconds(m.period),
                        label=m.label or None,
                    )
                    for m in spec.metrics
                },
            )
            override = threshold_override if spec.threshold_overridable else None
            alarm = cloudwatch.Alarm(
                self,
                f"Alarm-{spec.name_suffix}",
                alarm_name=naming.alarm_name(alarm_name_prefix, spec.name_suffix),
                alarm_description=spec.description,
                metric=expression,
                threshold=round(spec.threshold, 4) if override is None else override,
                evaluation_periods=spec.evaluation_periods,
                comparison_operator=cloudwatch.ComparisonOperator(_CW_OPERATORS[spec.comparison_operator]),
                treat_missing_data=cloudwatch.TreatMissingData(_CW_MISSING[spec.treat_missing_data]),
            )
            alarm.add_alarm_action(action)
            self.alarms.append(alarm)


def resolve_dimension(value: str, values: Mapping[str, str]) -> str:
    """A dimension value of the plan, with an application profile's placeholder replaced by its ARN and a Mantle
    Project's by its ID (a service tier's series keeps its ``+<tier>`` suffix after the ARN)."""
    if value.startswith((APPLICATION_PROFILE, MANTLE_PROJECT)):
        marker, plus, tier = value.partition("+")
        if marker not in values:  # the plan and the stack disagree about which applications have profiles/projects
            raise LookupError(f"no application inference profile or Mantle Project for the metric source {value!r}")
        return values[marker] + plus + tier
    return value


_CW_OPERATORS = {
    "GreaterThanThreshold": "GREATER_THAN_THRESHOLD",
    "GreaterThanOrEqualToThreshold": "GREATER_THAN_OR_EQUAL_TO_THRESHOLD",
}
_CW_MISSING = {"notBreaching": "NOT_BREACHING", "breaching": "BREACHING", "missing": "MISSING", "ignore": "IGNORE"}


class CostAnomalyDetection(Construct):
    """A dimensional (per service) anomaly monitor and an immediate SNS subscription above a USD impact.

    AWS allows one AWS services monitor per account ("up to one AWS Service Monitor and 500 custom monitors", AWS Cost
    Anomaly Detection FAQs, https://aws.amazon.com/aws-cost-management/aws-cost-anomaly-detection/faqs/; a second
    fails with "Limit exceeded on dimensional spend monitor creation").  With ``monitor_arn`` (the account's existing
    one, ``cost.anomaly_monitor_arn``) no monitor is created (``monitor`` is None) and the subscription names it."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        name: str,
        topic: sns.ITopic,
        threshold_usd: float,
        tags: Mapping[str, str],
        monitor_arn: str | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        cfn_tags = [{"key": k, "value": v} for k, v in sorted(tags.items())]
        self.monitor: ce.CfnAnomalyMonitor | None = None
        if monitor_arn is None:
            self.monitor = ce.CfnAnomalyMonitor(
                self,
                "Monitor",
                monitor_name=naming.anomaly_monitor_name(name),
                monitor_type="DIMENSIONAL",
                monitor_dimension="SERVICE",
                resource_tags=cfn_tags,
            )
            monitor_arn = self.monitor.attr_monitor_arn
        self.subscription = ce.CfnAnomalySubscription(
            self,
            "Subscription",
            subscription_name=naming.anomaly_subscription_name(name),
            frequency="IMMEDIATE",
            monitor_arn_list=[monitor_arn],
            subscribers=[ce.CfnAnomalySubscription.SubscriberProperty(type="SNS", address=topic.topic_arn)],
            threshold_expression=json.dumps(
                {
                    "Dimensions": {
                        "Key": "ANOMALY_TOTAL_IMPACT_ABSOLUTE",
                        "MatchOptions": ["GREATER_THAN_OR_EQUAL"],
                        "Values": [f"{threshold_usd:g}"],
                    }
                },
                separators=(",", ":"),
            ),
            resource_tags=cfn_tags,
        )


class OptionalEmailSubscriptions(Construct):
    """E-mail subscriptions from template parameters, each created only when its parameter is not empty
    (StackSets: one template, per-account e-mails as parameter overrides)."""

    def __init__(self, scope: Construct, construct_id: str, *, topic: sns.ITopic, emails: Sequence[Any]) -> None:
        super().__init__(scope, construct_id)
        for i, email in enumerate(emails, start=1):
            condition = CfnCondition(self, f"HasEmail{i}", expression=Fn.condition_not(Fn.condition_equals(email, "")))
            subscription = sns.CfnSubscription(
                self, f"Email{i}", topic_arn=topic.topic_arn, protocol="email", endpoint=email
            )
            subscription.cfn_options.condition = condition
