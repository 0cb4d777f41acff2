"""Prove what IAM policy documents allow for *every* request, with the z3 SMT solver (``z3-solver`` on PyPI).

The evaluator (:mod:`landing_zone.policies.evaluator`) decides one stated request; this module encodes the same
policies as constraints over a *symbolic* request and asks z3 whether any request breaks a property.  Both read
the policies through the evaluator's grammar (:func:`~landing_zone.policies.evaluator.policy_statements`), so an
element one of them does not support stops both; here it stops the proof with ``unsupported: <element> in
<policy>`` — never a silent approximation.

The symbolic request (:class:`SymbolicRequest`):

* ``action`` — a string over ``[a-z0-9-]+:[a-z0-9]+``: the lower-cased ``service:Action`` (IAM matches actions
  case-insensitively, IAM User Guide, reference_policies_elements_action.html; patterns are lower-cased too);
* ``resource`` — a non-empty string of printable ASCII characters, matched case-sensitively with the Resource
  element's wildcard rule (:func:`~landing_zone.policies.evaluator.resource_tokens`);
* every condition key any encoded policy names (case-insensitive names), each *present or absent*; a present key
  carries string values of printable ASCII characters other than ``,`` (so that every counterexample can be given
  to ``simulate --context KEY=V1,V2``).  A key used with ``Bool`` carries ``true``/``false``.

Single- and multivalued keys (reference_policies_condition-single-vs-multi-valued-context-keys.html): a key is
multivalued when a policy tests it with ``ForAnyValue:``/``ForAllValues:`` or it is one of :data:`MULTIVALUED_KEYS`;
any other key carries exactly one value, as AWS sends it.  A multivalued key carries 1..B values, B = the number of
condition tests on that key in the encoded policies (plus one).  Why that bound loses nothing: every test is
either existential over the values (``ForAnyValue``, and a plain operator, which the evaluator applies to each
value) or universal (``ForAllValues``).  Take any request with more values; each test that is true-and-existential
or false-and-universal has one witness value, and keeping only those witnesses (at most one per test, at least
one value) leaves every test's truth unchanged: a true universal or a false existential stays so on a subset.  So
whenever a counterexample exists, one with at most B values exists.

Operators (reference_policies_elements_condition_operators.html): String(Not)Equals, String(Not)EqualsIgnoreCase,
String(Not)Like, Arn(Not)Equals, Arn(Not)Like, Bool and Null, each with ``IfExists`` and
``ForAnyValue``/``ForAllValues``; Numeric, Date, IpAddress and Binary are unsupported.  Absent keys: positive
operators are false, negated ones true, ``…IfExists`` true, ``ForAllValues`` true, ``ForAnyValue`` false
(reference_policies_condition-single-vs-multi-valued-context-keys.html).  Several values of one key are ORed
(NOR for the negated operators), keys and operators ANDed.  ``*`` and ``?`` are regular expressions of z3's
sequence theory; ``Arn*`` values are matched segment by segment (the first five segments hold no ``:``).

Evaluation (reference_policies_evaluation-logic.html): within a set of policies an explicit Deny wins, else an
Allow is needed (:meth:`Encoder.allowed`); SCPs need an Allow at every level of the hierarchy and a Deny at any
level denies (:meth:`Encoder.scp_allowed`; add FullAWSAccess to each level as AWS Organizations attaches it).
"""

from __future__ import annotations

import fnmatch
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

import z3

from landing_zone.policies.evaluator import (
    ANY,
    FULL_AWS_ACCESS,
    NO_COLON,
    ConditionTest,
    ParsedStatement,
    Request,
    Token,
    UnsupportedPolicyElement,
    evaluate,
    evaluate_scp_levels,
    glob_tokens,
    policy_statements,
    resource_tokens,
    split_arn,
)
from landing_zone.prove.membership import Literal_, _MembershipForm, _non_string_constants, _Theory

__all__ = [
    "ALPHABET_PUNCTUATION",
    "CHAR",
    "CHAR_NO_COLON",
    "CHAR_NO_DOT",
    "MULTIVALUED_KEYS",
    "Encoder",
    "Guard",
    "KeyVar",
    "OtherActions",
    "action_matches",
    "caseless_re",
    "ProofResult",
    "Prover",
    "SymbolicRequest",
]

