"""Custom resource: Amazon Bedrock model invocation logging (one configuration per account and Region).

Why it exists: CloudFormation has no resource type for Bedrock model invocation logging, so this
Lambda (CDK ``custom_resources.Provider`` on_event handler) calls the Bedrock control-plane API.

The configuration is an account singleton: whoever writes it replaces what other teams had, and every team's
prompts then go to the writer's destinations.  So the handler reads before it writes, and hands back on delete:

* Create/Update: ``GetModelInvocationLoggingConfiguration`` first.  The configuration is the landing zone's own when
  its destinations are the ones this resource names (``BucketName`` / ``LogGroupName``, or those of the previous
  properties on an Update): the landing zone created that bucket and log group, nobody else writes to them.
  - nothing configured, or the landing zone's own: ``PutModelInvocationLoggingConfiguration`` (idempotent);
  - someone else's and ``TakeOverExisting`` is not "true": the resource FAILS naming that configuration (bucket,
    log group, role) and the option that takes it over; nothing is written;
  - someone else's and ``TakeOverExisting`` is "true": the configuration is saved in the SSM parameter
    ``SavedParameterName`` (JSON), then replaced.
  Then it reads the configuration back and fails if the effective configuration differs.
* Delete: only a configuration that is still the landing zone's own is touched.  The saved configuration, if any,
  is put back (and read back); without one the configuration is deleted (the landing zone created it from
  nothing).  Someone else's configuration, or none, is left as it is.  The saved parameter is removed once it has
  been restored or is obsolete; when the restore fails the resource fails and the parameter stays.

Why an SSM parameter: CloudFormation hands a Delete the resource's properties but not the data a Create returned,
and a physical ID that changed would make CloudFormation delete the "old" resource; the parameter survives every
Update and Lambda invocation, and its name ``<name>-...`` is inside the name scope the tamper guardrails protect
(``DenyLandingZoneTampering``: only the exempt deployment and automation principals may write it).

ResourceProperties (CloudFormation sends every value as a string): LogGroupName, RoleArn, BucketName
(required); KeyPrefix (default "bedrock-invocation-logs/", "" = bucket root); Text/Image/Embedding/
VideoDataDeliveryEnabled ("true"/"false", defaults true/true/true/false); LargeDataKeyPrefix (optional:
large CloudWatch payloads go to BucketName under this prefix); TakeOverExisting ("true"/"false", default false);
SavedParameterName (required).

IAM: REQUIRED_IAM_ACTIONS. ``iam:PassRole`` is checked against RoleArn by PutModelInvocationLogging-
Configuration; scope it to that role (condition iam:PassedToService = bedrock.amazonaws.com), and with
TakeOverExisting to the account's roles too (the restore passes the saved configuration's role).
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Mapping
from typing import Any

import boto3
from botocore.exceptions import ClientError

LOG = logging.getLogger(__name__)
LOG.setLevel(logging.INFO)

REQUIRED_IAM_ACTIONS: tuple[str, ...] = (
    "bedrock:PutModelInvocationLoggingConfiguration",
    "bedrock:GetModelInvocationLoggingConfiguration",
    "bedrock:DeleteModelInvocationLoggingConfiguration",
    "iam:PassRole",
    "ssm:GetParameter",
    "ssm:PutParameter",
    "ssm:DeleteParameter",
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


def destinations(config: Mapping[str, Any]) -> tuple[str | None, str | None, str | None]:
    """(bucket, log group, role) of a logging configuration (None where it has no such destination)."""
    s3, cw = config.get("s3Config") or {}, config.get("cloudWatchConfig") or {}
    return s3.get("bucketName") or None, cw.get("logGroupName") or None, cw.get("roleArn") or None


def describe(config: Mapping[str, Any]) -> str:
    bucket, group, role = destinations(config)
    prefix = (config.get("s3Config") or {}).get("keyPrefix") or ""
    parts = [f"S3 s3://{bucket}/{prefix}" if bucket else "no S3 destination"]
    parts.append(f"CloudWatch Logs log group {group} (role {role})" if group else "no CloudWatch Logs destination")
    return ", ".join(parts)


def is_own(config: Mapping[str, Any], *props: Mapping[str, Any]) -> bool:
    """Whether every destination of ``config`` is one this resource names (now or before an Update)."""
    bucket, group, _ = destinations(config)
    if bucket is None and group is None:
        return False
    buckets = {p.get("BucketName") for p in props if p.get("BucketName")}
    groups = {p.get("LogGroupName") for p in props if p.get("LogGroupName")}
    return (bucket is None or bucket in buckets) and (group is None or group in groups)


# -- the saved configuration (an SSM parameter; each handler is packaged alone, so these few lines are its own) --
def _load(name: str) -> Any:
    try:
        return json.loads(client("ssm").get_parameter(Name=name)["Parameter"]["Value"])
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") == "ParameterNotFound":
            return None
        raise


def _save(name: str, value: Any, description: str) -> None:
    client("ssm").put_parameter(
        Name=name,
        Value=json.dumps(value, sort_keys=True),
        Type="String",
        Overwrite=True,
        Tier="Intelligent-Tiering",  # Standard up to 4 KB, Advanced above (a long role ARN and prefixes)
        Description=description[:1024],
    )


def _forget(name: str) -> None:
    try:
        client("ssm").delete_parameter(Name=name)
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") != "ParameterNotFound":
            raise


def _refusal(current: Mapping[str, Any]) -> str:
    return (
        f"Model invocation logging in {_region()} already has a configuration that is not this landing zone's: "
        f"{describe(current)}. Replacing it would send every other team's invocation logs to the landing zone's "
        "bucket and log group, so nothing was changed. To take it over (it is saved, and put back when the stack is "
        "deleted), set invocation_logging.take_over_existing: true; to keep it, set invocation_logging.enabled: "
        "false (docs/DEPLOY.md, 'Shared account settings')"
    )


def _put(props: Mapping[str, Any], old: Mapping[str, Any], request_type: str) -> dict[str, Any]:
    config = build_logging_config(props)
    take_over = _flag(props, "TakeOverExisting", False)
    parameter = _required(props, "SavedParameterName")
    bedrock = client("bedrock")
    current = _current(bedrock)
    taken_over = ""
    if current and not is_own(current, props, old):
        if not take_over:
            raise RuntimeError(_refusal(current))
        LOG.warning(
            "Taking over the model invocation logging configuration %s; saved in %s", describe(current), parameter
        )
        _save(parameter, current, f"model invocation logging configuration taken over: {describe(current)}")
        taken_over = describe(current)
    elif not current and request_type == "Create":
        _forget(parameter)  # a leftover of an earlier stack: there is nothing to hand back now
    LOG.info(
        "Putting model invocation logging config: log group %s, bucket %s, key prefix %r, flags %s",
        config["cloudWatchConfig"]["logGroupName"],
        config["s3Config"]["bucketName"],
        config["s3Config"].get("keyPrefix", ""),
        {f: config[f] for f, _ in DELIVERY_FLAGS.values()},
    )
    _put_verified(bedrock, config, "put")
    LOG.info("Verified model invocation logging configuration")
    return {
        "BucketName": config["s3Config"]["bucketName"],
        "LogGroupName": config["cloudWatchConfig"]["logGroupName"],
        "TakenOver": taken_over,
    }


def _put_verified(bedrock: Any, config: Mapping[str, Any], what: str) -> None:
    bedrock.put_model_invocation_logging_configuration(loggingConfig=config)
    diffs = _differences(config, _current(bedrock))
    if diffs:
        raise RuntimeError(
            f"Bedrock did not keep the model invocation logging configuration that was {what}: " + "; ".join(diffs)
        )


def _delete(props: Mapping[str, Any]) -> None:
    parameter = props.get("SavedParameterName")
    bedrock = client("bedrock")
    current = _current(bedrock)
    saved = _load(parameter) if parameter else None
    if not current or not is_own(current, props):
        LOG.warning(
            "Leaving model invocation logging untouched: %s, not this resource's bucket %r / log group %r",
            describe(current) if current else "no configuration",
            props.get("BucketName"),
            props.get("LogGroupName"),
        )
        if saved is not None:
            LOG.warning(
                "Not restoring the configuration saved at take-over (%s): another one replaced the landing "
                "zone's since",
                describe(saved),
            )
    elif saved is not None:
        try:
            _put_verified(bedrock, saved, "restored")
        except Exception as exc:
            raise RuntimeError(
                f"Could not restore the model invocation logging configuration taken over at deployment "
                f"({describe(saved)}): {exc}. It stays saved in SSM parameter {parameter}; restore it with `aws "
                f"bedrock put-model-invocation-logging-configuration --logging-config '{json.dumps(saved)}'` and "
                "delete the stack again"
            ) from exc
        LOG.info("Restored the model invocation logging configuration taken over at deployment: %s", describe(saved))
    else:
        bedrock.delete_model_invocation_logging_configuration()
        LOG.info("Deleted model invocation logging configuration (%s)", describe(current))
    if parameter:
        _forget(parameter)


def on_event(event: Mapping[str, Any], context: Any = None) -> dict[str, Any]:
    request_type = event.get("RequestType")
    props = {k: v for k, v in (event.get("ResourceProperties") or {}).items() if k != "ServiceToken"}
    physical_id = f"invocation-logging-{_region()}"
    LOG.info("%s request for %s", request_type, physical_id)
    if request_type in ("Create", "Update"):
        old = event.get("OldResourceProperties") or {}
        return {"PhysicalResourceId": physical_id, "Data": _put(props, old, str(request_type))}
    if request_type == "Delete":
        _delete(props)
        return {"PhysicalResourceId": event.get("PhysicalResourceId") or physical_id, "Data": {}}
    raise ValueError(f"RequestType must be Create, Update or Delete, got {request_type!r}")
