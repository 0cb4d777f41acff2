"""AWS Config custom rule (periodic): the account's Bedrock settings in this Region are the landing zone's.

Why it exists: the invocation logging configuration, the account data retention mode and the enforced guardrail are
account settings, not AWS Config resource types, so no managed rule can see them; ``verify`` reads them only when
someone runs it.  This Lambda is invoked by AWS Config on a schedule (``ScheduledNotification``: AWS Config developer
guide, "Creating AWS Config Custom Lambda Rules") and reads each setting its rule parameters name:

* ``logBucket``, ``logKeyPrefix``, ``logGroup``, ``logRoleArn``, ``logDataTypes``: Bedrock's invocation logging
  (``GetModelInvocationLoggingConfiguration``) writes to that bucket and prefix, to that log group with that role,
  and delivers exactly those data types (comma-separated: text, image, embedding, video);
* ``retentionMode``: the account data retention mode (``GetAccountDataRetention``) is that mode;
* ``guardrailId``, ``guardrailVersion``: an enforced guardrail configuration (``ListEnforcedGuardrailsConfiguration``)
  enforces that guardrail at that version.

A setting without parameters is not read.  It reports one evaluation of the account (``AWS::::Account``, the
invoking event's account ID) with ``config:PutEvaluations`` and the event's result token: ``COMPLIANT``, or
``NON_COMPLIANT`` with an annotation naming every difference (cut to AWS Config's 256 characters).  A setting it cannot
read (access denied, throttled) is a difference too: the account is NON_COMPLIANT until it can be read, so a role or
SCP change that blinds the check alerts instead of passing silently.

IAM: REQUIRED_IAM_ACTIONS (none of them has a resource type), and its own log group.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from typing import Any

import boto3
from botocore.exceptions import BotoCoreError, ClientError

LOG = logging.getLogger(__name__)
LOG.setLevel(logging.INFO)

REQUIRED_IAM_ACTIONS: tuple[str, ...] = (
    "bedrock:GetModelInvocationLoggingConfiguration",
    "bedrock:GetAccountDataRetention",
    "bedrock:ListEnforcedGuardrailsConfiguration",
    "config:PutEvaluations",
)
RESOURCE_TYPE = "AWS::::Account"
ANNOTATION_LIMIT = 256  # AWS Config: Evaluation.Annotation, at most 256 characters
DATA_TYPES = ("text", "image", "embedding", "video")


def client(service: str) -> Any:
    return boto3.client(service)


def _logging_differences(expected: Mapping[str, str], bedrock: Any) -> list[str]:
    config = bedrock.get_model_invocation_logging_configuration().get("loggingConfig") or {}
    if not config:
        return ["invocation logging is not configured"]
    differences = []
    s3 = config.get("s3Config") or {}
    want_s3 = f"s3://{expected.get('logBucket', '')}/{expected.get('logKeyPrefix', '')}"
    got_s3 = f"s3://{s3.get('bucketName', '')}/{s3.get('keyPrefix', '')}" if s3.get("bucketName") else "none"
    if got_s3 != want_s3:
        differences.append(f"invocation logs go to {got_s3}, not {want_s3}")
    cloudwatch = config.get("cloudWatchConfig") or {}
    if cloudwatch.get("logGroupName") != expected.get("logGroup"):
        differences.append(
            f"invocation log group is {cloudwatch.get('logGroupName') or 'none'}, not {expected.get('logGroup')}"
        )
    if cloudwatch.get("roleArn") != expected.get("logRoleArn"):
        differences.append(f"invocation logging role is {cloudwatch.get('roleArn') or 'none'}, not the landing zone's")
    want_types = sorted(t for t in expected.get("logDataTypes", "").split(",") if t)
    got_types = sorted(t for t in DATA_TYPES if config.get(f"{t}DataDeliveryEnabled"))
    if got_types != want_types:
        differences.append(
            f"invocation logging delivers {','.join(got_types) or 'nothing'}, not {','.join(want_types)}"
        )
    return differences


def _retention_differences(expected: Mapping[str, str], bedrock: Any) -> list[str]:
    mode = bedrock.get_account_data_retention().get("mode")
    want = expected["retentionMode"]
    return [] if mode == want else [f"data retention mode is {mode}, not {want}"]


def _guardrail_differences(expected: Mapping[str, str], bedrock: Any) -> list[str]:
    want_id, want_version = expected["guardrailId"], expected.get("guardrailVersion", "")
    configs: list[dict[str, Any]] = []
    kwargs: dict[str, str] = {}
    while True:  # botocore has no paginator for this call
        page = bedrock.list_enforced_guardrails_configuration(**kwargs)
        configs += page.get("guardrailsConfig") or []
        if not page.get("nextToken"):
            break
        kwargs = {"nextToken": page["nextToken"]}
    mine = [c for c in configs if c.get("guardrailId") == want_id]
    if not mine:
        return [f"guardrail {want_id} is not enforced"]
    versions = sorted({str(c.get("guardrailVersion")) for c in mine})
    if want_version not in versions:
        return [f"guardrail {want_id} is enforced at version {','.join(versions)}, not {want_version}"]
    return []


_CHECKS: tuple[tuple[str, str, Callable[[Mapping[str, str], Any], list[str]]], ...] = (
    ("logBucket", "invocation logging", _logging_differences),
    ("retentionMode", "data retention", _retention_differences),
    ("guardrailId", "enforced guardrail", _guardrail_differences),
)


def differences(expected: Mapping[str, str], bedrock: Any) -> list[str]:
    """Every way the account's settings differ from ``expected`` (the rule parameters); empty: compliant."""
    found: list[str] = []
    for key, what, check in _CHECKS:
        if key not in expected:
            continue
        try:
            found += check(expected, bedrock)
        except (ClientError, BotoCoreError) as exc:
            code = exc.response["Error"]["Code"] if isinstance(exc, ClientError) else type(exc).__name__
            found.append(f"{what} cannot be read ({code})")
    return found


def annotation(found: list[str]) -> str:
    text = "; ".join(found)
    return text if len(text) <= ANNOTATION_LIMIT else text[: ANNOTATION_LIMIT - 3] + "..."


def handler(event: Mapping[str, Any], context: Any = None) -> dict[str, Any]:
    invoking = json.loads(event["invokingEvent"])
    expected = json.loads(event.get("ruleParameters") or "{}")
    found = differences(expected, client("bedrock"))
    evaluation: dict[str, Any] = {
        "ComplianceResourceType": RESOURCE_TYPE,
        "ComplianceResourceId": event["accountId"],
        "ComplianceType": "NON_COMPLIANT" if found else "COMPLIANT",
        "OrderingTimestamp": invoking["notificationCreationTime"],
    }
    if found:
        evaluation["Annotation"] = annotation(found)
    LOG.info("evaluation: %s", json.dumps(evaluation))
    client("config").put_evaluations(Evaluations=[evaluation], ResultToken=event["resultToken"])
    return evaluation