# Multivalued global keys (IAM User Guide, "AWS global condition context keys").
MULTIVALUED_KEYS = frozenset(
    k.lower()
    for k in (
        "aws:TagKeys",
        "aws:CalledVia",
        "aws:PrincipalServiceNamesList",
        "aws:PrincipalOrgPaths",
        "aws:ResourceOrgPaths",
        "aws:SourceOrgPaths",
        "aws:VpceOrgPaths",
    )
)

# The alphabet of resources and condition values (a bound, docs/PROVE.md): letters, digits and the punctuation of
# ARNs and IAM names.  No ';', '?', ',' or control characters in a counterexample; a character outside the set that
# no policy names behaves like a letter no policy names, so a counterexample over the full alphabet has a twin here.
ALPHABET_PUNCTUATION = "._:/*+=@-"
_PUNCT_NO_COLON = [z3.Re(c) for c in ALPHABET_PUNCTUATION if c != ":"]
CHAR_NO_COLON = z3.Union(z3.Range("a", "z"), z3.Range("A", "Z"), z3.Range("0", "9"), *_PUNCT_NO_COLON)
CHAR = z3.Union(CHAR_NO_COLON, z3.Re(":"))  # one character of the alphabet (a regular expression)
# Inside the policies' patterns a wildcard is any character (z3 is much faster on these than on unions of ranges);
# the domain (SymbolicRequest.domain) keeps every string in the alphabet.
_ALL = z3.AllChar(z3.ReSort(z3.StringSort()))
_NO_COLON = z3.Diff(_ALL, z3.Re(":"))
CHAR_NO_DOT = z3.Union(
    z3.Range("a", "z"), z3.Range("A", "Z"), z3.Range("0", "9"), *[z3.Re(c) for c in ALPHABET_PUNCTUATION if c != "."]
)
_ACTION = z3.Concat(
    z3.Plus(z3.Union(z3.Range("a", "z"), z3.Range("0", "9"), z3.Re("-"))),
    z3.Re(":"),
    z3.Plus(z3.Union(z3.Range("a", "z"), z3.Range("0", "9"))),
)

Mode = Literal["policies", "scp"]


def _unsupported(what: str, policy: str) -> UnsupportedPolicyElement:
    return UnsupportedPolicyElement(f"unsupported: {what} in {policy}")


def _parsed(name: str, document: Mapping[str, Any]) -> tuple[ParsedStatement, ...]:
    try:
        return policy_statements(name, dict(document))
    except UnsupportedPolicyElement as exc:
        raise _unsupported(str(exc), name) from None


@dataclass(frozen=True)
class Guard:
    """A named set of policies and how IAM combines them: one set (``policies``: identity policies, a boundary, an
    endpoint policy) or SCP levels (``scp``: root, OUs, account — FullAWSAccess is added to every level)."""

    name: str
    mode: Mode
    levels: tuple[tuple[tuple[str, Mapping[str, Any]], ...], ...]

    @classmethod
    def policies(cls, name: str, policies: Iterable[tuple[str, Mapping[str, Any]]]) -> Guard:
        return cls(name, "policies", (tuple(policies),))

    @classmethod
    def scps(cls, name: str, *levels: Iterable[tuple[str, Mapping[str, Any]]]) -> Guard:
        return cls(name, "scp", tuple((("FullAWSAccess", FULL_AWS_ACCESS), *level) for level in levels))

    @property
    def documents(self) -> list[tuple[str, Mapping[str, Any]]]:
        return [p for level in self.levels for p in level]

    def replaced(self, policy: str, document: Mapping[str, Any]) -> Guard:
        """The same guard with one policy document replaced (mutation testing)."""
        levels = tuple(tuple((n, document if n == policy else d) for n, d in level) for level in self.levels)
        return Guard(self.name, self.mode, levels)

    def decide(self, request: Request) -> bool:
        """The evaluator's decision (the replay of a counterexample)."""
        if self.mode == "scp":
            return evaluate_scp_levels([[(n, dict(d)) for n, d in level] for level in self.levels], request).allowed
        return evaluate([(n, dict(d)) for n, d in self.levels[0]], request).allowed


@dataclass(frozen=True)
class KeyVar:
    name: str  # as first written
    present: z3.BoolRef
    values: tuple[z3.SeqRef, ...]
    count: z3.ArithRef | None  # multivalued keys: how many of `values` the request carries

    def active(self, i: int) -> z3.BoolRef:
        return z3.BoolVal(True) if i == 0 or self.count is None else self.count > i

    @property
    def multivalued(self) -> bool:
        return self.count is not None


