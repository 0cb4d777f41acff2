"""S3 buckets (the invocation-log bucket and its access-log bucket): each ``AWS::S3::Bucket`` exists with the
synthesized default encryption (SSE-KMS with the logs key and a bucket key for the invocation logs: the key is
compared as an ARN), versioning, public access block, object ownership (``BucketOwnerEnforced``), bucket policy
(its ``AWS::S3::BucketPolicy``, compared as IAM reads it; a policy the template does not set is DRIFT), lifecycle
rules and server access logging.  Settings the template leaves out (encryption, public access block, ownership,
lifecycle, access logging) are not checked: S3's defaults apply.  Calls s3 HeadBucket, GetBucketEncryption,
GetBucketVersioning, GetPublicAccessBlock, GetBucketOwnershipControls, GetBucketPolicy,
GetBucketLifecycleConfiguration and GetBucketLogging, and kms DescribeKey to compare a key given as alias or ID.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from botocore.exceptions import ClientError

from landing_zone import aws
from landing_zone.assembly import Resource
from landing_zone.policies.common import canonical
from landing_zone.verify.checks.common import (
    DRIFT,
    ERROR,
    MISSING,
    PASS,
    Context,
    guarded,
    make_row,
    policy_row,
    unresolvable_rows,
)
from landing_zone.verify.checks.keys import key_arn
from landing_zone.verify.compare import Unresolved, as_bool, document_diff, unresolved_in
from landing_zone.verify.report import CheckResult

CHECKS = (
    "s3-bucket",
    "s3-encryption",
    "s3-versioning",
    "s3-public-access-block",
    "s3-ownership",
    "s3-bucket-policy",
    "s3-lifecycle",
    "s3-access-logging",
)
_PAB = ("BlockPublicAcls", "BlockPublicPolicy", "IgnorePublicAcls", "RestrictPublicBuckets")


def check_buckets(ctx: Context) -> list[CheckResult]:
    rows: list[CheckResult] = []
    policies = ctx.resources("AWS::S3::BucketPolicy")
    for res in ctx.resources("AWS::S3::Bucket"):
        name = ctx.resolver.physical_id(res)
        if isinstance(name, Unresolved):
            rows += unresolvable_rows(_checks_of(res), res.logical_id, name, res)
            continue
        mine = [p for p in policies if _policy_bucket(ctx, p) in (name, f"{res.stack.name}/{res.logical_id}")]
        rows += guarded(_checks_of(res), name, res, partial(_check_bucket, ctx, res, name, mine))
    return rows


def _checks_of(res: Resource) -> list[str]:
    """The checks a bucket gets: existence, versioning and bucket policy always, the rest where the template
    configures them."""
    props = {
        "s3-encryption": "BucketEncryption",
        "s3-public-access-block": "PublicAccessBlockConfiguration",
        "s3-ownership": "OwnershipControls",
        "s3-lifecycle": "LifecycleConfiguration",
        "s3-access-logging": "LoggingConfiguration",
    }
    return [c for c in CHECKS if c not in props or res.prop(props[c]) is not None]


def _policy_bucket(ctx: Context, policy: Resource) -> str | None:
    """The bucket an ``AWS::S3::BucketPolicy`` is for: a ``Ref`` in the same stack as ``<stack>/<logical id>``, else
    the resolved name."""
    ref = policy.prop("Bucket")
    if isinstance(ref, dict) and isinstance(ref.get("Ref"), str) and policy.stack.resource(ref["Ref"]) is not None:
        return f"{policy.stack.name}/{ref['Ref']}"
    name = ctx.resolve(ref, policy)
    return name if isinstance(name, str) else None


def _check_bucket(ctx: Context, res: Resource, name: str, policies: list[Resource]) -> list[CheckResult]:
    region = ctx.region_of(res.stack)
    checks = _checks_of(res)
    try:
        ctx.live.call("s3", "head_bucket", region=region, Bucket=name)
    except ClientError as exc:
        code = aws.error_code(exc) or ""
        if code in ("404", "NoSuchBucket", "NotFound"):
            return [make_row("s3-bucket", name, "exists", "not found", MISSING, "", res)] + [
                make_row(c, name, "-", "bucket not found", MISSING, "", res) for c in checks[1:]
            ]
        if code in ("403", "Forbidden"):
            return [
                make_row(
                    c,
                    name,
                    "exists",
                    "forbidden",
                    ERROR,
                    f"s3:HeadBucket {name}: 403 — the bucket exists but these credentials may not read it (another "
                    "account's bucket of that name, or a bucket policy that denies them)",
                    res,
                )
                for c in checks
            ]
        raise
    rows = [make_row("s3-bucket", name, "exists", "exists", PASS, ctx.resolver.notes.get(res.path, ""), res)]
    get = partial(_get, ctx, region, name)
    if "s3-encryption" in checks:
        rows.append(_encryption_row(ctx, res, name, region, get))
    rows.append(_versioning_row(res, name, get))
    if "s3-public-access-block" in checks:
        rows.append(_public_access_row(res, name, get))
    if "s3-ownership" in checks:
        rows.append(_ownership_row(res, name, get))
    rows.append(_policy_of(ctx, res, name, policies, get))
    if "s3-lifecycle" in checks:
        rows.append(_lifecycle_row(res, name, get))
    if "s3-access-logging" in checks:
        rows.append(_logging_row(ctx, res, name, get))
    return rows


def _get(ctx: Context, region: str, name: str, operation: str, *absent: str) -> dict[str, Any] | None:
    """``s3.<operation>(Bucket=name)``; ``None`` when S3 answers with one of the ``absent`` error codes (the
    setting is not configured)."""
    try:
        return dict(ctx.live.call("s3", operation, region=region, Bucket=name))
    except ClientError as exc:
        if aws.error_code(exc) in absent:
            return None
        raise


def _encryption_row(ctx: Context, res: Resource, name: str, region: str, get: Any) -> CheckResult:
    rules = ctx.resolve(res.prop("BucketEncryption.ServerSideEncryptionConfiguration") or [], res)
    if unresolved_in(rules):
        return unresolvable_rows(["s3-encryption"], name, rules, res)[0]
    want = rules[0] if rules else {}
    want_default = want.get("ServerSideEncryptionByDefault") or {}
    answer = get("get_bucket_encryption", "ServerSideEncryptionConfigurationNotFoundError")
    got_rules = ((answer or {}).get("ServerSideEncryptionConfiguration") or {}).get("Rules") or []
    got = got_rules[0] if got_rules else {}
    got_default = got.get("ApplyServerSideEncryptionByDefault") or {}
    want_key = key_arn(ctx, region, want_default.get("KMSMasterKeyID"))
    got_key = key_arn(ctx, region, got_default.get("KMSMasterKeyID"))

    def shown(algorithm: Any, key: Any, bucket_key: bool) -> str:
        parts = [str(algorithm or "none")]
        if key:
            parts.append(ctx.key_label(key))
        if bucket_key:
            parts.append("bucket key")
        return ", ".join(parts)

    want_bucket_key = bool(as_bool(want.get("BucketKeyEnabled", False)))
    got_bucket_key = bool(got.get("BucketKeyEnabled", False))
    ok = (
        want_default.get("SSEAlgorithm") == got_default.get("SSEAlgorithm")
        and (want_key or None) == (got_key or None)
        and want_bucket_key == got_bucket_key
    )
    return make_row(
        "s3-encryption",
        name,
        shown(want_default.get("SSEAlgorithm"), want_key, want_bucket_key),
        shown(got_default.get("SSEAlgorithm"), got_key, got_bucket_key),
        PASS if ok else DRIFT,
        "" if ok else f"expected key {want_key or '(none)'}, live {got_key or '(none)'}",
        res,
    )


def _versioning_row(res: Resource, name: str, get: Any) -> CheckResult:
    want = str(res.prop("VersioningConfiguration.Status") or "not enabled")
    got = str((get("get_bucket_versioning") or {}).get("Status") or "not enabled")
    same = want == got or (want == "not enabled" and got == "Suspended")
    return make_row("s3-versioning", name, want, got, PASS if same else DRIFT, "", res)


def _public_access_row(res: Resource, name: str, get: Any) -> CheckResult:
    want = {k: bool(as_bool(res.prop(f"PublicAccessBlockConfiguration.{k}", False))) for k in _PAB}
    answer = get("get_public_access_block", "NoSuchPublicAccessBlockConfiguration")
    config = (answer or {}).get("PublicAccessBlockConfiguration") or {}
    got = {k: bool(config.get(k, False)) for k in _PAB}
    wrong = [k for k in _PAB if want[k] != got[k]]

    def shown(flags: dict[str, bool]) -> str:
        on = [k for k in _PAB if flags[k]]
        return "all four on" if len(on) == len(_PAB) else ("none" if not on else ", ".join(on))

    return make_row(
        "s3-public-access-block",
        name,
        shown(want),
        shown(got),
        DRIFT if wrong else PASS,
        "; ".join(f"{k}: expected {want[k]}, live {got[k]}" for k in wrong),
        res,
    )


def _ownership_row(res: Resource, name: str, get: Any) -> CheckResult:
    want = [r.get("ObjectOwnership") for r in res.prop("OwnershipControls.Rules") or []]
    answer = get("get_bucket_ownership_controls", "OwnershipControlsNotFoundError")
    got = [r.get("ObjectOwnership") for r in ((answer or {}).get("OwnershipControls") or {}).get("Rules") or []]
    return make_row(
        "s3-ownership",
        name,
        ", ".join(map(str, want)) or "(none)",
        ", ".join(map(str, got)) or "(none)",
        PASS if sorted(map(str, want)) == sorted(map(str, got)) else DRIFT,
        "",
        res,
    )


def _policy_of(ctx: Context, res: Resource, name: str, policies: list[Resource], get: Any) -> CheckResult:
    answer = get("get_bucket_policy", "NoSuchBucketPolicy")
    live = (answer or {}).get("Policy")
    if not policies:
        return make_row(
            "s3-bucket-policy",
            name,
            "(none)",
            "(none)" if not live else "a bucket policy",
            PASS if not live else DRIFT,
            "" if not live else f"the template sets no bucket policy; live: {live}",
            res,
        )
    owner = policies[0]
    expected = ctx.resolve(owner.prop("PolicyDocument"), owner)
    if unresolved_in(expected):
        return unresolvable_rows(["s3-bucket-policy"], name, expected, owner)[0]
    return policy_row("s3-bucket-policy", name, expected, live, owner)


def _lifecycle_rule(rule: dict[str, Any], *, template: bool) -> dict[str, Any]:
    """One lifecycle rule in a common shape: the template's (``ExpirationInDays``, ``Transitions[].TransitionInDays``
    ...) or the API's (``Expiration.Days``, ``Transitions[].Days`` ...).  The rule ID is kept only where the template
    names one (S3 generates IDs)."""
    shape = _template_rule(rule) if template else _api_rule(rule)
    return {k: v for k, v in shape.items() if v not in (None, [])}


def _template_rule(rule: dict[str, Any]) -> dict[str, Any]:
    """A template lifecycle rule (``ExpirationInDays``, ``Transitions[].TransitionInDays`` ...) in the common shape."""
    transitions = list(rule.get("Transitions") or []) + ([rule["Transition"]] if rule.get("Transition") else [])
    noncurrent = list(rule.get("NoncurrentVersionTransitions") or []) + (
        [rule["NoncurrentVersionTransition"]] if rule.get("NoncurrentVersionTransition") else []
    )
    expiration = rule.get("NoncurrentVersionExpiration") or {}
    return {
        "ID": rule.get("Id"),
        "Status": rule.get("Status"),
        "Prefix": rule.get("Prefix") or "",
        "ExpirationDays": rule.get("ExpirationInDays"),
        "ExpiredObjectDeleteMarker": rule.get("ExpiredObjectDeleteMarker"),
        "Transitions": [(t.get("TransitionInDays"), t.get("StorageClass")) for t in transitions],
        "NoncurrentTransitions": [(t.get("TransitionInDays"), t.get("StorageClass")) for t in noncurrent],
        "NoncurrentExpirationDays": expiration.get("NoncurrentDays") or rule.get("NoncurrentVersionExpirationInDays"),
        "AbortDays": (rule.get("AbortIncompleteMultipartUpload") or {}).get("DaysAfterInitiation"),
    }


def _api_rule(rule: dict[str, Any]) -> dict[str, Any]:
    """An API lifecycle rule (``Expiration.Days``, ``Transitions[].Days`` ...) in the common shape."""
    filt = rule.get("Filter") or {}
    return {
        "ID": rule.get("ID"),
        "Status": rule.get("Status"),
        "Prefix": filt.get("Prefix") or (filt.get("And") or {}).get("Prefix") or rule.get("Prefix") or "",
        "ExpirationDays": (rule.get("Expiration") or {}).get("Days"),
        "ExpiredObjectDeleteMarker": (rule.get("Expiration") or {}).get("ExpiredObjectDeleteMarker"),
        "Transitions": [(t.get("Days"), t.get("StorageClass")) for t in rule.get("Transitions") or []],
        "NoncurrentTransitions": [
            (t.get("NoncurrentDays"), t.get("StorageClass")) for t in rule.get("NoncurrentVersionTransitions") or []
        ],
        "NoncurrentExpirationDays": (rule.get("NoncurrentVersionExpiration") or {}).get("NoncurrentDays"),
        "AbortDays": (rule.get("AbortIncompleteMultipartUpload") or {}).get("DaysAfterInitiation"),
    }


def _lifecycle_row(res: Resource, name: str, get: Any) -> CheckResult:
    rules = res.prop("LifecycleConfiguration.Rules") or []
    named = any(r.get("Id") for r in rules)
    want = [_lifecycle_rule(r, template=True) for r in rules]
    answer = get("get_bucket_lifecycle_configuration", "NoSuchLifecycleConfiguration")
    got = [_lifecycle_rule(r, template=False) for r in (answer or {}).get("Rules") or []]
    if not named:
        got = [{k: v for k, v in r.items() if k != "ID"} for r in got]
    ok = canonical(want) == canonical(got)

    def shown(shapes: list[dict[str, Any]]) -> str:
        return (
            "; ".join(
                f"{r.get('Status')} expire {r.get('ExpirationDays', '-')} d"
                + (f" {r['Prefix']}" if r.get("Prefix") else "")
                for r in shapes
            )
            or "(none)"
        )

    return make_row(
        "s3-lifecycle",
        name,
        f"{len(want)} rule(s): {shown(want)}",
        f"{len(got)} rule(s): {shown(got)}",
        PASS if ok else DRIFT,
        "" if ok else document_diff(want, got),
        res,
    )


def _logging_row(ctx: Context, res: Resource, name: str, get: Any) -> CheckResult:
    target = ctx.resolve(res.prop("LoggingConfiguration.DestinationBucketName"), res)
    prefix = ctx.resolve(res.prop("LoggingConfiguration.LogFilePrefix") or "", res)
    if unresolved_in([target, prefix]):
        return unresolvable_rows(["s3-access-logging"], name, [target, prefix], res)[0]
    target = target or name  # no destination: the bucket logs to itself
    enabled = (get("get_bucket_logging") or {}).get("LoggingEnabled") or {}
    expected = f"s3://{target}/{prefix}"
    actual = f"s3://{enabled.get('TargetBucket')}/{enabled.get('TargetPrefix') or ''}" if enabled else "off"
    return make_row("s3-access-logging", name, expected, actual, PASS if expected == actual else DRIFT, "", res)
