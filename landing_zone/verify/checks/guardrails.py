"""Bedrock guardrails.  Each ``AWS::Bedrock::Guardrail`` (the content guardrail, found by name) is READY and its
working draft holds the synthesized policies: content filters and their strengths, denied topics, word filters,
sensitive-information filters, contextual grounding, the blocked-input/-output messages and the KMS key (only what
the template sets is compared; Bedrock adds defaults).  Each ``AWS::Bedrock::GuardrailVersion`` exists, is READY and
holds the same policies (a version is a snapshot: a version taken from a weakened draft is DRIFT); the pinned
version is the one CloudFormation recorded (ListStackResources: ``<id>|<version>``), else the one account
enforcement names, else the newest.  Each ``AWS::Bedrock::EnforcedGuardrailConfiguration`` enforces that guardrail
at that version account-wide.  Calls bedrock ListGuardrails (all guardrails, then the versions of one),
GetGuardrail (draft and version) and ListEnforcedGuardrailsConfiguration.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any

from botocore.exceptions import ClientError

from landing_zone.assembly import Resource
from landing_zone.policies.common import canonical
from landing_zone.verify.checks.common import (
    DRIFT,
    ERROR,
    MISSING,
    PASS,
    Context,
    error_rows,
    guarded,
    is_not_found,
    make_row,
    unresolvable_rows,
)
from landing_zone.verify.checks.keys import key_arn
from landing_zone.verify.compare import Unresolved, short_hash, unresolved_in
from landing_zone.verify.live import ApiError
from landing_zone.verify.report import CheckResult, summarize

GUARDRAIL = "AWS::Bedrock::Guardrail"
VERSION = "AWS::Bedrock::GuardrailVersion"
ENFORCEMENT = "AWS::Bedrock::EnforcedGuardrailConfiguration"

# (template policy property, its list property, API policy key, its list key, the field that names an item)
_POLICIES = (
    ("ContentPolicyConfig", "FiltersConfig", "contentPolicy", "filters", "Type"),
    ("TopicPolicyConfig", "TopicsConfig", "topicPolicy", "topics", "Name"),
    ("WordPolicyConfig", "WordsConfig", "wordPolicy", "words", "Text"),
    ("WordPolicyConfig", "ManagedWordListsConfig", "wordPolicy", "managedWordLists", "Type"),
    ("SensitiveInformationPolicyConfig", "PiiEntitiesConfig", "sensitiveInformationPolicy", "piiEntities", "Type"),
    ("SensitiveInformationPolicyConfig", "RegexesConfig", "sensitiveInformationPolicy", "regexes", "Name"),
    ("ContextualGroundingPolicyConfig", "FiltersConfig", "contextualGroundingPolicy", "filters", "Type"),
)


class _Live:
    """What one run learned about the guardrails of a Region (listed once)."""

    def __init__(self) -> None:
        self.summaries: dict[str, list[dict[str, Any]] | ApiError] = {}
        # guardrail resource path -> its summary (id, arn, ...), None when not found; absent when not checked
        self.found: dict[str, dict[str, Any] | None] = {}
        self.pinned: dict[str, str] = {}  # version resource path -> version number
        self.enforced: dict[str, list[dict[str, Any]] | ApiError] = {}


def check_guardrails(ctx: Context) -> list[CheckResult]:
    guardrails = ctx.resources(GUARDRAIL)
    versions = ctx.resources(VERSION)
    enforcements = ctx.resources(ENFORCEMENT)
    if not guardrails and not versions and not enforcements:
        return []
    state = _Live()
    rows: list[CheckResult] = []
    for res in guardrails:
        name = ctx.resolve(res.prop("Name"), res)
        label = name if isinstance(name, str) else res.logical_id
        if isinstance(name, Unresolved):
            rows += unresolvable_rows(["guardrail"], label, name, res)
            continue
        rows += guarded(["guardrail"], label, res, partial(_check_guardrail, ctx, state, res, name))
    for res in versions:
        target = _guardrail_of(res, "GuardrailIdentifier")
        label = f"{_label(ctx, target)} version"
        rows += guarded(["guardrail-version"], label, res, partial(_check_version, ctx, state, res, target, label))
    for res in enforcements:
        target = _guardrail_of(res, "GuardrailIdentifier")
        label = f"{_label(ctx, target)} (account)"
        rows += guarded(
            ["guardrail-enforcement"], label, res, partial(_check_enforcement, ctx, state, res, target, label)
        )
    return rows


def _label(ctx: Context, target: Resource | None) -> str:
    if target is None:
        return "guardrail"
    name = ctx.resolve(target.prop("Name"), target)
    return name if isinstance(name, str) else target.logical_id


def _guardrail_of(res: Resource, prop: str) -> Resource | None:
    """The ``AWS::Bedrock::Guardrail`` (or version) a property references (``Ref``/``Fn::GetAtt`` in the stack)."""
    value = res.prop(prop)
    if isinstance(value, dict) and len(value) == 1:
        ((fn, arg),) = value.items()
        logical = arg if fn == "Ref" else (arg.split(".", 1)[0] if isinstance(arg, str) else arg[0])
        if fn in ("Ref", "Fn::GetAtt") and isinstance(logical, str):
            return res.stack.resource(logical)
    return None


def _summaries(ctx: Context, state: _Live, region: str) -> list[dict[str, Any]]:
    if region not in state.summaries:
        try:
            state.summaries[region] = ctx.live.paginate("bedrock", "list_guardrails", "guardrails", region=region)
        except ApiError as exc:
            state.summaries[region] = exc
    found = state.summaries[region]
    if isinstance(found, ApiError):
        raise found
    return found


def _lower(key: str) -> str:
    return key[:1].lower() + key[1:]


def intent(ctx: Context, res: Resource) -> dict[str, Any]:
    """The synthesized guardrail in the API's shape: per policy list, item name -> the fields the template sets."""
    props = ctx.resolve(dict(res.properties), res)
    want: dict[str, Any] = {
        "blockedInputMessaging": props.get("BlockedInputMessaging"),
        "blockedOutputsMessaging": props.get("BlockedOutputsMessaging"),
    }
    for prop, items, key, list_key, ident in _POLICIES:
        listed = (props.get(prop) or {}).get(items)
        if listed is None:
            continue
        shaped = [{_lower(k): v for k, v in item.items()} for item in listed if isinstance(item, dict)]
        want[f"{key}.{list_key}"] = {
            str(item.get(_lower(ident))): {
                **_defaults(f"{key}.{list_key}", item),
                **{k: v for k, v in item.items() if k != _lower(ident)},
            }
            for item in shaped
        }
    if props.get("KmsKeyArn"):
        want["kmsKeyArn"] = props["KmsKeyArn"]
    return want