@dataclass(frozen=True)
class SymbolicRequest:
    action: z3.SeqRef
    resource: z3.SeqRef
    keys: Mapping[str, KeyVar]  # lower-cased name -> variables
    domain: z3.BoolRef  # the constraints every request satisfies (alphabets, value counts)

    def key(self, name: str) -> KeyVar:
        try:
            return self.keys[name.lower()]
        except KeyError:
            raise ValueError(f"condition key {name!r} is not in the symbolic request") from None

    @classmethod
    def for_documents(
        cls, documents: Iterable[tuple[str, Mapping[str, Any]]], *, extra_keys: Iterable[str] = ()
    ) -> SymbolicRequest:
        tests: dict[str, int] = {}
        names: dict[str, str] = {}
        multi: set[str] = set()
        boolean: set[str] = set()
        for name, document in documents:
            for stmt in _parsed(name, document):
                for test in stmt.conditions:
                    k = test.key.lower()
                    names.setdefault(k, test.key)
                    tests[k] = tests.get(k, 0) + (test.operator.base != "Null")
                    if test.operator.set_op:
                        multi.add(k)
                    if test.operator.base == "Bool":
                        boolean.add(k)
        for key in extra_keys:
            names.setdefault(key.lower(), key)
            tests.setdefault(key.lower(), 0)
        action, resource = z3.String("action"), z3.String("resource")
        domain = [z3.InRe(action, _ACTION), z3.InRe(resource, z3.Plus(CHAR))]
        keys: dict[str, KeyVar] = {}
        for k in sorted(names):
            present = z3.Bool(f"present:{k}")
            if k in multi or k in MULTIVALUED_KEYS:
                bound = tests[k] + 1
                counter = z3.Int(f"count:{k}")
                domain.append(z3.And(counter >= 1, counter <= bound))
                count: z3.ArithRef | None = counter
            else:
                bound, count = 1, None
            values = tuple(z3.String(f"value:{k}:{i}") for i in range(bound))
            for v in values:
                domain.append(
                    z3.Or(v == z3.StringVal("true"), v == z3.StringVal("false"))
                    if k in boolean
                    else z3.InRe(v, z3.Plus(CHAR))
                )
            keys[k] = KeyVar(names[k], present, values, count)
        return cls(action, resource, keys, z3.And(domain))

    def pinned(self, request: Request) -> z3.BoolRef:
        """The constraint "the symbolic request is this concrete request" (keys it does not carry are absent)."""
        context = {k.lower(): v for k, v in request.context.items()}
        parts = [self.action == z3.StringVal(request.action.lower()), self.resource == z3.StringVal(request.resource)]
        for k, kv in self.keys.items():
            if k not in context:
                parts.append(z3.Not(kv.present))
                continue
            raw = context[k]
            values = [str(v) for v in raw] if isinstance(raw, list | tuple) else [str(raw)]
            if len(values) > len(kv.values) or (kv.count is None and len(values) != 1):
                return z3.BoolVal(False)
            parts.append(kv.present)
            if kv.count is not None:
                parts.append(kv.count == len(values))
            parts += [kv.values[i] == z3.StringVal(v) for i, v in enumerate(values)]
        return z3.And(parts)

    def substitution(self, request: Request) -> list[tuple[z3.ExprRef, z3.ExprRef]] | None:
        """The request's variables replaced by the concrete request's values (keys it does not carry: absent), for
        ``z3.substitute``; None when the request does not fit (e.g. two values of a single-valued key)."""
        context = {k.lower(): v for k, v in request.context.items()}
        subs: list[tuple[z3.ExprRef, z3.ExprRef]] = [
            (self.action, z3.StringVal(request.action.lower())),
            (self.resource, z3.StringVal(request.resource)),
        ]
        for k, kv in self.keys.items():
            raw = context.get(k)
            subs.append((kv.present, z3.BoolVal(raw is not None)))
            values = [] if raw is None else [str(v) for v in raw] if isinstance(raw, list | tuple) else [str(raw)]
            if len(values) > len(kv.values) or (kv.count is None and len(values) > 1):
                return None
            if kv.count is not None:
                subs.append((kv.count, z3.IntVal(max(1, len(values)))))
            for i, var in enumerate(kv.values):
                subs.append((var, z3.StringVal(values[i] if i < len(values) else "x")))
        return subs

    def decide(self, formula: z3.BoolRef, request: Request) -> bool | None:
        """The formula's truth on one concrete request (ground: z3's simplifier decides it); None when the request
        does not fit the symbolic request or the formula does not reduce to a truth value."""
        subs = self.substitution(request)
        if subs is None:
            return None
        out = z3.simplify(z3.substitute(formula, *subs))
        return True if z3.is_true(out) else False if z3.is_false(out) else None

    def concrete(self, model: z3.ModelRef) -> Request:
        """The request a z3 model describes (keys absent in it are left out)."""

        def text(term: z3.SeqRef) -> str:
            return str(model.eval(term, model_completion=True).as_string())

        context: dict[str, str | list[str]] = {}
        for kv in self.keys.values():
            if not z3.is_true(model.eval(kv.present, model_completion=True)):
                continue
            n = 1 if kv.count is None else model.eval(kv.count, model_completion=True).as_long()
            values = [text(v) for v in kv.values[:n]]
            context[kv.name] = values if kv.multivalued else values[0]
        return Request(action=text(self.action), resource=text(self.resource), context=context)


