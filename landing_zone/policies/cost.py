"""Policies of the cost controls: the alerts topic, the kill switch and the budget action's execution role."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from landing_zone.policies.common import document, from_source, statement
from landing_zone.policies.invoke import BATCH_ACTIONS, MANTLE_INVOKE_ACTIONS, RUNTIME_INVOKE_ACTIONS

KILL_SWITCH_ACTIONS = (*RUNTIME_INVOKE_ACTIONS, *BATCH_ACTIONS, *MANTLE_INVOKE_ACTIONS)


def kill_switch_policy() -> dict[str, Any]:
    """Attached to the invoker roles by the budget action: no more inference until someone detaches it."""
    return document(
        [statement("BudgetExhaustedDenyInference", effect="Deny", actions=KILL_SWITCH_ACTIONS, resources=["*"])]
    )


def alerts_topic_policy(*, topic_arn: str, account: str, region: str, partition: str = "aws") -> dict[str, Any]:
    """Publishers of the alerts topic, each limited to this account's own budgets, anomaly subscriptions and
    alarms (confused deputy); plain-HTTP use denied."""
    publishers = [
        ("BudgetsPublish", "budgets.amazonaws.com", f"arn:{partition}:budgets::{account}:*"),
        (
            "CostAnomalyDetectionPublish",
            "costalerts.amazonaws.com",
            f"arn:{partition}:ce::{account}:anomalysubscription/*",
        ),
        (
            "CloudWatchAlarmsPublish",
            "cloudwatch.amazonaws.com",
            f"arn:{partition}:cloudwatch:{region}:{account}:alarm:*",
        ),
    ]
    return document(
        [
            statement(
                "DenyInsecureTransport",
                effect="Deny",
                principal={"AWS": "*"},
                actions=["sns:Publish"],
                resources=[topic_arn],
                condition={"Bool": {"aws:SecureTransport": "false"}},
            ),
            *(
                statement(
                    sid,
                    principal={"Service": service},
                    actions=["sns:Publish"],
                    resources=[topic_arn],
                    condition=from_source(account, source),
                )
                for sid, service, source in publishers
            ),
        ]
    )


def budget_action_trust_policy(*, account: str, partition: str = "aws") -> dict[str, Any]:
    return document(
        [
            statement(
                "BudgetsAssumesForActions",
                principal={"Service": "budgets.amazonaws.com"},
                actions=["sts:AssumeRole"],
                trust=True,
                condition=from_source(account, f"arn:{partition}:budgets::{account}:budget/*"),
            )
        ]
    )


def budget_action_execution_policy(*, kill_switch_policy_arn: str, invoker_role_arns: Sequence[str]) -> dict[str, Any]:
    """Attach/detach exactly the kill-switch policy, on exactly the invoker roles."""
    return document(
        [
            statement(
                "ApplyKillSwitchToInvokers",
                actions=["iam:AttachRolePolicy", "iam:DetachRolePolicy"],
                resources=list(invoker_role_arns),
                condition={"ArnEquals": {"iam:PolicyARN": kill_switch_policy_arn}},
            )
        ]
    )


def budget_filter_expression(*, scope: str, account: str, tag_key: str, tag_value: str) -> dict[str, Any]:
    """AWS Budgets filter (``FilterExpression``) that catches Kimi spend wherever it is billed.

    Marketplace models may bill under "<Model> (Amazon Bedrock Edition)" rather than "Amazon Bedrock", so the
    filter never names a service: ``account`` scope takes everything billed to the account; ``tagged`` scope
    adds the cost-allocation tag every application inference profile carries (activate it in Billing).
    """
    account_filter = {"Dimensions": {"Key": "LINKED_ACCOUNT", "Values": [account], "MatchOptions": ["EQUALS"]}}
    if scope == "account":
        return account_filter
    tag_filter = {"Tags": {"Key": tag_key, "Values": [tag_value], "MatchOptions": ["EQUALS"]}}
    return {"And": [account_filter, tag_filter]}
