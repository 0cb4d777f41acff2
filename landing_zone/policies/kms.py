"""KMS key policies with the service principals later stacks need, each with confused-deputy conditions.

* ``logs`` key: CloudWatch Logs (flow logs, invocation-log group), restricted by the
  ``kms:EncryptionContext:aws:logs:arn`` of the landing zone's log groups; Bedrock model invocation logging
  writing to the S3 bucket, restricted by ``aws:SourceAccount`` and ``aws:SourceArn``.
* ``alerts`` key: SNS topics published by AWS Budgets, Cost Anomaly Detection and CloudWatch alarms.
* ``secrets`` key: EKS secrets envelope encryption (the cluster role gets a grant; root-only policy).
* the management account's logs key (:func:`own_log_groups_key_policy`): its account's root and CloudWatch Logs for
  exactly the log groups it encrypts, nothing else (no Bedrock: invocation logging is the workload accounts').
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from landing_zone.policies.common import document, from_source, statement

KEY_PURPOSES = ("logs", "alerts", "secrets")


def _root(account: str, partition: str) -> dict[str, Any]:
    # The standard first statement: IAM policies in the account decide who may use/administer the key.
    return statement(
        "EnableIamPolicies",
        principal={"AWS": f"arn:{partition}:iam::{account}:root"},
        actions=["kms:*"],
        resources=["*"],
    )


def log_group_arn_pattern(*, account: str, region: str, name: str, partition: str = "aws") -> str:
    """All log groups of this landing zone: their names start with '/<name>/'."""
    return f"arn:{partition}:logs:{region}:{account}:log-group:/{name}/*"


def logs_key_policy(*, account: str, region: str, name: str, partition: str = "aws") -> dict[str, Any]:
    return document(
        [
            _root(account, partition),
            statement(
                "CloudWatchLogsForLandingZoneLogGroups",
                principal={"Service": f"logs.{region}.amazonaws.com"},
                actions=["kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*"],
                resources=["*"],
                condition={
                    "ArnLike": {
                        "kms:EncryptionContext:aws:logs:arn": log_group_arn_pattern(
                            account=account, region=region, name=name, partition=partition
                        )
                    }
                },
            ),
            statement(
                "BedrockInvocationLoggingToS3",
                principal={"Service": "bedrock.amazonaws.com"},
                actions=["kms:GenerateDataKey", "kms:Decrypt"],
                resources=["*"],
                condition=from_source(account, f"arn:{partition}:bedrock:{region}:{account}:*"),
            ),
        ]
    )


def own_log_groups_key_policy(
    *, account: str, region: str, log_group_names: Sequence[str], partition: str = "aws"
) -> dict[str, Any]:
    """A key for the given log groups of its own account only: the account's root (IAM policies decide who
    administers and uses it; KMS, "Default key policy") and CloudWatch Logs in ``region`` with the encryption
    context of exactly those log groups (CloudWatch Logs user guide, "Encrypt log data in CloudWatch Logs using
    AWS KMS": the ``kms:EncryptionContext:aws:logs:arn`` condition)."""
    arns = [f"arn:{partition}:logs:{region}:{account}:log-group:{name}" for name in log_group_names]
    return document(
        [
            _root(account, partition),
            statement(
                "CloudWatchLogsForItsLogGroups",
                principal={"Service": f"logs.{region}.amazonaws.com"},
                actions=["kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*"],
                resources=["*"],
                condition={"ArnEquals": {"kms:EncryptionContext:aws:logs:arn": arns}},
            ),
        ]
    )


def alerts_key_policy(
    *, account: str, region: str, partition: str = "aws", event_rule_prefix: str | None = None
) -> dict[str, Any]:
    """The alerts topic's key: its publishers (budgets, anomaly detection, alarms; with ``event_rule_prefix`` the
    detection stack's EventBridge rules) may encrypt messages to it, each for this account's own sources only."""
    publishers = [
        ("BudgetsPublishAlerts", "budgets.amazonaws.com", f"arn:{partition}:budgets::{account}:*"),
        ("CostAnomalyDetectionPublishAlerts", "costalerts.amazonaws.com", f"arn:{partition}:ce::{account}:*"),
        (
            "CloudWatchAlarmsPublishAlerts",
            "cloudwatch.amazonaws.com",
            f"arn:{partition}:cloudwatch:{region}:{account}:alarm:*",
        ),
    ]
    if event_rule_prefix is not None:
        publishers.append(
            (
                "EventBridgeRulesPublishAlerts",
                "events.amazonaws.com",
                f"arn:{partition}:events:{region}:{account}:rule/{event_rule_prefix}*",
            )
        )
    return document(
        [_root(account, partition)]
        + [
            statement(
                sid,
                principal={"Service": service},
                actions=["kms:GenerateDataKey*", "kms:Decrypt"],
                resources=["*"],
                condition=from_source(account, source_arn),
            )
            for sid, service, source_arn in publishers
        ]
    )


def secrets_key_policy(*, account: str, partition: str = "aws") -> dict[str, Any]:
    return document([_root(account, partition)])


def eks_data_key_policy(*, account: str, region: str, log_group_name: str, partition: str = "aws") -> dict[str, Any]:
    """Key policy of the key that encrypts the GPU/system nodes' root volumes and the control-plane log group.

    * EBS: managed node groups launch instances with the EC2 Auto Scaling service-linked role, whose own
      policy cannot grant KMS use, so the key policy must.  The statement names the role by
      ``aws:PrincipalArn`` (Principal ``*`` + ``kms:CallerAccount``) because KMS rejects a key policy whose
      principal ARN does not exist yet, and the service-linked role appears only with the first ASG.
    * CloudWatch Logs: only the cluster's log group (encryption context ``aws:logs:arn``).
    """
    slr = f"arn:{partition}:iam::{account}:role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling"
    return document(
        [
            statement(
                "EnableIamPolicies",
                principal={"AWS": f"arn:{partition}:iam::{account}:root"},
                actions=["kms:*"],
                resources=["*"],
            ),
            statement(
                "AutoScalingUsesKeyForNodeVolumes",
                principal={"AWS": "*"},
                actions=["kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:DescribeKey"],
                resources=["*"],
                condition={"StringEquals": {"kms:CallerAccount": account}, "ArnEquals": {"aws:PrincipalArn": slr}},
            ),
            statement(
                "AutoScalingGrantsForAttachedVolumes",
                principal={"AWS": "*"},
                actions=["kms:CreateGrant"],
                resources=["*"],
                condition={
                    "StringEquals": {"kms:CallerAccount": account},
                    "ArnEquals": {"aws:PrincipalArn": slr},
                    "Bool": {"kms:GrantIsForAWSResource": "true"},
                },
            ),
            statement(
                "CloudWatchLogsForClusterLogGroup",
                principal={"Service": f"logs.{region}.amazonaws.com"},
                actions=["kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*"],
                resources=["*"],
                condition={
                    "ArnEquals": {
                        "kms:EncryptionContext:aws:logs:arn": (
                            f"arn:{partition}:logs:{region}:{account}:log-group:{log_group_name}"
                        )
                    }
                },
            ),
        ]
    )


def key_policy(
    purpose: str,
    *,
    account: str,
    region: str,
    name: str,
    partition: str = "aws",
    event_rule_prefix: str | None = None,
) -> dict[str, Any]:
    if purpose == "logs":
        return logs_key_policy(account=account, region=region, name=name, partition=partition)
    if purpose == "alerts":
        return alerts_key_policy(
            account=account, region=region, partition=partition, event_rule_prefix=event_rule_prefix
        )
    if purpose == "secrets":
        return secrets_key_policy(account=account, partition=partition)
    raise ValueError(f"key purpose {purpose!r} is not known (allowed: {', '.join(KEY_PURPOSES)})")
