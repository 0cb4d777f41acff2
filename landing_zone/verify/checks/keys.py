"""KMS keys: each ``AWS::KMS::Key`` exists and is Enabled (found by CloudFormation's physical ID, by its alias
only when the stack cannot be asked), rotation is as synthesized, the key policy is the synthesized document, and
each of its ``AWS::KMS::Alias`` es points at it (``kms-alias``: a moved alias is one DRIFT row, and every other
row keeps comparing with the key the stack created).  It also records each key's alias for readable rows of later
families, and gives them :func:`key_arn` to compare configured keys.  Calls kms DescribeKey (key and alias),
GetKeyRotationStatus and GetKeyPolicy, and CloudFormation ListStackResources/DescribeStacks through the
resolver.
"""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from landing_zone import aws
from landing_zone.assembly import Resource
from landing_zone.verify.checks.common import (
    DRIFT,
    MISSING,
    PASS,
    Context,
    error_rows,
    is_not_found,
    make_row,
    policy_row,
    unresolvable_rows,
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
        key_id = ctx.resolver.kms_key_id(res)
        if isinstance(key_id, Unresolved):
            rows += unresolvable_rows([*checks, *(["kms-alias"] if aliases else [])], label, key_id, res)
            continue
        try:
            meta = ctx.live.call(
                "kms", "describe_key", region=region, management=ctx.management_of(res.stack), KeyId=key_id
            )["KeyMetadata"]
        except ApiError as exc:
            rows += error_rows([*checks, *(["kms-alias"] if aliases else [])], label, "exists", exc, res)
            continue
        except ClientError as exc:
            if not is_not_found(exc):
                raise
            rows.append(
                make_row(
                    "kms-key",
                    label,
                    "Enabled",
                    "not found",
                    MISSING,
                    f"kms:DescribeKey {key_id}: {aws.error_code(exc)}",
                    res,
                )
            )
            rows += [make_row(c, label, "-", "key not found", MISSING, "", res) for c in checks[1:]]
            rows += [make_row("kms-alias", a, "-", "key not found", MISSING, "", res) for a in aliases]
            continue
        ctx.key_labels[meta["Arn"]] = label
        state = meta.get("KeyState", "?")
        rows.append(
            make_row(
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
                ctx.live.call(
                    "kms",
                    "get_key_rotation_status",
                    region=region,
                    management=ctx.management_of(res.stack),
                    KeyId=meta["KeyId"],
                )["KeyRotationEnabled"]
            )
            rows.append(
                make_row(
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
            rows += error_rows(["kms-rotation"], label, "enabled" if want_rotation else "disabled", exc, res)
        rows += _check_aliases(ctx, res, aliases, meta, region)
        expected_policy = ctx.resolve(res.prop("KeyPolicy"), res)
        if expected_policy is None:
            continue
        if unresolved_in(expected_policy):
            rows += unresolvable_rows(["kms-policy"], label, expected_policy, res)
            continue
        try:
            policy = ctx.live.call(
                "kms",
                "get_key_policy",
                region=region,
                management=ctx.management_of(res.stack),
                KeyId=meta["KeyId"],
                PolicyName="default",
            )["Policy"]
            rows.append(policy_row("kms-policy", label, expected_policy, policy, res))
        except ApiError as exc:
            rows += error_rows(["kms-policy"], label, "as synthesized", exc, res)
    return rows


def _check_aliases(
    ctx: Context, res: Resource, aliases: list[str], meta: dict[str, Any], region: str
) -> list[CheckResult]:
    """Each synthesized alias of the key points at the key the stack created (``kms-alias``): a moved alias is one
    DRIFT row here, while the other rows keep comparing with the stack's key."""
    rows: list[CheckResult] = []
    key_id = str(meta["KeyId"])
    for alias in aliases:
        if ctx.resolver.found_by_alias(res):
            note = "the key was found by this alias: CloudFormation has no record of it to compare with"
            rows.append(make_row("kms-alias", alias, f"-> {key_id}", f"-> {key_id}", PASS, note, res))
            continue
        try:
            target = ctx.live.call(
                "kms", "describe_key", region=region, management=ctx.management_of(res.stack), KeyId=alias
            )["KeyMetadata"]
        except ApiError as exc:
            rows += error_rows(["kms-alias"], alias, f"-> {key_id}", exc, res)
            continue
        except ClientError as exc:
            if not is_not_found(exc):
                raise
            rows.append(
                make_row(
                    "kms-alias",
                    alias,
                    f"-> {key_id}",
                    "not found",
                    MISSING,
                    f"Remediate: aws kms create-alias --alias-name {alias} --target-key-id {key_id} --region {region}",
                    res,
                )
            )
            continue
        got = str(target.get("KeyId"))
        if got == key_id:
            rows.append(make_row("kms-alias", alias, f"-> {key_id}", f"-> {got}", PASS, "", res))
            continue
        rows.append(
            make_row(
                "kms-alias",
                alias,
                f"-> {key_id}",
                f"-> {got}",
                DRIFT,
                f"{alias} points at key {got}, not at the key stack {res.stack.name} created ({key_id}): whatever "
                f"is configured with the alias now uses the other key.  The other checks compare with {key_id}.  "
                f"Remediate: aws kms update-alias --alias-name {alias} --target-key-id {key_id} --region {region}",
                res,
            )
        )
    return rows


def key_arn(ctx: Context, region: str, key: Any) -> Any:
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
