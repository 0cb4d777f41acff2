"""The proofs' run (:mod:`landing_zone.prove.proofs`): the state of one proof run (:class:`_Run`: the prover,
the obligations checked, the focus) and the helpers the properties share (ARN formats, the allowed models)."""

from __future__ import annotations

import fnmatch
import re
import shlex
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import z3

from landing_zone.actiondb import lookup as action_db
from landing_zone.plan import Plan
from landing_zone.policies.evaluator import ParsedStatement, Request, policy_statements
from landing_zone.prove.model import (
    PRINCIPAL,
    PROPERTIES,
    REGION,
    Killed,
    Obligation,
    ProofInputs,
    PropertyResult,
)
from landing_zone.prove.prover import (
    CHAR,
    CHAR_NO_COLON,
    Guard,
    ProofResult,
    Prover,
    action_matches,
)

# ------------------------------------------------------------------------------------------------- helpers

UNLISTED = "zzunlisted0"  # an action name no database lists (the witness of the "any other action" obligations)


def simulate_command(request: Request, assembly: str | None) -> str:
    """The counterexample as ``python -m landing_zone simulate ...`` (what a reviewer runs to see it)."""
    args = ["python", "-m", "landing_zone", "simulate"]
    if assembly:
        args += ["--assembly", assembly]
    args += ["--action", request.action, "--resource", request.resource]
    for key, value in request.context.items():
        text = ",".join(value) if isinstance(value, list | tuple) else str(value)
        if key.lower() == REGION.lower() and not isinstance(value, list | tuple):
            args += ["--region", text]
        elif key.lower() == PRINCIPAL.lower() and not isinstance(value, list | tuple):
            args += ["--principal-arn", text]
        else:
            args += ["--context", f"{key}={text}"]
    return shlex.join(args)


def _canonical(request: Request) -> Request:
    """The action spelled as in the IAM action database (the prover works on lower-case actions)."""
    service, _, name = request.action.partition(":")
    for action in action_db.actions_of_service(service):
        if action.name.lower() == name:
            return Request(f"{service}:{action.name}", request.resource, request.context)
    return request


# An IAM principal ARN: arn:aws:iam::<twelve digits>:<role/..., user/..., ...>
_PRINCIPAL_ARN = z3.Concat(z3.Re("arn:aws:iam::"), z3.Loop(z3.Range("0", "9"), 12, 12), z3.Re(":"), z3.Plus(CHAR))


def _arn_format_re(arn_format: str, *, account: bool = False) -> z3.ReRef:
    """A resource type's ARN format as a regular expression: variables are non-empty and colon-free (Region and
    Account may be empty, as in the Region-less foundation model; ``account``: a resource of an account, as AWS
    names it in a request — the Account is twelve digits and the Region is not empty)."""
    no_colon = CHAR_NO_COLON
    parts: list[z3.ReRef] = []
    pos = 0
    fmt = arn_format.replace("${Partition}", "aws")
    for m in re.finditer(r"\$\{([^}]*)\}", fmt):
        if fmt[pos : m.start()]:
            parts.append(z3.Re(fmt[pos : m.start()]))
        if m.group(1) == "Region":  # empty (Region-less ARNs) or a Region name (``account``: a Region name)
            region_char = z3.Union(z3.Range("a", "z"), z3.Range("0", "9"), z3.Re("-"))
            parts.append(z3.Plus(region_char) if account else z3.Star(region_char))
        elif m.group(1) == "Account":  # empty or twelve digits
            twelve = z3.Loop(z3.Range("0", "9"), 12, 12)
            parts.append(twelve if account else z3.Union(z3.Re(""), twelve))
        else:
            parts.append(z3.Plus(no_colon))
        pos = m.end()
    if fmt[pos:]:
        parts.append(z3.Re(fmt[pos:]))
    return parts[0] if len(parts) == 1 else z3.Concat(*parts)


def _fill_format(arn_format: str, region: str, resource_id: str) -> str:
    """An ARN of a resource type's format (the vacuity witness of P2)."""
    values = {"Partition": "aws", "Region": region, "Account": "123456789012"}
    return re.sub(r"\$\{([^}]*)\}", lambda m: values.get(m.group(1), resource_id), arn_format)


