"""Model invocation logging and CloudWatch Logs log groups.  Each ``Custom::BedrockInvocationLogging`` is
Bedrock's logging configuration in its Region: the S3 destination (bucket and prefix; a generated bucket name is
recognised by the bucket's CloudFormation tags), the CloudWatch Logs destination (log group and role) and the
delivered data types.  Each ``AWS::Logs::LogGroup`` exists with the synthesized retention and KMS key.  Calls
bedrock GetModelInvocationLoggingConfiguration, s3 GetBucketTagging and logs DescribeLogGroups (and
CloudFormation ListStackResources, through the resolver, for generated names).
"""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from landing_zone import aws
from landing_zone.assembly import Resource
from landing_zone.verify.checks.common import (
    DRIFT,
    ERROR,
    MISSING,
    PASS,
    Context,
    error_rows,
    make_row,
    tag_map,
    unresolvable_rows,
)
from landing_zone.verify.compare import Unresolved, as_bool, same_number
from landing_zone.verify.live import ApiError
from landing_zone.verify.report import CheckResult

LOGGING_TYPE = "Custom::BedrockInvocationLogging"

_DELIVERY = (
    ("TextDataDeliveryEnabled", "textDataDeliveryEnabled", "text"),
    ("ImageDataDeliveryEnabled", "imageDataDeliveryEnabled", "image"),
    ("EmbeddingDataDeliveryEnabled", "embeddingDataDeliveryEnabled", "embedding"),
    ("VideoDataDeliveryEnabled", "videoDataDeliveryEnabled", "video"),
)


def check_invocation_logging(ctx: Context) -> list[CheckResult]:
    rows: list[CheckResult] = []
    checks = ["invocation-logging-s3", "invocation-logging-cloudwatch", "invocation-logging-delivery"]
    for res in ctx.resources(LOGGING_TYPE):
        region = ctx.region_of(res.stack)
        label = f"bedrock in {region}"
        try:
            config = (
                ctx.live.call("bedrock", "get_model_invocation_logging_configuration", region=region).get(
                    "loggingConfig"
                )
                or {}
            )
        except ApiError as exc:
            rows += error_rows(checks, label, "configured", exc, res)
            continue
        rows.append(_logging_s3(ctx, res, label, config))
        rows.append(_logging_cloudwatch(ctx, res, label, config))
        want = {short: bool(as_bool(res.prop(prop))) for prop, _, short in _DELIVERY if res.prop(prop) is not None}
        got = {short: bool(config.get(key)) for _, key, short in _DELIVERY if short in want}
        expected = ", ".join(f"{k}={'on' if v else 'off'}" for k, v in want.items())
        if not config:
            rows.append(
                make_row("invocation-logging-delivery", label, expected, "logging not configured", MISSING, "", res)
            )
            continue
        actual = ", ".join(f"{k}={'on' if v else 'off'}" for k, v in got.items())
        rows.append(
            make_row("invocation-logging-delivery", label, expected, actual, PASS if want == got else DRIFT, "", res)
        )
    return rows


def _logging_s3(ctx: Context, res: Resource, label: str, config: dict[str, Any]) -> CheckResult:
    prefix = ctx.resolve(res.prop("KeyPrefix"), res)
    s3 = config.get("s3Config") or {}
    actual = f"s3://{s3.get('bucketName')}/{s3.get('keyPrefix') or ''}" if s3.get("bucketName") else "no S3 destination"
    if res.prop("BucketName") is None:
        return make_row("invocation-logging-s3", label, "no S3 destination", actual, PASS if not s3 else DRIFT, "", res)
    how = ""
    if ctx.invocation_log_bucket:
        bucket: Any = ctx.invocation_log_bucket
        how = "bucket from --invocation-log-bucket"
    else:
        bucket = ctx.resolve(res.prop("BucketName"), res)
        target = _ref_target(res)
        how = ctx.resolver.notes.get(target.path, "") if target else ""
    expected_prefix = prefix if isinstance(prefix, str) else ""
    if not s3.get("bucketName"):
        shown = bucket if isinstance(bucket, str) else "<the landing zone's bucket>"
        return make_row("invocation-logging-s3", label, f"s3://{shown}/{expected_prefix}", actual, MISSING, "", res)
    prefix_ok = (s3.get("keyPrefix") or "") == expected_prefix
    if isinstance(bucket, str):
        ok = s3.get("bucketName") == bucket and prefix_ok
        return make_row(
            "invocation-logging-s3",
            label,
            f"s3://{bucket}/{expected_prefix}",
            actual,
            PASS if ok else DRIFT,
            f"expected bucket resolved by {how}" if how else "",
            res,
        )
    # The generated bucket name is unknown (no CloudFormation record reachable): accept the configured bucket
    # only if its own CloudFormation tags say it is this landing zone's invocation-log bucket.
    target = _ref_target(res)
    return _bucket_by_tags(ctx, res, label, s3, expected_prefix, prefix_ok, target, bucket, actual)


