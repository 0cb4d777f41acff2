"""The member baseline as ONE StackSet template: keys, network, access, logging, cost controls and (``detection`` on)
the detection rules and legacy-model alarms, alerting each member account's own alerts topic.

The same composition functions as the per-account stacks, with the account as ``AWS::AccountId`` and the
per-account differences (budget, alarm threshold, cost center, e-mails) as template parameters.
"""

from __future__ import annotations

from aws_cdk import Aws, CfnParameter, Fn
from aws_cdk import aws_s3 as s3
from cdk_stacksets import StackSetStack
from constructs import Construct

from constructs_lib.cost import OptionalEmailSubscriptions
from constructs_lib.detection import DetectionRules, LegacyModelAlarms
from landing_zone.plan import Plan
from landing_zone.plan.detection import legacy_alarm_names, member_rules
from landing_zone.plan.rollout import PARAM_BUDGET, PARAM_COST_CENTER, PARAM_EMAILS, PARAM_THRESHOLD, default_parameters
from stacks.access import add_access
from stacks.cost import add_cost_controls
from stacks.keys import add_keys
from stacks.network import add_network


class MemberBaselineStack(StackSetStack):
    def __init__(
        self, scope: Construct, construct_id: str, *, plan: Plan, asset_bucket: s3.IBucket, asset_bucket_prefix: str
    ) -> None:
        super().__init__(scope, construct_id, asset_buckets=[asset_bucket], asset_bucket_prefix=asset_bucket_prefix)
        cfg = plan.config
        defaults = default_parameters(plan)
        budget = CfnParameter(
            self,
            PARAM_BUDGET,
            type="Number",
            min_value=1,
            default=defaults[PARAM_BUDGET],
            description="Monthly Bedrock budget of this account (USD)",
        )
        threshold = CfnParameter(
            self,
            PARAM_THRESHOLD,
            type="Number",
            default=defaults[PARAM_THRESHOLD],
            description="Spend alarm threshold (USD/hour)",
        )
        cost_center = CfnParameter(
            self,
            PARAM_COST_CENTER,
            type="String",
            default=defaults[PARAM_COST_CENTER],
            description="cost-center tag of this account's application profiles",
        )
        emails = [
            CfnParameter(self, name, type="String", default=defaults[name], description="Alert e-mail (empty: none)")
            for name in PARAM_EMAILS
        ]
        account = Aws.ACCOUNT_ID
        self.keys = add_keys(self, plan=plan, account=account)
        azs = list(cfg.network.availability_zones) or [Fn.select(i, Fn.get_azs()) for i in range(cfg.network.az_count)]
        network = add_network(
            self,
            plan=plan,
            logs_key=self.keys["logs"],
            availability_zones=azs,
            account=account,  # each member's endpoints admit its own principals only (plan.policies.endpoints)
        )
        self.network = network.network
        self.endpoints = network.endpoints
        access = add_access(
            self,
            plan=plan,
            account=account,
            logs_key=self.keys["logs"],
            endpoints=network.endpoints.endpoints,
            cost_center=cost_center.value_as_string,
        )
        self.access = access
        cost = add_cost_controls(
            self,
            plan=plan,
            account=account,
            alerts_key=self.keys["alerts"],
            profiles=access.profiles,
            invokers=access.invokers,
            mantle_projects=access.mantle_projects,
            alert_emails=[],
            budget_usd=budget.value_as_number,
            threshold_usd_per_hour=threshold.value_as_number,
        )
        self.cost = cost
        OptionalEmailSubscriptions(
            self, "AlertEmails", topic=cost.alerts.topic, emails=[e.value_as_string for e in emails]
        )
        self.detection: DetectionRules | None = None
        self.legacy_alarms: LegacyModelAlarms | None = None
        detection = plan.policies.detection
        if detection is not None:  # each member's own rules, alerting its own alerts topic (docs/DETECTION.md)
            self.detection = DetectionRules(
                self,
                "Detection",
                landing_zone_name=cfg.name,
                rule_names=detection.rule_names,
                rules=member_rules(cfg, detection.rules),
                topic_arn=cost.alerts.topic.topic_arn,
            )
            self.legacy_alarms = LegacyModelAlarms(
                self, "LegacyModels", alarm_names=legacy_alarm_names(cfg, plan.routing), topic=cost.alerts.topic
            )