def _defaults(name: str, item: dict[str, Any]) -> dict[str, Any]:
    """What a filter does when the template does not say: it is enabled and it blocks (a PII entity or regex acts
    with its ``action``) — so a filter switched off or set to detect only (``inputEnabled: false``, ``inputAction:
    NONE``) is DRIFT even though the template never names those fields.  A content filter of strength NONE has no
    such expectation in that direction."""
    if name == "contextualGroundingPolicy.filters":
        return {"action": "BLOCK", "enabled": True}
    out: dict[str, Any] = {}
    for direction in ("input", "output"):
        if name == "contentPolicy.filters" and str(item.get(f"{direction}Strength", "")).upper() in ("", "NONE"):
            continue
        out[f"{direction}Action"] = item.get("action", "BLOCK")
        out[f"{direction}Enabled"] = True
    return out


def _live_shape(got: dict[str, Any], want: dict[str, Any]) -> dict[str, Any]:
    """The live guardrail in the shape of :func:`intent`, keeping per item only the fields the intent names (a
    defaulted field Bedrock does not report counts as its default)."""
    shape: dict[str, Any] = {k: got.get(k) for k in ("blockedInputMessaging", "blockedOutputsMessaging")}
    for _, _, key, list_key, ident in _POLICIES:
        name = f"{key}.{list_key}"
        if name not in want:
            continue
        wanted_items = want[name]
        items: dict[str, Any] = {}
        for item in (got.get(key) or {}).get(list_key) or []:
            ident_value = str(item.get(_lower(ident)))
            fields = (
                next(iter(wanted_items.values()), {}) if ident_value not in wanted_items else wanted_items[ident_value]
            )
            defaults = _defaults(name, item)
            items[ident_value] = {k: item.get(k, defaults.get(k)) for k in fields}
        shape[name] = items
    if "kmsKeyArn" in want:
        shape["kmsKeyArn"] = got.get("kmsKeyArn")
    return shape