# ----------------------------------------------------------------------------------------------- patterns


def _tokens_re(tokens: Sequence[Token]) -> z3.ReRef:
    parts: list[z3.ReRef] = []
    literal = ""
    for kind, value in tokens:
        if kind == "char":
            literal += value
            continue
        if literal:
            parts.append(z3.Re(literal))
            literal = ""
        char = _ALL if value == ANY else _NO_COLON
        parts.append(z3.Star(char) if kind == "star" else char)
    if literal:
        parts.append(z3.Re(literal))
    if not parts:
        return z3.Re("")
    return parts[0] if len(parts) == 1 else z3.Concat(*parts)


def _glob_re(pattern: str) -> z3.ReRef:
    return _tokens_re(glob_tokens(pattern))


def _literal(pattern: str) -> bool:
    return "*" not in pattern and "?" not in pattern


def caseless_re(value: str) -> z3.ReRef:
    parts = [z3.Union(z3.Re(c.lower()), z3.Re(c.upper())) if c.lower() != c.upper() else z3.Re(c) for c in value] or [
        z3.Re("")
    ]
    return parts[0] if len(parts) == 1 else z3.Concat(*parts)


def _arn_re(pattern: str) -> z3.ReRef:
    """ArnLike/ArnEquals: ``arn`` and four colon-free segments, each matching its pattern segment, then the rest
    (the evaluator's ``_arn_like``).  Written without intersections, which z3 solves slowly: in the colon-free
    segments a ``*`` is ``[^:]*`` and a ``?`` is ``[^:]``; the first segment is ``arn`` when its pattern matches it."""
    parts = split_arn(pattern)
    if parts is None:  # the evaluator refuses it only when matched; the prover would always reach it
        raise UnsupportedPolicyElement(f"Arn* condition value is not a 6-segment ARN pattern: {pattern!r}")
    if not fnmatch.fnmatchcase("arn", parts[0].replace("[", "[[]")):
        return z3.Empty(z3.ReSort(z3.StringSort()))
    segment_tokens = [tuple((k, NO_COLON) if k != "char" else (k, v) for k, v in glob_tokens(p)) for p in parts[1:5]]
    out: list[Token] = [("char", c) for c in "arn:"]
    for tokens in segment_tokens:
        out += [*tokens, ("char", ":")]
    out += glob_tokens(parts[5])
    return _tokens_re(out)


# ----------------------------------------------------------------------------------------------- encoder


@dataclass(frozen=True)
class OtherActions:
    """The action class "any action of ``prefix`` other than ``known``" (lower-case full names): the actions AWS may
    add later and the database does not list.  Literal patterns name none of them; wildcard patterns of the prefix
    stay regular expressions."""

    prefix: str
    known: frozenset[str]


@lru_cache(maxsize=4096)
def _compiled(patterns: tuple[str, ...]) -> tuple[frozenset[str], re.Pattern[str] | None]:
    literals = frozenset(p.lower() for p in patterns if _literal(p))
    globs = [fnmatch.translate(p.lower()) for p in patterns if not _literal(p)]
    return literals, (re.compile("|".join(f"(?:{x})" for x in globs)) if globs else None)


def action_matches(action: str, patterns: Sequence[str]) -> bool:
    """Python's decision: a concrete action matches one of the IAM action patterns (case-insensitively)."""
    literals, rx = _compiled(tuple(patterns))
    low = action.lower()
    return low in literals or (rx is not None and rx.match(low) is not None)


