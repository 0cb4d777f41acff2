"""Offline evaluator for the IAM policy grammar this landing zone emits.

Decides whether Organizations SCPs (and identity policies / permissions
boundaries) allow or deny one stated request, e.g. ``bedrock:InvokeModel`` on a
foundation-model ARN with ``aws:RequestedRegion`` and
``bedrock:InferenceProfileArn`` in the request context.

Why hand-written: no maintained PyPI library evaluates a request against policy
documents with the condition semantics below.  Checked: policyuniverse and
iam-ape only parse / expand / merge policies symbolically and never evaluate a
condition against a request context; aws-why wraps AWS's online policy
simulator (needs credentials); parliament, cloudsplaining and policy-sentry lint
or generate policies.  principalmapper 1.1.5 (last release 2022-01) does
simulate locally but gets documented cases wrong: StringNotLike on an absent
key is false (AWS: true), ArnNotLike on a non-ARN value is false, and unknown
operators are silently treated as satisfied.

Scope (anything else raises UnsupportedPolicyElement, never a silent guess):

* policy keys ``Version``, ``Id``, ``Statement`` (one statement or a list);
* statement keys ``Sid``, ``Effect`` (``Allow``/``Deny``), exactly one of
  ``Action``/``NotAction`` and exactly one of ``Resource``/``NotResource``,
  optional ``Condition``.  SCPs, identity policies and permissions boundaries
  have no principal element; the only one accepted is ``"Principal": "*"`` (or
  ``{"AWS": "*"}``, as in VPC endpoint policies), which matches every principal
  and so does not change the result.  Any other ``Principal`` and every
  ``NotPrincipal`` raise, because the request model carries no principal;
* condition operators String(Not)Equals, String(Not)EqualsIgnoreCase,
  String(Not)Like, Arn(Not)Equals, Arn(Not)Like, Bool, Null and
  Numeric{Equals,NotEquals,LessThan,LessThanEquals,GreaterThan,
  GreaterThanEquals}, each with an optional ``IfExists`` suffix and an optional
  ``ForAnyValue:``/``ForAllValues:`` prefix (not on Null);
* no policy variables: a value containing ``${`` raises.  Date, IP address
  and Binary operators are out of scope and raise as unknown operators.

Semantics follow the IAM User Guide pages "Condition operators",
"Conditions with multiple context keys or values", "Single-valued vs.
multivalued context keys" and "Policy evaluation logic".
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

__all__ = [
    "ANY",
    "FULL_AWS_ACCESS",
    "NO_COLON",
    "ConditionTest",
    "Decision",
    "Operator",
    "ParsedStatement",
    "Request",
    "StatementMatch",
    "Token",
    "UnsupportedPolicyElement",
    "evaluate",
    "evaluate_scp_levels",
    "glob_tokens",
    "normalise_context",
    "parse_operator",
    "parse_statement",
    "parsed_matches",
    "policy_statements",
    "resource_tokens",
    "split_arn",
    "statement_matches",
]

FULL_AWS_ACCESS: dict[str, Any] = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}],
}


class UnsupportedPolicyElement(ValueError):
    """A policy uses an element, operator or value outside the supported grammar."""


@dataclass(frozen=True)
class Request:
    action: str  # "service:Action"; matched case-insensitively
    resource: str  # an ARN, or "*"
    # Condition keys present in the request. A key NOT in the mapping is ABSENT
    # (an empty list counts as absent too). Key names are case-insensitive.
    context: Mapping[str, str | Sequence[str] | bool | int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.action, str) or ":" not in self.action:
            raise ValueError(f"action must look like 'service:Action', got {self.action!r}")
        if not isinstance(self.resource, str) or not self.resource:
            raise ValueError(f"resource must be an ARN or '*', got {self.resource!r}")
        normalise_context(self.context)  # fail early on bad keys / values


@dataclass(frozen=True)
class StatementMatch:
    policy_name: str
    sid: str | None
    index: int  # position of the statement in its policy
    effect: str  # "Allow" | "Deny"

    @property
    def label(self) -> str:
        return f"{self.policy_name}/{self.sid if self.sid else '#' + str(self.index)}"


@dataclass(frozen=True)
class Decision:
    decision: str  # "allow" | "explicit_deny" | "implicit_deny"
    allowed: bool
    matched_denies: tuple[StatementMatch, ...] = ()
    matched_allows: tuple[StatementMatch, ...] = ()
    # evaluate_scp_levels only: index of the first level without a matching Allow.
    missing_allow_level: int | None = None

    def explain(self) -> str:
        if self.decision == "explicit_deny":
            return "explicit_deny by " + ", ".join(m.label for m in self.matched_denies)
        if self.decision == "allow":
            return "allow by " + ", ".join(m.label for m in self.matched_allows)
        where = "" if self.missing_allow_level is None else f" at SCP level {self.missing_allow_level}"
        return f"implicit_deny: no Allow statement matched{where}"


# --------------------------------------------------------------------------- patterns


# A wildcard pattern is a sequence of tokens, shared with the prover (landing_zone.prove.prover):
# ("char", c) | ("star", cls) | ("one", cls), where cls is ANY (every character) or NO_COLON (inside one ARN segment).
ANY, NO_COLON = "any", "nocolon"
Token = tuple[str, str]


def glob_tokens(pattern: str) -> tuple[Token, ...]:
    """Action names and String/ArnLike values: `*` = any run of characters (also empty), `?` = one character."""
    return tuple(("star", ANY) if c == "*" else ("one", ANY) if c == "?" else ("char", c) for c in pattern)


def resource_tokens(pattern: str) -> tuple[Token, ...]:
    """Resource/NotResource patterns, case-sensitive.

    IAM User Guide (Resource element): wildcards apply within the colon-separated
    ARN segments, but a `*` that is the LAST character of a segment may expand
    past colon boundaries.  So `*` before a ':' (or at the end) matches anything,
    any other `*` and every `?` stay inside one segment.  A request resource of
    "*" is therefore matched only by patterns that can match the literal "*".
    """
    out: list[Token] = []
    for i, ch in enumerate(pattern):
        if ch == "*":
            out.append(("star", ANY if i + 1 == len(pattern) or pattern[i + 1] == ":" else NO_COLON))
        elif ch == "?":
            out.append(("one", NO_COLON))
        else:
            out.append(("char", ch))
    return tuple(out)


def _tokens_regex(tokens: Sequence[Token]) -> str:
    cls = {ANY: ".", NO_COLON: "[^:]"}
    return "".join(re.escape(v) if k == "char" else cls[v] + ("*" if k == "star" else "") for k, v in tokens)


@lru_cache(maxsize=8192)
def _glob_compiled(pattern: str, ignore_case: bool) -> re.Pattern[str]:
    return re.compile(_tokens_regex(glob_tokens(pattern)), re.DOTALL | (re.IGNORECASE if ignore_case else 0))


def _glob(pattern: str, value: str, ignore_case: bool = False) -> bool:
    """`*` = any run of characters (also empty), `?` = exactly one character."""
    return _glob_compiled(pattern, ignore_case).fullmatch(value) is not None


@lru_cache(maxsize=8192)
def _resource_compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(_tokens_regex(resource_tokens(pattern)), re.DOTALL)


def _resource_match(pattern: str, resource: str) -> bool:
    """Resource/NotResource matching (see :func:`resource_tokens`)."""
    return _resource_compiled(pattern).fullmatch(resource) is not None


# A statement's Action (or Resource) list as one alternation: a request is matched against it with one regular
# expression call instead of one per entry (the evaluator decides millions of requests in the review and the tests).
# The same as any() over the entries: fullmatch backtracks into every alternative.
@lru_cache(maxsize=8192)
def _any_glob_compiled(patterns: tuple[str, ...], ignore_case: bool) -> re.Pattern[str]:
    union = "|".join(f"(?:{_tokens_regex(glob_tokens(p))})" for p in patterns) or "(?!)"
    return re.compile(f"(?:{union})", re.DOTALL | (re.IGNORECASE if ignore_case else 0))


@lru_cache(maxsize=8192)
def _any_resource_compiled(patterns: tuple[str, ...]) -> re.Pattern[str]:
    union = "|".join(f"(?:{_tokens_regex(resource_tokens(p))})" for p in patterns) or "(?!)"
    return re.compile(f"(?:{union})", re.DOTALL)


def split_arn(value: str) -> list[str] | None:
    parts = value.split(":", 5)  # the resource part (6th) may itself contain colons
    return parts if len(parts) == 6 and parts[0] == "arn" else None


@lru_cache(maxsize=65536)  # a pure function of two strings, asked again for every request a statement is checked on
def _arn_like(pattern: str, value: str) -> bool:
    """ArnEquals/ArnLike: each of the six ARN segments is matched separately."""
    pattern_parts = split_arn(pattern)
    if pattern_parts is None:
        raise UnsupportedPolicyElement(f"Arn* condition value is not a 6-segment ARN pattern: {pattern!r}")
    value_parts = split_arn(value)
    if value_parts is None:  # a non-ARN never matches ArnLike (so ArnNotLike is true)
        return False
    return all(_glob(p, v) for p, v in zip(pattern_parts, value_parts, strict=True))


# A bad value raises: UnsupportedPolicyElement when it is in the policy, plain
# ValueError when it is in the request context (the caller's mistake).


def _to_bool(value: str, in_policy: bool) -> str:
    lowered = value.lower()
    if lowered not in ("true", "false"):
        error = UnsupportedPolicyElement if in_policy else ValueError
        where = "policy" if in_policy else "request context"
        raise error(f"Bool/Null value in {where} must be 'true' or 'false', got {value!r}")
    return lowered


def _to_number(value: str, in_policy: bool) -> Decimal:
    try:
        number = Decimal(value)
    except InvalidOperation:
        number = Decimal("NaN")
    if not number.is_finite():
        error = UnsupportedPolicyElement if in_policy else ValueError
        where = "policy" if in_policy else "request context"
        raise error(f"Numeric value in {where} is not a finite number: {value!r}")
    return number


def _numeric(compare: Callable[[Decimal, Decimal], bool]) -> Callable[[str, str], bool]:
    return lambda policy, request: compare(_to_number(request, False), _to_number(policy, True))


# Positive form of each operator family: (policy value, request value) -> match.
# The negated operators are the NOR of their positive form over the policy values.
_BASE: dict[str, Callable[[str, str], bool]] = {
    "StringEquals": lambda p, r: p == r,
    "StringEqualsIgnoreCase": lambda p, r: p.lower() == r.lower(),
    "StringLike": _glob,
    "ArnEquals": _arn_like,  # documented as identical to ArnLike (wildcards allowed)
    "ArnLike": _arn_like,
    "Bool": lambda p, r: _to_bool(p, True) == _to_bool(r, False),  # case-insensitive
    "NumericEquals": _numeric(lambda r, p: r == p),
    "NumericLessThan": _numeric(lambda r, p: r < p),
    "NumericLessThanEquals": _numeric(lambda r, p: r <= p),
    "NumericGreaterThan": _numeric(lambda r, p: r > p),
    "NumericGreaterThanEquals": _numeric(lambda r, p: r >= p),
}
_NEGATED: dict[str, str] = {
    "StringNotEquals": "StringEquals",
    "StringNotEqualsIgnoreCase": "StringEqualsIgnoreCase",
    "StringNotLike": "StringLike",
    "ArnNotEquals": "ArnEquals",
    "ArnNotLike": "ArnLike",
    "NumericNotEquals": "NumericEquals",
}


@dataclass(frozen=True)
class Operator:
    name: str  # as written in the policy
    base: str  # positive operator family, or "Null"
    negated: bool
    if_exists: bool
    set_op: str | None  # "ForAnyValue" | "ForAllValues" | None


def parse_operator(name: str) -> Operator:
    if not isinstance(name, str):
        raise UnsupportedPolicyElement(f"condition operator must be a string: {name!r}")
    rest, set_op = name, None
    for prefix in ("ForAnyValue", "ForAllValues"):
        if rest.startswith(prefix + ":"):
            rest, set_op = rest[len(prefix) + 1 :], prefix
    if_exists = rest.endswith("IfExists")
    if if_exists:
        rest = rest[: -len("IfExists")]
    if rest == "Null":
        if if_exists or set_op:
            raise UnsupportedPolicyElement(f"unsupported condition operator {name!r}")
        return Operator(name, "Null", False, False, None)
    if rest in _BASE:
        return Operator(name, rest, False, if_exists, set_op)
    if rest in _NEGATED:
        return Operator(name, _NEGATED[rest], True, if_exists, set_op)
    raise UnsupportedPolicyElement(f"unsupported condition operator {name!r}")


# --------------------------------------------------------------------------- values


def _scalar(value: object, where: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, str)):
        return str(value)
    raise TypeError(f"{where}: unsupported value {value!r}")


def normalise_context(context: Mapping[str, object]) -> dict[str, tuple[str, ...]]:
    """Lower-cased key -> tuple of string values; empty lists are dropped (absent)."""
    if not isinstance(context, Mapping):
        raise TypeError("request context must be a mapping")
    out: dict[str, tuple[str, ...]] = {}
    seen: set[str] = set()
    for key, value in context.items():
        if not isinstance(key, str) or not key:
            raise TypeError(f"context key must be a non-empty string: {key!r}")
        if key.lower() in seen:
            raise ValueError(f"context key {key!r} is given twice (keys are case-insensitive)")
        seen.add(key.lower())
        if isinstance(value, (str, bool, int)):
            values: tuple[str, ...] = (_scalar(value, key),)
        elif isinstance(value, Sequence):
            values = tuple(_scalar(v, key) for v in value)
        else:
            raise TypeError(f"context {key!r}: unsupported value {value!r}")
        if values:
            out[key.lower()] = values
    return out


def policy_values(value: object, where: str) -> tuple[str, ...]:
    items = value if isinstance(value, list) else [value]
    if not items:
        raise UnsupportedPolicyElement(f"{where}: empty value list")
    out = []
    for item in items:
        if isinstance(item, float):
            item = repr(item)
        try:
            text = _scalar(item, where)
        except TypeError as exc:
            raise UnsupportedPolicyElement(str(exc)) from None
        if "${" in text:
            raise UnsupportedPolicyElement(f"{where}: policy variables are not supported: {text!r}")
        out.append(text)
    return tuple(out)


# --------------------------------------------------------------------------- conditions


def _key_matches(op: Operator, key: str, policy_values: tuple[str, ...], context: dict[str, tuple[str, ...]]) -> bool:
    request_values = context.get(key.lower())  # None = absent (or empty list)

    if op.base == "Null":
        wanted = {_to_bool(v, True) for v in policy_values}
        return ("true" if request_values is None else "false") in wanted

    if request_values is None:
        if op.if_exists or op.set_op == "ForAllValues":
            return True
        if op.set_op == "ForAnyValue":
            return False
        return op.negated  # positive operators: false; negated operators: true

    base = _BASE[op.base]

    def value_passes(request_value: str) -> bool:
        # several policy values: OR for positive operators, NOR for negated ones
        hit = any(base(p, request_value) for p in policy_values)
        return not hit if op.negated else hit

    if op.set_op == "ForAllValues":
        return all(value_passes(v) for v in request_values)
    # ForAnyValue, and also a plain operator given a multivalued request value:
    # AWS evaluates the operator against each request value and the key matches
    # if any value does (a single-valued key is just the one-element case).
    return any(value_passes(v) for v in request_values)


# --------------------------------------------------------------------------- statements

_STATEMENT_KEYS = {"Sid", "Effect", "Principal", "Action", "NotAction", "Resource", "NotResource", "Condition"}
_POLICY_KEYS = {"Version", "Id", "Statement"}


def _patterns(statement: dict[str, Any], name: str) -> tuple[str, ...]:
    raw = statement[name]
    items = raw if isinstance(raw, list) else [raw]
    if not items or not all(isinstance(p, str) and p for p in items):
        raise UnsupportedPolicyElement(f"{name} must be a non-empty string or list of strings")
    for p in items:
        if "${" in p:
            raise UnsupportedPolicyElement(f"{name}: policy variables are not supported: {p!r}")
    return tuple(items)


def _one_of(statement: dict[str, Any], positive: str, negative: str) -> str:
    present = [k for k in (positive, negative) if k in statement]
    if len(present) != 1:
        raise UnsupportedPolicyElement(f"statement needs exactly one of {positive}/{negative}")
    return present[0]


@dataclass(frozen=True)
class ConditionTest:
    """One key of one operator of a Condition block: ``{"StringEquals": {"aws:RequestedRegion": [...]}}``."""

    operator: Operator
    key: str  # as written in the policy (matched case-insensitively)
    values: tuple[str, ...]


@dataclass(frozen=True)
class ParsedStatement:
    """A statement checked against the supported grammar (the one form the evaluator and the prover read)."""

    index: int  # position in its policy
    sid: str | None
    effect: str  # "Allow" | "Deny"
    action_element: str  # "Action" | "NotAction"
    actions: tuple[str, ...]
    resource_element: str  # "Resource" | "NotResource"
    resources: tuple[str, ...]
    conditions: tuple[ConditionTest, ...]  # ANDed


def _check_policy_value(op: Operator, where: str, value: str) -> None:
    if op.base in ("Bool", "Null"):
        _to_bool(value, True)
    elif op.base.startswith("Numeric"):
        _to_number(value, True)
    # An Arn* value that is not an ARN is refused when it is matched (_arn_like), not here: a rendered deploy-time
    # value (a placeholder such as <Profile.Arn>) in a statement the request never reaches must not stop evaluation.


def _parse_condition(condition: object) -> tuple[ConditionTest, ...]:
    if not isinstance(condition, dict):
        raise UnsupportedPolicyElement("Condition must be an object")
    tests = []
    for op_name, keys in condition.items():
        op = parse_operator(op_name)
        if not isinstance(keys, dict) or not keys:
            raise UnsupportedPolicyElement(f"Condition operator {op_name!r} needs a non-empty object")
        for key, raw in keys.items():
            if not isinstance(key, str) or not key:
                raise UnsupportedPolicyElement(f"Condition operator {op_name!r}: key must be a non-empty string")
            values = policy_values(raw, f"{op_name} {key!r}")
            for value in values:
                _check_policy_value(op, f"{op_name} {key!r}", value)
            tests.append(ConditionTest(op, key, values))
    return tuple(tests)


def parse_statement(statement: object, index: int = 0) -> ParsedStatement:
    """Check one statement against the supported grammar; UnsupportedPolicyElement names what is not."""
    if not isinstance(statement, dict):
        raise UnsupportedPolicyElement("statement must be an object")
    unknown = set(statement) - _STATEMENT_KEYS
    if unknown:
        raise UnsupportedPolicyElement(f"unsupported statement element(s): {', '.join(sorted(unknown))}")
    sid = statement.get("Sid")
    if "Sid" in statement and not isinstance(sid, str):
        raise UnsupportedPolicyElement(f"Sid must be a string: {sid!r}")
    if "Principal" in statement and statement["Principal"] not in ("*", {"AWS": "*"}):
        raise UnsupportedPolicyElement(f"unsupported Principal {statement['Principal']!r} (only '*' is)")
    if statement.get("Effect") not in ("Allow", "Deny"):
        raise UnsupportedPolicyElement(f"Effect must be 'Allow' or 'Deny': {statement.get('Effect')!r}")
    action_key = _one_of(statement, "Action", "NotAction")
    resource_key = _one_of(statement, "Resource", "NotResource")
    return ParsedStatement(
        index=index,
        sid=sid,
        effect=statement["Effect"],
        action_element=action_key,
        actions=_patterns(statement, action_key),
        resource_element=resource_key,
        resources=_patterns(statement, resource_key),
        conditions=_parse_condition(statement["Condition"]) if "Condition" in statement else (),
    )


def policy_statements(name: str, document: object) -> tuple[ParsedStatement, ...]:
    """Every statement of one policy document, parsed (the first unsupported element raises)."""
    return tuple(parse_statement(stmt, index) for index, stmt in enumerate(_statements(name, document)))


# The review, the red team and the coverage evaluate the same few documents for thousands of requests: each
# document's statements are parsed once.  Entries are kept per policy name with a copy of the document they were
# parsed from, and a hit needs an equal document (a dict comparison, in C), so a document changed in place (a mutant,
# a test's edit) or rebuilt as a new object is matched by its content, never by its identity.  A handful of
# documents per name (the mutation runs vary one name's document) are kept, the least recently used dropped.
_PARSED: dict[str, list[tuple[object, tuple[ParsedStatement, ...]]]] = {}
_PARSED_PER_NAME = 8


def _parsed_statements(name: str, document: object) -> tuple[ParsedStatement, ...]:
    entries = _PARSED.setdefault(name, [])
    for position, (seen, parsed) in enumerate(entries):
        if seen == document:
            if position:
                entries.insert(0, entries.pop(position))
            return parsed
    parsed = policy_statements(name, document)
    entries.insert(0, (copy.deepcopy(document), parsed))
    del entries[_PARSED_PER_NAME:]
    return parsed


def parsed_matches(
    statement: ParsedStatement, request: Request, context: dict[str, tuple[str, ...]] | None = None
) -> bool:
    """True when the parsed statement applies to the request (its Effect is not consulted); ``context``: the
    request's context already normalised (:func:`normalise_context`), when the caller checks many statements."""
    hit = _any_glob_compiled(statement.actions, True).fullmatch(request.action) is not None
    action_ok = hit if statement.action_element == "Action" else not hit
    hit = _any_resource_compiled(statement.resources).fullmatch(request.resource) is not None
    resource_ok = hit if statement.resource_element == "Resource" else not hit
    if context is None:
        context = normalise_context(request.context)
    # every key is evaluated, so that a bad request value anywhere raises instead of being skipped
    condition_ok = True
    for test in statement.conditions:
        condition_ok = _key_matches(test.operator, test.key, test.values, context) and condition_ok
    return action_ok and resource_ok and condition_ok


