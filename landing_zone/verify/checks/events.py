"""EventBridge rules (the detection stacks' ``AWS::Events::Rule``, docs/DETECTION.md): each rule exists under its
synthesized name on its bus, is ``ENABLED``, matches the synthesized event pattern, and delivers to the synthesized
targets (by target ``Id``: the ARN, the role and the input transformer's template).  A disabled rule, a narrowed
pattern or a removed target alerts nothing, and nothing else would notice: this family is what does.  Calls events
DescribeRule and ListTargetsByRule.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from botocore.exceptions import ClientError

from landing_zone.assembly import Resource
from landing_zone.verify.checks.common import (
    DRIFT,
    MISSING,
    PASS,
    Context,
    guarded,
    is_not_found,
    make_row,
    unresolvable_rows,
)
from landing_zone.verify.compare import unresolved_in
from landing_zone.verify.report import CheckResult

RULE_TYPE = "AWS::Events::Rule"
CHECKS = ("events-rule", "events-rule-pattern", "events-rule-targets")


def check_event_rules(ctx: Context) -> list[CheckResult]:
    rows: list[CheckResult] = []
    for res in ctx.resources(RULE_TYPE):
        name = ctx.resolve(res.prop("Name"), res)
        if not isinstance(name, str):
            rows += unresolvable_rows(CHECKS, f"rule {res.logical_id}", name, res)
            continue
        rows += guarded(CHECKS, f"rule {name}", res, partial(_check_rule, ctx, res, name))
    return rows


def canonical_pattern(pattern: Any) -> Any:
    """An event pattern as EventBridge matches it: JSON text or object, keys in any order, the values of a list in any
    order (a list is a set of alternatives)."""
    return _canonical(json.loads(pattern) if isinstance(pattern, str) else pattern)


def _canonical(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _canonical(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return sorted((_canonical(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    return value


def _target_view(target: dict[str, Any]) -> dict[str, Any]:
    transformer = target.get("InputTransformer") or {}
    return {
        "Arn": target.get("Arn"),
        "RoleArn": target.get("RoleArn"),
        "InputPathsMap": transformer.get("InputPathsMap"),
        "InputTemplate": transformer.get("InputTemplate"),
        "Input": target.get("Input"),
    }


def _check_rule(ctx: Context, res: Resource, name: str) -> list[CheckResult]:
    region = ctx.region_of(res.stack)
    bus = ctx.resolve(res.prop("EventBusName", "default"), res)
    label = f"rule {name}"
    try:
        live = ctx.live.call(
            "events",
            "describe_rule",
            region=region,
            management=ctx.management_of(res.stack),
            Name=name,
            EventBusName=bus,
        )
    except ClientError as exc:
        if not is_not_found(exc, "ResourceNotFoundException"):
            raise
        return [
            make_row(c, label, "present", "no such rule", MISSING, f"on bus {bus} in {region}", res) for c in CHECKS
        ]
    state = str(live.get("State") or "?")
    rows = [
        make_row(
            "events-rule",
            label,
            "ENABLED",
            state,
            PASS if state == "ENABLED" else DRIFT,
            ""
            if state == "ENABLED"
            else f"a {state.lower()} rule alerts nothing: `aws events enable-rule --name {name}`",
            res,
        )
    ]
    rows.append(_pattern_row(ctx, res, label, live.get("EventPattern")))
    rows.append(_targets_row(ctx, res, label, name, bus, region))
    return rows


def _pattern_row(ctx: Context, res: Resource, label: str, live_pattern: Any) -> CheckResult:
    want = ctx.resolve(res.prop("EventPattern"), res)
    if unresolved_in(want):
        return unresolvable_rows(["events-rule-pattern"], label, want, res)[0]
    if live_pattern and canonical_pattern(want) == canonical_pattern(live_pattern):
        return make_row("events-rule-pattern", label, "as synthesized", "identical", PASS, "", res)
    detail = f"synthesized {json.dumps(canonical_pattern(want))}\nlive {live_pattern}"
    return make_row("events-rule-pattern", label, "as synthesized", "differs", DRIFT, detail, res)


def _targets_row(ctx: Context, res: Resource, label: str, name: str, bus: Any, region: str) -> CheckResult:
    want = {str(t["Id"]): _target_view(ctx.resolve(t, res)) for t in res.prop("Targets", []) or []}
    if unresolved_in(list(want.values())):
        return unresolvable_rows(["events-rule-targets"], label, list(want.values()), res)[0]
    listed = ctx.live.call(
        "events",
        "list_targets_by_rule",
        region=region,
        management=ctx.management_of(res.stack),
        Rule=name,
        EventBusName=bus,
    )
    got = {str(t["Id"]): _target_view(t) for t in listed.get("Targets", [])}
    expected = ", ".join(sorted(want)) or "(none)"
    diff = [
        f"{tid}: expected {want.get(tid) or 'absent'}, live {got.get(tid) or 'absent'}"
        for tid in sorted(set(want) | set(got))
        if want.get(tid) != got.get(tid)
    ]
    if not diff:
        return make_row("events-rule-targets", label, expected, "identical", PASS, "", res)
    actual = ", ".join(sorted(got)) or "no target"
    return make_row("events-rule-targets", label, expected, actual, DRIFT, "\n".join(diff), res)
