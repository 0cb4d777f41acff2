"""The checks of ``verify``: each reads the synthesized intent from the assembly by resource type and compares
it with the live account.  Each check family returns rows; a family whose resource types are not in the
assembly returns none (so a stack that is synthesized later is checked as soon as it exists).

Call order per API is deterministic (template order), which is what a botocore ``Stubber`` in tests needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any, Callable, Iterable, Sequence

from botocore.exceptions import ClientError

from landing_zone import aws
from landing_zone.errors import LandingZoneError
from landing_zone.assembly import Assembly, Resource, Stack
from landing_zone.verify.compare import (
    Unresolved,
    as_bool,
    canonical,
    document_diff,
    parse_json,
    same_document,
    same_number,
    short_hash,
    unresolved_in,
)
from landing_zone.verify.live import ApiError, Live, Resolver, partition_of
from landing_zone.verify.report import CheckResult, Status, summarize

PASS, DRIFT, MISSING, ERROR = Status.PASS, Status.DRIFT, Status.MISSING, Status.ERROR

SCP_TYPE = "AWS::Organizations::Policy"
LOGGING_TYPE = "Custom::BedrockInvocationLogging"
PROFILE_PREFIXES = ("us", "eu", "apac", "jp", "au", "ca", "us-gov", "global")
_GLOBAL_REGION = {"aws": "us-east-1", "aws-cn": "cn-northwest-1", "aws-us-gov": "us-gov-west-1"}


@dataclass
class Context:
    assembly: Assembly
    live: Live
    name: str
    home_region: str
    region_override: str | None = None
    deployment_account: str | None = None
    compliant_regions: tuple[str, ...] = ()
    catalog: Any = None  # landing_zone.core.catalog.Catalog, for the expected destinations of profiles
    config_target_ids: tuple[str, ...] = ()
    self_hosting: Any = None  # landing_zone.core.config.SelfHosting
    invocation_log_bucket: str | None = None
    resolver: Resolver = field(init=False)
    key_labels: dict[str, str] = field(default_factory=dict)  # key ARN -> alias, for readable rows

    def __post_init__(self) -> None:
        self.resolver = Resolver(self.assembly, self.live, region_of=self.region_of)

    def region_of(self, stack: Stack) -> str:
        return self.region_override or stack.region or self.home_region

    def global_region(self) -> str:
        return _GLOBAL_REGION[partition_of(self.region_override or self.home_region)]

    def resources(self, *types: str) -> list[Resource]:
        """The assembly's resources of these types that exist: a resource whose template Condition is false
        (e.g. an optional e-mail subscription) is not expected; one whose condition cannot be evaluated is."""
        return [r for r in self.assembly.resources(*types) if r.condition is None or self.resolver.condition(r.condition, r.stack) is not False]

    def resolve(self, value: Any, res: Resource) -> Any:
        return self.resolver.value(value, res.stack)

    def key_label(self, arn: Any) -> str:
        if not isinstance(arn, str) or not arn:
            return "(none)"
        return self.key_labels.get(arn, arn.rsplit("/", 1)[-1])


# --------------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------------


def _row(check: str, resource: str, expected: Any, actual: Any, status: Status, detail: str = "", res: Resource | None = None) -> CheckResult:
    return CheckResult(check, resource, str(expected), str(actual), status, detail, res.path if res else "")


def _errors(checks: Sequence[str], resource: str, expected: str, exc: ApiError | str, res: Resource | None) -> list[CheckResult]:
    """Rows for checks that could not be made; ``actual`` says why in a few words, ``detail`` in full."""
    text = exc.description if isinstance(exc, ApiError) else exc
    where = f"{exc.service}:{exc.operation} " if isinstance(exc, ApiError) else ""
    short = text.replace("not attempted: ", "").split(" (", 1)[0].split(": ", 2)
    actual = ": ".join(short[:2]) if short[0] == "unauthorised" else short[0]
    return [_row(c, resource, expected, actual, ERROR, f"{where}{text}", res) for c in checks]


def _unresolvable(checks: Sequence[str], resource: str, value: Any, res: Resource | None) -> list[CheckResult]:
    why = "; ".join(u.why for u in unresolved_in(value)) or str(value)
    return [
        _row(c, resource, "(cannot resolve)", "not checked", ERROR, f"the expected value cannot be resolved: {why}", res)
        for c in checks
    ]


def _not_found(exc: ClientError, *codes: str) -> bool:
    code = aws.error_code(exc) or ""
    return code in codes or code.endswith("NotFound") or code.endswith("NotFoundException")


def _tags(value: Any) -> dict[str, str]:
    if isinstance(value, dict):
        return {str(k): str(v) for k, v in value.items()}
    tags = {}
    for tag in value or []:
        key = tag.get("Key", tag.get("key"))
        tags[str(key)] = str(tag.get("Value", tag.get("value")))
    return tags


def _policy_row(check: str, resource: str, expected: Any, actual: Any, res: Resource) -> CheckResult:
    if actual in (None, ""):
        return _row(check, resource, f"as synthesized ({short_hash(expected)})", "no policy", DRIFT, "", res)
    try:
        same = same_document(expected, actual)
    except ValueError:
        return _row(check, resource, f"as synthesized ({short_hash(expected)})", "not valid JSON", DRIFT, str(actual)[:400], res)
    if same:
        return _row(check, resource, f"as synthesized ({short_hash(expected)})", "identical", PASS, "", res)
    return _row(
        check, resource, f"as synthesized ({short_hash(expected)})", f"differs ({short_hash(actual)})", DRIFT,
        document_diff(expected, actual), res,
    )


# --------------------------------------------------------------------------------------------------
# account
# --------------------------------------------------------------------------------------------------


def check_account(ctx: Context) -> list[CheckResult]:
    expected = ctx.deployment_account
    try:
        actual = ctx.live.account()
    except ApiError as exc:
        return _errors(["account"], "credentials", expected or "(any)", exc, None)
    if expected is None or actual == expected:
        return [_row("account", "credentials", expected or "(any)", actual, PASS)]
    return [
        _row(
            "account", "credentials", expected, actual, DRIFT,
            f"the credentials are for account {actual}, the assembly deploys to {expected}: use --profile for "
            f"{expected} (the remaining checks were not run against the wrong account)",
        )
    ]


# --------------------------------------------------------------------------------------------------
# Organizations SCPs
# --------------------------------------------------------------------------------------------------


def check_scps(ctx: Context) -> list[CheckResult]:
    policies = [r for r in ctx.resources(SCP_TYPE) if r.prop("Type") == "SERVICE_CONTROL_POLICY"]
    if not policies:
        return []
    region = ctx.global_region()
    rows: list[CheckResult] = []
    try:
        live_policies = ctx.live.paginate(
            "organizations", "list_policies", "Policies", region=region, management=True, Filter="SERVICE_CONTROL_POLICY"
        )
    except ApiError as exc:
        for res in policies:
            name = str(res.prop("Name", res.logical_id))
            rows += _errors(["scp-content"], name, "exists", exc, res)
            rows += _errors(["scp-attachment"], f"{name} -> {', '.join(_scp_targets(ctx, res)[0]) or '(no targets)'}", "attached", exc, res)
        return rows
    for res in policies:
        name = ctx.resolve(res.prop("Name"), res)
        expected = ctx.resolve(res.prop("Content"), res)
        targets, config_only = _scp_targets(ctx, res)
        label = name if isinstance(name, str) else res.logical_id
        if isinstance(name, Unresolved) or unresolved_in(expected):
            rows += _unresolvable(["scp-content"], label, name if isinstance(name, Unresolved) else expected, res)
            continue
        match = [p for p in live_policies if p.get("Name") == name]
        if not match:
            rows.append(_row("scp-content", name, f"exists, as synthesized ({short_hash(expected)})", "not found", MISSING,
                             f"no service control policy named {name!r} in the organization", res))
            rows += [_row("scp-attachment", f"{name} -> {t}", "attached", "policy not found", MISSING, "", res) for t in targets]
            continue
        policy_id = match[0]["Id"]
        try:
            content = ctx.live.call("organizations", "describe_policy", region=region, management=True, PolicyId=policy_id)["Policy"]["Content"]
            rows.append(_policy_row("scp-content", name, expected, content, res))
            attached = {
                t["TargetId"]
                for t in ctx.live.paginate("organizations", "list_targets_for_policy", "Targets", region=region,
                                           management=True, PolicyId=policy_id)
            }
        except ApiError as exc:
            rows += _errors(["scp-attachment"], f"{name} -> {', '.join(targets)}", "attached", exc, res)
            continue
        for target in targets:
            note = " (configured in organization.target_ids but not in the assembly: synthesize and deploy again)" if target in config_only else ""
            if target in attached:
                rows.append(_row("scp-attachment", f"{name} -> {target}", "attached", "attached", PASS, "", res))
            else:
                others = sorted(attached)
                rows.append(_row("scp-attachment", f"{name} -> {target}", "attached", "not attached", MISSING,
                                 f"{name} ({policy_id}) is attached to {summarize(others) if others else 'nothing'}{note}", res))
    return rows


def _scp_targets(ctx: Context, res: Resource) -> tuple[list[str], set[str]]:
    synthesized = ctx.resolve(res.prop("TargetIds") or [], res)
    targets = [t for t in synthesized if isinstance(t, str)]
    config_only = {t for t in ctx.config_target_ids if t not in targets}
    return targets + sorted(config_only), config_only


# --------------------------------------------------------------------------------------------------
# VPC endpoints
# --------------------------------------------------------------------------------------------------


def check_endpoints(ctx: Context) -> list[CheckResult]:
    rows: list[CheckResult] = []
    checks = ["vpc-endpoint", "vpc-endpoint-private-dns", "vpc-endpoint-policy"]
    for res in ctx.resources("AWS::EC2::VPCEndpoint"):
        region = ctx.region_of(res.stack)
        service_name = ctx.resolve(res.prop("ServiceName"), res)
        tags = _tags(ctx.resolve(res.prop("Tags") or [], res))
        service_tag = _service_tag(tags)
        label = (tags[service_tag] if service_tag else None) or (
            service_name.split(".", 3)[-1] if isinstance(service_name, str) else res.logical_id
        )
        if isinstance(service_name, Unresolved):
            rows += _unresolvable(checks, label, service_name, res)
            continue
        try:
            found, how = _find_endpoint(ctx, res, region, service_name, tags)
        except ApiError as exc:
            rows += _errors(checks, label, service_name, exc, res)
            continue
        if not found:
            rows.append(_row("vpc-endpoint", label, f"{service_name} available", "not found", MISSING,
                             f"no endpoint found {how}", res))
            rows += [_row(c, label, "-", "endpoint not found", MISSING, "", res) for c in checks[1:]]
            continue
        endpoint = found[0]
        more = f"; {len(found)} endpoints match, checked {endpoint['VpcEndpointId']}" if len(found) > 1 else ""
        state = str(endpoint.get("State", "")).lower()
        rows.append(_row("vpc-endpoint", label, f"{service_name} available", f"{endpoint['VpcEndpointId']} {state}",
                         PASS if state == "available" else DRIFT, f"found {how}{more}", res))
        if str(res.prop("VpcEndpointType", "Gateway")) == "Interface" or res.prop("PrivateDnsEnabled") is not None:
            want_dns = bool(as_bool(res.prop("PrivateDnsEnabled", False)))
            got_dns = bool(endpoint.get("PrivateDnsEnabled"))
            rows.append(_row("vpc-endpoint-private-dns", label, "enabled" if want_dns else "disabled",
                             "enabled" if got_dns else "disabled", PASS if want_dns == got_dns else DRIFT, "", res))
        expected_policy = ctx.resolve(res.prop("PolicyDocument"), res)
        if expected_policy is None:
            continue  # no policy in the template: the endpoint's default (full access) is the intent
        if unresolved_in(expected_policy):
            rows += _unresolvable(["vpc-endpoint-policy"], label, expected_policy, res)
            continue
        rows.append(_policy_row("vpc-endpoint-policy", label, expected_policy, endpoint.get("PolicyDocument"), res))
    return rows


def _service_tag(tags: dict[str, str]) -> str | None:
    """The tag the stacks put on endpoints to name their service (``bedrock-endpoint-service``,
    ``self-hosting-endpoint-service``, ...)."""
    return next((k for k in sorted(tags) if k.endswith("-endpoint-service")), None)


def _find_endpoint(ctx: Context, res: Resource, region: str, service_name: str, tags: dict[str, str]) -> tuple[list[dict], str]:
    def live_endpoints(filters: list[dict]) -> list[dict]:
        found = ctx.live.paginate("ec2", "describe_vpc_endpoints", "VpcEndpoints", region=region, Filters=filters)
        return [e for e in found if str(e.get("State", "")).lower() not in ("deleted", "deleting")]

    tag_filters = [{"Name": "tag:landing-zone", "Values": [ctx.name]}, {"Name": "service-name", "Values": [service_name]}]
    service_tag = _service_tag(tags)
    if service_tag:
        tag_filters.insert(1, {"Name": f"tag:{service_tag}", "Values": [tags[service_tag]]})
    found = live_endpoints(tag_filters)
    if found:
        return found, "by tags " + ", ".join(f"{f['Name'][4:]}={f['Values'][0]}" for f in tag_filters if f["Name"].startswith("tag:"))
    vpc_id = ctx.resolve(res.prop("VpcId"), res)
    vpc_ids = [vpc_id] if isinstance(vpc_id, str) else [
        v["VpcId"] for v in ctx.live.paginate("ec2", "describe_vpcs", "Vpcs", region=region,
                                              Filters=[{"Name": "tag:landing-zone", "Values": [ctx.name]}])
    ]
    if not vpc_ids:
        return [], f"tagged landing-zone={ctx.name}, and no VPC of the landing zone was found to search by service name"
    found = live_endpoints([{"Name": "service-name", "Values": [service_name]}, {"Name": "vpc-id", "Values": vpc_ids}])
    return found, f"by service name {service_name} in {', '.join(vpc_ids)} (the endpoint lacks the landing-zone tags)"


# --------------------------------------------------------------------------------------------------
# KMS keys
# --------------------------------------------------------------------------------------------------


def check_keys(ctx: Context) -> list[CheckResult]:
    rows: list[CheckResult] = []
    checks = ["kms-key", "kms-rotation", "kms-policy"]
    for res in ctx.resources("AWS::KMS::Key"):
        region = ctx.region_of(res.stack)
        aliases = ctx.resolver.aliases_of(res)
        label = aliases[0] if aliases else res.logical_id
        key_id: Any = aliases[0] if aliases else ctx.resolver.cloudformation_physical_id(res)
        if isinstance(key_id, Unresolved):
            rows += _unresolvable(checks, label, key_id, res)
            continue
        try:
            meta = ctx.live.call("kms", "describe_key", region=region, KeyId=key_id)["KeyMetadata"]
        except ApiError as exc:
            rows += _errors(checks, label, "exists", exc, res)
            continue
        except ClientError as exc:
            if not _not_found(exc):
                raise
            rows.append(_row("kms-key", label, "Enabled", "not found", MISSING, f"kms:DescribeKey {key_id}: {aws.error_code(exc)}", res))
            rows += [_row(c, label, "-", "key not found", MISSING, "", res) for c in checks[1:]]
            continue
        ctx.key_labels[meta["Arn"]] = label
        state = meta.get("KeyState", "?")
        rows.append(_row("kms-key", label, "Enabled", f"{state} ({meta['KeyId']})", PASS if state == "Enabled" else DRIFT, "", res))
        want_rotation = bool(as_bool(res.prop("EnableKeyRotation", False)))
        try:
            got_rotation = bool(ctx.live.call("kms", "get_key_rotation_status", region=region, KeyId=meta["KeyId"])["KeyRotationEnabled"])
            rows.append(_row("kms-rotation", label, "enabled" if want_rotation else "disabled",
                             "enabled" if got_rotation else "disabled", PASS if want_rotation == got_rotation else DRIFT, "", res))
        except ApiError as exc:
            rows += _errors(["kms-rotation"], label, "enabled" if want_rotation else "disabled", exc, res)
        expected_policy = ctx.resolve(res.prop("KeyPolicy"), res)
        if expected_policy is None:
            continue
        if unresolved_in(expected_policy):
            rows += _unresolvable(["kms-policy"], label, expected_policy, res)
            continue
        try:
            policy = ctx.live.call("kms", "get_key_policy", region=region, KeyId=meta["KeyId"], PolicyName="default")["Policy"]
            rows.append(_policy_row("kms-policy", label, expected_policy, policy, res))
        except ApiError as exc:
            rows += _errors(["kms-policy"], label, "as synthesized", exc, res)
    return rows


def _key_arn(ctx: Context, region: str, key: Any) -> Any:
    """A live key ARN for an alias / key ID / ARN (as APIs report configured keys)."""
    if not isinstance(key, str) or not key:
        return key
    if key.startswith("arn:") and ":key/" in key:
        return key
    try:
        return ctx.live.call("kms", "describe_key", region=region, KeyId=key)["KeyMetadata"]["Arn"]
    except ClientError:
        return key


# --------------------------------------------------------------------------------------------------
# Model invocation logging
# --------------------------------------------------------------------------------------------------

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
            config = ctx.live.call("bedrock", "get_model_invocation_logging_configuration", region=region).get("loggingConfig") or {}
        except ApiError as exc:
            rows += _errors(checks, label, "configured", exc, res)
            continue
        rows.append(_logging_s3(ctx, res, label, config))
        rows.append(_logging_cloudwatch(ctx, res, label, config))
        want = {short: bool(as_bool(res.prop(prop))) for prop, _, short in _DELIVERY if res.prop(prop) is not None}
        got = {short: bool(config.get(key)) for _, key, short in _DELIVERY if short in want}
        expected = ", ".join(f"{k}={'on' if v else 'off'}" for k, v in want.items())
        if not config:
            rows.append(_row("invocation-logging-delivery", label, expected, "logging not configured", MISSING, "", res))
            continue
        actual = ", ".join(f"{k}={'on' if v else 'off'}" for k, v in got.items())
        rows.append(_row("invocation-logging-delivery", label, expected, actual, PASS if want == got else DRIFT, "", res))
    return rows


def _logging_s3(ctx: Context, res: Resource, label: str, config: dict) -> CheckResult:
    prefix = ctx.resolve(res.prop("KeyPrefix"), res)
    s3 = config.get("s3Config") or {}
    actual = f"s3://{s3.get('bucketName')}/{s3.get('keyPrefix') or ''}" if s3.get("bucketName") else "no S3 destination"
    if res.prop("BucketName") is None:
        return _row("invocation-logging-s3", label, "no S3 destination", actual, PASS if not s3 else DRIFT, "", res)
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
        return _row("invocation-logging-s3", label, f"s3://{shown}/{expected_prefix}", actual, MISSING, "", res)
    prefix_ok = (s3.get("keyPrefix") or "") == expected_prefix
    if isinstance(bucket, str):
        ok = s3.get("bucketName") == bucket and prefix_ok
        return _row("invocation-logging-s3", label, f"s3://{bucket}/{expected_prefix}", actual, PASS if ok else DRIFT,
                    f"expected bucket resolved by {how}" if how else "", res)
    # The generated bucket name is unknown (no CloudFormation record reachable): accept the configured bucket
    # only if its own CloudFormation tags say it is this landing zone's invocation-log bucket.
    target = _ref_target(res)
    return _bucket_by_tags(ctx, res, label, s3, expected_prefix, prefix_ok, target, bucket, actual)


def _bucket_by_tags(ctx: Context, res: Resource, label: str, s3: dict, prefix: str, prefix_ok: bool,
                    target: Resource | None, bucket: Unresolved, actual: str) -> CheckResult:
    expected = f"s3://<{target.path if target else 'bucket'}>/{prefix}"
    try:
        tags = _tags(ctx.live.call("s3", "get_bucket_tagging", region=ctx.region_of(res.stack), Bucket=s3["bucketName"]).get("TagSet"))
    except ApiError as exc:
        return _errors(["invocation-logging-s3"], label, expected, exc, res)[0]
    except ClientError as exc:
        tags = {}
        if aws.error_code(exc) not in ("NoSuchTagSet", "NoSuchBucket"):
            raise
    stack, logical = tags.get("aws:cloudformation:stack-name"), tags.get("aws:cloudformation:logical-id")
    if target and stack == ctx.resolver.stack_name(target.stack) and logical == target.logical_id:
        return _row("invocation-logging-s3", label, expected, actual, PASS if prefix_ok else DRIFT,
                    "expected bucket resolved by the bucket's aws:cloudformation:* tags "
                    f"(CloudFormation itself was not available: {bucket.why})", res)
    if stack or logical:
        return _row("invocation-logging-s3", label, expected, actual, DRIFT,
                    f"the configured bucket belongs to {stack}/{logical} by its CloudFormation tags", res)
    return _row("invocation-logging-s3", label, expected, actual, ERROR,
                f"cannot tell whether {s3['bucketName']} is the landing zone's bucket: {bucket.why}; the bucket has no "
                "aws:cloudformation:* tags. Give --invocation-log-bucket NAME (stack output InvocationLogBucket)", res)


def _ref_target(res: Resource) -> Resource | None:
    ref = res.prop("BucketName")
    if isinstance(ref, dict) and "Ref" in ref:
        return res.stack.resource(ref["Ref"])
    return None


def _logging_cloudwatch(ctx: Context, res: Resource, label: str, config: dict) -> CheckResult:
    cw = config.get("cloudWatchConfig") or {}
    actual = f"{cw.get('logGroupName')} via {cw.get('roleArn', '').rsplit('/', 1)[-1]}" if cw.get("logGroupName") else "no CloudWatch Logs destination"
    if res.prop("LogGroupName") is None:
        return _row("invocation-logging-cloudwatch", label, "no CloudWatch Logs destination", actual, PASS if not cw else DRIFT, "", res)
    group = ctx.resolve(res.prop("LogGroupName"), res)
    role = ctx.resolve(res.prop("RoleArn"), res)
    if isinstance(group, Unresolved) or isinstance(role, Unresolved):
        return _unresolvable(["invocation-logging-cloudwatch"], label, [group, role], res)[0]
    expected = f"{group} via {str(role).rsplit('/', 1)[-1]}"
    if not cw:
        return _row("invocation-logging-cloudwatch", label, expected, actual, MISSING, "", res)
    ok = cw.get("logGroupName") == group and (role is None or cw.get("roleArn") == role)
    detail = "" if ok else f"expected log group {group} with role {role}; live {cw.get('logGroupName')} with role {cw.get('roleArn')}"
    return _row("invocation-logging-cloudwatch", label, expected, actual, PASS if ok else DRIFT, detail, res)


# --------------------------------------------------------------------------------------------------
# CloudWatch Logs log groups
# --------------------------------------------------------------------------------------------------


def check_log_groups(ctx: Context) -> list[CheckResult]:
    rows: list[CheckResult] = []
    for res in ctx.resources("AWS::Logs::LogGroup"):
        region = ctx.region_of(res.stack)
        name = ctx.resolver.physical_id(res)
        if isinstance(name, Unresolved):
            rows += _unresolvable(["log-group"], res.logical_id, name, res)
            continue
        retention = res.prop("RetentionInDays")
        key_ref = res.prop("KmsKeyId")
        key_label = ctx.resolver.label(key_ref, res.stack) if key_ref is not None else "(none)"
        expected = f"retention {retention or 'never expires'}{' d' if retention else ''}, KMS {key_label}"
        try:
            groups = ctx.live.paginate("logs", "describe_log_groups", "logGroups", region=region, logGroupNamePrefix=name)
        except ApiError as exc:
            rows += _errors(["log-group"], name, expected, exc, res)
            continue
        group = next((g for g in groups if g.get("logGroupName") == name), None)
        if group is None:
            rows.append(_row("log-group", name, expected, "not found", MISSING, "", res))
            continue
        key = ctx.resolve(key_ref, res) if key_ref is not None else None
        if isinstance(key, Unresolved):
            rows += _unresolvable(["log-group"], name, key, res)
            continue
        got_retention, got_key = group.get("retentionInDays"), group.get("kmsKeyId")
        actual = f"retention {got_retention or 'never expires'}{' d' if got_retention else ''}, KMS {ctx.key_label(got_key)}"
        ok = (retention is None or same_number(retention, got_retention or 0)) and (key or None) == (got_key or None)
        rows.append(_row("log-group", name, expected, actual, PASS if ok else DRIFT, "", res))
    return rows


# --------------------------------------------------------------------------------------------------
# Application inference profiles
# --------------------------------------------------------------------------------------------------


def check_profiles(ctx: Context) -> list[CheckResult]:
    profiles = ctx.resources("AWS::Bedrock::ApplicationInferenceProfile")
    rows: list[CheckResult] = []
    checks = ["inference-profile", "inference-profile-tags", "inference-profile-regions"]
    for res in profiles:
        region = ctx.region_of(res.stack)
        name = ctx.resolve(res.prop("InferenceProfileName"), res)
        copy_from = ctx.resolve(res.prop("ModelSource.CopyFrom"), res)
        if isinstance(name, Unresolved) or isinstance(copy_from, Unresolved):
            rows += _unresolvable(checks, str(res.logical_id), [name, copy_from], res)
            continue
        model_id = _model_of(copy_from)
        expected = f"ACTIVE, model {model_id}"
        try:
            summaries = ctx.resolver.application_profiles(region)
        except ApiError as exc:
            rows += _errors(checks, name, expected, exc, res)
            continue
        match = next((s for s in summaries if s.get("inferenceProfileName") == name), None)
        if match is None:
            rows.append(_row("inference-profile", name, expected, "not found", MISSING,
                             f"no application inference profile named {name!r} in {region}", res))
            rows += [_row(c, name, "-", "profile not found", MISSING, "", res) for c in checks[1:]]
            continue
        arn = match["inferenceProfileArn"]
        try:
            profile = ctx.live.call("bedrock", "get_inference_profile", region=region, inferenceProfileIdentifier=arn)
            live_tags = _tags(ctx.live.call("bedrock", "list_tags_for_resource", region=region, resourceARN=arn).get("tags"))
        except ApiError as exc:
            rows += _errors(checks, name, expected, exc, res)
            continue
        model_arns = [m.get("modelArn", "") for m in profile.get("models") or []]
        live_models = sorted({_model_of(a) for a in model_arns})
        status = profile.get("status", "?")
        ok = status == "ACTIVE" and live_models == [model_id]
        rows.append(_row("inference-profile", name, expected, f"{status}, model {', '.join(live_models) or '(none)'}",
                         PASS if ok else DRIFT, f"{arn}; copies {copy_from}", res))
        resolved_tags = ctx.resolve(res.prop("Tags") or [], res)
        if unresolved_in(resolved_tags):
            rows += _unresolvable(["inference-profile-tags"], name, resolved_tags, res)
            rows.append(_profile_regions(ctx, res, name, copy_from, model_arns))
            continue
        want_tags = {k: v for k, v in _tags(resolved_tags).items() if not k.startswith("aws:")}
        wrong = {k: live_tags.get(k) for k, v in want_tags.items() if live_tags.get(k) != v}
        rows.append(_row("inference-profile-tags", name, summarize(f"{k}={v}" for k, v in sorted(want_tags.items())),
                         "all present" if not wrong else summarize(f"{k}={v}" for k, v in sorted(wrong.items())),
                         PASS if not wrong else DRIFT,
                         "" if not wrong else "expected " + ", ".join(f"{k}={want_tags[k]}" for k in sorted(wrong)), res))
        rows.append(_profile_regions(ctx, res, name, copy_from, model_arns))
    return rows


def _model_of(arn: str) -> str:
    """The foundation-model ID behind a model ARN, a system profile ARN/ID, or a plain model ID."""
    tail = arn.rsplit("/", 1)[-1]
    if ":foundation-model/" in arn:
        return tail
    prefix, _, rest = tail.partition(".")
    return rest if prefix in PROFILE_PREFIXES and rest else tail


def _profile_regions(ctx: Context, res: Resource, name: str, copy_from: str, model_arns: list[str]) -> CheckResult:
    regions = sorted({a.split(":")[3] for a in model_arns if a.count(":") >= 5 and a.split(":")[3]})
    allowed = set(ctx.compliant_regions)
    expected = f"within compliant_regions ({len(allowed)})" if allowed else "(compliant_regions unknown)"
    outside = [r for r in regions if allowed and r not in allowed]
    catalog_note = ""
    catalog_regions = _catalog_destinations(ctx, copy_from)
    if catalog_regions is not None and sorted(catalog_regions) != regions:
        catalog_note = (f"the catalog expects {summarize(sorted(catalog_regions), limit=8)}; live: {summarize(regions, limit=8)} "
                        "(refresh it with `python -m landing_zone discover`)")
    if not regions:
        return _row("inference-profile-regions", name, expected, "no model Regions reported", DRIFT, catalog_note, res)
    if outside:
        return _row("inference-profile-regions", name, expected, f"outside: {', '.join(outside)}", DRIFT,
                    f"{name} routes to {', '.join(outside)}, not in compliant_regions. {catalog_note}".strip(), res)
    return _row("inference-profile-regions", name, expected, summarize(regions), PASS if allowed else ERROR, catalog_note, res)


def _catalog_destinations(ctx: Context, copy_from: str) -> list[str] | None:
    if ctx.catalog is None:
        return None
    tail = copy_from.rsplit("/", 1)[-1]
    if ":foundation-model/" in copy_from:
        return [copy_from.split(":")[3]]
    for model in ctx.catalog.models.values():
        for profile in model.inference_profiles:
            if profile.id == tail:
                return list(ctx.catalog.destinations(profile))
    return None


# --------------------------------------------------------------------------------------------------
# Cost controls: SNS topics, budgets (+ actions), alarms, anomaly detection
# --------------------------------------------------------------------------------------------------


def check_topics(ctx: Context) -> list[CheckResult]:
    rows: list[CheckResult] = []
    for res in ctx.resources("AWS::SNS::Topic"):
        region = ctx.region_of(res.stack)
        arn = ctx.resolver.ref_of(res)
        key_ref = res.prop("KmsMasterKeyId")
        label = arn.rsplit(":", 1)[-1] if isinstance(arn, str) else res.logical_id
        expected = f"exists, KMS {ctx.resolver.label(key_ref, res.stack) if key_ref is not None else '(none)'}"
        if isinstance(arn, Unresolved):
            rows += _unresolvable(["sns-topic"], label, arn, res)
            continue
        try:
            attrs = ctx.live.call("sns", "get_topic_attributes", region=region, TopicArn=arn)["Attributes"]
        except ApiError as exc:
            rows += _errors(["sns-topic"], label, expected, exc, res)
            continue
        except ClientError as exc:
            if not _not_found(exc, "NotFound"):
                raise
            rows.append(_row("sns-topic", label, expected, "not found", MISSING, arn, res))
            continue
        key = ctx.resolve(key_ref, res) if key_ref is not None else None
        if isinstance(key, Unresolved):
            rows += _unresolvable(["sns-topic"], label, key, res)
            continue
        got_key = attrs.get("KmsMasterKeyId")
        want_arn, got_arn = _key_arn(ctx, region, key), _key_arn(ctx, region, got_key)
        ok = (want_arn or None) == (got_arn or None)
        rows.append(_row("sns-topic", label, expected, f"exists, KMS {ctx.key_label(got_arn) if got_key else '(none)'}",
                         PASS if ok else DRIFT, "", res))
    subs_by_topic: dict[str, list[dict] | ApiError] = {}
    for res in ctx.resources("AWS::SNS::Subscription"):
        region = ctx.region_of(res.stack)
        topic = ctx.resolve(res.prop("TopicArn"), res)
        protocol, endpoint = ctx.resolve(res.prop("Protocol"), res), ctx.resolve(res.prop("Endpoint"), res)
        label = f"{topic.rsplit(':', 1)[-1] if isinstance(topic, str) else '?'} -> {protocol}:{endpoint}"
        if unresolved_in([topic, protocol, endpoint]):
            rows += _unresolvable(["sns-subscription"], label, [topic, protocol, endpoint], res)
            continue
        if topic not in subs_by_topic:
            try:
                subs_by_topic[topic] = ctx.live.paginate("sns", "list_subscriptions_by_topic", "Subscriptions", region=region, TopicArn=topic)
            except ApiError as exc:
                subs_by_topic[topic] = exc
            except ClientError as exc:
                if not _not_found(exc, "NotFound"):
                    raise
                subs_by_topic[topic] = []
        subs = subs_by_topic[topic]
        if isinstance(subs, ApiError):
            rows += _errors(["sns-subscription"], label, "subscribed", subs, res)
            continue
        match = next((s for s in subs if s.get("Protocol") == protocol and s.get("Endpoint") == endpoint), None)
        if match is None:
            rows.append(_row("sns-subscription", label, "subscribed", "not subscribed", MISSING, "", res))
        else:
            pending = str(match.get("SubscriptionArn", "")).lower() in ("pendingconfirmation", "pending confirmation")
            rows.append(_row("sns-subscription", label, "subscribed", "pending confirmation" if pending else "subscribed", PASS,
                             "the recipient has not confirmed yet: no mail is delivered until then" if pending else "", res))
    return rows


def check_budgets(ctx: Context) -> list[CheckResult]:
    budgets = ctx.resources("AWS::Budgets::Budget")
    actions = ctx.resources("AWS::Budgets::BudgetsAction")
    if not budgets and not actions:
        return []
    rows: list[CheckResult] = []
    region = ctx.global_region()
    try:
        account = ctx.live.account()
    except ApiError as exc:
        return [r for res in budgets for r in _errors(["budget"], str(res.prop("Budget.BudgetName", res.logical_id)), "exists", exc, res)]
    seen_actions: set[str] = set()
    for res in budgets:
        name = ctx.resolver.physical_id(res)
        if isinstance(name, Unresolved):
            rows += _unresolvable(["budget"], res.logical_id, name, res)
            continue
        spec = ctx.resolve(res.prop("Budget") or {}, res)
        limit = spec.get("BudgetLimit") or {}
        expected = f"{_num(limit.get('Amount'))} {limit.get('Unit', '')} {spec.get('TimeUnit', '')} {spec.get('BudgetType', '')}".strip()
        mine = [a for a in actions if ctx.resolve(a.prop("BudgetName"), a) == name]
        seen_actions.update(a.path for a in mine)
        try:
            live_budget = ctx.live.call("budgets", "describe_budget", region=region, AccountId=account, BudgetName=name)["Budget"]
        except ApiError as exc:
            rows += _errors(["budget"], name, expected, exc, res)
            continue
        except ClientError as exc:
            if not _not_found(exc):
                raise
            rows.append(_row("budget", name, expected, "not found", MISSING, "", res))
            rows += [_row("budget-notification", f"{name}: {_notification_label(n.get('Notification') or {})}", "exists",
                          "budget not found", MISSING, "", res) for n in res.prop("NotificationsWithSubscribers") or []]
            rows += [_row("budget-action", f"{name}: {a.prop('ActionType')}", "exists", "budget not found", MISSING, "", a) for a in mine]
            continue
        if unresolved_in(spec):
            rows += _unresolvable(["budget"], name, spec, res)
        else:
            rows.append(_budget_row(ctx, res, name, spec, expected, live_budget))
        rows += _budget_notifications(ctx, res, name, account, region)
        if mine:
            rows += _budget_actions(ctx, name, account, region, mine)
    for a in actions:
        if a.path not in seen_actions:
            rows.append(_row("budget-action", str(a.prop("BudgetName")), "its budget in the assembly", "budget unknown", ERROR,
                             "the action names a budget that is not in the assembly", a))
    return rows


def _num(value: Any) -> str:
    """12.0 -> '12', 62.4 -> '62.4', '22776.0' -> '22776' (numbers as people write them)."""
    try:
        return f"{Decimal(str(value)).normalize():f}"
    except (InvalidOperation, TypeError, ValueError):
        return str(value)


def _budget_row(ctx: Context, res: Resource, name: str, spec: dict, expected: str, live_budget: dict) -> CheckResult:
    limit, got_limit = spec.get("BudgetLimit") or {}, live_budget.get("BudgetLimit") or {}
    actual = f"{_num(got_limit.get('Amount'))} {got_limit.get('Unit', '')} {live_budget.get('TimeUnit', '')} {live_budget.get('BudgetType', '')}".strip()
    problems = []
    if limit and not (same_number(limit.get("Amount"), got_limit.get("Amount")) and limit.get("Unit") == got_limit.get("Unit")):
        problems.append(f"limit {got_limit.get('Amount')} {got_limit.get('Unit')} (expected {limit.get('Amount')} {limit.get('Unit')})")
    for field_name in ("TimeUnit", "BudgetType"):
        if spec.get(field_name) and spec.get(field_name) != live_budget.get(field_name):
            problems.append(f"{field_name} {live_budget.get(field_name)} (expected {spec.get(field_name)})")
    for field_name in ("FilterExpression", "CostFilters"):
        if spec.get(field_name) and canonical(spec[field_name]) != canonical(live_budget.get(field_name) or {}):
            problems.append(f"{field_name} differs:\n{document_diff(spec[field_name], live_budget.get(field_name) or {})}")
    return _row("budget", name, expected, actual, DRIFT if problems else PASS, "\n".join(problems), res)


def _notification_label(n: dict) -> str:
    return f"{n.get('NotificationType')} {n.get('ComparisonOperator')} {_num(n.get('Threshold'))} {n.get('ThresholdType', 'PERCENTAGE')}"


def _budget_notifications(ctx: Context, res: Resource, name: str, account: str, region: str) -> list[CheckResult]:
    wanted = ctx.resolve(res.prop("NotificationsWithSubscribers") or [], res)
    if not wanted:
        return []
    rows: list[CheckResult] = []
    try:
        live = ctx.live.paginate("budgets", "describe_notifications_for_budget", "Notifications", region=region,
                                 AccountId=account, BudgetName=name)
    except ApiError as exc:
        return _errors(["budget-notification"], name, f"{len(wanted)} notification(s)", exc, res)
    for item in wanted:
        n = item.get("Notification") or {}
        label = f"{name}: {_notification_label(n)}"
        match = next(
            (m for m in live
             if m.get("NotificationType") == n.get("NotificationType")
             and m.get("ComparisonOperator") == n.get("ComparisonOperator")
             and same_number(m.get("Threshold"), n.get("Threshold"))
             and m.get("ThresholdType", "PERCENTAGE") == n.get("ThresholdType", "PERCENTAGE")),
            None,
        )
        if match is None:
            rows.append(_row("budget-notification", label, "exists", "not found", MISSING,
                             "live notifications: " + summarize(_notification_label(m) for m in live), res))
            continue
        rows.append(_row("budget-notification", label, "exists", "exists", PASS, "", res))
        want_subs = {(s.get("SubscriptionType"), s.get("Address")) for s in item.get("Subscribers") or []}
        if unresolved_in(list(want_subs)):
            rows += _unresolvable(["budget-subscribers"], label, list(want_subs), res)
            continue
        notification = {k: match[k] for k in ("NotificationType", "ComparisonOperator", "Threshold", "ThresholdType") if k in match}
        try:
            subs = ctx.live.paginate("budgets", "describe_subscribers_for_notification", "Subscribers", region=region,
                                     AccountId=account, BudgetName=name, Notification=notification)
        except ApiError as exc:
            rows += _errors(["budget-subscribers"], label, "subscribers", exc, res)
            continue
        got_subs = {(s.get("SubscriptionType"), s.get("Address")) for s in subs}
        missing = sorted(want_subs - got_subs, key=str)
        rows.append(_row("budget-subscribers", label, summarize(_sub(s) for s in sorted(want_subs, key=str)),
                         "all present" if not missing else "missing " + summarize(_sub(s) for s in missing),
                         PASS if not missing else MISSING, "", res))
    return rows


def _sub(sub: tuple) -> str:
    kind, address = sub
    return f"{kind}:{str(address).rsplit(':', 1)[-1] if kind == 'SNS' else address}"


def _budget_actions(ctx: Context, name: str, account: str, region: str, actions: list[Resource]) -> list[CheckResult]:
    rows: list[CheckResult] = []
    try:
        live = ctx.live.paginate("budgets", "describe_budget_actions_for_budget", "Actions", region=region,
                                 AccountId=account, BudgetName=name)
    except ApiError as exc:
        return [r for a in actions for r in _errors(["budget-action"], f"{name}: {a.prop('ActionType')}", "exists", exc, a)]
    for a in actions:
        want = {
            "ActionType": ctx.resolve(a.prop("ActionType"), a),
            "NotificationType": ctx.resolve(a.prop("NotificationType"), a),
            "ApprovalModel": ctx.resolve(a.prop("ApprovalModel", "MANUAL"), a),
            "ThresholdType": ctx.resolve(a.prop("ActionThreshold.Type"), a),
            "ThresholdValue": ctx.resolve(a.prop("ActionThreshold.Value"), a),
            "ExecutionRoleArn": ctx.resolve(a.prop("ExecutionRoleArn"), a),
            "PolicyArn": ctx.resolve(a.prop("Definition.IamActionDefinition.PolicyArn"), a),
            "Roles": sorted(ctx.resolve(a.prop("Definition.IamActionDefinition.Roles") or [], a), key=str),
            "Subscribers": sorted({(s.get("Type"), s.get("Address")) for s in ctx.resolve(a.prop("Subscribers") or [], a)}, key=str),
        }
        label = f"{name}: {want['ActionType']}"
        expected = (f"{want['ActionType']} at {_num(want['ThresholdValue'])} {want['ThresholdType']} ({want['NotificationType']}), "
                    f"{want['ApprovalModel']}")
        if unresolved_in(list(want.values())):
            rows += _unresolvable(["budget-action"], label, list(want.values()), a)
            continue
        candidates = [x for x in live if x.get("ActionType") == want["ActionType"]]
        if not candidates:
            rows.append(_row("budget-action", label, expected, "not found", MISSING,
                             f"{len(live)} action(s) on the budget, none of type {want['ActionType']}", a))
            continue
        best, best_diff = None, None
        for x in candidates:
            iam_def = (x.get("Definition") or {}).get("IamActionDefinition") or {}
            got = {
                "ActionType": x.get("ActionType"),
                "NotificationType": x.get("NotificationType"),
                "ApprovalModel": x.get("ApprovalModel"),
                "ThresholdType": (x.get("ActionThreshold") or {}).get("ActionThresholdType"),
                "ThresholdValue": (x.get("ActionThreshold") or {}).get("ActionThresholdValue"),
                "ExecutionRoleArn": x.get("ExecutionRoleArn"),
                "PolicyArn": iam_def.get("PolicyArn"),
                "Roles": sorted(iam_def.get("Roles") or [], key=str),
                "Subscribers": sorted({(s.get("SubscriptionType"), s.get("Address")) for s in x.get("Subscribers") or []}, key=str),
            }
            diff = [k for k in want if not (same_number(want[k], got[k]) if k == "ThresholdValue" else want[k] == got[k])]
            if best_diff is None or len(diff) < len(best_diff):
                best, best_diff, best_got = x, diff, got
        assert best is not None and best_diff is not None
        actual = (f"{best_got['ActionType']} at {_num(best_got['ThresholdValue'])} {best_got['ThresholdType']} "
                  f"({best_got['NotificationType']}), {best_got['ApprovalModel']}, status {best.get('Status')}")
        detail = "\n".join(f"{k}: expected {want[k]}, live {best_got[k]}" for k in best_diff)
        rows.append(_row("budget-action", label, expected, actual, DRIFT if best_diff else PASS, detail, a))
    return rows


def check_alarms(ctx: Context) -> list[CheckResult]:
    alarms = ctx.resources("AWS::CloudWatch::Alarm")
    rows: list[CheckResult] = []
    by_region: dict[str, list[tuple[Resource, str]]] = {}
    for res in alarms:
        name = ctx.resolver.physical_id(res)
        if isinstance(name, Unresolved):
            rows += _unresolvable(["alarm"], res.logical_id, name, res)
            continue
        by_region.setdefault(ctx.region_of(res.stack), []).append((res, name))
    for region, items in by_region.items():
        names = [name for _, name in items]
        found: dict[str, dict] = {}
        try:
            for start in range(0, len(names), 100):
                for alarm in ctx.live.paginate("cloudwatch", "describe_alarms", "MetricAlarms", region=region,
                                               AlarmNames=names[start:start + 100], AlarmTypes=["MetricAlarm"]):
                    found[alarm["AlarmName"]] = alarm
        except ApiError as exc:
            rows += [r for res, name in items for r in _errors(["alarm"], name, "exists", exc, res)]
            continue
        for res, name in items:
            want = _alarm_intent(ctx, res)
            expected = f"{want['ComparisonOperator']} {_num(want['Threshold'])} x{want['EvaluationPeriods']}"
            live = found.get(name)
            if live is None:
                rows.append(_row("alarm", name, expected, "not found", MISSING, "", res))
                continue
            if unresolved_in(list(want.values())):
                rows += _unresolvable(["alarm"], name, list(want.values()), res)
                continue
            got = _alarm_live(live)
            diff = [k for k in want if not (same_number(want[k], got[k]) if k == "Threshold" else want[k] == got[k])]
            actual = f"{got['ComparisonOperator']} {_num(got['Threshold'])} x{got['EvaluationPeriods']}"
            detail = "\n".join(f"{k}: expected {want[k]}, live {got[k]}" for k in diff)
            rows.append(_row("alarm", name, expected, actual, DRIFT if diff else PASS, detail, res))
    return rows


def _metric_stat(stat: dict) -> tuple:
    metric = stat.get("Metric") or {}
    dims = tuple(sorted((d.get("Name"), d.get("Value")) for d in metric.get("Dimensions") or []))
    return (metric.get("Namespace"), metric.get("MetricName"), dims, stat.get("Period"), stat.get("Stat"))


def _alarm_intent(ctx: Context, res: Resource) -> dict:
    p = ctx.resolve(dict(res.properties), res)
    return {
        "ComparisonOperator": p.get("ComparisonOperator"),
        "Threshold": p.get("Threshold"),
        "EvaluationPeriods": p.get("EvaluationPeriods"),
        "DatapointsToAlarm": p.get("DatapointsToAlarm"),
        "TreatMissingData": p.get("TreatMissingData", "missing"),
        "ActionsEnabled": bool(as_bool(p.get("ActionsEnabled", True))),
        "AlarmActions": sorted(p.get("AlarmActions") or [], key=str),
        "Metric": (p.get("Namespace"), p.get("MetricName"), p.get("Statistic"), p.get("Period")) if p.get("MetricName") else None,
        "Metrics": sorted(((m.get("Id"), m.get("Expression"), _metric_stat(m["MetricStat"]) if m.get("MetricStat") else None)
                           for m in p.get("Metrics") or []), key=str),
    }


def _alarm_live(a: dict) -> dict:
    return {
        "ComparisonOperator": a.get("ComparisonOperator"),
        "Threshold": a.get("Threshold"),
        "EvaluationPeriods": a.get("EvaluationPeriods"),
        "DatapointsToAlarm": a.get("DatapointsToAlarm"),
        "TreatMissingData": a.get("TreatMissingData", "missing"),
        "ActionsEnabled": bool(a.get("ActionsEnabled", True)),
        "AlarmActions": sorted(a.get("AlarmActions") or [], key=str),
        "Metric": (a.get("Namespace"), a.get("MetricName"), a.get("Statistic"), a.get("Period")) if a.get("MetricName") else None,
        "Metrics": sorted(((m.get("Id"), m.get("Expression"), _metric_stat(m["MetricStat"]) if m.get("MetricStat") else None)
                           for m in a.get("Metrics") or []), key=str),
    }


def check_anomaly_detection(ctx: Context) -> list[CheckResult]:
    monitors = ctx.resources("AWS::CE::AnomalyMonitor")
    subscriptions = ctx.resources("AWS::CE::AnomalySubscription")
    if not monitors and not subscriptions:
        return []
    rows: list[CheckResult] = []
    region = ctx.global_region()
    try:
        live_monitors = _ce_all(ctx, "get_anomaly_monitors", "AnomalyMonitors", region)
    except ApiError as exc:
        rows += [r for res in monitors for r in _errors(["anomaly-monitor"], str(res.prop("MonitorName")), "exists", exc, res)]
        rows += [r for res in subscriptions for r in _errors(["anomaly-subscription"], str(res.prop("SubscriptionName")), "exists", exc, res)]
        return rows
    monitor_arns: dict[str, str] = {}  # template path -> live ARN
    for res in monitors:
        name = ctx.resolve(res.prop("MonitorName"), res)
        want = {k: ctx.resolve(res.prop(k), res) for k in ("MonitorType", "MonitorDimension")}
        expected = " ".join(str(v) for v in want.values() if v)
        match = next((m for m in live_monitors if m.get("MonitorName") == name), None)
        if match is None:
            rows.append(_row("anomaly-monitor", str(name), expected, "not found", MISSING, "", res))
            continue
        monitor_arns[res.path] = match["MonitorArn"]
        got = {k: match.get(k) for k in want}
        diff = [k for k in want if want[k] is not None and want[k] != got[k]]
        spec = res.prop("MonitorSpecification")
        if spec is not None and canonical(parse_json(spec)) != canonical(match.get("MonitorSpecification") or {}):
            diff.append("MonitorSpecification")
        rows.append(_row("anomaly-monitor", str(name), expected, " ".join(str(v) for v in got.values() if v),
                         DRIFT if diff else PASS, "; ".join(f"{k}: expected {want.get(k)}, live {got.get(k)}" for k in diff), res))
    if not subscriptions:
        return rows
    try:
        live_subs = _ce_all(ctx, "get_anomaly_subscriptions", "AnomalySubscriptions", region)
    except ApiError as exc:
        return rows + [r for res in subscriptions for r in _errors(["anomaly-subscription"], str(res.prop("SubscriptionName")), "exists", exc, res)]
    for res in subscriptions:
        name = ctx.resolve(res.prop("SubscriptionName"), res)
        want_monitors = []
        for ref in res.prop("MonitorArnList") or []:
            target = ref.get("Fn::GetAtt", [None])[0] if isinstance(ref, dict) else None
            target_res = res.stack.resource(target) if target else None
            want_monitors.append(monitor_arns.get(target_res.path) if target_res else ctx.resolve(ref, res))
        want = {
            "Frequency": ctx.resolve(res.prop("Frequency"), res),
            "Subscribers": sorted({(s.get("Type"), s.get("Address")) for s in ctx.resolve(res.prop("Subscribers") or [], res)}, key=str),
            "ThresholdExpression": canonical(parse_json(ctx.resolve(res.prop("ThresholdExpression"), res))) if res.prop("ThresholdExpression") else None,
            "MonitorArnList": sorted(str(m) for m in want_monitors),
        }
        expected = f"{want['Frequency']} to {summarize(_sub(s) for s in want['Subscribers'])}"
        match = next((s for s in live_subs if s.get("SubscriptionName") == name), None)
        if match is None:
            rows.append(_row("anomaly-subscription", str(name), expected, "not found", MISSING, "", res))
            continue
        if None in want_monitors or unresolved_in(list(want.values())):
            rows += _unresolvable(["anomaly-subscription"], str(name), [*want_monitors, *want.values()], res)
            continue
        got = {
            "Frequency": match.get("Frequency"),
            "Subscribers": sorted({(s.get("Type"), s.get("Address")) for s in match.get("Subscribers") or []}, key=str),
            "ThresholdExpression": canonical(match.get("ThresholdExpression")) if match.get("ThresholdExpression") else None,
            "MonitorArnList": sorted(match.get("MonitorArnList") or []),
        }
        diff = [k for k in want if want[k] != got[k]]
        rows.append(_row("anomaly-subscription", str(name), expected, f"{got['Frequency']} to {summarize(_sub(s) for s in got['Subscribers'])}",
                         DRIFT if diff else PASS, "\n".join(f"{k}: expected {want[k]}, live {got[k]}" for k in diff), res))
    return rows


def _ce_all(ctx: Context, operation: str, key: str, region: str) -> list[dict]:
    items: list[dict] = []
    params: dict[str, Any] = {}
    while True:
        page = ctx.live.call("ce", operation, region=region, **params)
        items.extend(page.get(key) or [])
        token = page.get("NextPageToken")
        if not token:
            return items
        params = {"NextPageToken": token}


# --------------------------------------------------------------------------------------------------
# EKS node groups (self-hosting)
# --------------------------------------------------------------------------------------------------

_CAPACITY = {"capacity-block": "CAPACITY_BLOCK", "on-demand": "ON_DEMAND"}


def check_nodegroups(ctx: Context) -> list[CheckResult]:
    rows: list[CheckResult] = []
    gpu_type = ctx.self_hosting.instance_type if ctx.self_hosting is not None and ctx.self_hosting.enabled else None
    gpu_found = False
    for res in ctx.resources("AWS::EKS::Nodegroup"):
        region = ctx.region_of(res.stack)
        scaling = res.prop("ScalingConfig") or {}
        want_types = sorted(ctx.resolve(res.prop("InstanceTypes") or [], res)) or _launch_template_types(ctx, res)
        is_gpu = gpu_type is not None and gpu_type in want_types
        gpu_found = gpu_found or is_gpu
        want = {
            "capacityType": res.prop("CapacityType", "ON_DEMAND"),
            "instanceTypes": want_types,
            "minSize": scaling.get("MinSize"),
            "maxSize": scaling.get("MaxSize"),
        }
        if is_gpu:
            want["capacityType"] = _CAPACITY.get(ctx.self_hosting.capacity, want["capacityType"])
            want["maxSize"] = ctx.self_hosting.max_size
        expected = f"{want['capacityType']} {summarize(want['instanceTypes'])} min {want['minSize']} max {want['maxSize']}"
        cluster = ctx.resolve(res.prop("ClusterName"), res)
        if isinstance(cluster, Unresolved):
            rows += _unresolvable(["eks-nodegroup"], res.logical_id, cluster, res)
            continue
        try:
            live, how = _find_nodegroup(ctx, res, region, cluster)
        except ApiError as exc:
            rows += _errors(["eks-nodegroup"], f"{cluster}/{res.logical_id}", expected, exc, res)
            continue
        if isinstance(live, Unresolved):
            rows += _unresolvable(["eks-nodegroup"], f"{cluster}/{res.logical_id}", live, res)
            continue
        if live is None:
            rows.append(_row("eks-nodegroup", f"{cluster}/{res.prop('NodegroupName') or res.logical_id}", expected,
                             "not found", MISSING, how, res))
            continue
        label = f"{cluster}/{live['nodegroupName']}"
        live_scaling = live.get("scalingConfig") or {}
        # An instance type in the launch template wins over the node group's list (which EKS may fill by default).
        got_types = _live_template_types(ctx, region, live.get("launchTemplate") or {}) or sorted(live.get("instanceTypes") or [])
        got = {
            "capacityType": live.get("capacityType", "ON_DEMAND"),
            "instanceTypes": got_types,
            "minSize": live_scaling.get("minSize"),
            "maxSize": live_scaling.get("maxSize"),
        }
        diff = [k for k in want if want[k] is not None and want[k] != got[k] and not (k == "instanceTypes" and not want[k])]
        actual = (f"{got['capacityType']} {summarize(got['instanceTypes'])} min {got['minSize']} max {got['maxSize']} "
                  f"(desired {live_scaling.get('desiredSize')}, {live.get('status')})")
        detail = "\n".join(f"{k}: expected {want[k]}, live {got[k]}" for k in diff)
        rows.append(_row("eks-nodegroup", label, expected, actual, DRIFT if diff else PASS,
                         detail or (f"found {how}" if how else ""), res))
    if gpu_type is not None and not gpu_found:
        rows.append(_row("eks-gpu-nodegroup", f"self_hosting ({gpu_type})", "a node group in the assembly",
                         "none synthesized", ERROR,
                         "self_hosting.enabled is true in the configuration, but the assembly holds no AWS::EKS::Nodegroup "
                         f"with instance type {gpu_type}: synthesize with the self-hosting stack, then verify again"))
    return rows


def _find_nodegroup(ctx: Context, res: Resource, region: str, cluster: str) -> tuple[dict | None | Unresolved, str]:
    """The live node group: by its name in the template, else CloudFormation's record, else (generated name,
    no record reachable) the one node group of the cluster whose CloudFormation tags or labels match."""
    named = ctx.resolve(res.prop("NodegroupName"), res) if res.prop("NodegroupName") is not None else None
    how = "by name in the template" if named else ""
    if named is None:
        physical = ctx.resolver.cloudformation_physical_id(res)
        if isinstance(physical, str):
            named, how = physical.rsplit("/", 1)[-1], "by CloudFormation DescribeStackResource"
    if isinstance(named, str):
        try:
            return ctx.live.call("eks", "describe_nodegroup", region=region, clusterName=cluster, nodegroupName=named)["nodegroup"], how
        except ClientError as exc:
            if not _not_found(exc, "ResourceNotFoundException"):
                raise
            return None, f"no node group {named!r} in cluster {cluster}"
    try:
        names = ctx.live.paginate("eks", "list_nodegroups", "nodegroups", region=region, clusterName=cluster)
    except ClientError as exc:
        if not _not_found(exc, "ResourceNotFoundException"):
            raise
        return None, f"cluster {cluster} not found"
    labels = ctx.resolve(res.prop("Labels") or {}, res)
    candidates = []
    for name in names:
        group = ctx.live.call("eks", "describe_nodegroup", region=region, clusterName=cluster, nodegroupName=name)["nodegroup"]
        tags = group.get("tags") or {}
        if (tags.get("aws:cloudformation:logical-id") == res.logical_id
                and tags.get("aws:cloudformation:stack-name") == ctx.resolver.stack_name(res.stack)):
            return group, "by its aws:cloudformation:* tags"
        if labels and all((group.get("labels") or {}).get(k) == v for k, v in labels.items()):
            candidates.append(group)
    if len(candidates) == 1:
        return candidates[0], f"by its labels {', '.join(f'{k}={v}' for k, v in sorted(labels.items()))}"
    if not labels:
        return Unresolved(f"{res.path}: generated node group name, no CloudFormation record and no labels to match"), ""
    return None, f"no single node group of {cluster} carries the labels {labels}"


def _launch_template_types(ctx: Context, res: Resource) -> list[str]:
    ref = res.prop("LaunchTemplate.Id") or res.prop("LaunchTemplate.Name")
    if isinstance(ref, dict) and "Ref" in ref:
        lt = res.stack.resource(ref["Ref"])
        if lt is not None:
            t = ctx.resolve(lt.prop("LaunchTemplateData.InstanceType"), lt)
            return [t] if isinstance(t, str) else []
    return []


def _live_template_types(ctx: Context, region: str, template: dict) -> list[str]:
    if not template.get("id") and not template.get("name"):
        return []
    params: dict[str, Any] = {"Versions": [str(template.get("version") or "$Default")]}
    params["LaunchTemplateId" if template.get("id") else "LaunchTemplateName"] = template.get("id") or template.get("name")
    try:
        versions = ctx.live.call("ec2", "describe_launch_template_versions", region=region, **params).get("LaunchTemplateVersions") or []
    except ClientError:
        return []
    types = {(v.get("LaunchTemplateData") or {}).get("InstanceType") for v in versions} - {None}
    return sorted(types)


# --------------------------------------------------------------------------------------------------
# StackSets (member baseline roll-out), from the administrator account
# --------------------------------------------------------------------------------------------------

def check_stack_sets(ctx: Context) -> list[CheckResult]:
    """The StackSet exists and is ACTIVE; its instances are CURRENT, and every account the template names
    explicitly (per-account parameter overrides) has an instance in each Region of its group.  What a member
    account holds is checked with ``verify --stackset-member`` in that account."""
    rows: list[CheckResult] = []
    for res in ctx.resources("AWS::CloudFormation::StackSet"):
        region = ctx.region_of(res.stack)
        name = ctx.resolve(res.prop("StackSetName"), res)
        if isinstance(name, Unresolved):
            rows += _unresolvable(["stackset"], res.logical_id, name, res)
            continue
        call_as = {"CallAs": res.prop("CallAs")} if res.prop("CallAs") else {}
        expected_accounts = sorted({
            (account, r)
            for group in res.prop("StackInstancesGroup") or []
            if (group.get("DeploymentTargets") or {}).get("AccountFilterType") in (None, "INTERSECTION")
            for account in (group.get("DeploymentTargets") or {}).get("Accounts") or []
            for r in group.get("Regions") or []
        })
        try:
            stack_set = ctx.live.call("cloudformation", "describe_stack_set", region=region, StackSetName=name, **call_as)["StackSet"]
        except ApiError as exc:
            rows += _errors(["stackset", "stackset-instances"], name, "ACTIVE", exc, res)
            continue
        except ClientError as exc:
            if aws.error_code(exc) not in ("StackSetNotFoundException",) and not _not_found(exc):
                raise
            rows.append(_row("stackset", name, "ACTIVE", "not found", MISSING, "", res))
            rows.append(_row("stackset-instances", name, f"{len(expected_accounts)} named account instance(s) CURRENT",
                             "stack set not found", MISSING, "", res))
            continue
        status = stack_set.get("Status", "?")
        rows.append(_row("stackset", name, "ACTIVE", status, PASS if status == "ACTIVE" else DRIFT, "", res))
        try:
            instances = ctx.live.paginate("cloudformation", "list_stack_instances", "Summaries", region=region,
                                          StackSetName=name, **call_as)
        except ApiError as exc:
            rows += _errors(["stackset-instances"], name, "instances CURRENT", exc, res)
            continue
        states: dict[str, int] = {}
        bad = []
        for i in instances:
            state = (i.get("StackInstanceStatus") or {}).get("DetailedStatus") or i.get("Status", "?")
            state = "CURRENT" if i.get("Status") == "CURRENT" else state
            states[state] = states.get(state, 0) + 1
            if i.get("Status") != "CURRENT":
                bad.append(f"{i.get('Account')}/{i.get('Region')}: {i.get('Status')} {i.get('StatusReason') or ''}".strip())
        have = {(i.get("Account"), i.get("Region")) for i in instances}
        missing = [f"{a}/{r}" for a, r in expected_accounts if (a, r) not in have]
        expected = f"all CURRENT, incl. {len(expected_accounts)} named account instance(s)"
        actual = ", ".join(f"{n} {k}" for k, n in sorted(states.items())) or "no instances"
        status = PASS if instances and not bad and not missing else (MISSING if not instances or missing else DRIFT)
        detail = "\n".join(([f"missing: {summarize(missing, limit=20)}"] if missing else []) + bad[:20])
        rows.append(_row("stackset-instances", name, expected, actual, status, detail, res))
    return rows


# --------------------------------------------------------------------------------------------------

CHECK_FAMILIES: tuple[tuple[str, Callable[[Context], list[CheckResult]]], ...] = (
    ("scp", check_scps),
    ("vpc-endpoint", check_endpoints),
    ("kms", check_keys),
    ("invocation-logging", check_invocation_logging),
    ("log-group", check_log_groups),
    ("inference-profile", check_profiles),
    ("sns", check_topics),
    ("budget", check_budgets),
    ("alarm", check_alarms),
    ("anomaly", check_anomaly_detection),
    ("eks", check_nodegroups),
    ("stackset", check_stack_sets),
)


def run_checks(ctx: Context, families: Iterable[str] | None = None) -> list[CheckResult]:
    rows = check_account(ctx)
    if rows and rows[0].status is DRIFT:
        return rows  # wrong account: every other answer would be about someone else's resources
    wanted = set(families) if families is not None else None
    for family, check in CHECK_FAMILIES:
        if wanted is not None and family not in wanted:
            continue
        try:
            rows += check(ctx)
        except ApiError as exc:  # a call outside the per-item handling
            rows += _errors([family], "(all)", "checked", exc, None)
        except ClientError as exc:  # an answer no check expected (throttling after retries, validation, ...)
            rows.append(_row(family, "(all)", "checked", f"ERROR: {aws.error_code(exc)}", ERROR, str(exc)))
        except LandingZoneError:  # usage errors (e.g. an unknown --management-profile): exit 2
            raise
        except Exception as exc:  # never let one family's surprise hide the others, never count it as a pass
            rows.append(_row(family, "(all)", "checked", f"ERROR: {type(exc).__name__}", ERROR,
                             f"internal error while checking {family}: {type(exc).__name__}: {exc}"))
    return rows
