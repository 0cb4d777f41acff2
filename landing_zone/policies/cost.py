"""Policies of the cost controls: the alerts topic, the kill switch, the budget action's execution role and the kill
switch's reset role."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from landing_zone.policies.common import document, from_source, one_or_many, statement
from landing_zone.policies.invoke import BATCH_ACTIONS, MANTLE_INVOKE_ACTIONS, RUNTIME_INVOKE_ACTIONS

KILL_SWITCH_ACTIONS = (*RUNTIME_INVOKE_ACTIONS, *BATCH_ACTIONS, *MANTLE_INVOKE_ACTIONS)


def kill_switch_policy() -> dict[str, Any]:
    """Attached to the invoker roles by the budget action: no more inference until someone detaches it."""
    return document(
        [statement("BudgetExhaustedDenyInference", effect="Deny", actions=KILL_SWITCH_ACTIONS, resources=["*"])]
    )


def alerts_topic_policy(
    *, topic_arn: str, account: str, region: str, partition: str = "aws", event_rule_prefix: str | None = None
) -> dict[str, Any]:
    """Publishers of the alerts topic, each limited to this account's own budgets, anomaly subscriptions and
    alarms (confused deputy); plain-HTTP use denied.  ``event_rule_prefix`` (detection on): also EventBridge, for
    this account's rules of that name prefix in ``region``."""
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
    if event_rule_prefix is not None:
        publishers.append(
            (
                "EventBridgeRulesPublish",
                "events.amazonaws.com",
                f"arn:{partition}:events:{region}:{account}:rule/{event_rule_prefix}*",
            )
        )
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


def budget_action_execution_policy(
    *, kill_switch_policy_arns: Sequence[str], invoker_role_arns: Sequence[str]
) -> dict[str, Any]:
    """Attach/detach exactly the kill-switch policies (the landing zone's, and with per-application budgets the
    applications'), on exactly the invoker roles.  AWS Budgets uses the same role to reverse an action ("The role
    passed for action execution and reversion", Budgets API reference, Action: ExecutionRoleArn)."""
    return document(
        [
            statement(
                "ApplyKillSwitchToInvokers",
                actions=["iam:AttachRolePolicy", "iam:DetachRolePolicy"],
                resources=list(invoker_role_arns),
                condition={"ArnEquals": {"iam:PolicyARN": list(kill_switch_policy_arns)}},
            )
        ]
    )


def budget_filter_expression(*, scope: str, account: str, tags: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """AWS Budgets filter (``FilterExpression``) of a kill-switch budget.

    Marketplace models may bill under "<Model> (Amazon Bedrock Edition)" rather than "Amazon Bedrock", so the
    filter never names a service: ``account`` scope takes everything billed to the account; ``tagged`` scope only
    what also carries every cost-allocation tag of ``tags`` (key -> allowed values; activate them in Billing).  The
    landing zone's budget asks for ``landing-zone=<name>`` AND ``application=<one of its applications>``: only the
    application profiles and Mantle Projects carry both, so neither another team's spend nor the landing zone's own
    infrastructure (endpoints, keys, logs, self-hosted nodes: tagged ``landing-zone`` only) counts.
    """
    account_filter = {"Dimensions": {"Key": "LINKED_ACCOUNT", "Values": [account], "MatchOptions": ["EQUALS"]}}
    if scope == "account":
        return account_filter
    tag_filters = [
        {"Tags": {"Key": key, "Values": sorted(set(values)), "MatchOptions": ["EQUALS"]}}
        for key, values in sorted(tags.items())
    ]
    return {"And": [account_filter, *tag_filters]}


# Reversing and re-arming a budget action (ExecuteBudgetAction, ExecutionType REVERSE_BUDGET_ACTION / RESET_BUDGET_ACTION:
# https://docs.aws.amazon.com/aws-cost-management/latest/APIReference/API_budgets_ExecuteBudgetAction.html), and
# reading the actions' status (Service Authorization Reference, AWS Budget Service: ExecuteBudgetAction "Grants
# permission to initiate a pending budget action as well as reverse a previously executed budget action").
KILL_SWITCH_RESET_ACTIONS = (
    "budgets:ExecuteBudgetAction",
    "budgets:DescribeBudgetAction",
    "budgets:DescribeBudgetActionHistories",
)
KILL_SWITCH_BUDGET_READS = ("budgets:ViewBudget", "budgets:DescribeBudgetActionsForBudget")


def kill_switch_reset_trust_policy(*, principal_arns: Sequence[str], partition: str = "aws") -> dict[str, Any]:
    """Who may assume the reset role: exactly ``cost.kill_switch_reset_principal_arns`` (``aws:PrincipalArn``
    ArnLike, so a trailing ``*`` works for an IAM Identity Center role), each from its own account."""
    accounts = sorted({arn.split(":")[4] for arn in principal_arns})
    return document(
        [
            statement(
                "KillSwitchResetPrincipals",
                principal={"AWS": one_or_many(f"arn:{partition}:iam::{a}:root" for a in accounts)},
                actions=["sts:AssumeRole"],
                trust=True,
                condition={"ArnLike": {"aws:PrincipalArn": list(principal_arns)}},
            )
        ]
    )


def kill_switch_reset_policy(*, account: str, action_ids: Mapping[str, str], partition: str = "aws") -> dict[str, Any]:
    """The reset role's permissions: reverse and re-arm exactly the kill switch's budget actions (``action_ids``:
    budget name -> its action's ID) and read those budgets — nothing else (it cannot raise, delete or re-point a
    budget: that is a change of the configuration, deployed).  Budgets detaches the deny with the action's own
    execution role, so the reset role needs no IAM permission."""
    budget = f"arn:{partition}:budgets::{account}:budget/"
    return document(
        [
            statement(
                "ReverseAndRearmKillSwitch",
                actions=KILL_SWITCH_RESET_ACTIONS,
                resources=[f"{budget}{name}/action/{action_id}" for name, action_id in sorted(action_ids.items())],
            ),
            statement(
                "ReadKillSwitchBudgets",
                actions=KILL_SWITCH_BUDGET_READS,
                resources=[f"{budget}{name}" for name in sorted(action_ids)],
            ),
        ]
    )
