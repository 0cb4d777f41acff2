"""Permission documents of the landing zone's service roles (flow logs, EKS cluster, custom-resource handlers)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from landing_zone.policies.common import document, statement


def flow_log_role_policy(*, log_group_arn: str, log_streams_arn: str) -> dict[str, Any]:
    """``log_group_arn`` without the trailing ':*' (``arns.log_group``); ``log_streams_arn`` = ``arns.log_streams``."""
    return document(
        [
            statement(
                "DeliverFlowLogs",
                actions=["logs:CreateLogStream", "logs:PutLogEvents", "logs:DescribeLogStreams"],
                resources=[log_group_arn, log_streams_arn],
            )
        ]
    )


def secrets_key_use_policy(*, key_arn: str) -> dict[str, Any]:
    """What the EKS cluster role needs on the secrets key for envelope encryption of Kubernetes secrets."""
    return document(
        [
            statement(
                "EnvelopeEncryptSecrets",
                actions=["kms:Encrypt", "kms:Decrypt", "kms:ListGrants", "kms:DescribeKey"],
                resources=[key_arn],
            )
        ]
    )


def with_own_log_group(policy: Mapping[str, Any], *, log_streams_arn: str) -> dict[str, Any]:
    """A handler's policy plus writing the streams of its own log group (``arns.log_streams``) and nothing else."""
    writes_logs = statement(
        "WriteOwnLogs",
        actions=["logs:CreateLogStream", "logs:PutLogEvents"],
        resources=[log_streams_arn],
    )
    return document([*policy["Statement"], writes_logs])