def _inference_regions(plan: Plan) -> list[str]:
    c = plan.config
    return sorted(c.compliant_regions) + (["unspecified"] if c.allow_global_inference else [])


def _allowed_models(plan: Plan) -> list[str]:
    return sorted({mr.model.id for mr in plan.routing.models})


def _allowed_profiles(plan: Plan) -> list[str]:
    return sorted({r.profile_id for mr in plan.routing.models for r in mr.compliant_routes if r.profile_id})


def _mantle_models(plan: Plan) -> list[str]:
    return sorted({r.invoke_id for r in plan.routing.compliant_routes(endpoint="mantle")})


@dataclass
class _Run:
    inputs: ProofInputs
    prover: Prover
    obligations: list[Obligation] = field(default_factory=list)
    statements: tuple[ParsedStatement, ...] = ()
    # mutation runs: the statements a mutant changed (before and after); obligations about actions none of them
    # can apply to are skipped (their formulas are the mutant's as much as the original's), and the first
    # counterexample ends the run (Killed)
    focus: tuple[ParsedStatement, ...] | None = None
    current: str = ""  # the property being proven

    def __post_init__(self) -> None:
        self.statements = tuple(s for name, doc in self.inputs.documents for s in policy_statements(name, dict(doc)))

    def known(self, prefix: str) -> list[str]:
        """The actions of a prefix the proof enumerates one by one: the database's and every literal a policy
        names; the rest of the prefix is one symbolic obligation (:meth:`Encoder.for_other`)."""
        out = {a.full.lower() for a in action_db.actions_of_service(prefix)}
        for stmt in self.statements:
            out.update(
                a.lower() for a in stmt.actions if "*" not in a and "?" not in a and a.lower().startswith(prefix + ":")
            )
        return sorted(out)

    def groups(self, actions: Sequence[str], extra: Callable[[str], object] = lambda a: None) -> list[list[str]]:
        """Actions grouped by the statements whose Action/NotAction element they match (and ``extra``): within a
        group every obligation is the same formula but for the action's name, so one representative decides it."""
        by: dict[tuple[object, tuple[bool, ...]], list[str]] = {}
        for a in actions:
            sig = (extra(a), tuple(action_matches(a, s.actions) for s in self.statements))
            by.setdefault(sig, []).append(a)
        return list(by.values())

    def check(
        self,
        label: str,
        premise: z3.BoolRef,
        claim: z3.BoolRef,
        guards: Sequence[Guard],
        witness: Request | None = None,
        members: Sequence[str] = (),
    ) -> ProofResult:
        if self.focus is not None and witness is not None and not self._in_focus(witness.action):
            return ProofResult("holds", 0.0, reason="not touched by the mutant")
        result = self.prover.check(premise, claim, guards=guards, witness=witness)
        if len(members) > 1:
            if result.status == "holds":
                label += f" (and {len(members) - 1} more action(s) the same statements match)"
            else:
                label += f" (likewise: {', '.join(members[1:])})"
        command = None
        if result.counterexample is not None:
            canonical = _canonical(result.counterexample)
            result = ProofResult(result.status, result.seconds, canonical, result.replay, result.reason)
            command = simulate_command(canonical, self.inputs.assembly)
        self.obligations.append(
            Obligation(label, result, command, tuple(members) or None, self.prover.timeout_ms / 1000)
        )
        if self.focus is not None and result.status == "fails":
            raise Killed(self.obligations[-1], self.current)
        return result

    def _in_focus(self, action: str) -> bool:
        """Whether a statement the mutant changed can apply to the obligation's action (for the "any other action
        of a prefix" obligations, whose witness is ``prefix:UNLISTED``: any wildcard of the prefix, or NotAction)."""
        assert self.focus is not None
        prefix, _, name = action.lower().partition(":")
        for stmt in self.focus:
            if stmt.action_element == "NotAction":
                return True
            if action_matches(action, stmt.actions):
                return True
            if name == UNLISTED and any(
                ("*" in p or "?" in p) and fnmatch.fnmatchcase(prefix, p.lower().split(":", 1)[0]) for p in stmt.actions
            ):
                return True
        return False

    def done(self, pid: str, start: float, *, note: str = "") -> PropertyResult:
        out = PropertyResult(pid, PROPERTIES[pid], tuple(self.obligations), time.perf_counter() - start, note=note)
        self.obligations = []
        return out
