"""Detection stacks (``detection``; docs/DETECTION.md): what the SCPs cannot prevent, noticed while it happens.

* ``<name>-detection`` — the deployment account's ``home_region``: every detection rule, each alerting the alerts
  topic with the statement, the principal and the resource (and, with ``detection.central_event_bus_arn``, delivering
  the event to the central account's bus); the default bus admits the management account's
  forwarded events; the alarm on legacy-model invocations; the AWS Config rules (``detection.config_rules``; never a
  recorder: they run on the account's own).
* ``<name>-detection-global`` — the deployment account's us-east-1 (when ``home_region`` is another Region): the rules
  whose calls CloudTrail records there (IAM, Route 53), forwarding the events to the home Region's bus.
* ``<name>-detection-management`` — the management account's us-east-1: Organizations' policy and policy-type changes
  (no SCP binds the management account), forwarded to the deployment account's home Region bus.
  Every forwarding stack also delivers its events to ``detection.central_event_bus_arn`` when it is set.
* ``<name>-detection-<region>`` — the deployment account's other source Regions (none while the schema confines
  ``inference_source_regions`` to ``home_region``): the regional rules, forwarded home
  (:func:`landing_zone.plan.detection.workload_forwarders`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_kms as kms
from aws_cdk import aws_sns as sns
from constructs import Construct

from constructs_lib.config_checks import AccountSettingsConfigRule
from constructs_lib.detection import (
    CentralBusRole,
    ConfigRules,
    DetectionRules,
    EventForwarding,
    HomeBusAccess,
    LegacyModelAlarms,
)
from constructs_lib.network import RETENTION_DAYS
from landing_zone.core import markers, naming
from landing_zone.plan import Plan
from landing_zone.plan.detection import Forwarder, legacy_alarm_names
from stacks.base import LandingZoneStack

if TYPE_CHECKING:
    from stacks.access import AccessStack
    from stacks.network import NetworkStack


class DetectionStack(LandingZoneStack):
    """``access`` and ``logs_key``: the access stack (the values the account-settings Config rule expects) and the
    logs key (its function's log group); needed when the plan has that rule.  ``network``: the network stack (the
    default security group of the VPC it creates scopes the default-sg-closed rule); needed in new-VPC mode."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        plan: Plan,
        topic: sns.ITopic,
        access: AccessStack | None = None,
        logs_key: kms.IKey | None = None,
        network: NetworkStack | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(scope, construct_id, plan=plan, **kwargs)
        detection = plan.policies.detection
        assert detection is not None, "DetectionStack needs detection on"
        name = plan.config.name
        self.central = (
            CentralBusRole(
                self,
                "CentralBus",
                role_name=naming.detection_central_forwarder_role_name(name),
                policy=detection.central_forwarder,
            )
            if detection.central_bus_arn is not None and detection.central_forwarder is not None
            else None
        )
        self.rules = DetectionRules(
            self,
            "Rules",
            landing_zone_name=name,
            rule_names=detection.rule_names,
            rules=detection.rules,
            topic_arn=topic.topic_arn,
            central=(detection.central_bus_arn, self.central.role.role_arn)
            if self.central is not None and detection.central_bus_arn is not None
            else None,
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
                values=_own_vpc_values(network),
            )
            if detection.config_rules
            and detection.compliance_alert_name is not None
            and detection.compliance_alert_pattern is not None
            else None
        )
        self.account_settings = (
            _account_settings_rule(self, plan, access, logs_key, network) if detection.account_settings_rule else None
        )
        self.legacy_alarms = LegacyModelAlarms(
            self, "LegacyModels", alarm_names=legacy_alarm_names(plan.config, plan.routing), topic=topic
        )


def _own_vpc_values(network: NetworkStack | None) -> dict[str, str]:
    """The default security group of the VPC the network stack creates (a cross-stack reference: the VPC's
    DefaultSecurityGroup attribute); none for an imported VPC."""
    vpc = network.network.vpc if network is not None else None
    return {markers.DEFAULT_SECURITY_GROUP_ID: vpc.vpc_default_security_group} if isinstance(vpc, ec2.Vpc) else {}


def _account_settings_rule(
    scope: Construct, plan: Plan, access: AccessStack | None, logs_key: kms.IKey | None, network: NetworkStack | None
) -> AccountSettingsConfigRule:
    """The custom Config rule, its parameters' markers filled with the access stack's values (cross-stack
    references: the bucket, log group and role of invocation logging, the guardrail's ID and pinned version) and the
    network stack's VPC (new-VPC mode: its default network ACL)."""
    detection = plan.policies.detection
    assert detection is not None and detection.account_settings_rule is not None
    assert access is not None and logs_key is not None, "the account-settings rule needs the access stack and logs key"
    values: dict[str, str] = {}
    if access.logging is not None:
        values |= {
            markers.LOG_BUCKET_NAME: access.logging.bucket.bucket_name,
            markers.LOG_GROUP_NAME: access.logging.log_group.log_group_name,
            markers.LOGGING_ROLE_ARN: access.logging.role.role_arn,
        }
    if access.guardrail is not None:
        values |= {
            markers.GUARDRAIL_ID: access.guardrail.guardrail.attr_guardrail_id,
            markers.GUARDRAIL_VERSION: access.guardrail.version.attr_version,
        }
    vpc = network.network.vpc if network is not None else None
    if isinstance(vpc, ec2.Vpc):
        values[markers.VPC_ID] = vpc.vpc_id
    check = detection.account_settings_rule
    return AccountSettingsConfigRule(
        scope,
        "AccountSettingsRule",
        rule_name=detection.config_rule_names[check.id],
        check=check,
        values=values,
        logs_key=logs_key,
        log_retention=RETENTION_DAYS[plan.config.invocation_logging.log_retention_days],
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
            central_bus_arn=detection.central_bus_arn,
        )
