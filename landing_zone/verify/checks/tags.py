"""Tags: every taggable resource of the assembly that verify can read the tags of carries the synthesized tags
(``tags``), above all ``landing-zone=<name>``, the tag the tamper-deny SCPs key on: a resource that lost it is
no longer protected by them.  Extra live tags are fine; a synthesized tag removed or changed is DRIFT, with the
command that puts it back.

Covered types: ``AWS::EC2::VPC``, ``Subnet``, ``RouteTable``, ``SecurityGroup``, ``VPCEndpoint`` (ec2
DescribeTags, once per account and Region for all of them), ``AWS::KMS::Key`` (kms ListResourceTags),
``AWS::S3::Bucket`` (s3 GetBucketTagging), ``AWS::IAM::Role`` (the ``Tags`` of iam GetRole, asked once per role with
the ``iam`` family), ``AWS::Logs::LogGroup`` (logs ListTagsLogGroup) and ``AWS::SNS::Topic`` (sns
ListTagsForResource).  Physical IDs come from the resolver (CloudFormation first).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from botocore.exceptions import ClientError

from landing_zone.assembly import Resource
from landing_zone.verify.checks.common import (
    DRIFT,
    MISSING,
    PASS,
    Context,
    chunks,
    error_rows,
    is_not_found,
    make_row,
    tag_map,
    unresolvable_rows,
)
from landing_zone.verify.compare import Unresolved, unresolved_in
from landing_zone.verify.live import ApiError
from landing_zone.verify.report import CheckResult

__all__ = ["TAGGED_TYPES", "check_tags"]

EC2_TYPES = (
    "AWS::EC2::VPC",
    "AWS::EC2::Subnet",
    "AWS::EC2::RouteTable",
    "AWS::EC2::SecurityGroup",
    "AWS::EC2::VPCEndpoint",
)
TAGGED_TYPES = (
    *EC2_TYPES,
    "AWS::KMS::Key",
    "AWS::S3::Bucket",
    "AWS::IAM::Role",
    "AWS::Logs::LogGroup",
    "AWS::SNS::Topic",
)


def check_tags(ctx: Context) -> list[CheckResult]:
    rows: list[CheckResult] = []
    for res in ctx.resources(*TAGGED_TYPES):
        tags = ctx.resolve(res.prop("Tags") or [], res)
        if unresolved_in(tags):
            rows += unresolvable_rows(["tags"], res.logical_id, tags, res)
            continue
        want = _wanted(tags)
        if not want:
            continue
        rows.append(_check_one(ctx, res, want))
    return rows


def _wanted(tags: Any) -> dict[str, str]:
    """The synthesized tags verify compares (not the ``aws:`` ones CloudFormation sets)."""
    return {k: v for k, v in tag_map(tags).items() if not k.startswith("aws:")}


def _check_one(ctx: Context, res: Resource, want: dict[str, str]) -> CheckResult:
    region = ctx.region_of(res.stack)
    if res.type == "AWS::KMS::Key":
        key = ctx.resolver.kms_key(res)
        physical: Any = key["KeyId"] if isinstance(key, dict) else key
    elif res.type in ("AWS::SNS::Topic",):
        physical = ctx.resolver.ref_of(res)
    else:
        physical = ctx.resolver.physical_id(res)
    if isinstance(physical, Unresolved):
        return unresolvable_rows(["tags"], res.logical_id, physical, res)[0]
    label = f"{physical} ({res.type.rsplit('::', 1)[-1]})"
    reader, fix = _READERS[res.type]
    try:
        got = reader(ctx, res, str(physical), region)
    except ApiError as exc:
        return error_rows(["tags"], label, "synthesized tags", exc, res)[0]
    except ClientError as exc:
        if not is_not_found(exc, "NoSuchBucket", "NoSuchEntity"):
            raise
        return make_row("tags", label, "synthesized tags", "resource not found", MISSING, "", res)
    expected = ", ".join(f"{k}={v}" for k, v in sorted(want.items()))
    wrong = {k: v for k, v in want.items() if got.get(k) != v}
    if not wrong:
        lz = f"landing-zone={want['landing-zone']}" if "landing-zone" in want else f"{len(want)} tag(s)"
        return make_row("tags", label, expected, f"{lz} and the other synthesized tags", PASS, "", res)
    actual = ", ".join(f"{k}={got[k]}" if k in got else f"no {k}" for k in sorted(wrong))
    why = (
        "the landing-zone tag is what the tamper-deny SCPs key on: without it this resource is not protected by them. "
        if "landing-zone" in wrong
        else ""
    )
    return make_row("tags", label, expected, actual, DRIFT, f"{why}Remediate: {fix(str(physical), wrong, region)}", res)


def _ec2_tags(ctx: Context, res: Resource, physical: str, region: str) -> dict[str, str]:
    """One resource's tags from ec2 DescribeTags of every EC2 resource this family checks in the same account and
    Region, asked once per run (a resource DescribeTags does not list has no tags, as when asked alone)."""
    management = ctx.management_of(res.stack)
    listed = ctx.collect(("ec2:DescribeTags", management, region), partial(_ec2_tags_of, ctx, management, region))
    return listed.get(physical, {})


def _ec2_tags_of(ctx: Context, management: bool, region: str) -> dict[str, dict[str, str]]:
    """Resource ID -> tags, for the EC2 resources with synthesized tags in this account and Region (DescribeTags,
    up to 200 IDs a call)."""
    ids: list[str] = []
    for other in ctx.resources(*EC2_TYPES):
        if ctx.management_of(other.stack) != management or ctx.region_of(other.stack) != region:
            continue
        tags = ctx.resolve(other.prop("Tags") or [], other)
        physical = ctx.resolver.physical_id(other) if not unresolved_in(tags) and _wanted(tags) else None
        if isinstance(physical, str):
            ids.append(physical)
    ids = sorted(set(ids))
    found: dict[str, dict[str, str]] = {}
    for batch in chunks(ids, 200):
        for tag in ctx.live.paginate(
            "ec2",
            "describe_tags",
            "Tags",
            region=region,
            management=management,
            Filters=[{"Name": "resource-id", "Values": list(batch)}],
        ):
            found.setdefault(str(tag.get("ResourceId")), {})[str(tag.get("Key"))] = str(tag.get("Value"))
    return found


def _kms_tags(ctx: Context, res: Resource, physical: str, region: str) -> dict[str, str]:
    found = ctx.live.paginate(
        "kms", "list_resource_tags", "Tags", region=region, management=ctx.management_of(res.stack), KeyId=physical
    )
    return {str(t["TagKey"]): str(t["TagValue"]) for t in found}


def _s3_tags(ctx: Context, res: Resource, physical: str, region: str) -> dict[str, str]:
    try:
        return tag_map(
            ctx.live.call(
                "s3", "get_bucket_tagging", region=region, management=ctx.management_of(res.stack), Bucket=physical
            ).get("TagSet")
        )
    except ClientError as exc:
        if (exc.response.get("Error") or {}).get("Code") == "NoSuchTagSet":
            return {}
        raise


def _iam_tags(ctx: Context, res: Resource, physical: str, region: str) -> dict[str, str]:
    return tag_map(ctx.role(physical, management=ctx.management_of(res.stack)).get("Tags"))


def _logs_tags(ctx: Context, res: Resource, physical: str, region: str) -> dict[str, str]:
    return {
        str(k): str(v)
        for k, v in (
            ctx.live.call(
                "logs",
                "list_tags_log_group",
                region=region,
                management=ctx.management_of(res.stack),
                logGroupName=physical,
            ).get("tags")
            or {}
        ).items()
    }


def _sns_tags(ctx: Context, res: Resource, physical: str, region: str) -> dict[str, str]:
    return tag_map(
        ctx.live.call(
            "sns",
            "list_tags_for_resource",
            region=region,
            management=ctx.management_of(res.stack),
            ResourceArn=physical,
        ).get("Tags")
    )


def _pairs(tags: dict[str, str], key: str = "Key", value: str = "Value") -> str:
    return " ".join(f"{key}={k},{value}={v}" for k, v in sorted(tags.items()))


_Reader = Callable[[Context, Resource, str, str], dict[str, str]]
_Fix = Callable[[str, dict[str, str], str], str]
_READERS: dict[str, tuple[_Reader, _Fix]] = {
    **{
        t: (_ec2_tags, lambda p, w, r: f"aws ec2 create-tags --resources {p} --tags {_pairs(w)} --region {r}")
        for t in EC2_TYPES
    },
    "AWS::KMS::Key": (
        _kms_tags,
        lambda p, w, r: f"aws kms tag-resource --key-id {p} --tags {_pairs(w, 'TagKey', 'TagValue')} --region {r}",
    ),
    "AWS::S3::Bucket": (
        _s3_tags,
        lambda p, w, r: (
            f"restore the tags of s3://{p} (put-bucket-tagging replaces the whole set: include {_pairs(w)} in it)"
        ),
    ),
    "AWS::IAM::Role": (_iam_tags, lambda p, w, r: f"aws iam tag-role --role-name {p} --tags {_pairs(w)}"),
    "AWS::Logs::LogGroup": (
        _logs_tags,
        lambda p, w, r: (
            f"aws logs tag-log-group --log-group-name {p} --tags "
            + ",".join(f"{k}={v}" for k, v in sorted(w.items()))
            + f" --region {r}"
        ),
    ),
    "AWS::SNS::Topic": (
        _sns_tags,
        lambda p, w, r: f"aws sns tag-resource --resource-arn {p} --tags {_pairs(w)} --region {r}",
    ),
}
