"""Custom resource: Amazon Bedrock model invocation logging (one configuration per account and Region).

Why it exists: CloudFormation has no resource type for Bedrock model invocation logging, so this
Lambda (CDK ``custom_resources.Provider`` on_event handler) calls the Bedrock control-plane API.

* Create/Update: ``PutModelInvocationLoggingConfiguration`` (CloudWatch Logs + S3), then reads it back
  with ``GetModelInvocationLoggingConfiguration`` and fails if the effective configuration differs.
* Delete: removes the configuration only if it still points at this resource's bucket and log group;
  a configuration owned by someone else is left untouched, a missing one counts as deleted.

ResourceProperties (CloudFormation sends every value as a string): LogGroupName, RoleArn, BucketName
(required); KeyPrefix (default "bedrock-invocation-logs/", "" = bucket root); Text/Image/Embedding/
VideoDataDeliveryEnabled ("true"/"false", defaults true/true/true/false); LargeDataKeyPrefix (optional:
large CloudWatch payloads go to BucketName under this prefix).

IAM: REQUIRED_IAM_ACTIONS. ``iam:PassRole`` is checked against RoleArn by PutModelInvocationLogging-
Configuration; scope it to that role (condition iam:PassedToService = bedrock.amazonaws.com).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from typing import Any

import boto3

LOG = logging.getLogger(__name__)
LOG.setLevel(logging.INFO)

REQUIRED_IAM_ACTIONS: tuple[str, ...] = (
    "bedrock:PutModelInvocationLoggingConfiguration",
    "bedrock:GetModelInvocationLoggingConfiguration",
    "bedrock:DeleteModelInvocationLoggingConfiguration",
    "iam:PassRole",
)

DEFAULT_KEY_PREFIX = "bedrock-invocation-logs/"
DELIVERY_FLAGS: dict[str, tuple[str, bool]] = {  # property -> (loggingConfig field, default)
    "TextDataDeliveryEnabled": ("textDataDeliveryEnabled", True),
    "ImageDataDeliveryEnabled": ("imageDataDeliveryEnabled", True),
    "EmbeddingDataDeliveryEnabled": ("embeddingDataDeliveryEnabled", True),
    "VideoDataDeliveryEnabled": ("videoDataDeliveryEnabled", False),
}
ROLE_ARN_RE = re.compile(r"^arn:aws(-[^:]+)?:iam::([0-9]{12})?:role/.+$")  # botocore CloudWatchConfig.roleArn


def client(service: str) -> Any:
    """The single seam for every AWS call (tests replace it)."""
    return boto3.client(service)


def _region() -> str:
    region = os.environ.get("AWS_REGION") or boto3.session.Session().region_name
    if not region:
        raise RuntimeError("Cannot determine the AWS Region: AWS_REGION is unset and boto3 has no default Region")
    return region


def _required(props: Mapping[str, Any], name: str) -> str:
    value = props.get(name)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"Property {name} is required and must be a non-empty string, got {value!r}")
    return value.strip()


def _flag(props: Mapping[str, Any], name: str, default: bool) -> bool:
    value = props.get(name)
    if value is None:
        return default
    text = str(value).strip().lower()
    if text not in ("true", "false"):
        raise ValueError(f"Property {name} must be 'true' or 'false', got {value!r}")
    return text == "true"


def build_logging_config(props: Mapping[str, Any]) -> dict[str, Any]:
    """Validate ResourceProperties and turn them into the Bedrock ``loggingConfig`` structure."""
    log_group = _required(props, "LogGroupName")
    role_arn = _required(props, "RoleArn")
    bucket = _required(props, "BucketName")
    if len(log_group) > 512:
        raise ValueError(f"Property LogGroupName must be at most 512 characters, got {len(log_group)}")
    if not ROLE_ARN_RE.match(role_arn):
        raise ValueError(
            f"Property RoleArn must be an IAM role ARN (arn:aws:iam::<account>:role/<name>), got {role_arn!r}"
        )
    if not 3 <= len(bucket) <= 63:
        raise ValueError(f"Property BucketName must be 3-63 characters (an S3 bucket name), got {bucket!r}")

    cloudwatch: dict[str, Any] = {"logGroupName": log_group, "roleArn": role_arn}
    large_prefix = str(props.get("LargeDataKeyPrefix") or "")
    if large_prefix:
        cloudwatch["largeDataDeliveryS3Config"] = {"bucketName": bucket, "keyPrefix": large_prefix}
    s3: dict[str, Any] = {"bucketName": bucket}
    key_prefix = str(props.get("KeyPrefix", DEFAULT_KEY_PREFIX))
    if key_prefix:
        s3["keyPrefix"] = key_prefix
    config: dict[str, Any] = {"cloudWatchConfig": cloudwatch, "s3Config": s3}
    for prop, (field, default) in DELIVERY_FLAGS.items():
        config[field] = _flag(props, prop, default)
    return config


def _differences(expected: Mapping[str, Any], actual: Mapping[str, Any], path: str = "") -> list[str]:
    """Fields of ``expected`` that ``actual`` does not reproduce (an absent boolean reads as false)."""
    diffs: list[str] = []
    for key, want in expected.items():
        got = actual.get(key, False if isinstance(want, bool) else None)
        if isinstance(want, dict) and isinstance(got, dict):
            diffs += _differences(want, got, f"{path}{key}.")
        elif got != want:
            diffs.append(f"{path}{key}: expected {want!r}, found {got!r}")
    return diffs


def _current(bedrock: Any) -> dict[str, Any]:
    return bedrock.get_model_invocation_logging_configuration().get("loggingConfig") or {}


def _put(props: Mapping[str, Any]) -> dict[str, Any]:
    config = build_logging_config(props)
    bedrock = client("bedrock")
    LOG.info(
        "Putting model invocation logging config: log group %s, bucket %s, key prefix %r, flags %s",
        config["cloudWatchConfig"]["logGroupName"],
        config["s3Config"]["bucketName"],
        config["s3Config"].get("keyPrefix", ""),
        {f: config[f] for f, _ in DELIVERY_FLAGS.values()},
    )
    bedrock.put_model_invocation_logging_configuration(loggingConfig=config)
    effective = _current(bedrock)
    diffs = _differences(config, effective)
    if diffs:
        raise RuntimeError(
            "Bedrock did not keep the model invocation logging configuration that was put: " + "; ".join(diffs)
        )
    LOG.info("Verified model invocation logging configuration")
    return {
        "BucketName": effective["s3Config"]["bucketName"],
        "LogGroupName": effective["cloudWatchConfig"]["logGroupName"],
    }


def _delete(props: Mapping[str, Any]) -> None:
    bucket, log_group = props.get("BucketName"), props.get("LogGroupName")
    bedrock = client("bedrock")
    current = _current(bedrock)
    if not current:
        LOG.info("No model invocation logging configuration exists; nothing to delete")
        return
    cur_bucket = (current.get("s3Config") or {}).get("bucketName")
    cur_group = (current.get("cloudWatchConfig") or {}).get("logGroupName")
    if not bucket or cur_bucket != bucket or cur_group != log_group:
        LOG.warning(
            "Leaving model invocation logging untouched: it now points at bucket %r / log group %r, not this "
            "resource's %r / %r (another owner has replaced it)",
            cur_bucket,
            cur_group,
            bucket,
            log_group,
        )
        return
    bedrock.delete_model_invocation_logging_configuration()
    LOG.info("Deleted model invocation logging configuration (bucket %s, log group %s)", bucket, log_group)


def on_event(event: Mapping[str, Any], context: Any = None) -> dict[str, Any]:
    request_type = event.get("RequestType")
    props = {k: v for k, v in (event.get("ResourceProperties") or {}).items() if k != "ServiceToken"}
    physical_id = f"invocation-logging-{_region()}"
    LOG.info("%s request for %s", request_type, physical_id)
    if request_type in ("Create", "Update"):
        return {"PhysicalResourceId": physical_id, "Data": _put(props)}
    if request_type == "Delete":
        _delete(props)
        return {"PhysicalResourceId": event.get("PhysicalResourceId") or physical_id, "Data": {}}
    raise ValueError(f"RequestType must be Create, Update or Delete, got {request_type!r}")