class Encoder:
    """Policy documents as z3 formulas over one :class:`SymbolicRequest`."""

    def __init__(self, request: SymbolicRequest, action: str | None = None, other: OtherActions | None = None) -> None:
        self.request = request
        # When every question is about one known action, action matching is decided here (a smaller formula);
        # for the class of unknown actions of a prefix only the prefix's wildcard patterns stay symbolic.
        self.action = action.lower() if action else None
        self.other = other
        self._cache: dict[tuple[str, int], z3.BoolRef] = {}

    def for_action(self, action: str | None) -> Encoder:
        """An encoder for questions about one (literal) action: statements that cannot match it drop out."""
        if action is None or not _literal(action):
            return self
        return Encoder(self.request, action)

    def for_other(self, prefix: str, known: Iterable[str]) -> Encoder:
        """An encoder for questions about any action of ``prefix`` not in ``known`` (and no literal a policy names:
        pass those in ``known`` too, see :meth:`action_premise`)."""
        return Encoder(self.request, other=OtherActions(prefix.lower(), frozenset(k.lower() for k in known)))

    def action_premise(self) -> z3.BoolRef:
        """What the encoder's action class says about ``request.action``."""
        if self.action is not None:
            return self.request.action == z3.StringVal(self.action)
        if self.other is not None:
            name = z3.Plus(z3.Union(z3.Range("a", "z"), z3.Range("0", "9")))
            of_prefix = z3.Concat(z3.Re(self.other.prefix + ":"), name)
            known = [z3.Re(k) for k in sorted(self.other.known) if k.startswith(self.other.prefix + ":")]
            if not known:
                return z3.InRe(self.request.action, of_prefix)
            # one membership (the prover decides one regular language faster than hundreds of disequalities)
            return z3.InRe(self.request.action, z3.Diff(of_prefix, known[0] if len(known) == 1 else z3.Union(known)))
        return z3.BoolVal(True)

    def _value_test(self, test: ConditionTest, value: z3.SeqRef, policy_value: str, policy: str) -> z3.BoolRef:
        base = test.operator.base
        if base == "StringEquals":
            return value == z3.StringVal(policy_value)
        if base == "StringEqualsIgnoreCase":
            return z3.InRe(value, caseless_re(policy_value))
        if base == "StringLike":
            if _literal(policy_value):
                return value == z3.StringVal(policy_value)
            return z3.InRe(value, _glob_re(policy_value))
        if base in ("ArnEquals", "ArnLike"):
            return z3.InRe(value, _arn_re(policy_value))
        if base == "Bool":
            return value == z3.StringVal(policy_value.lower())
        raise _unsupported(f"condition operator {test.operator.name}", policy)

    def condition(self, test: ConditionTest, policy: str) -> z3.BoolRef:
        """One condition test, with AWS's rules for absent keys and multivalued keys (as the evaluator has them)."""
        op = test.operator
        kv = self.request.key(test.key)
        if op.base == "Null":
            wanted = {v.lower() for v in test.values}
            options = ([z3.Not(kv.present)] if "true" in wanted else []) + ([kv.present] if "false" in wanted else [])
            return z3.Or(options) if len(options) > 1 else options[0]
        if op.if_exists or op.set_op == "ForAllValues":
            absent = True
        elif op.set_op == "ForAnyValue":
            absent = False
        else:
            absent = op.negated

        def passes(value: z3.SeqRef) -> z3.BoolRef:
            hit = z3.Or([self._value_test(test, value, p, policy) for p in test.values])
            return z3.Not(hit) if op.negated else hit

        if op.set_op == "ForAllValues":
            over = z3.And([z3.Implies(kv.active(i), passes(v)) for i, v in enumerate(kv.values)])
        else:
            over = z3.Or([z3.And(kv.active(i), passes(v)) for i, v in enumerate(kv.values)])
        return z3.If(kv.present, over, z3.BoolVal(absent))

    def action_in(self, patterns: Iterable[str]) -> z3.BoolRef:
        """The action matches one of the patterns (case-insensitively)."""
        if self.action is not None:
            return z3.BoolVal(action_matches(self.action, list(patterns)))
        out = []
        for p in patterns:
            low = p.lower()
            if self.other is not None:
                service = low.split(":", 1)[0] if ":" in low else low
                if _literal(low):
                    if low in self.other.known or not low.startswith(self.other.prefix + ":"):
                        continue
                elif not fnmatch.fnmatchcase(self.other.prefix, service.replace("[", "[[]")):
                    continue
                elif low in ("*", self.other.prefix + ":*") or (":" not in low and low.endswith("*")):
                    return z3.BoolVal(True)
            out.append(
                self.request.action == z3.StringVal(low)
                if _literal(low)
                else z3.InRe(self.request.action, _glob_re(low))
            )
        return z3.Or(out) if out else z3.BoolVal(False)

    def resource_in(self, patterns: Iterable[str]) -> z3.BoolRef:
        out = []
        for p in patterns:
            if p == "*":
                return z3.BoolVal(True)
            if _literal(p):
                out.append(self.request.resource == z3.StringVal(p))
            else:
                out.append(z3.InRe(self.request.resource, _tokens_re(resource_tokens(p))))
        return z3.Or(out) if out else z3.BoolVal(False)

    def statement(self, stmt: ParsedStatement, policy: str) -> z3.BoolRef:
        """The statement applies to the request (Effect not consulted)."""
        key = (policy, stmt.index)
        if key not in self._cache:
            action = self.action_in(stmt.actions)
            applies = action if stmt.action_element == "Action" else z3.Not(action)
            if z3.is_false(z3.simplify(applies)):
                self._cache[key] = z3.BoolVal(False)
                return self._cache[key]
            resource = self.resource_in(stmt.resources)
            parts = [
                action if stmt.action_element == "Action" else z3.Not(action),
                resource if stmt.resource_element == "Resource" else z3.Not(resource),
                *(self.condition(t, policy) for t in stmt.conditions),
            ]
            self._cache[key] = z3.And(parts)
        return self._cache[key]

    def _effects(self, policies: Iterable[tuple[str, Mapping[str, Any]]]) -> tuple[list[z3.BoolRef], list[z3.BoolRef]]:
        denies: list[z3.BoolRef] = []
        allows: list[z3.BoolRef] = []
        for name, document in policies:
            for stmt in _parsed(name, document):
                (denies if stmt.effect == "Deny" else allows).append(self.statement(stmt, name))
        return denies, allows

    def allowed(self, guard: Guard) -> z3.BoolRef:
        """The guard allows the request (no Deny matches; an Allow matches in the set / at every SCP level)."""
        denies: list[z3.BoolRef] = []
        level_allows: list[z3.BoolRef] = []
        for level in guard.levels:
            d, a = self._effects(level)
            denies += d
            level_allows.append(z3.Or(a))
        return z3.And(z3.Not(z3.Or(denies)), *level_allows)

    # -- helpers for stating properties ------------------------------------------------------------------

    def absent(self, key: str) -> z3.BoolRef:
        return z3.Not(self.request.key(key).present)

    def equals(self, key: str, value: str) -> z3.BoolRef:
        """The key is present with exactly this one value."""
        kv = self.request.key(key)
        single = z3.BoolVal(True) if kv.count is None else kv.count == 1
        return z3.And(kv.present, single, kv.values[0] == z3.StringVal(value))

    def one_of(self, key: str, values: Iterable[str]) -> z3.BoolRef:
        """The key is present with one value, one of ``values``."""
        kv = self.request.key(key)
        single = z3.BoolVal(True) if kv.count is None else kv.count == 1
        return z3.And(kv.present, single, z3.Or([kv.values[0] == z3.StringVal(v) for v in values]))

    def value_like(self, key: str, patterns: Iterable[str]) -> z3.BoolRef:
        """The (single-valued) key is present and its value matches one of the String/ArnLike globs."""
        kv = self.request.key(key)
        v = kv.values[0]
        return z3.And(kv.present, z3.Or([z3.InRe(v, _glob_re(p)) for p in patterns]))


