"""Detection stacks (``detection``; docs/DETECTION.md): what the SCPs cannot prevent, noticed while it happens.

* ``<name>-detection`` — the deployment account's ``home_region``: every detection rule, each alerting the alerts
  topic with the statement, the principal and the resource; the default bus admits the management account's
  forwarded events; the alarm on legacy-model invocations; the AWS Config rules (``detection.config_rules``; never a
  recorder: they run on the account's own).
* ``<name>-detection-global`` — the deployment account's us-east-1 (when ``home_region`` is another Region): the rules
  whose calls CloudTrail records there (IAM, Route 53), forwarding the events to the home Region's bus.
* ``<name>-detection-management`` — the management account's us-east-1: Organizations' policy and policy-type changes
  (no SCP binds the management account), forwarded to the deployment account's home Region bus.
* ``<name>-detection-<region>`` — the deployment account's other source Regions (none while the schema confines
  ``inference_source_regions`` to ``home_region``): the regional rules, forwarded home
  (:func:`landing_zone.plan.detection.workload_forwarders`).
"""

from __future__ import annotations

from typing import Any

from aws_cdk import aws_sns as sns
from constructs import Construct

from constructs_lib.detection import ConfigRules, DetectionRules, EventForwarding, HomeBusAccess, LegacyModelAlarms
from landing_zone.core import naming
from landing_zone.plan import Plan
from landing_zone.plan.detection import Forwarder, legacy_alarm_names
from stacks.base import LandingZoneStack


class DetectionStack(LandingZoneStack):
    def __init__(self, scope: Construct, construct_id: str, *, plan: Plan, topic: sns.ITopic, **kwargs: Any) -> None:
        super().__init__(scope, construct_id, plan=plan, **kwargs)
        detection = plan.policies.detection
        assert detection is not None, "DetectionStack needs detection on"
        name = plan.config.name
        self.rules = DetectionRules(
            self,
            "Rules",
            landing_zone_name=name,
            rule_names=detection.rule_names,
            rules=detection.rules,
            topic_arn=topic.topic_arn,
        )
        self.bus_access = (
            HomeBusAccess(self, "ManagementForwards", statement=detection.home_bus_statement)
            if detection.home_bus_statement is not None
            else None
        )
        self.config_rules = (
            ConfigRules(
                self,
                "ConfigRules",
                rule_names=detection.config_rule_names,
                rules=detection.config_rules,
                landing_zone_name=name,
                alert_rule_name=detection.compliance_alert_name,
                alert_pattern=detection.compliance_alert_pattern,
                topic_arn=topic.topic_arn,
            )
            if detection.config_rules
            and detection.compliance_alert_name is not None
            and detection.compliance_alert_pattern is not None
            else None
        )
        self.legacy_alarms = LegacyModelAlarms(
            self, "LegacyModels", alarm_names=legacy_alarm_names(plan.config, plan.routing), topic=topic
        )


class DetectionForwardingStack(LandingZoneStack):
    """``forwarder``: one of the deployment account's (:func:`landing_zone.plan.detection.workload_forwarders`: the
    rules it carries, its role); None: the management account's (the rules placed there)."""

    def __init__(
        self, scope: Construct, construct_id: str, *, plan: Plan, forwarder: Forwarder | None, **kwargs: Any
    ) -> None:
        super().__init__(scope, construct_id, plan=plan, **kwargs)
        detection = plan.policies.detection
        assert detection is not None, "DetectionForwardingStack needs detection on"
        cfg = plan.config
        if forwarder is None:
            rules = [r for r in detection.rules if r.placement == "management"]
            role_name = naming.detection_forwarder_role_name(cfg.name)
        else:
            rules = [r for r in detection.rules if forwarder.carries(r)]
            role_name = forwarder.role_name
        self.forwarding = EventForwarding(
            self,
            "Forward",
            rule_names=detection.rule_names,
            rules=rules,
            target_bus_arn=f"arn:aws:events:{cfg.home_region}:{cfg.deployment_account}:event-bus/default",
            role_name=role_name,
            policy_name=role_name,
            forwarder_policy=detection.forwarder,
        )