def _differences(ctx: Context, region: str, want: dict[str, Any], got: dict[str, Any]) -> list[str]:
    live = _live_shape(got, want)
    out = []
    for key in want:
        if key == "kmsKeyArn":
            if key_arn(ctx, region, want[key]) != key_arn(ctx, region, live.get(key)):
                out.append(f"kmsKeyArn: expected {want[key]}, live {live.get(key)}")
            continue
        expected, actual = want[key], live.get(key)
        if isinstance(expected, dict) and isinstance(actual, dict):
            for item in sorted(set(expected) | set(actual)):
                if item not in actual:
                    out.append(f"{key} {item}: missing")
                elif item not in expected:
                    out.append(f"{key} {item}: not synthesized ({actual[item]})")
                elif canonical(expected[item]) != canonical(actual[item]):
                    fields = [
                        f"{f} {actual[item].get(f)} (expected {expected[item].get(f)})"
                        for f in sorted(expected[item])
                        if canonical(expected[item].get(f)) != canonical(actual[item].get(f))
                    ]
                    out.append(f"{key} {item}: " + ", ".join(fields))
        elif canonical(expected) != canonical(actual):
            out.append(f"{key}: expected {expected!r}, live {actual!r}")
    return out


def _compare(
    ctx: Context, check: str, label: str, res: Resource, want: dict[str, Any], got: dict[str, Any], prefix: str
) -> CheckResult:
    region = ctx.region_of(res.stack)
    status = str(got.get("status", "?"))
    diff = _differences(ctx, region, want, got)
    expected = f"{prefix}READY, as synthesized ({short_hash(want)})"
    actual = f"{prefix}{status}, " + ("identical" if not diff else f"{len(diff)} difference(s)")
    reasons = "; ".join(str(r) for r in got.get("statusReasons") or [])
    detail = "\n".join(diff + ([f"status {status}: {reasons}"] if status != "READY" and reasons else []))
    return make_row(check, label, expected, actual, PASS if status == "READY" and not diff else DRIFT, detail, res)


def _check_guardrail(ctx: Context, state: _Live, res: Resource, name: str) -> list[CheckResult]:
    region = ctx.region_of(res.stack)
    want = intent(ctx, res)
    if unresolved_in(want):
        return unresolvable_rows(["guardrail"], name, list(want.values()), res)
    match = next((g for g in _summaries(ctx, state, region) if g.get("name") == name), None)
    state.found[res.path] = match
    if match is None:
        return [
            make_row(
                "guardrail",
                name,
                f"READY, as synthesized ({short_hash(want)})",
                "not found",
                MISSING,
                f"no guardrail named {name!r} in {region}",
                res,
            )
        ]
    draft = ctx.live.call("bedrock", "get_guardrail", region=region, guardrailIdentifier=match["id"])
    return [_compare(ctx, "guardrail", name, res, want, draft, "")]


def _found(
    state: _Live, target: Resource, check: str, label: str, expected: str, res: Resource
) -> dict[str, Any] | list[CheckResult]:
    """The live guardrail the version/enforcement belongs to, or the row saying why it cannot be checked."""
    if target.path not in state.found:
        why = "the guardrail itself could not be checked (see the guardrail row)"
        return [make_row(check, label, expected, "not checked", ERROR, why, res)]
    found = state.found[target.path]
    if found is None:
        return [make_row(check, label, expected, "guardrail not found", MISSING, "", res)]
    return found


def _pinned_version(
    ctx: Context, state: _Live, res: Resource, guardrail_id: str, region: str
) -> tuple[str | None, str]:
    """The version CloudFormation created for ``res``, and how it was found."""
    physical = ctx.resolver.cloudformation_physical_id(res)
    if isinstance(physical, str) and "|" in physical and physical.rsplit("|", 1)[-1].isdigit():
        return physical.rsplit("|", 1)[-1], "CloudFormation ListStackResources"
    for enforcement in ctx.resources(ENFORCEMENT):
        pins = _guardrail_of(enforcement, "GuardrailVersion")
        if pins is not None and pins.path == res.path:
            config = _enforced_for(ctx, state, region, guardrail_id)
            if config and config.get("guardrailVersion"):
                return str(config["guardrailVersion"]), "the account enforcement configuration"
    versions = ctx.live.paginate(
        "bedrock", "list_guardrails", "guardrails", region=region, guardrailIdentifier=guardrail_id
    )
    numbered = sorted((int(v["version"]) for v in versions if str(v.get("version", "")).isdigit()), reverse=True)
    why = physical.why if isinstance(physical, Unresolved) else f"physical ID {physical!r}"
    return (str(numbered[0]), f"the newest version (CloudFormation: {why})") if numbered else (None, why)