# ----------------------------------------------------------------------------------------------- proving


@dataclass(frozen=True)
class ProofResult:
    """``holds`` (no request in the premise breaks the claim), ``fails`` (a counterexample), ``vacuous`` (no request
    satisfies the premise: the proof would say nothing), or ``unknown`` (the solver gave up: not a proof)."""

    status: Literal["holds", "fails", "vacuous", "unknown"]
    seconds: float
    counterexample: Request | None = None
    # guard name -> (prover's decision, evaluator's decision) for the counterexample
    replay: Mapping[str, tuple[bool, bool]] = field(default_factory=dict)
    reason: str = ""

    @property
    def replay_agrees(self) -> bool:
        return all(p == e for p, e in self.replay.values())


def _clean(text: str, *, comma: bool) -> str:
    return "".join(c if "!" <= c <= "~" and (comma or c != ",") else "x" for c in text)


def _readable(request: Request) -> Request:
    """The request with every character that is not printable ASCII (and every ',' in a condition value, which
    ``simulate --context`` would split on) replaced by ``x``: a candidate that must still be a counterexample."""
    context: dict[str, str | list[str]] = {}
    for key, value in request.context.items():
        if isinstance(value, list | tuple):
            context[key] = [_clean(str(v), comma=False) for v in value]
        else:
            context[key] = _clean(str(value), comma=False)
    return Request(request.action, _clean(request.resource, comma=True), context)


