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

It also checks the landing zone's network and key policies (``verify``'s ``vpc-endpoint-policy``, ``key-policy``,
``default-network-acl``):

* ``endpointPolicies`` (``service=digest,...``) and ``landingZone``: each endpoint tagged
  ``landing-zone=<landingZone>`` for ``com.amazonaws.<region>.<service>`` (``ec2:DescribeVpcEndpoints``; the interface
  endpoints and, with self-hosting, the S3 gateway endpoint) has the policy whose digest is given;
* ``keyPolicies`` (``purpose=digest,...``): the key behind ``alias/<landingZone>/<purpose>`` (``kms:DescribeKey``) has
  the default key policy whose digest is given (``kms:GetKeyPolicy``);
* ``vpcId``: no subnet of that VPC is associated with its default network ACL (``ec2:DescribeNetworkAcls``).

A digest (:func:`policy_digest`) is the first 32 hex digits of the SHA-256 of the policy's IAM-canonical JSON (the
plan's ``landing_zone.policies.config_checks.policy_digest``, copied here because Lambda code cannot import
``landing_zone``; tests/cdk/test_config_checks.py checks the two agree on the synthesized documents): the
annotation names the endpoint or key whose policy differs, ``verify`` shows how.

A setting without parameters is not read.  It reports one evaluation of the account (``AWS::::Account``, the
invoking event's account ID) with ``config:PutEvaluations`` and the event's result token: ``COMPLIANT``, or
``NON_COMPLIANT`` with an annotation naming every difference (cut to AWS Config's 256 characters).  A setting it cannot
read (access denied, throttled) is a difference too: the account is NON_COMPLIANT until it can be read, so a role or
SCP change that blinds the check alerts instead of passing silently.

IAM: REQUIRED_IAM_ACTIONS (the kms reads on the landing zone's keys only, the others have no resource type), and
its own log group.
"""

from __future__ import annotations

import hashlib
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
    "ec2:DescribeVpcEndpoints",
    "ec2:DescribeNetworkAcls",
    "kms:DescribeKey",
    "kms:GetKeyPolicy",
    "config:PutEvaluations",
)
RESOURCE_TYPE = "AWS::::Account"
ANNOTATION_LIMIT = 256  # AWS Config: Evaluation.Annotation, at most 256 characters
DATA_TYPES = ("text", "image", "embedding", "video")
DIGEST_LENGTH = 32


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


def _canonical(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        unique = {json.dumps(c, sort_keys=True): c for c in (_canonical(v) for v in value)}
        ordered = [unique[k] for k in sorted(unique)]
        return ordered[0] if len(ordered) == 1 else ordered
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return value


def policy_digest(policy: Mapping[str, Any] | str) -> str:
    """SHA-256 (32 hex digits) of the policy's canonical JSON: lists are sets, a one-element list is its element,
    action names are lower-cased; statement order and formatting do not matter."""
    doc = json.loads(policy) if isinstance(policy, str) else dict(policy)
    listed = doc.get("Statement", [])
    statements = []
    for stmt in listed if isinstance(listed, list) else [listed]:
        out = dict(stmt)
        for key in ("Action", "NotAction"):
            if isinstance(out.get(key), str):
                out[key] = out[key].lower()
            elif isinstance(out.get(key), list):
                out[key] = [a.lower() for a in out[key]]
        statements.append(out)
    text = json.dumps(_canonical({**doc, "Statement": statements}), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:DIGEST_LENGTH]


def _pairs(text: str) -> list[tuple[str, str]]:
    """``name=digest,...`` -> [(name, digest)]."""
    return [(n, d) for n, _, d in (pair.partition("=") for pair in text.split(",") if pair)]


def _differs(policy: Any, want: str) -> bool:
    try:
        return not policy or policy_digest(policy) != want
    except (ValueError, TypeError, AttributeError):
        return True  # not a JSON policy: not the landing zone's


def _endpoint_differences(expected: Mapping[str, str], ec2: Any) -> list[str]:
    region = ec2.meta.region_name
    found: list[str] = []
    for service, want in _pairs(expected["endpointPolicies"]):
        filters = [
            {"Name": "tag:landing-zone", "Values": [expected.get("landingZone", "")]},
            {"Name": "service-name", "Values": [f"com.amazonaws.{region}.{service}"]},
        ]
        pages = ec2.get_paginator("describe_vpc_endpoints").paginate(Filters=filters)
        endpoints = [
            e
            for page in pages
            for e in page.get("VpcEndpoints") or []
            if str(e.get("State", "")).lower() not in ("deleted", "deleting")
        ]
        if not endpoints:
            found.append(f"endpoint {service} not found")
        found += [
            f"endpoint policy of {service} ({e.get('VpcEndpointId')}) is not the landing zone's"
            for e in endpoints
            if _differs(e.get("PolicyDocument"), want)
        ]
    return found


def _key_differences(expected: Mapping[str, str], kms: Any) -> list[str]:
    found: list[str] = []
    for purpose, want in _pairs(expected["keyPolicies"]):
        alias = f"alias/{expected.get('landingZone', '')}/{purpose}"
        try:
            key_id = kms.describe_key(KeyId=alias)["KeyMetadata"]["KeyId"]
        except ClientError as exc:
            if exc.response["Error"]["Code"] != "NotFoundException":
                raise
            found.append(f"key {alias} not found")
            continue
        policy = kms.get_key_policy(KeyId=key_id, PolicyName="default").get("Policy")
        if _differs(policy, want):
            found.append(f"key policy of {alias} ({key_id}) is not the landing zone's")
    return found


def _network_acl_differences(expected: Mapping[str, str], ec2: Any) -> list[str]:
    vpc_id = expected["vpcId"]
    filters = [{"Name": "vpc-id", "Values": [vpc_id]}, {"Name": "default", "Values": ["true"]}]
    pages = ec2.get_paginator("describe_network_acls").paginate(Filters=filters)
    return [
        f"subnet {assoc.get('SubnetId')} is on the default network ACL {acl.get('NetworkAclId')} of {vpc_id}"
        for page in pages
        for acl in page.get("NetworkAcls") or []
        if acl.get("IsDefault")
        for assoc in acl.get("Associations") or []
    ]


# parameter that turns the check on, what it reads (for "cannot be read"), its client's service, the check
_CHECKS: tuple[tuple[str, str, str, Callable[[Mapping[str, str], Any], list[str]]], ...] = (
    ("logBucket", "invocation logging", "bedrock", _logging_differences),
    ("retentionMode", "data retention", "bedrock", _retention_differences),
    ("guardrailId", "enforced guardrail", "bedrock", _guardrail_differences),
    ("endpointPolicies", "endpoint policies", "ec2", _endpoint_differences),
    ("keyPolicies", "key policies", "kms", _key_differences),
    ("vpcId", "default network ACL", "ec2", _network_acl_differences),
)


def differences(expected: Mapping[str, str]) -> list[str]:
    """Every way the account differs from ``expected`` (the rule parameters); empty: compliant."""
    found: list[str] = []
    for key, what, service, check in _CHECKS:
        if key not in expected:
            continue
        try:
            found += check(expected, client(service))
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
    found = differences(expected)
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
