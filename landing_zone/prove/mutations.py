"""Mutation testing of the prover (issue 22): weaken or widen one statement of the synthesized guardrails at a time
and ask the prover again.  A mutant that changes what a property says must be *killed* (a counterexample); one
that survives is reported as *redundant* with respect to P1-P4, P6 and PO1-PO3 (the perimeter SCP's properties):
it guards what no property states
(the report names it, so that a reviewer sees which guarantees rest on samples only).

Mutation operators (each on one Deny statement of the guardrails):

* ``drop`` — the statement removed (the policy detached when it was its only statement: a policy document has at
  least one statement, and the one-SCP-per-concern layout makes one-statement SCPs);
* ``widen-regions`` — a Region outside the compliant set added to the Region list of its
  ``StringNotEquals``/``...IfExists`` test on ``aws:RequestedRegion``;
* ``exempt-everyone`` — ``arn:aws:iam::*:role/*`` added to its ``ArnNotLike``/``StringNotLike`` exemption list on
  ``aws:PrincipalARN``;
* ``wildcard`` — ``*`` added to its ``NotResource`` (the deny applies to nothing) or to its ``Resource`` list
  (the deny applies to everything: P4, not over-blocking, must see it);
* ``home-region-only`` — a statement about Bedrock that tests no Region limited to the home Region
  (``StringEquals aws:RequestedRegion`` the home Region): a property proven from the home Region only would miss it
  (issue 35: P2 was), so the properties must state every Region a request may name.

A mutant re-proves only the obligations about actions its statement can apply to (the others' formulas are the
same), and stops at the first counterexample; solved string questions are shared between mutants
(:meth:`~landing_zone.prove.prover.Prover.sibling`).
"""

from __future__ import annotations

import copy
import json
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from landing_zone.policies.evaluator import ParsedStatement, policy_statements
from landing_zone.prove.model import PRINCIPAL, REGION
from landing_zone.prove.proofs import (
    Killed,
    ProofInputs,
    cache_path,
    prove_all,
    symbolic_request,
)
from landing_zone.prove.prover import Guard, Prover

__all__ = ["MUTATION_PROPERTIES", "Mutant", "MutantResult", "mutation_table", "mutants", "run_mutations"]

OUTSIDE_REGIONS = ("sa-east-1", "ap-southeast-2", "af-south-1")
# What a mutant of the SCPs may break: P5 is about the invoker chain, not the SCPs; PO1-PO3 state the perimeter SCP.
MUTATION_PROPERTIES = ("P1", "P2", "P3", "P4", "P6", "PO1", "PO2", "PO3")
EVERYONE = "arn:aws:iam::*:role/*"


@dataclass(frozen=True)
class Mutant:
    policy: str
    sid: str
    operator: str
    document: Mapping[str, Any] | None  # the mutated policy document; None: the policy detached (its only statement)
    before: ParsedStatement
    after: ParsedStatement | None

    def applied(self, guard: Guard) -> Guard:
        """``guard`` with this mutant in place of the original policy (without the policy when it is detached)."""
        if self.document is not None:
            return guard.replaced(self.policy, self.document)
        levels = tuple(tuple((n, d) for n, d in level if n != self.policy) for level in guard.levels)
        return Guard(guard.name, guard.mode, levels)

    @property
    def label(self) -> str:
        return f"{self.operator} {self.policy}/{self.sid}"


@dataclass(frozen=True)
class MutantResult:
    mutant: Mutant
    status: str  # killed | redundant | not-decided
    property: str = ""
    obligation: str = ""
    command: str = ""
    seconds: float = 0.0
    counterexample: Mapping[str, Any] | None = None  # action, resource, context of the killing request
    replay_agrees: bool = True  # prover and evaluator agree on the counterexample (on the mutant)

    def as_dict(self) -> dict[str, Any]:
        return {
            "mutant": self.mutant.label,
            "status": self.status,
            "property": self.property,
            "obligation": self.obligation,
            "simulate": self.command,
            "counterexample": dict(self.counterexample) if self.counterexample else None,
            "replay_agrees": self.replay_agrees,
            "seconds": round(self.seconds, 2),
        }


def _keys(condition: Mapping[str, Any], operators: Sequence[str], key: str) -> Iterator[tuple[str, str]]:
    for op, tests in condition.items():
        if op in operators:
            for k in tests:
                if k.lower() == key.lower():
                    yield op, k


def _about_bedrock(stmt: Mapping[str, Any]) -> bool:
    actions = stmt.get("Action", stmt.get("NotAction", []))
    return any(str(a).lower().startswith("bedrock") for a in (actions if isinstance(actions, list) else [actions]))


