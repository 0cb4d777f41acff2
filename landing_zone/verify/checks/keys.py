"""KMS keys: each ``AWS::KMS::Key`` exists and is Enabled (found by its alias, else by CloudFormation's
physical ID), rotation is as synthesized, and the key policy is the synthesized document; it also records each
key's alias for readable rows of later families, and gives them ``_key_arn`` to compare configured keys.  Calls
kms DescribeKey, GetKeyRotationStatus and GetKeyPolicy (and CloudFormation DescribeStackResource, through the
resolver, for a key without an alias).
"""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from landing_zone import aws
from landing_zone.verify.checks._common import (
    DRIFT,
    MISSING,
    PASS,
    Context,
    _errors,
    _not_found,
    _policy_row,
    _row,
    _unresolvable,
)
from landing_zone.verify.compare import Unresolved, as_bool, unresolved_in
from landing_zone.verify.live import ApiError
from landing_zone.verify.report import CheckResult


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
            rows.append(
                _row(
                    "kms-key",
                    label,
                    "Enabled",
                    "not found",
                    MISSING,
                    f"kms:DescribeKey {key_id}: {aws.error_code(exc)}",
                    res,
                )
            )
            rows += [_row(c, label, "-", "key not found", MISSING, "", res) for c in checks[1:]]
            continue
        ctx.key_labels[meta["Arn"]] = label
        state = meta.get("KeyState", "?")
        rows.append(
            _row(
                "kms-key",
                label,
                "Enabled",
                f"{state} ({meta['KeyId']})",
                PASS if state == "Enabled" else DRIFT,
                "",
                res,
            )
        )
        want_rotation = bool(as_bool(res.prop("EnableKeyRotation", False)))
        try:
            got_rotation = bool(
                ctx.live.call("kms", "get_key_rotation_status", region=region, KeyId=meta["KeyId"])[
                    "KeyRotationEnabled"
                ]
            )
            rows.append(
                _row(
                    "kms-rotation",
                    label,
                    "enabled" if want_rotation else "disabled",
                    "enabled" if got_rotation else "disabled",
                    PASS if want_rotation == got_rotation else DRIFT,
                    "",
                    res,
                )
            )
        except ApiError as exc:
            rows += _errors(["kms-rotation"], label, "enabled" if want_rotation else "disabled", exc, res)
        expected_policy = ctx.resolve(res.prop("KeyPolicy"), res)
        if expected_policy is None:
            continue
        if unresolved_in(expected_policy):
            rows += _unresolvable(["kms-policy"], label, expected_policy, res)
            continue
        try:
            policy = ctx.live.call("kms", "get_key_policy", region=region, KeyId=meta["KeyId"], PolicyName="default")[
                "Policy"
            ]
            rows.append(_policy_row("kms-policy", label, expected_policy, policy, res))
        except ApiError as exc:
            rows += _errors(["kms-policy"], label, "as synthesized", exc, res)
    return rows


def _key_arn(ctx: Context, region: str, key: Any) -> Any:
    """A live key ARN for an alias / key ID / ARN (as APIs report configured keys); the key itself when KMS does not
    know it.  Raises :class:`~landing_zone.verify.live.ApiError` when KMS could not be asked."""
    if not isinstance(key, str) or not key:
        return key
    if key.startswith("arn:") and ":key/" in key:
        return key
    try:
        return ctx.live.call("kms", "describe_key", region=region, KeyId=key)["KeyMetadata"]["Arn"]
    except ClientError:
        return key
