"""Plain-language summaries of policy statements: who, effect, which actions, on what, under which conditions.

Conditions are rendered in words, e.g. ``{"StringNotEquals": {"aws:RequestedRegion": ["eu-central-1",
"eu-west-1"]}}`` reads "aws:RequestedRegion is not one of eu-central-1, eu-west-1".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from landing_zone.review.inventory import IDENTITY_KINDS, PolicyRecord, statements_of

__all__ = [
    "StatementSummary",
    "as_list",
    "condition_clauses",
    "plain_arn",
    "principal_entries",
    "summarize_policy",
    "summarize_statement",
]

ROOT_ARN = re.compile(r"^arn:[^:]+:iam::([^:]+):root$")
_PLACEHOLDER = re.compile(r"<([^<>]*)>")


def plain_arn(text: str) -> str:
    """An ARN whose placeholders hold no colon, so that it splits into its six segments.

    ``arn:<AWS::Partition>:iam::<AWS::AccountId>:root`` -> ``arn:aws:iam::<AWS-AccountId>:root``.
    """
    text = text.replace("<AWS::Partition>", "aws").replace("<AWS::URLSuffix>", "amazonaws.com")
    return _PLACEHOLDER.sub(lambda m: "<" + m.group(1).replace(":", "-") + ">", text)


def as_list(value: Any) -> list[str]:
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    return [str(v) if not isinstance(v, bool) else ("true" if v else "false") for v in items]


def principal_entries(principal: Any) -> list[tuple[str, str]]:
    """(type, value) pairs of a Principal element: ("*", "*"), ("AWS", arn), ("Service", name), ..."""
    if principal is None:
        return []
    if isinstance(principal, str):
        return [("*", principal)] if principal == "*" else [("AWS", principal)]
    if isinstance(principal, Mapping):
        return sorted((str(k), v) for k, values in principal.items() for v in as_list(values))
    return [("AWS", str(principal))]


def _principal_words(kind: str, value: str) -> str:
    if value == "*":
        return "anyone (*)" if kind in ("*", "AWS") else f"any {kind} principal (*)"
    if kind == "AWS":
        root = ROOT_ARN.match(plain_arn(value))
        if root:
            account = _PLACEHOLDER.sub(lambda m: "<" + m.group(1).replace("--", "::") + ">", root.group(1))
            if account == "<AWS::AccountId>":
                account = "of the stack (<AWS::AccountId>)"
            return f"account {account} (its IAM principals, as its IAM policies allow)"
        if value.isdigit() and len(value) == 12:
            return f"account {value} (its IAM principals, as its IAM policies allow)"
        return value
    if kind == "Service":
        return f"service {value}"
    if kind == "Federated":
        return f"federated identities of {value}"
    if kind == "CanonicalUser":
        return f"canonical user {value}"
    return f"{kind} {value}"


# ----------------------------------------------------------------------------------------- conditions

_OPERATOR_WORDS: dict[str, tuple[str, str]] = {
    # base operator -> (one value, several values)
    "StringEquals": ("is {v}", "is one of {v}"),
    "StringNotEquals": ("is not {v}", "is not one of {v}"),
    "StringEqualsIgnoreCase": ("is {v} (ignoring case)", "is one of {v} (ignoring case)"),
    "StringNotEqualsIgnoreCase": ("is not {v} (ignoring case)", "is not one of {v} (ignoring case)"),
    "StringLike": ("matches {v}", "matches one of {v}"),
    "StringNotLike": ("does not match {v}", "matches none of {v}"),
    "ArnEquals": ("is {v}", "is one of {v}"),
    "ArnLike": ("matches {v}", "matches one of {v}"),
    "ArnNotEquals": ("is not {v}", "is not one of {v}"),
    "ArnNotLike": ("does not match {v}", "matches none of {v}"),
    "NumericEquals": ("equals {v}", "equals one of {v}"),
    "NumericNotEquals": ("does not equal {v}", "equals none of {v}"),
    "NumericLessThan": ("is less than {v}", "is less than one of {v}"),
    "NumericLessThanEquals": ("is at most {v}", "is at most one of {v}"),
    "NumericGreaterThan": ("is greater than {v}", "is greater than one of {v}"),
    "NumericGreaterThanEquals": ("is at least {v}", "is at least one of {v}"),
    "DateEquals": ("is the date {v}", "is one of the dates {v}"),
    "DateNotEquals": ("is not the date {v}", "is none of the dates {v}"),
    "DateLessThan": ("is before {v}", "is before one of {v}"),
    "DateLessThanEquals": ("is at or before {v}", "is at or before one of {v}"),
    "DateGreaterThan": ("is after {v}", "is after one of {v}"),
    "DateGreaterThanEquals": ("is at or after {v}", "is at or after one of {v}"),
    "IpAddress": ("is in {v}", "is in one of {v}"),
    "NotIpAddress": ("is not in {v}", "is in none of {v}"),
    "BinaryEquals": ("equals the binary value {v}", "equals one of the binary values {v}"),
}


def _clause(operator: str, key: str, values: list[str]) -> str:
    rest, prefix = operator, ""
    for set_op in ("ForAnyValue:", "ForAllValues:"):
        if rest.startswith(set_op):
            rest, prefix = rest[len(set_op) :], set_op[:-1]
    if_exists = rest.endswith("IfExists")
    if if_exists:
        rest = rest[: -len("IfExists")]
    joined = ", ".join(values)
    if rest == "Null":
        wanted = {v.lower() for v in values}
        text = (
            f"{key} is absent"
            if wanted == {"true"}
            else f"{key} is present"
            if wanted == {"false"}
            else f"{key} is Null={joined}"
        )
        return text
    if rest == "Bool":
        text = f"{key} is {joined}"
    elif rest in _OPERATOR_WORDS:
        one, many = _OPERATOR_WORDS[rest]
        text = f"{key} " + (one if len(values) == 1 else many).format(v=joined)
    else:
        text = f"{key} {operator} {joined}"
    if prefix == "ForAnyValue":
        text = f"any value of {text}"
    elif prefix == "ForAllValues":
        text = f"every value of {text} (or the key is absent)"
    if if_exists:
        text += f" (when {key} is present)"
    return text


def condition_clauses(condition: Any) -> list[str]:
    """Every condition clause in words, sorted by key then operator (all clauses must hold: AND)."""
    if not isinstance(condition, Mapping):
        return [] if condition is None else [f"unreadable condition {condition!r}"]
    clauses = []
    for operator, keys in condition.items():
        if not isinstance(keys, Mapping):
            clauses.append((str(operator), f"{operator} {keys!r}"))
            continue
        for key, values in keys.items():
            clauses.append((str(key), _clause(str(operator), str(key), as_list(values))))
    return [text for _, text in sorted(clauses)]


# ----------------------------------------------------------------------------------------- statements


@dataclass(frozen=True)
class StatementSummary:
    index: int
    sid: str
    effect: str
    who: str
    actions: tuple[str, ...]
    not_actions: tuple[str, ...]
    resources: tuple[str, ...]
    not_resources: tuple[str, ...]
    conditions: tuple[str, ...]
    text: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "sid": self.sid,
            "effect": self.effect,
            "who": self.who,
            "actions": list(self.actions),
            "not_actions": list(self.not_actions),
            "resources": list(self.resources),
            "not_resources": list(self.not_resources),
            "conditions": list(self.conditions),
            "summary": self.text,
        }


def _who(record: PolicyRecord, stmt: Mapping[str, Any]) -> str:
    if "Principal" in stmt or "NotPrincipal" in stmt:
        key = "Principal" if "Principal" in stmt else "NotPrincipal"
        words = [_principal_words(k, v) for k, v in principal_entries(stmt[key])]
        text = "; ".join(words) or "no principal"
        return text if key == "Principal" else f"everyone except {text}"
    if record.kind in IDENTITY_KINDS:
        parts = []
        if record.attached_to:
            parts.append("the principals this is attached to: " + ", ".join(record.attached_to))
        if record.boundary_of:
            parts.append("as permissions boundary (a ceiling, not a grant) of: " + ", ".join(record.boundary_of))
        return "; ".join(parts) or "whoever this policy gets attached to (not attached in this template)"
    if record.kind in ("scp", "rcp"):
        return record.applies_to or "the principals of the target accounts"
    return "the principals this is attached to"


def _resource_words(record: PolicyRecord, resources: list[str]) -> list[str]:
    if record.kind == "key":
        return ["this key" if r == "*" else r for r in resources]
    return ["any resource (*)" if r == "*" else r for r in resources]


def summarize_statement(record: PolicyRecord, stmt: Mapping[str, Any], index: int) -> StatementSummary:
    effect = str(stmt.get("Effect", "?"))
    actions = as_list(stmt.get("Action"))
    not_actions = as_list(stmt.get("NotAction"))
    resources = as_list(stmt.get("Resource"))
    not_resources = as_list(stmt.get("NotResource"))
    conditions = condition_clauses(stmt.get("Condition"))
    who = _who(record, stmt)
    verb = {"Allow": "may", "Deny": "may not"}.get(effect, f"({effect})")
    what = (
        ", ".join(actions)
        if actions
        else f"every action except {', '.join(not_actions)}"
        if not_actions
        else "no action"
    )
    if resources:
        where = ", ".join(_resource_words(record, resources))
    elif not_resources:
        where = f"every resource except {', '.join(not_resources)}"
    elif record.kind == "trust":
        where = record.applies_to.replace("assuming ", "") or "this role"
    else:
        where = record.applies_to or "(no resource element)"
    text = f"{who} {verb} {what} on {where}"
    if conditions:
        text += ", only when " + " and ".join(conditions)
    return StatementSummary(
        index=index,
        sid=str(stmt.get("Sid", "")),
        effect=effect,
        who=who,
        actions=tuple(actions),
        not_actions=tuple(not_actions),
        resources=tuple(resources),
        not_resources=tuple(not_resources),
        conditions=tuple(conditions),
        text=text + ".",
    )


def summarize_policy(record: PolicyRecord) -> list[StatementSummary]:
    return [summarize_statement(record, s, i) for i, s in enumerate(statements_of(record.document))]