def _check_version(ctx: Context, state: _Live, res: Resource, target: Resource | None, label: str) -> list[CheckResult]:
    region = ctx.region_of(res.stack)
    if target is None or target.type != GUARDRAIL:
        return [make_row("guardrail-version", label, "its guardrail", "not in the assembly", ERROR, "", res)]
    want = intent(ctx, target)
    if unresolved_in(want):
        return unresolvable_rows(["guardrail-version"], label, list(want.values()), res)
    found = _found(state, target, "guardrail-version", label, "a numbered version", res)
    if not isinstance(found, dict):
        return found
    guardrail_id = str(found["id"])
    version, how = _pinned_version(ctx, state, res, guardrail_id, region)
    state.pinned[res.path] = version or ""
    if version is None:
        return [make_row("guardrail-version", label, "a numbered version", "no version", MISSING, how, res)]
    try:
        got = ctx.live.call(
            "bedrock", "get_guardrail", region=region, guardrailIdentifier=guardrail_id, guardrailVersion=version
        )
    except ClientError as exc:
        if not is_not_found(exc, "ResourceNotFoundException"):
            raise
        return [make_row("guardrail-version", label, f"version {version}", "not found", MISSING, how, res)]
    row = _compare(ctx, "guardrail-version", label, res, want, got, f"v{version} ")
    return [replace(row, detail="\n".join(filter(None, [row.detail, f"pinned version found by {how}"])))]


def _enforced_for(ctx: Context, state: _Live, region: str, guardrail_id: str) -> dict[str, Any] | None:
    if region not in state.enforced:
        try:
            state.enforced[region] = ctx.live.paginate(
                "bedrock", "list_enforced_guardrails_configuration", "guardrailsConfig", region=region
            )
        except ApiError as exc:
            state.enforced[region] = exc
    found = state.enforced[region]
    if isinstance(found, ApiError):
        raise found
    return next(
        (
            c
            for c in found
            if c.get("guardrailId") == guardrail_id or str(c.get("guardrailArn", "")).endswith(f"/{guardrail_id}")
        ),
        None,
    )


def _check_enforcement(
    ctx: Context, state: _Live, res: Resource, target: Resource | None, label: str
) -> list[CheckResult]:
    region = ctx.region_of(res.stack)
    if target is None or target.type != GUARDRAIL:
        return [make_row("guardrail-enforcement", label, "its guardrail", "not in the assembly", ERROR, "", res)]
    found = _found(state, target, "guardrail-enforcement", label, "enforced", res)
    if not isinstance(found, dict):
        return found
    guardrail_id = str(found["id"])
    pinned = _enforced_version(ctx, state, res)
    expected = f"{guardrail_id} v{pinned or '?'} account-wide"
    try:
        config = _enforced_for(ctx, state, region, guardrail_id)
    except ApiError as exc:
        return error_rows(["guardrail-enforcement"], label, expected, exc, res)
    if config is None:
        return [
            make_row(
                "guardrail-enforcement",
                label,
                expected,
                "not enforced",
                MISSING,
                f"ListEnforcedGuardrailsConfiguration names no configuration for guardrail {guardrail_id} in {region}",
                res,
            )
        ]
    got_version = str(config.get("guardrailVersion") or "?")
    if not pinned:
        return [
            make_row(
                "guardrail-enforcement",
                label,
                expected,
                f"{guardrail_id} v{got_version}",
                ERROR,
                "the version the landing zone pinned is unknown (see the guardrail-version row)",
                res,
            )
        ]
    problems = [] if got_version == pinned else [f"enforces version {got_version}, the landing zone pinned {pinned}"]
    problems += _enforcement_differences(ctx, res, config)
    actual = f"{guardrail_id} v{got_version}" + (f" ({summarize(problems, limit=1)})" if problems else " account-wide")
    return [
        make_row(
            "guardrail-enforcement", label, expected, actual, DRIFT if problems else PASS, "\n".join(problems), res
        )
    ]


def _enforced_version(ctx: Context, state: _Live, res: Resource) -> str | None:
    """The guardrail version the enforcement pins: the live number of its version resource, else a literal."""
    version_res = _guardrail_of(res, "GuardrailVersion")
    if version_res is not None:
        return state.pinned.get(version_res.path)
    literal = ctx.resolve(res.prop("GuardrailVersion"), res)
    return literal if isinstance(literal, str) else None


def _enforcement_differences(ctx: Context, res: Resource, config: dict[str, Any]) -> list[str]:
    """The enforcement settings the live configuration does not hold as synthesized."""
    problems = []
    for prop in ("SelectiveContentGuarding", "ModelEnforcement"):
        if res.prop(prop) is None:
            continue
        wanted = ctx.resolve(res.prop(prop), res)
        shaped = {_lower(k): v for k, v in wanted.items()} if isinstance(wanted, dict) else wanted
        if canonical(shaped) != canonical(config.get(_lower(prop))):
            problems.append(f"{_lower(prop)}: expected {shaped}, live {config.get(_lower(prop))}")
    return problems
