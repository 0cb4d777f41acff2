"""EventBridge rules (the detection stacks' ``AWS::Events::Rule``, docs/DETECTION.md): each rule exists under its
synthesized name on its bus, is ``ENABLED``, matches the synthesized event pattern, and delivers to the synthesized
targets (by target ``Id``: the ARN, the role and the input transformer's template).  A disabled rule, a narrowed
pattern or a removed target alerts nothing, and nothing else would notice: this family is what does.  Calls events
ListRules once per account, Region and bus (the rules it expects there, by the common prefix of their names; a rule
the listing lacks is missing) and ListTargetsByRule per rule.
"""

from __future__ import annotations

import json
import os
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
    rules = [(res, ctx.resolve(res.prop("Name"), res)) for res in ctx.resources(RULE_TYPE)]
    names: dict[tuple[Any, ...], list[str]] = {}
    for res, name in rules:
        if isinstance(name, str):
            names.setdefault(_bus_key(ctx, res), []).append(name)
    prefixes = {key: os.path.commonprefix(found) for key, found in names.items()}
    rows: list[CheckResult] = []
    for res, name in rules:
        if not isinstance(name, str):
            rows += unresolvable_rows(CHECKS, f"rule {res.logical_id}", name, res)
            continue
        prefix = prefixes[_bus_key(ctx, res)]
        rows += guarded(CHECKS, f"rule {name}", res, partial(_check_rule, ctx, res, name, prefix))
    return rows


def _bus_key(ctx: Context, res: Resource) -> tuple[Any, ...]:
    """Where a rule is listed: (asked with the management profile, Region, bus)."""
    bus = ctx.resolve(res.prop("EventBusName", "default"), res)
    return (ctx.management_of(res.stack), ctx.region_of(res.stack), bus if isinstance(bus, str) else repr(bus))


def _rules_on_bus(ctx: Context, res: Resource, bus: Any, region: str, prefix: str) -> dict[str, dict[str, Any]]:
    """The rules on ``bus`` whose names start with ``prefix`` (events ListRules, once per run), by name; a bus that
    does not exist has none.  A failure to list is raised to each rule of the bus, as its own call's would be."""
    management = ctx.management_of(res.stack)

    def fetch() -> dict[str, dict[str, Any]]:
        try:
            found = ctx.live.paginate(
                "events",
                "list_rules",
                "Rules",
                region=region,
                management=management,
                EventBusName=bus,
                **({"NamePrefix": prefix} if prefix else {}),
            )
        except ClientError as exc:
            if not is_not_found(exc, "ResourceNotFoundException"):
                raise
            return {}
        return {str(rule.get("Name")): rule for rule in found}

    return ctx.collect(("events:ListRules", *_bus_key(ctx, res), prefix), fetch)


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


def _check_rule(ctx: Context, res: Resource, name: str, prefix: str) -> list[CheckResult]:
    region = ctx.region_of(res.stack)
    bus = ctx.resolve(res.prop("EventBusName", "default"), res)
    label = f"rule {name}"
    live = _rules_on_bus(ctx, res, bus, region, prefix).get(name)
    if live is None:
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