def _variants(
    stmt: Mapping[str, Any], compliant: Sequence[str], home: str | None = None
) -> Iterator[tuple[str, dict[str, Any] | None]]:
    yield "drop", None
    condition = stmt.get("Condition") or {}
    outside = next(r for r in OUTSIDE_REGIONS if r not in compliant)
    for op, k in _keys(condition, ("StringNotEquals", "StringNotEqualsIfExists"), REGION):
        new = copy.deepcopy(dict(stmt))
        values = new["Condition"][op][k]
        new["Condition"][op][k] = [*(values if isinstance(values, list) else [values]), outside]
        yield "widen-regions", new
    for op, k in _keys(condition, ("ArnNotLike", "StringNotLike", "ArnNotLikeIfExists"), PRINCIPAL):
        new = copy.deepcopy(dict(stmt))
        values = new["Condition"][op][k]
        new["Condition"][op][k] = [*(values if isinstance(values, list) else [values]), EVERYONE]
        yield "exempt-everyone", new
    for element in ("NotResource", "Resource"):
        values = stmt.get(element)
        if values is None or values == "*" or values == ["*"]:
            continue
        new = copy.deepcopy(dict(stmt))
        new[element] = [*(values if isinstance(values, list) else [values]), "*"]
        yield "wildcard", new
    tests_region = any(k.lower() == REGION.lower() for tests in condition.values() for k in tests)
    if home is not None and _about_bedrock(stmt) and not tests_region:
        new = copy.deepcopy(dict(stmt))
        new.setdefault("Condition", {}).setdefault("StringEquals", {})[REGION] = [home]
        yield "home-region-only", new


def mutants(guard: Guard, compliant: Sequence[str], home: str | None = None) -> list[Mutant]:
    """Every mutant of the guard's Deny statements (FullAWSAccess, which AWS attaches, is not mutated); with
    ``home``, the home-region-only mutants too."""
    out: list[Mutant] = []
    for name, document in guard.documents:
        if name == "FullAWSAccess":
            continue
        parsed = policy_statements(name, dict(document))
        for index, (stmt, before) in enumerate(zip(document["Statement"], parsed, strict=True)):
            if stmt.get("Effect") != "Deny":
                continue
            for operator, new in _variants(stmt, compliant, home):
                statements = list(document["Statement"])
                if new is None:
                    del statements[index]
                else:
                    statements[index] = new
                mutated = {**document, "Statement": statements} if statements else None
                after = None if new is None or mutated is None else policy_statements(name, mutated)[index]
                out.append(Mutant(name, str(stmt.get("Sid", index)), operator, mutated, before, after))
    return out


def run_mutations(
    inputs: ProofInputs,
    *,
    properties: Sequence[str] = MUTATION_PROPERTIES,
    timeout_ms: int = 10_000,
    only: Sequence[str] | None = None,
) -> list[MutantResult]:
    """Each mutant of the guardrails (``only``: the mutants whose label contains one of these strings) proven
    against ``properties``: killed (with the property, the obligation and the counterexample), redundant, or
    not-decided (an obligation timed out)."""
    base = Prover(symbolic_request(inputs), timeout_ms=timeout_ms)
    results = []
    config = inputs.plan.config
    for mutant in mutants(inputs.guardrails, sorted(config.compliant_regions), config.home_region):
        if only and not any(o in mutant.label for o in only):
            continue
        guard = mutant.applied(inputs.guardrails)
        mutated = ProofInputs(
            inputs.plan, inputs.source, inputs.assembly, guard, inputs.boundary, inputs.invokers, inputs.endpoints
        )
        focus = [mutant.before] + ([mutant.after] if mutant.after is not None else [])
        start = time.perf_counter()
        try:
            report = prove_all(mutated, properties=properties, focus=focus, prover=base.sibling())
        except Killed as killed:
            o = killed.obligation
            c = o.result.counterexample
            request = None if c is None else {"action": c.action, "resource": c.resource, "context": dict(c.context)}
            seconds = time.perf_counter() - start
            results.append(
                MutantResult(
                    mutant,
                    "killed",
                    killed.property_id,
                    o.label,
                    o.command or "",
                    seconds,
                    request,
                    o.result.replay_agrees,
                )
            )
            continue
        undecided = [o for p in report.properties for o in p.obligations if o.result.status != "holds"]
        status = "not-decided" if undecided else "redundant"
        label = undecided[0].label if undecided else ""
        results.append(MutantResult(mutant, status, "", label, "", time.perf_counter() - start))
    return results


def mutation_table(
    inputs: ProofInputs, *, properties: Sequence[str] = MUTATION_PROPERTIES, timeout_ms: int = 10_000
) -> list[dict[str, Any]]:
    """:func:`run_mutations` as dictionaries, kept in ``$LZ_PROOF_CACHE`` when it is set (keyed like the proofs)."""
    cache = cache_path(inputs, timeout_ms, properties, kind="mutations")
    if cache is not None and cache.is_file():
        try:
            return list(json.loads(cache.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            pass
    table = [r.as_dict() for r in run_mutations(inputs, properties=properties, timeout_ms=timeout_ms)]
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        staging = cache.with_suffix(f".{os.getpid()}.tmp")
        staging.write_text(json.dumps(table), encoding="utf-8")
        staging.replace(cache)
    return table
