"""Detection: EventBridge rules on CloudTrail management events, each delivering one readable alert to the alerts
topic (or forwarding the event to the home Region's default bus), and the alarm on legacy-model invocations.

The rules come as plain data (:class:`WatchedCalls`: the plan's ``landing_zone.policies.detection.EventRule``
satisfies it); this module only wires them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from aws_cdk import Duration, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as cw_actions
from aws_cdk import aws_config as config
from aws_cdk import aws_events as events
from aws_cdk import aws_iam as iam
from aws_cdk import aws_sns as sns
from constructs import Construct

from constructs_lib.cfn import render

__all__ = [
    "ALERT_FIELDS",
    "CentralBusRole",
    "ConfigRules",
    "ManagedConfigRule",
    "DetectionRules",
    "EventForwarding",
    "HomeBusAccess",
    "LegacyModelAlarms",
    "WatchedCalls",
    "alert_template",
]

# What every alert names, from the CloudTrail record (CloudTrail user guide, "CloudTrail record contents"):
# the principal, the call, the resource (the request's parameters), where and when, and the error of a denied call.
ALERT_FIELDS: Mapping[str, str] = {
    "principal": "$.detail.userIdentity.arn",
    "source": "$.detail.eventSource",
    "call": "$.detail.eventName",
    "account": "$.account",
    "region": "$.region",
    "time": "$.time",
    "resource": "$.detail.requestParameters",
    "error": "$.detail.errorCode",
    "message": "$.detail.errorMessage",
}


class WatchedCalls(Protocol):
    """One rule's data: ``id`` (the rule name's suffix), ``what``, ``statements`` (the SCP statements that deny the
    calls; empty: detection only) and ``pattern`` (the EventBridge event pattern)."""

    @property
    def id(self) -> str: ...

    @property
    def what(self) -> str: ...

    @property
    def statements(self) -> tuple[str, ...]: ...

    @property
    def pattern(self) -> Mapping[str, Any]: ...


def alert_template(landing_zone_name: str, rule: WatchedCalls) -> str:
    """The input transformer's template: one line of text (a JSON string) naming the statement, the principal and the
    resource; ``<field>`` placeholders are :data:`ALERT_FIELDS`."""
    statements = ", ".join(rule.statements) if rule.statements else "none (not preventable here: detection only)"
    text = (
        f"[{landing_zone_name}] {rule.what}. Statement: {statements}. Principal: <principal>. Call: <source> <call> "
        "in account <account>, <region>, at <time>. Resource: <resource>. Error: <error> <message>"
    )
    return json.dumps(text)


class DetectionRules(Construct):
    """One rule per :class:`WatchedCalls` on the account's default bus, named by ``rule_names`` (by id: the plan's
    names, cut to EventBridge's limit by :func:`landing_zone.core.naming.detection_rule_name`), each
    publishing its alert (input transformer) to ``topic``.  ``topic`` is taken by ARN: the alerts topic's policy
    (written by the cost stack from the plan) admits these rules; an L2 target would write a second topic policy.
    ``central``: (bus ARN, role ARN) of ``detection.central_event_bus_arn``: each rule also delivers the event, as it
    is (no transformer: the central account's own rules match it), to that bus (target ``central-bus``)."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        landing_zone_name: str,
        rule_names: Mapping[str, str],
        rules: Sequence[WatchedCalls],
        topic_arn: str,
        central: tuple[str, str] | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        extra = (
            [events.CfnRule.TargetProperty(arn=central[0], id="central-bus", role_arn=central[1])] if central else []
        )
        self.rules: dict[str, events.CfnRule] = {}
        for rule in rules:
            self.rules[rule.id] = events.CfnRule(
                self,
                f"Rule-{rule.id}",
                name=rule_names[rule.id],
                description=rule.what[:512],
                event_pattern=dict(rule.pattern),
                state="ENABLED",
                targets=[
                    events.CfnRule.TargetProperty(
                        arn=topic_arn,
                        id="alerts",
                        input_transformer=events.CfnRule.InputTransformerProperty(
                            input_paths_map=dict(ALERT_FIELDS),
                            input_template=alert_template(landing_zone_name, rule),
                        ),
                    ),
                    *extra,
                ],
            )


def _forwarder_role(
    scope: Construct, *, role_name: str, policy_name: str, policy: Mapping[str, Any], description: str
) -> tuple[iam.ManagedPolicy, iam.Role]:
    """A role EventBridge assumes to put events on a bus, with the plan's policy (a managed policy of that name)."""
    managed = iam.ManagedPolicy(
        scope, "Policy", managed_policy_name=policy_name, document=iam.PolicyDocument.from_json(dict(policy))
    )
    role = iam.Role(
        scope,
        "Role",
        role_name=role_name,
        # confused deputy: only this account's rules (EventBridge sets aws:SourceAccount when it assumes a target
        # role: EventBridge user guide, "Cross-service confused deputy prevention")
        assumed_by=iam.ServicePrincipal(
            "events.amazonaws.com", conditions={"StringEquals": {"aws:SourceAccount": Stack.of(scope).account}}
        ),
        description=description,
        managed_policies=[managed],
    )
    return managed, role


class CentralBusRole(Construct):
    """The role the detection rules deliver to ``detection.central_event_bus_arn`` with: ``policy`` is the plan's
    (events:PutEvents on that bus only); EventBridge needs a role for a bus of another account ("the sending event
    bus must have IAM roles attached to them when sending events to another account", EventBridge user guide,
    eb-cross-account)."""

    def __init__(self, scope: Construct, construct_id: str, *, role_name: str, policy: Mapping[str, Any]) -> None:
        super().__init__(scope, construct_id)
        self.policy, self.role = _forwarder_role(
            self,
            role_name=role_name,
            policy_name=role_name,
            policy=policy,
            description="EventBridge delivers the landing zone's detection events to the central account's bus",
        )


class EventForwarding(Construct):
    """Rules that forward matching events, as they are, to ``target_bus_arn`` (the deployment account's default bus
    in ``home_region``, where :class:`DetectionRules` alert on them), with a role of its own whose policy the plan
    wrote (``forwarder_policy``: PutEvents on that bus, and on ``central_bus_arn``).  ``central_bus_arn``
    (``detection.central_event_bus_arn``): each rule also delivers the event there itself (target ``central-bus``,
    the same role), since EventBridge does not send an event received from another account on to a third."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        rule_names: Mapping[str, str],
        rules: Sequence[WatchedCalls],
        target_bus_arn: str,
        role_name: str,
        policy_name: str,
        forwarder_policy: Mapping[str, Any],
        central_bus_arn: str | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        self.policy, self.role = _forwarder_role(
            self,
            role_name=role_name,
            policy_name=policy_name,
            policy=forwarder_policy,
            description="EventBridge forwards the landing zone's detection events to the home Region's bus",
        )
        self.rules: dict[str, events.CfnRule] = {}
        for rule in rules:
            self.rules[rule.id] = events.CfnRule(
                self,
                f"Rule-{rule.id}",
                name=rule_names[rule.id],
                description=f"forward: {rule.what}"[:512],
                event_pattern=dict(rule.pattern),
                state="ENABLED",
                targets=[
                    events.CfnRule.TargetProperty(arn=target_bus_arn, id="home-bus", role_arn=self.role.role_arn),
                    *(
                        [
                            events.CfnRule.TargetProperty(
                                arn=central_bus_arn, id="central-bus", role_arn=self.role.role_arn
                            )
                        ]
                        if central_bus_arn
                        else []
                    ),
                ],
            )


class LegacyModelAlarms(Construct):
    """One alarm per model ID on ``AWS/Bedrock`` ``LegacyModelInvocations`` (Bedrock user guide, "Monitor Amazon
    Bedrock with CloudWatch": invocations of a model in its legacy state), to ``topic``."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        alarm_names: Mapping[str, str],  # model ID -> alarm name
        topic: sns.ITopic,
        period_minutes: int = 5,
    ) -> None:
        super().__init__(scope, construct_id)
        self.alarms: dict[str, cloudwatch.Alarm] = {}
        for index, (model_id, alarm_name) in enumerate(sorted(alarm_names.items())):
            alarm = cloudwatch.Alarm(
                self,
                f"Legacy{index}",
                alarm_name=alarm_name,
                alarm_description=f"{model_id} is called while in its legacy state: plan the move before its end of "
                "life (python -m landing_zone discover shows each model's lifecycle status)",
                metric=cloudwatch.Metric(
                    namespace="AWS/Bedrock",
                    metric_name="LegacyModelInvocations",
                    dimensions_map={"ModelId": model_id},
                    statistic="Sum",
                    period=Duration.minutes(period_minutes),
                ),
                threshold=0,
                comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
                evaluation_periods=1,
                treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
            )
            alarm.add_alarm_action(cw_actions.SnsAction(topic))
            self.alarms[model_id] = alarm


class HomeBusAccess(Construct):
    """The account's default bus admits ``statement`` (the management account's forwarder: events:PutEvents)."""

    def __init__(self, scope: Construct, construct_id: str, *, statement: Mapping[str, Any]) -> None:
        super().__init__(scope, construct_id)
        body = {k: v for k, v in statement.items() if k != "Sid"}
        # the bus named, although CloudFormation defaults to the account's default bus: explicit in the template
        self.policy = events.CfnEventBusPolicy(
            self, "Policy", event_bus_name="default", statement_id=str(statement.get("Sid", "forward")), statement=body
        )


class ManagedConfigRule(Protocol):
    """One AWS Config managed rule's data (the plan's ``landing_zone.policies.config_rules.ConfigRule`` satisfies
    it): ``id``, ``what``, ``identifier`` (the managed rule), ``resource_types`` (scope), ``input_parameters`` (JSON),
    ``resource_id`` (None, or a marker: the one resource in scope)."""

    @property
    def id(self) -> str: ...

    @property
    def what(self) -> str: ...

    @property
    def identifier(self) -> str: ...

    @property
    def resource_types(self) -> tuple[str, ...]: ...

    @property
    def input_parameters(self) -> str | None: ...

    @property
    def resource_id(self) -> str | None: ...


class ConfigRules(Construct):
    """One AWS Config rule per :class:`ManagedConfigRule` (``Source.Owner: AWS``), named by ``rule_names`` (by id),
    and an EventBridge rule ``alert_rule_name`` (``alert_pattern``: a resource became non-compliant) alerting
    ``topic_arn``. Never a configuration recorder or a delivery channel: the rules run on the account's recorder
    (Control Tower's), which ``preflight`` reports."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        rule_names: Mapping[str, str],
        rules: Sequence[ManagedConfigRule],
        landing_zone_name: str,
        alert_rule_name: str,
        alert_pattern: Mapping[str, Any],
        topic_arn: str,
        values: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        self.rules: dict[str, config.CfnConfigRule] = {}
        for rule in rules:
            # a rule scoped to one resource: its ID's marker resolved from ``values`` (raises when none is given)
            resource_id = render(self, {"id": rule.resource_id}, values)["id"] if rule.resource_id else None
            self.rules[rule.id] = config.CfnConfigRule(
                self,
                f"ConfigRule-{rule.id}",
                config_rule_name=rule_names[rule.id],
                description=rule.what[:256],
                source=config.CfnConfigRule.SourceProperty(owner="AWS", source_identifier=rule.identifier),
                scope=config.CfnConfigRule.ScopeProperty(
                    compliance_resource_types=list(rule.resource_types), compliance_resource_id=resource_id
                ),
                input_parameters=json.loads(rule.input_parameters) if rule.input_parameters else None,
            )
        # the compliance-change event's fields (AWS Config developer guide, "Monitoring AWS Config with EventBridge")
        text = (
            f"[{landing_zone_name}] AWS Config rule <rule> finds <type> <resource> NON_COMPLIANT in account <account>, "
            "<region>, at <time> (aws configservice get-compliance-details-by-config-rule --config-rule-name <rule>)"
        )
        self.alert = events.CfnRule(
            self,
            "ComplianceAlert",
            name=alert_rule_name,
            description="a resource became non-compliant with one of the landing zone's AWS Config rules",
            event_pattern=dict(alert_pattern),
            state="ENABLED",
            targets=[
                events.CfnRule.TargetProperty(
                    arn=topic_arn,
                    id="alerts",
                    input_transformer=events.CfnRule.InputTransformerProperty(
                        input_paths_map={
                            "rule": "$.detail.configRuleName",
                            "type": "$.detail.resourceType",
                            "resource": "$.detail.resourceId",
                            "account": "$.account",
                            "region": "$.region",
                            "time": "$.time",
                        },
                        input_template=json.dumps(text),
                    ),
                )
            ],
        )
