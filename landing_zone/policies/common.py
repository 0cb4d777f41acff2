"""Small helpers shared by the policy builders: deterministic documents and condition merging."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

VERSION = "2012-10-17"


def document(statements: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    return {"Version": VERSION, "Statement": [dict(s) for s in statements]}


def one_or_many(values: Iterable[str]) -> str | list[str]:
    """Sorted, de-duplicated; a single value stays a string (shorter policies, as AWS writes them)."""
    unique = sorted(set(values))
    return unique[0] if len(unique) == 1 else unique


def statement(
    sid: str,
    *,
    effect: str = "Allow",
    actions: Iterable[str] | None = None,
    not_actions: Iterable[str] | None = None,
    resources: Iterable[str] | None = None,
    not_resources: Iterable[str] | None = None,
    principal: Any = None,
    condition: Mapping[str, Mapping[str, Any]] | None = None,
    trust: bool = False,
) -> dict[str, Any]:
    """One statement.  ``resources`` omitted means ``"*"``; ``trust=True`` (role trust policies) has none."""
    stmt: dict[str, Any] = {"Sid": sid, "Effect": effect}
    if principal is not None:
        stmt["Principal"] = principal
    if actions is not None:
        stmt["Action"] = one_or_many(actions)
    if not_actions is not None:
        stmt["NotAction"] = one_or_many(not_actions)
    if not_resources is not None:
        stmt["NotResource"] = one_or_many(not_resources)
    elif not trust:
        stmt["Resource"] = one_or_many(resources) if resources is not None else "*"
    if condition:
        stmt["Condition"] = {
            op: {
                k: (one_or_many(v) if isinstance(v, (list, tuple, set, frozenset)) else v)
                for k, v in sorted(kv.items())
            }
            for op, kv in sorted(condition.items())
        }
    return stmt


def from_source(account: str, source_arn: str) -> dict[str, dict[str, str]]:
    """The confused-deputy condition for a service principal: only on behalf of ``account``'s ``source_arn``."""
    return {"StringEquals": {"aws:SourceAccount": account}, "ArnLike": {"aws:SourceArn": source_arn}}


def with_condition(stmt: Mapping[str, Any], operator: str, key: str, values: Iterable[str] | str) -> dict[str, Any]:
    """A copy of ``stmt`` with one more condition (ANDed with the existing ones)."""
    out: dict[str, Any] = json.loads(json.dumps(stmt))
    cond = out.setdefault("Condition", {})
    vals = [values] if isinstance(values, str) else list(values)
    cond.setdefault(operator, {})[key] = one_or_many(vals)
    out["Condition"] = {op: dict(sorted(kv.items())) for op, kv in sorted(cond.items())}
    return out


def minified(doc: Mapping[str, Any]) -> str:
    """Deterministic, minified JSON: what size limits (e.g. SCP characters) are measured on."""
    return json.dumps(doc, separators=(",", ":"), sort_keys=False)


def actions_of(stmt: Mapping[str, Any]) -> list[str]:
    value = stmt.get("Action", [])
    return [value] if isinstance(value, str) else list(value)


def resources_of(stmt: Mapping[str, Any]) -> list[str]:
    value = stmt.get("Resource", [])
    return [value] if isinstance(value, str) else list(value)


def canonical(value: Any) -> Any:
    """IAM-equivalent normal form: lists are sets (sorted, de-duplicated), a one-element list equals its
    element, statement order does not matter, numbers and booleans compare as IAM reads them (strings).  One form for
    verify's comparison and the Config rule's policy digests (config_checks.policy_digest)."""
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        items = [canonical(v) for v in value]
        unique: dict[str, Any] = {}
        for item in items:
            unique[json.dumps(item, sort_keys=True)] = item
        ordered = [unique[k] for k in sorted(unique)]
        return ordered[0] if len(ordered) == 1 else ordered
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return value
