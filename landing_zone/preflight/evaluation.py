"""The organization's own SCPs against the landing zone's requests, with the project's evaluator
(:mod:`landing_zone.policies.evaluator`).

SCP inheritance as the Organizations user guide states it (orgs_manage_policies_scps_evaluation.html): a request is
allowed only when every level of the account's path (root, each OU, the account) has an SCP that allows it, and no
SCP at any level denies it.  The landing zone's own SCPs from an earlier deploy are left out: the deploy replaces them,
and ``prove`` shows what they allow.

A statement the evaluator cannot read (an operator it does not implement, such as ``IpAddress``; a policy variable)
decides nothing: when its action and resource match the request, the verdict is *unknown* and names it, never
"allowed".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from landing_zone.policies.evaluator import (
    ParsedStatement,
    Request,
    UnsupportedPolicyElement,
    parse_statement,
    parsed_matches,
)
from landing_zone.preflight.organization import Scp

__all__ = ["Level", "Outcome", "Statement", "Verdict", "decide", "levels_of"]


class Outcome(StrEnum):
    ALLOWED = "allowed"
    DENIED = "denied"  # an explicit Deny
    NOT_ALLOWED = "not allowed"  # a level without an Allow (FullAWSAccess detached there)
    UNKNOWN = "unknown"  # a statement the evaluator cannot read may decide it


@dataclass(frozen=True)
class Statement:
    level: str  # the target the SCP is attached to
    policy: Scp
    index: int
    parsed: ParsedStatement | None  # None: outside the evaluator's grammar
    bare: ParsedStatement | None  # the statement without its Condition (unreadable ones: to know whether it applies)
    effect: str
    sid: str | None = None
    problem: str = ""

    @property
    def label(self) -> str:
        return f"{self.policy.name}/{self.sid or '#' + str(self.index)} ({self.policy.kind}, at {self.level})"

    def applies(self, request: Request) -> bool | None:
        """True/False; None when the statement cannot be read but its action and resource match (or cannot tell)."""
        try:
            if self.parsed is not None:
                return parsed_matches(self.parsed, request)
            if self.bare is not None and not parsed_matches(self.bare, request):
                return False
        except UnsupportedPolicyElement:  # a value only checked when matched (an Arn* pattern that is no ARN)
            return None
        return None


@dataclass(frozen=True)
class Level:
    target: str
    statements: tuple[Statement, ...]


@dataclass(frozen=True)
class Verdict:
    outcome: Outcome
    by: tuple[Statement, ...] = ()  # the denies, or the unreadable statements that leave it unknown
    level: str | None = None  # NOT_ALLOWED: the level without an Allow

    def explain(self) -> str:
        if self.outcome is Outcome.NOT_ALLOWED:
            return f"no SCP attached to {self.level} allows it"
        names = "; ".join(s.label + (f": {s.problem}" if s.problem else "") for s in self.by)
        return f"{self.outcome.value} by {names}" if names else self.outcome.value


def _statement(level: str, policy: Scp, index: int, raw: object) -> Statement:
    effect = str(raw.get("Effect")) if isinstance(raw, Mapping) else "?"
    sid = raw.get("Sid") if isinstance(raw, Mapping) and isinstance(raw.get("Sid"), str) else None
    try:
        return Statement(level, policy, index, parse_statement(raw, index), None, effect, sid)
    except UnsupportedPolicyElement as exc:
        problem = str(exc)
    bare = None
    if isinstance(raw, Mapping):
        try:
            bare = parse_statement({k: v for k, v in raw.items() if k != "Condition"}, index)
        except UnsupportedPolicyElement:
            bare = None
    return Statement(level, policy, index, None, bare, effect, sid, problem)


def levels_of(path: Sequence[tuple[str, Iterable[Scp]]], *, leave_out: Iterable[str] = ()) -> list[Level]:
    """The statements of each level's SCPs (kinds in ``leave_out`` dropped)."""
    skip = set(leave_out)
    out = []
    for target, scps in path:
        statements: list[Statement] = []
        for scp in scps:
            if scp.kind in skip:
                continue
            raw: Any = scp.document.get("Statement") if scp.document is not None else None
            items = raw if isinstance(raw, list) else [raw]
            statements += [_statement(target, scp, i, item) for i, item in enumerate(items)]
        out.append(Level(target, tuple(statements)))
    return out


def decide(levels: Sequence[Level], request: Request) -> Verdict:
    """The organization's SCPs' decision on ``request`` (see the module docstring)."""
    denies: list[Statement] = []
    unknown_denies: list[Statement] = []
    missing: list[tuple[str, list[Statement]]] = []  # levels without a matching Allow, with their unreadable allows
    for level in levels:
        allowed = False
        unknown_allows: list[Statement] = []
        for statement in level.statements:
            applies = statement.applies(request)
            if applies is False:
                continue
            if statement.effect == "Deny":
                (denies if applies else unknown_denies).append(statement)
            elif applies:
                allowed = True
            else:
                unknown_allows.append(statement)
        if not allowed:
            missing.append((level.target, unknown_allows))
    if denies:
        return Verdict(Outcome.DENIED, tuple(denies))
    for target, unknown_allows in missing:
        if not unknown_allows:
            return Verdict(Outcome.NOT_ALLOWED, level=target)
    unreadable = [s for _, allows in missing for s in allows] + unknown_denies
    if unreadable:
        return Verdict(Outcome.UNKNOWN, tuple(unreadable))
    return Verdict(Outcome.ALLOWED)