class Prover:
    """Questions over one symbolic request; the policies are encoded once (:attr:`encoder` caches each statement's
    formula) and every :meth:`check` asks one question.

    How a question is solved (:meth:`solve`): the formulas are split into a Boolean skeleton and per-variable
    membership atoms (:class:`_MembershipForm`); z3 solves the skeleton, then each string variable's assigned
    literals are decided on their own (:class:`_Theory`); a conflicting set is blocked in the skeleton and the
    loop repeats.  This is the lazy scheme of SMT solvers (DPLL(T)), with z3 deciding both the skeleton and each
    variable's regular-language question: exact, since the request's string variables share no constraint (every
    atom mentions one variable), and much faster here than one monolithic query because the per-variable answers
    and conflicts are reused across the hundreds of obligations of a run."""

    def __init__(self, request: SymbolicRequest, *, timeout_ms: int = 60_000) -> None:
        self.request = request
        self.encoder = Encoder(request)
        self.timeout_ms = timeout_ms
        self.theory = _Theory(timeout_ms)
        self.form = _MembershipForm()

    def sibling(self) -> Prover:
        """A prover over the same symbolic request that shares the solved string questions (they are facts about
        regular languages) but encodes its policies afresh: for other policy documents, e.g. a mutant's."""
        other = Prover(self.request, timeout_ms=self.timeout_ms)
        other.theory, other.form = self.theory, self.form
        return other

    def _monolithic(self, everything: list[z3.BoolRef]) -> tuple[z3.CheckSatResult, z3.ModelRef | None, str]:
        """The conjunction in one z3 solver, for formulas with string terms outside the atoms' shapes."""
        solver = z3.Solver()
        solver.set("timeout", self.timeout_ms)
        solver.add(*everything)
        r = solver.check()
        return r, solver.model() if r == z3.sat else None, solver.reason_unknown() if r == z3.unknown else ""

    def _ground(
        self, everything: list[z3.BoolRef], strings: list[Any], model: z3.ModelRef, skeleton: list[z3.BoolRef]
    ) -> tuple[z3.CheckSatResult, z3.ModelRef | None, str]:
        """The solved strings and the skeleton's other values replayed on the original formulas."""
        ground = z3.Solver()
        ground.set("timeout", self.timeout_ms)
        ground.add(*everything)
        ground.add(*strings)
        ground.add(*[v == model.eval(v, model_completion=True) for v in _non_string_constants(skeleton)])
        if ground.check() != z3.sat:
            return z3.unknown, None, "the solved strings do not replay on the original formula (prover bug)"
        return z3.sat, ground.model(), ""

    def solve(self, *formulas: z3.BoolRef) -> tuple[z3.CheckSatResult, z3.ModelRef | None, str]:
        """Satisfiability of the conjunction (with the request's domain): ``(sat, a model, "")``, ``(unsat, None,
        "")`` or ``(unknown, None, reason)``.  Gives up after :attr:`timeout_ms`."""
        deadline = time.perf_counter() + self.timeout_ms / 1000
        everything = [self.request.domain, *formulas]
        skeleton, atoms_used, pure = self.form.split(everything)
        if not pure:  # a string term outside the atoms' shapes: the monolithic query
            return self._monolithic(everything)
        sat = z3.Solver()
        sat.add(*skeleton)
        by_var: dict[int, tuple[z3.SeqRef, list[tuple[z3.BoolRef, z3.ReRef]]]] = {}
        for b, x, regex in atoms_used:
            by_var.setdefault(x.get_id(), (x, []))[1].append((b, regex))
        atom_of = {(x.get_id(), regex.get_id()): b for b, x, regex in atoms_used}

        def block(x: z3.SeqRef, conflict: frozenset[Literal_]) -> None:
            lits = [atom_of[(x.get_id(), rid)] for rid, _ in sorted(conflict)]
            pols = [pol for _, pol in sorted(conflict)]
            sat.add(z3.Not(z3.And([b if pol else z3.Not(b) for b, pol in zip(lits, pols, strict=True)])))

        for x, atoms in by_var.values():
            for conflict in self.theory.conflicts_within(x, {r.get_id() for _, r in atoms}):
                block(x, conflict)
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                return z3.unknown, None, "timeout"
            sat.set("timeout", max(1, int(left * 1000)))
            r = sat.check()
            if r != z3.sat:
                return r, None, sat.reason_unknown() if r == z3.unknown else ""
            model = sat.model()
            values: dict[int, str] = {}
            blocked = False
            for x, atoms in by_var.values():
                lits = [(regex, z3.is_true(model.eval(b, model_completion=True))) for b, regex in atoms]
                status, answer = self.theory.check(x, lits)
                if status == "unknown":
                    return z3.unknown, None, str(answer)
                if status == "unsat":
                    block(x, answer)
                    blocked = True
                else:
                    values[x.get_id()] = answer
            if blocked:
                continue
            # every variable consistent: the concrete strings, checked against the original formulas (ground)
            strings = [x == z3.StringVal(values[x.get_id()]) for x, _ in by_var.values()]
            return self._ground(everything, strings, model, skeleton)

    def check(
        self,
        premise: z3.BoolRef,
        claim: z3.BoolRef,
        *,
        guards: Sequence[Guard] = (),
        witness: Request | None = None,
    ) -> ProofResult:
        """Does every request satisfying ``premise`` satisfy ``claim``?  First the vacuity check (the premise is
        satisfiable: shown by ``witness``, a concrete request, when it is in the premise, else by the solver), then
        ``premise and not claim``; a counterexample is replayed through the evaluator for each guard (its decision
        by the prover and by the evaluator)."""
        start = time.perf_counter()
        vacuity = z3.unknown
        if witness is not None:  # a known request in the premise settles the vacuity check fast (all ground)
            vacuity, _, _ = self.solve(premise, self.request.pinned(witness))
        if vacuity != z3.sat:
            vacuity, _, why = self.solve(premise)
            if vacuity == z3.unsat:
                return ProofResult("vacuous", time.perf_counter() - start, reason="no request satisfies the premise")
            if vacuity == z3.unknown:
                return ProofResult("unknown", time.perf_counter() - start, reason=f"vacuity check: {why}")
        result, model, why = self.solve(premise, z3.Not(claim))
        seconds = time.perf_counter() - start
        if result == z3.unsat:
            return ProofResult("holds", seconds)
        if result == z3.unknown or model is None:
            return ProofResult("unknown", seconds, reason=why)
        concrete = self.request.concrete(model)
        readable = _readable(concrete)
        if readable != concrete:
            # keep the readable request only when it is a counterexample too (everything is ground: fast)
            again, again_model, _ = self.solve(premise, z3.Not(claim), self.request.pinned(readable))
            if again == z3.sat and again_model is not None:
                model, concrete = again_model, readable
        model, concrete = self._minimal(premise, claim, model, concrete)
        replay = {
            g.name: (z3.is_true(model.eval(self.encoder.allowed(g), model_completion=True)), g.decide(concrete))
            for g in guards
        }
        return ProofResult("fails", time.perf_counter() - start, concrete, replay)

    def _minimal(
        self, premise: z3.BoolRef, claim: z3.BoolRef, model: z3.ModelRef, concrete: Request
    ) -> tuple[z3.ModelRef, Request]:
        """The counterexample with only the condition keys that matter: each key is left out in turn (sorted by
        name) and stays out when the request is still a counterexample (a ground question: fast), until no key
        can be: the result is minimal in that no single key can be removed from it."""
        changed = True
        while changed:
            changed = False
            for key in sorted(concrete.context):
                context = {k: v for k, v in concrete.context.items() if k != key}
                candidate = Request(concrete.action, concrete.resource, context)
                again, again_model, _ = self.solve(premise, z3.Not(claim), self.request.pinned(candidate))
                if again == z3.sat and again_model is not None:
                    model, concrete, changed = again_model, candidate, True
        return model, concrete