def _bucket_by_tags(
    ctx: Context,
    res: Resource,
    label: str,
    s3: dict[str, Any],
    prefix: str,
    prefix_ok: bool,
    target: Resource | None,
    bucket: Unresolved,
    actual: str,
) -> CheckResult:
    expected = f"s3://<{target.path if target else 'bucket'}>/{prefix}"
    try:
        tags = tag_map(
            ctx.live.call("s3", "get_bucket_tagging", region=ctx.region_of(res.stack), Bucket=s3["bucketName"]).get(
                "TagSet"
            )
        )
    except ApiError as exc:
        return error_rows(["invocation-logging-s3"], label, expected, exc, res)[0]
    except ClientError as exc:
        tags = {}
        if aws.error_code(exc) not in ("NoSuchTagSet", "NoSuchBucket"):
            raise
    stack, logical = tags.get("aws:cloudformation:stack-name"), tags.get("aws:cloudformation:logical-id")
    if target and stack == ctx.resolver.stack_name(target.stack) and logical == target.logical_id:
        return make_row(
            "invocation-logging-s3",
            label,
            expected,
            actual,
            PASS if prefix_ok else DRIFT,
            "expected bucket resolved by the bucket's aws:cloudformation:* tags "
            f"(CloudFormation itself was not available: {bucket.why})",
            res,
        )
    if stack or logical:
        return make_row(
            "invocation-logging-s3",
            label,
            expected,
            actual,
            DRIFT,
            f"the configured bucket belongs to {stack}/{logical} by its CloudFormation tags",
            res,
        )
    return make_row(
        "invocation-logging-s3",
        label,
        expected,
        actual,
        ERROR,
        f"cannot tell whether {s3['bucketName']} is the landing zone's bucket: {bucket.why}; the bucket has no "
        "aws:cloudformation:* tags. Give --invocation-log-bucket NAME (stack output InvocationLogBucket)",
        res,
    )


def _ref_target(res: Resource) -> Resource | None:
    ref = res.prop("BucketName")
    if isinstance(ref, dict) and "Ref" in ref:
        return res.stack.resource(ref["Ref"])
    return None


def _logging_cloudwatch(ctx: Context, res: Resource, label: str, config: dict[str, Any]) -> CheckResult:
    cw = config.get("cloudWatchConfig") or {}
    actual = (
        f"{cw.get('logGroupName')} via {cw.get('roleArn', '').rsplit('/', 1)[-1]}"
        if cw.get("logGroupName")
        else "no CloudWatch Logs destination"
    )
    if res.prop("LogGroupName") is None:
        return make_row(
            "invocation-logging-cloudwatch",
            label,
            "no CloudWatch Logs destination",
            actual,
            PASS if not cw else DRIFT,
            "",
            res,
        )
    group = ctx.resolve(res.prop("LogGroupName"), res)
    role = ctx.resolve(res.prop("RoleArn"), res)
    if isinstance(group, Unresolved) or isinstance(role, Unresolved):
        return unresolvable_rows(["invocation-logging-cloudwatch"], label, [group, role], res)[0]
    expected = f"{group} via {str(role).rsplit('/', 1)[-1]}"
    if not cw:
        return make_row("invocation-logging-cloudwatch", label, expected, actual, MISSING, "", res)
    ok = cw.get("logGroupName") == group and (role is None or cw.get("roleArn") == role)
    detail = (
        ""
        if ok
        else (
            f"expected log group {group} with role {role}; live {cw.get('logGroupName')} with role {cw.get('roleArn')}"
        )
    )
    return make_row("invocation-logging-cloudwatch", label, expected, actual, PASS if ok else DRIFT, detail, res)


def check_log_groups(ctx: Context) -> list[CheckResult]:
    rows: list[CheckResult] = []
    for res in ctx.resources("AWS::Logs::LogGroup"):
        rows += _log_group_rows(ctx, res)
    return rows


def _log_group_rows(ctx: Context, res: Resource) -> list[CheckResult]:
    """One log group: its retention and KMS key against the live group of its name."""
    rows: list[CheckResult] = []
    region = ctx.region_of(res.stack)
    name = ctx.resolver.physical_id(res)
    if isinstance(name, Unresolved) and ctx.resolver.stack_absent(res.stack):
        why = f"its stack {res.stack.name} is not deployed ({name.why})"
        rows.append(make_row("log-group", res.logical_id, "exists", "not found", MISSING, why, res))
        return rows
    if isinstance(name, Unresolved):
        rows += unresolvable_rows(["log-group"], res.logical_id, name, res)
        return rows
    retention = res.prop("RetentionInDays")
    key_ref = res.prop("KmsKeyId")
    key_label = ctx.resolver.label(key_ref, res.stack) if key_ref is not None else "(none)"
    expected = f"retention {retention or 'never expires'}{' d' if retention else ''}, KMS {key_label}"
    try:
        groups = ctx.live.paginate(
            "logs",
            "describe_log_groups",
            "logGroups",
            region=region,
            management=ctx.management_of(res.stack),
            logGroupNamePrefix=name,
        )
    except ApiError as exc:
        rows += error_rows(["log-group"], name, expected, exc, res)
        return rows
    group = next((g for g in groups if g.get("logGroupName") == name), None)
    if group is None:
        rows.append(make_row("log-group", name, expected, "not found", MISSING, "", res))
        return rows
    key = ctx.resolve(key_ref, res) if key_ref is not None else None
    if isinstance(key, Unresolved):
        rows += unresolvable_rows(["log-group"], name, key, res)
        return rows
    rows.append(_log_group_row(ctx, res, name, expected, group, retention, key))
    return rows


def _log_group_row(
    ctx: Context, res: Resource, name: str, expected: str, group: dict[str, Any], retention: Any, key: Any
) -> CheckResult:
    got_retention, got_key = group.get("retentionInDays"), group.get("kmsKeyId")
    actual = (
        f"retention {got_retention or 'never expires'}{' d' if got_retention else ''}, KMS {ctx.key_label(got_key)}"
    )
    same_retention = retention is None or same_number(retention, got_retention or 0)
    ok = same_retention and (key or None) == (got_key or None)
    return make_row("log-group", name, expected, actual, PASS if ok else DRIFT, "", res)