def statement_matches(statement: dict[str, Any], request: Request) -> bool:
    """True when the statement applies to the request (its Effect is not consulted)."""
    return parsed_matches(parse_statement(statement), request)


def _statements(name: str, document: object) -> list[dict[str, Any]]:
    if not isinstance(document, dict):
        raise UnsupportedPolicyElement(f"policy {name!r} must be an object")
    unknown = set(document) - _POLICY_KEYS
    if unknown:
        raise UnsupportedPolicyElement(f"policy {name!r}: unsupported element(s): {', '.join(sorted(unknown))}")
    raw = document.get("Statement")
    if raw is None:
        raise UnsupportedPolicyElement(f"policy {name!r} has no Statement")
    statements: list[dict[str, Any]] = raw if isinstance(raw, list) else [raw]
    if not statements:
        raise UnsupportedPolicyElement(f"policy {name!r} has no Statement")
    return statements


def evaluate(policies: Sequence[tuple[str, dict[str, Any]]], request: Request) -> Decision:
    """One set of policies at one level: explicit Deny wins, else any Allow, else implicit deny.

    Every statement of every policy is checked, so a malformed or unsupported
    statement raises even when an earlier one already decided the outcome.
    """
    denies: list[StatementMatch] = []
    allows: list[StatementMatch] = []
    context = normalise_context(request.context)
    for name, document in policies:
        for statement in _parsed_statements(name, document):
            if parsed_matches(statement, request, context):
                match = StatementMatch(name, statement.sid, statement.index, statement.effect)
                (denies if match.effect == "Deny" else allows).append(match)
    if denies:
        return Decision("explicit_deny", False, tuple(denies), tuple(allows))
    if allows:
        return Decision("allow", True, (), tuple(allows))
    return Decision("implicit_deny", False, (), ())


def evaluate_scp_levels(levels: Sequence[Sequence[tuple[str, dict[str, Any]]]], request: Request) -> Decision:
    """SCP inheritance: root, each OU, then the account.

    Any explicit Deny at any level denies; otherwise the request must be
    allowed by some statement at EVERY level.
    """
    if not levels:
        raise ValueError("evaluate_scp_levels needs at least one level")
    results = [evaluate(level, request) for level in levels]
    denies = tuple(m for r in results for m in r.matched_denies)
    allows = tuple(m for r in results for m in r.matched_allows)
    if denies:
        return Decision("explicit_deny", False, denies, allows)
    for position, result in enumerate(results):
        if not result.allowed:
            return Decision("implicit_deny", False, (), allows, missing_allow_level=position)
    return Decision("allow", True, (), allows)
