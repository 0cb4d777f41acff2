"""Application inference profiles: each ``AWS::Bedrock::ApplicationInferenceProfile`` exists, is ACTIVE and
copies the synthesized model, carries the synthesized tags, and routes only to Regions in ``compliant_regions``
(compared, when a catalog is at hand, with the destinations the catalog expects).  Calls bedrock
ListInferenceProfiles (type APPLICATION, once per Region, through the resolver), GetInferenceProfile and
ListTagsForResource.
"""

from __future__ import annotations

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
from landing_zone.verify.compare import Unresolved, unresolved_in
from landing_zone.verify.live import ApiError
from landing_zone.verify.report import CheckResult, summarize

PROFILE_PREFIXES = ("us", "eu", "apac", "jp", "au", "ca", "us-gov", "global")


def check_profiles(ctx: Context) -> list[CheckResult]:
    profiles = ctx.resources("AWS::Bedrock::ApplicationInferenceProfile")
    rows: list[CheckResult] = []
    checks = ["inference-profile", "inference-profile-tags", "inference-profile-regions"]
    for res in profiles:
        rows += _profile_rows(ctx, res, checks)
    return rows


def _profile_rows(ctx: Context, res: Resource, checks: list[str]) -> list[CheckResult]:
    """One application inference profile: its model and status, its tags, its Regions."""
    rows: list[CheckResult] = []
    region = ctx.region_of(res.stack)
    name = ctx.resolve(res.prop("InferenceProfileName"), res)
    copy_from = ctx.resolve(res.prop("ModelSource.CopyFrom"), res)
    if isinstance(name, Unresolved) or isinstance(copy_from, Unresolved):
        rows += unresolvable_rows(checks, str(res.logical_id), [name, copy_from], res)
        return rows
    model_id = _model_of(copy_from)
    expected = f"ACTIVE, model {model_id}"
    try:
        summaries = ctx.resolver.application_profiles(region)
    except ApiError as exc:
        rows += error_rows(checks, name, expected, exc, res)
        return rows
    match = next((s for s in summaries if s.get("inferenceProfileName") == name), None)
    if match is None:
        rows.append(
            make_row(
                "inference-profile",
                name,
                expected,
                "not found",
                MISSING,
                f"no application inference profile named {name!r} in {region}",
                res,
            )
        )
        rows += [make_row(c, name, "-", "profile not found", MISSING, "", res) for c in checks[1:]]
        return rows
    arn = match["inferenceProfileArn"]
    try:
        profile = ctx.live.call("bedrock", "get_inference_profile", region=region, inferenceProfileIdentifier=arn)
        live_tags = tag_map(
            ctx.live.call("bedrock", "list_tags_for_resource", region=region, resourceARN=arn).get("tags")
        )
    except ApiError as exc:
        rows += error_rows(checks, name, expected, exc, res)
        return rows
    model_arns = [m.get("modelArn", "") for m in profile.get("models") or []]
    live_models = sorted({_model_of(a) for a in model_arns})
    status = profile.get("status", "?")
    ok = status == "ACTIVE" and live_models == [model_id]
    rows.append(
        make_row(
            "inference-profile",
            name,
            expected,
            f"{status}, model {', '.join(live_models) or '(none)'}",
            PASS if ok else DRIFT,
            f"{arn}; copies {copy_from}",
            res,
        )
    )
    rows += _profile_tag_rows(ctx, res, name, live_tags)
    rows.append(_profile_regions(ctx, res, name, copy_from, model_arns))
    return rows


def _profile_tag_rows(ctx: Context, res: Resource, name: str, live_tags: dict[str, str]) -> list[CheckResult]:
    """The profile's synthesized tags (those not set by AWS) against the live ones."""
    resolved_tags = ctx.resolve(res.prop("Tags") or [], res)
    if unresolved_in(resolved_tags):
        return unresolvable_rows(["inference-profile-tags"], name, resolved_tags, res)
    want_tags = {k: v for k, v in tag_map(resolved_tags).items() if not k.startswith("aws:")}
    wrong = {k: live_tags.get(k) for k, v in want_tags.items() if live_tags.get(k) != v}
    return [
        make_row(
            "inference-profile-tags",
            name,
            summarize(f"{k}={v}" for k, v in sorted(want_tags.items())),
            "all present" if not wrong else summarize(f"{k}={v}" for k, v in sorted(wrong.items())),
            PASS if not wrong else DRIFT,
            "" if not wrong else "expected " + ", ".join(f"{k}={want_tags[k]}" for k in sorted(wrong)),
            res,
        )
    ]


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
        catalog_note = (
            f"the catalog expects {summarize(sorted(catalog_regions), limit=8)}; live: {summarize(regions, limit=8)} "
            "(refresh it with `python -m landing_zone discover`)"
        )
    if not regions:
        return make_row(
            "inference-profile-regions", name, expected, "no model Regions reported", DRIFT, catalog_note, res
        )
    if outside:
        return make_row(
            "inference-profile-regions",
            name,
            expected,
            f"outside: {', '.join(outside)}",
            DRIFT,
            f"{name} routes to {', '.join(outside)}, not in compliant_regions. {catalog_note}".strip(),
            res,
        )
    return make_row(
        "inference-profile-regions", name, expected, summarize(regions), PASS if allowed else ERROR, catalog_note, res
    )


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
