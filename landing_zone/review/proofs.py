"""Properties P1-P6 of the deployed policies, proven for every request (``python -m landing_zone prove``).

The policies are read from the synthesized cloud assembly (what deploys); the properties are stated from the
configuration and the routing decision (what was asked for), never from the policies themselves:

* **P1 Region confinement** — every request of a ``bedrock*`` prefix of the IAM action database whose
  ``aws:RequestedRegion`` is not compliant is denied by the guardrails: for *any* action of the prefix (which
  covers every action of the IAM action database and every action added later).  When it fails, each database
  action is checked on its own to list them all.
* **P2 model allow-list** — each action the IAM action database lists with a required model resource
  (:data:`MODEL_RESOURCE_TYPES`), except removals and reads of metadata (:data:`NOT_MODEL_USE`), is denied on a
  model outside the allow-list, from a compliant Region: a foundation model that is not allowed, a system
  inference profile of one, and any custom / provisioned / imported / marketplace model or prompt router; and
  every Mantle action that carries ``bedrock-mantle:Model`` is denied for a model that is not allowed on Mantle —
  in every compliant and every source Region (and the global leg's ``unspecified`` when global inference is on).
  Model-taking actions with no resource type rest on a second authorization (``actiondb/data/
  second_authorization.yaml``).
* **P3 tamper protection** (organization mode) — no principal outside the exemptions can change a protected
  resource: each :class:`Protected` target (an action set and ARN patterns, or the landing-zone tag) is denied.
  The targets come from :func:`protected_targets`; a protected-resource inventory can be passed instead.
* **P4 not over-blocking** — every legitimate request of the standard cases and of the red-team table's
  neighbours (workload through its application profile and each destination leg, Mantle inference, the deployer,
  the logging automation) is allowed by the guardrails *for every value of the keys it does not fix*.
* **P5 invoker effective permissions** — identity policy ∩ permissions boundary ∩ SCPs ∩ VPC endpoint policy
  (when the request came through an endpoint, i.e. carries ``aws:SourceVpce``; any of the landing zone's
  endpoints, an over-approximation) allow an invoker role only the ceiling's actions, Bedrock requests only in
  compliant Regions, model-taking actions only on allowed models and profiles, and Mantle inference only on
  allowed Mantle models.

Each obligation is answered ``holds``, ``fails`` (a concrete request with only the keys that matter, printed as a
``simulate`` command and replayed through the evaluator: prover and evaluator must agree), ``vacuous`` (its premise
admits no request: not a proof), ``timeout`` or ``gave-up`` (:attr:`Obligation.verdict`).  A property holds
when every obligation holds.
"""

from __future__ import annotations

import fnmatch
import functools
import json
import os
import re
import shlex
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import z3

from landing_zone.actiondb.source import NONE_DOCUMENTED, bedrock_prefixes, is_read, second_authorization
from landing_zone.actiondb.space import read_actions
from landing_zone.assembly import Assembly, load_assembly
from landing_zone.assembly.intrinsics import resolve_document, template_resolver
from landing_zone.core.catalog.action_space import PROTECTED_SERVICES
from landing_zone.core.routing import PathKind
from landing_zone.errors import LandingZoneError
from landing_zone.plan import Plan
from landing_zone.policies import guardrails as g
from landing_zone.policies.alert_subscriptions import SUBSCRIBE_ACTIONS
from landing_zone.policies.evaluator import ParsedStatement, Request, UnsupportedPolicyElement, policy_statements
from landing_zone.policies.invoke import MANTLE_INVOKE_ACTIONS, RUNTIME_INVOKE_ACTIONS, SERVICE_TIERS
from landing_zone.policies.protected import ProtectedResource, inventory
from landing_zone.policies.prover import (
    CHAR,
    CHAR_NO_COLON,
    Encoder,
    Guard,
    ProofResult,
    Prover,
    SymbolicRequest,
    action_matches,
)
from landing_zone.policies.prover import (
    caseless_re as _caseless,
)
from landing_zone.review import action_db
from landing_zone.review.cases import ALLOW, cases_for
from landing_zone.review.proof_perimeter import PERIMETER_PROPERTIES, perimeter_steps
from landing_zone.review.redteam import attacks_for

__all__ = [
    "MODEL_RESOURCE_TYPES",
    "NOT_MODEL_USE",
    "PROPERTIES",
    "ProofInputs",
    "ProofReport",
    "PropertyResult",
    "inputs_from_assembly",
    "prove_all",
    "prove_assembly",
]

PROPERTIES: dict[str, str] = {
    "P1": "Region confinement: every request of a bedrock* prefix (Bedrock, AgentCore, Mantle, web search) outside the "
    "compliant Regions is denied",
    "P2": "model allow-list: every action that uses a model is denied on a model outside the allow-list",
    "P3": "tamper protection: no non-exempt principal can change a protected resource",
    "P4": "not over-blocking: legitimate requests are allowed for every value of the keys they do not fix",
    "P5": "invoker effective permissions allow only compliant inference on allowed models",
    "P6": "governed settings: inference on a service tier outside allowed_service_tiers, an AgentCore gateway without "
    "inbound authorization, an AgentCore runtime, code interpreter or browser without a VPC, and the API-key uses "
    "api_keys refuses (creating a Bedrock API key; with none every bearer-token call, with short-term-only a "
    "long-term one or one by a principal not listed) are denied",
    **PERIMETER_PROPERTIES,  # outside the governed perimeter: PO1-PO3 (landing_zone/review/proof_perimeter.py)
}

REGION = "aws:RequestedRegion"
PRINCIPAL = "aws:PrincipalARN"
SOURCE_VPCE = "aws:SourceVpce"
PROFILE_KEY = "bedrock:InferenceProfileArn"
MANTLE_KEY = "bedrock-mantle:Model"
SERVICE_TIER_KEY = "bedrock:ServiceTier"
MANTLE_TIER_KEY = "bedrock-mantle:ServiceTier"
GATEWAY_AUTHORIZER_KEY = "bedrock-agentcore:GatewayAuthorizerType"
API_KEY_CREATION = "iam:CreateServiceSpecificCredential"
CREDENTIAL_SERVICE_KEY = "iam:ServiceSpecificCredentialServiceName"
AGENTCORE_SUBNETS_KEY = "bedrock-agentcore:subnets"
AGENTCORE_SG_KEY = "bedrock-agentcore:securityGroups"
TAG_KEY = f"aws:ResourceTag/{g.LANDING_ZONE_TAG}"
TAG_KEYS = "aws:TagKeys"
# Service keys that, like the tags, say what the request asks for, so P4 holds them absent as the row states: the
# service tier (a request that names none runs in the default tier and carries no key: API_runtime_ServiceTier.html)
# and the data retention mode being set (data-retention.html); and the profile a leg belongs to (Bedrock sets
# bedrock:InferenceProfileArn on the legs of a profile call only: a direct call carries none, a leg row fixes it).
DESCRIBING_KEYS = frozenset(
    k.lower()
    for k in (
        "bedrock:InferenceProfileArn",
        "bedrock:ServiceTier",
        "bedrock-mantle:ServiceTier",
        "bedrock:DataRetentionMode",
        "bedrock-mantle:DataRetentionMode",
    )
)
# every bedrock* prefix of the IAM action database (not the SCP's list: a prefix the SCPs miss fails P1)
BEDROCK_PREFIXES = bedrock_prefixes()

# Resource types that name a model (IAM action database, service "bedrock").  application-inference-profile is left
# out: its ARN does not say which model it copies; every request through one is also authorised against the model's
# foundation-model ARN (its legs), which the foundation-model obligations cover.
MODEL_RESOURCE_TYPES = (
    "foundation-model",
    "inference-profile",
    "custom-model",
    "custom-model-deployment",
    "provisioned-model",
    "imported-model",
    "prompt-router",
    "default-prompt-router",
    "bedrock-marketplace-model-endpoint",
)
# Actions on a model resource that do not use a model: reading metadata, listing, tagging, removing, deregistering.
NOT_MODEL_USE = re.compile(r"^(Get|List|Delete|Deregister|Tag|Untag)")


# An obligation the solver could not decide is a timeout when it used at least this share of its budget, else the
# solver gave up (it stopped early: e.g. within a second of a 10 s budget).
GAVE_UP_FRACTION = 0.9


class Killed(Exception):
    """A mutation run found its first counterexample."""

    def __init__(self, obligation: Obligation, property_id: str) -> None:
        super().__init__(obligation.label)
        self.obligation = obligation
        self.property_id = property_id


class ProofError(LandingZoneError):
    """The policies cannot be proven about: an unsupported element, or a missing policy (exit code 2)."""


@dataclass(frozen=True)
class ProofInputs:
    plan: Plan
    source: str  # where the policies come from, in words
    assembly: str | None  # the --assembly path, for the simulate command lines
    guardrails: Guard  # the SCPs (organization mode) or the invoker boundary (single-account mode)
    boundary: Guard | None
    invokers: tuple[Guard, ...]  # one per invoker role: its identity policies
    endpoints: tuple[Guard, ...]

    @property
    def mode(self) -> str:
        return self.guardrails.mode

    @property
    def documents(self) -> list[tuple[str, Mapping[str, Any]]]:
        """Every policy document proven about: guardrails, invoker identity policies, endpoints, boundary."""
        docs = [*self.guardrails.documents, *(d for x in self.invokers for d in x.documents)]
        docs += [d for x in self.endpoints for d in x.documents]
        if self.boundary is not None:
            docs += self.boundary.documents
        return docs


def symbolic_request(inputs: ProofInputs) -> SymbolicRequest:
    """The symbolic request over every condition key the documents name, the keys the properties state and the
    keys the legitimate requests carry."""
    extra = [REGION, PRINCIPAL, SOURCE_VPCE, PROFILE_KEY, MANTLE_KEY, TAG_KEY, TAG_KEYS]
    for _, req in _legit_requests(inputs.plan, inputs.mode):
        extra += list(req.context)
    return SymbolicRequest.for_documents(inputs.documents, extra_keys=extra)


@dataclass(frozen=True)
class Obligation:
    label: str
    result: ProofResult
    command: str | None = None  # the counterexample as a simulate command line
    members: tuple[str, ...] | None = None  # the actions the obligation stands for (one representative decides)
    timeout_s: float = 0.0  # the solver's budget for the obligation

    @property
    def verdict(self) -> str:
        """holds | fails | vacuous | timeout (the solver used its budget) | gave-up (the solver stopped before it:
        a question outside what it decides, never reported as holding)."""
        r = self.result
        if r.status != "unknown":
            return r.status
        return "timeout" if r.seconds >= GAVE_UP_FRACTION * self.timeout_s else "gave-up"

    def as_dict(self) -> dict[str, Any]:
        r = self.result
        out: dict[str, Any] = {"label": self.label, "status": self.verdict, "seconds": round(r.seconds, 4)}
        if self.members:
            out["actions"] = list(self.members)
        if r.reason:
            out["reason"] = r.reason
        if r.counterexample is not None:
            c = r.counterexample
            out["counterexample"] = {"action": c.action, "resource": c.resource, "context": dict(c.context)}
            out["simulate"] = self.command
            out["replay"] = {k: {"prover": p, "evaluator": e} for k, (p, e) in sorted(r.replay.items())}
            out["replay_agrees"] = r.replay_agrees
        return out


@dataclass(frozen=True)
class PropertyResult:
    id: str
    title: str
    obligations: tuple[Obligation, ...]
    seconds: float
    applies: bool = True
    note: str = ""

    @property
    def status(self) -> str:
        """holds | fails | not-proven (vacuous or unknown obligations) | disagreement | not-applicable"""
        if not self.applies:
            return "not-applicable"
        statuses = {o.result.status for o in self.obligations}
        if any(o.result.status == "fails" and not o.result.replay_agrees for o in self.obligations):
            return "disagreement"
        if "fails" in statuses:
            return "fails"
        if statuses - {"holds"}:
            return "not-proven"
        return "holds"

    @property
    def counterexamples(self) -> tuple[Obligation, ...]:
        return tuple(o for o in self.obligations if o.result.status == "fails")

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "status": self.status,
            "applies": self.applies,
            "note": self.note,
            "seconds": round(self.seconds, 3),
            "obligations": len(self.obligations),
            "holding": sum(o.result.status == "holds" for o in self.obligations),
            "verdicts": dict(sorted(Counter(o.verdict for o in self.obligations).items())),
            "holds": [o.label for o in self.obligations if o.result.status == "holds"],
            "not_holding": [o.as_dict() for o in self.obligations if o.result.status != "holds"],
        }


@dataclass(frozen=True)
class ProofReport:
    source: str
    mode: str
    properties: tuple[PropertyResult, ...]

    @property
    def all_hold(self) -> bool:
        return all(p.status in ("holds", "not-applicable") for p in self.properties)

    def to_dict(self) -> dict[str, Any]:
        """For the review report: ``properties`` -> id -> status, seconds and every obligation not holding (status
        fails | timeout | vacuous, its counterexample as a ``simulate`` command)."""
        return self.as_dict()

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "mode": self.mode,
            "all_hold": self.all_hold,
            "properties": [p.as_dict() for p in self.properties],
        }

    def text(self, *, every_obligation: bool = False) -> str:
        """Per property its status, time and obligations counted by verdict; every obligation that does not hold
        (with its counterexample); with ``every_obligation`` the ones that hold too."""
        lines = [f"prove: {self.source}"]
        for p in self.properties:
            counts = Counter(o.verdict for o in p.obligations)
            tally = ", ".join(f"{n} {v}" for v, n in sorted(counts.items())) or "no obligation"
            lines.append(f"{p.id} {p.status.upper():<14} {p.seconds:6.2f} s  {tally}  {p.title}")
            if p.note:
                lines.append(f"   note: {p.note}")
            for o in p.obligations:
                if o.result.status == "holds":
                    if every_obligation:
                        lines.append(f"   holds: {o.label}")
                    continue
                lines.append(f"   {o.verdict}: {o.label}{' — ' + o.result.reason if o.result.reason else ''}")
                if o.command:
                    agree = "agrees" if o.result.replay_agrees else "DISAGREES"
                    lines.append(f"     counterexample (evaluator replay {agree}): {o.command}")
        return "\n".join(lines)


# ------------------------------------------------------------------------------------------------- inputs


def _resolved(res: Any) -> dict[str, Any]:
    resolve = template_resolver(
        res.stack.template, account=res.stack.account or "123456789012", region=res.stack.region or "us-east-1"
    )
    return dict(resolve_document(res.prop("PolicyDocument"), resolve))


def inputs_from_assembly(path: Path, plan: Plan) -> ProofInputs:
    """The policies of a synthesized assembly: SCPs, the invoker boundary, invoker identity policies, endpoints."""
    assembly: Assembly = load_assembly(path)
    name = plan.config.name
    scps: list[tuple[str, Mapping[str, Any]]] = []
    for res in assembly.resources("AWS::Organizations::Policy"):
        if res.prop("Type") == "SERVICE_CONTROL_POLICY":
            content = res.prop("Content")
            scps.append(
                (str(res.prop("Name", res.logical_id)), json.loads(content) if isinstance(content, str) else content)
            )
    boundary_name = f"{name}-invoker-boundary"
    boundary: Guard | None = None
    invokers: list[Guard] = []
    for res in assembly.resources("AWS::IAM::ManagedPolicy"):
        policy_name = res.prop("ManagedPolicyName")
        if policy_name == boundary_name:
            boundary = Guard.policies("boundary", [(boundary_name, _resolved(res))])
        elif isinstance(policy_name, str) and policy_name.startswith(f"{name}-invoke-"):
            invokers.append(Guard.policies(f"identity {policy_name}", [(policy_name, _resolved(res))]))
    endpoints = tuple(
        Guard.policies(f"endpoint {res.logical_id}", [(res.logical_id, _resolved(res))])
        for res in assembly.resources("AWS::EC2::VPCEndpoint")
        if res.prop("PolicyDocument") is not None
    )
    if plan.config.organization is not None:
        if not scps:
            raise ProofError(
                f"--assembly {path}: no service control policy found (the configuration has an organization)"
            )
        guardrails = Guard.scps("scps", scps)
        source = f"SCPs in {path} (with FullAWSAccess)"
    else:
        if boundary is None:
            raise ProofError(f"--assembly {path}: no permissions boundary named {boundary_name!r} found")
        guardrails = Guard.policies("boundary", boundary.levels[0])
        source = f"permissions boundary {boundary_name} in {path} (single-account mode: it binds the invoker roles)"
    return ProofInputs(plan, source, str(path), guardrails, boundary, tuple(invokers), endpoints)


# ------------------------------------------------------------------------------------------------- helpers


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


# ------------------------------------------------------------------------------------------------- properties

UNLISTED = "zzunlisted0"  # an action name no database lists (the witness of the "any other action" obligations)


def _outside(enc: Encoder, regions: Sequence[str]) -> z3.BoolRef:
    return z3.And(enc.request.key(REGION).present, z3.Not(enc.one_of(REGION, regions)))


def _p1(run: _Run) -> PropertyResult:
    start = time.perf_counter()
    gr = run.inputs.guardrails
    regions = _inference_regions(run.inputs.plan)
    listed = 0
    for prefix in BEDROCK_PREFIXES:
        known = run.known(prefix)
        listed += len(known)
        for group in run.groups(known):
            enc = run.prover.encoder.for_action(group[0])
            run.check(
                f"{group[0]} outside the compliant Regions",
                z3.And(enc.action_premise(), _outside(enc, regions)),
                z3.Not(enc.allowed(gr)),
                [gr],
                Request(group[0], "*", {REGION: "xx-outside-1"}),
                group,
            )
        enc = run.prover.encoder.for_other(prefix, known)
        run.check(
            f"any {prefix}: action not in the action database, outside the compliant Regions",
            z3.And(enc.action_premise(), _outside(enc, regions)),
            z3.Not(enc.allowed(gr)),
            [gr],
            Request(f"{prefix}:{UNLISTED}", "*", {REGION: "xx-outside-1"}),
        )
    note = (
        f"{listed} known actions (action database and policy literals), grouped by the statements they match, and "
        "one symbolic obligation per prefix for every other action; a request without aws:RequestedRegion is not "
        "considered (AWS sets it on every request)"
    )
    return run.done("P1", start, note=note)


def _p2(run: _Run) -> PropertyResult:
    start = time.perf_counter()
    plan = run.inputs.plan
    gr = run.inputs.guardrails
    home = plan.config.home_region
    # every Region a request on a model may carry and not be denied by P1's statements: the compliant Regions (the
    # destination legs), the source Regions, and "unspecified" (the global leg) when global inference is allowed
    regions = _p2_regions(plan)
    second = second_authorization()
    relying = sorted(a for a, e in second.items() if e["second_authorization"] != NONE_DOCUMENTED)
    undocumented = sorted(a for a, e in second.items() if e["second_authorization"] == NONE_DOCUMENTED)
    models, profiles = _allowed_models(plan), _allowed_profiles(plan)
    db = {rt.name: rt for a in action_db.actions_of_service("bedrock") for rt in a.resource_types}
    resource_id = {"foundation-model": "not-allowed.model", "inference-profile": "xx.not-allowed.model"}
    for rt_name in MODEL_RESOURCE_TYPES:
        if rt_name not in db:
            continue
        actions = [
            a.full
            for a in action_db.actions_of_service("bedrock")
            if not NOT_MODEL_USE.match(a.name) and any(rt.name == rt_name and rt.required for rt in a.resource_types)
        ]
        for group in run.groups(actions):
            enc = run.prover.encoder.for_action(group[0])
            res = enc.request.resource
            # the resource as a concatenation of the format's parts (z3 decides those faster than a regular
            # expression); the last part is the resource ID
            fits = z3.InRe(res, _arn_format_re(db[rt_name].arn))
            if rt_name == "foundation-model":
                unlisted = z3.And([z3.Not(z3.SuffixOf(z3.StringVal("foundation-model/" + m), res)) for m in models])
                what = "a foundation model that is not allowed"
            elif rt_name == "inference-profile":
                unlisted = z3.And(
                    *[z3.Not(z3.SuffixOf(z3.StringVal("/" + p), res)) for p in profiles],
                    *[z3.Not(z3.SuffixOf(z3.StringVal("." + m), res)) for m in models],
                )
                what = "a system inference profile of a model that is not allowed"
            else:
                unlisted = z3.BoolVal(True)
                what = f"any {rt_name} (not an allow-listed model)"
            witness = Request(
                group[0], _fill_format(db[rt_name].arn, home, resource_id.get(rt_name, "x")), {REGION: home}
            )
            run.check(
                f"{group[0]} on {what}",
                z3.And(enc.action_premise(), enc.one_of(REGION, regions), fits, unlisted),
                z3.Not(enc.allowed(gr)),
                [gr],
                witness,
                group,
            )
    mantle = _mantle_models(plan)
    mantle_actions = [a.full for a in action_db.actions_of_service("bedrock-mantle") if MANTLE_KEY.lower() in a.keys]
    for group in run.groups(mantle_actions):
        enc = run.prover.encoder.for_action(group[0])
        kv = enc.request.key(MANTLE_KEY)
        other_model = z3.And(
            kv.present, z3.Not(z3.Or([kv.values[0] == z3.StringVal(m) for m in mantle])) if mantle else z3.BoolVal(True)
        )
        run.check(
            f"{group[0]} with bedrock-mantle:Model not allowed on Mantle",
            z3.And(enc.action_premise(), enc.one_of(REGION, regions), other_model),
            z3.Not(enc.allowed(gr)),
            [gr],
            Request(group[0], "*", {REGION: home, MANTLE_KEY: "not-allowed.model"}),
            group,
        )
    note = (
        f"in every Region a request may name and not be denied by Region ({', '.join(regions)}: the compliant and "
        f"the source Regions); model resource types {', '.join(MODEL_RESOURCE_TYPES)}; actions named "
        f"{NOT_MODEL_USE.pattern} use no model and are left out; model-taking actions with no resource type rest on "
        f"a second authorization (bedrock:InvokeModel on the model: {', '.join(relying)}) or are confined by Region "
        f"only ({', '.join(undocumented)}; actiondb/data/second_authorization.yaml)"
    )
    return run.done("P2", start, note=note)


def _p2_regions(plan: Plan) -> list[str]:
    return sorted(set(_inference_regions(plan)) | set(plan.config.source_regions))


def _sample(entry: ProtectedResource, rt: str, arn_format: str, region: str) -> str:
    for sample_rt, arn in entry.samples:
        if sample_rt == rt:
            return arn
    for pattern in entry.arn_patterns:
        return pattern.replace("*", "x").replace("?", "x")
    return _fill_format(arn_format, region, "x")


def _p3(run: _Run) -> PropertyResult:
    """Tamper protection from the protected-resource inventory (landing_zone.policies.protected)."""
    start = time.perf_counter()
    inputs = run.inputs
    config = inputs.plan.config
    if inputs.mode != "scp" or not config.policy_guardrails.tamper_protection:
        why = (
            "single-account mode: no SCP binds an administrator" if inputs.mode != "scp" else "tamper_protection is off"
        )
        return PropertyResult("P3", PROPERTIES["P3"], (), 0.0, applies=False, note=why)
    gr = inputs.guardrails
    ex = g.exemptions(config)
    exempt = list(ex.exempt)
    # who else may: the log writers append to the log groups; the documented alert subscribers add recipients (e-mail
    # or HTTPS: DenyAlertSubscribeProtocols, a red-team pair), which changes nothing the landing zone made
    also = (
        (g.LOG_WRITE_ACTIONS, [*exempt, *g.log_writer_roles(config)]),
        (SUBSCRIBE_ACTIONS, [*exempt, *config.cost.alert_subscriber_principal_arns]),
    )
    home = config.home_region
    attacker = "arn:aws:iam::999999999999:role/attacker"
    skipped_tag = 0

    def not_exempt(enc: Encoder, action: str | None) -> z3.BoolRef:
        who = next((w for acts, w in also if action is not None and action_matches(action, acts)), exempt)
        kv = enc.request.key(PRINCIPAL)
        an_arn = z3.InRe(kv.values[0], _PRINCIPAL_ARN)  # aws:PrincipalARN is an IAM ARN of an account
        return z3.And(kv.present, an_arn, z3.Not(enc.value_like(PRINCIPAL, who)))

    for entry in inventory(config, ex.protected_roles):
        if entry.recognised_by == "none":
            continue
        # reads from the database's access levels (Read or List), not from the SCP's exempt list; an action the
        # database does not list yet is a read when its verb's every listed action is (the rule of actiondb.space)
        reads = read_actions(entry.service)
        db = {a.full: a for a in action_db.actions_of_service(entry.service)}
        ways = (["name"] if entry.by_name else []) + (["tag"] if entry.by_tag else [])
        for rt in entry.resource_types:
            rt_format = next(
                (t.arn for a in db.values() for t in a.resource_types if t.name == rt),
                f"arn:aws:{entry.service}:${{Region}}:${{Account}}:{rt}/${{Id}}",
            )
            changes = [
                name
                for name, a in db.items()
                if any(t.name == rt for t in a.resource_types)
                and not is_read(action_db.access_level(a))
                and not action_matches(name, g.USE_ACTIONS)
            ]
            for way in ways:
                acts = changes
                if way == "tag":
                    acts = [a for a in changes if action_db.key_applies(TAG_KEY, db[a])]
                    skipped_tag += len(changes) - len(acts)
                for group in run.groups(acts):
                    enc = run.prover.encoder.for_action(group[0])
                    context: dict[str, str | list[str]] = {PRINCIPAL: attacker}
                    if way == "name":  # a resource of the type (in an account) that a name pattern covers
                        where = z3.And(
                            z3.InRe(enc.request.resource, _arn_format_re(rt_format, account=True)),
                            enc.resource_in(entry.arn_patterns),
                        )
                    else:
                        where = z3.And(
                            z3.InRe(enc.request.resource, _arn_format_re(rt_format, account=True)),
                            enc.equals(TAG_KEY, config.name),
                        )
                        context[TAG_KEY] = config.name
                    run.check(
                        f"{entry.what} [{rt}, by {way}]: {group[0]}",
                        z3.And(enc.action_premise(), where, not_exempt(enc, group[0])),
                        z3.Not(enc.allowed(gr)),
                        [gr],
                        Request(group[0], _sample(entry, rt, rt_format, home), context),
                        group,
                    )
        # an action AWS adds to the service later: on the names (its resource type is unknown)
        if entry.by_name and entry.arn_patterns:
            enc = run.prover.encoder.for_other(entry.service, run.known(entry.service))
            run.check(
                f"{entry.what} [by name]: any {entry.service}: action not in the action database",
                z3.And(
                    enc.action_premise(),
                    z3.Not(enc.action_in(reads)),
                    z3.Not(enc.action_in(g.USE_ACTIONS)),
                    enc.resource_in(entry.arn_patterns),
                    not_exempt(enc, None),
                ),
                z3.Not(enc.allowed(gr)),
                [gr],
                Request(
                    f"{entry.service}:{UNLISTED}",
                    entry.arn_patterns[0].replace("*", "x").replace("?", "x"),
                    {PRINCIPAL: attacker},
                ),
            )
    # account-level settings (no resource type: authorised on "*")
    for action in g.ACCOUNT_SETTING_ACTIONS:
        enc = run.prover.encoder.for_action(action)
        run.check(
            f"account setting: {action}",
            z3.And(enc.action_premise(), not_exempt(enc, action)),
            z3.Not(enc.allowed(gr)),
            [gr],
            Request(action, "*", {PRINCIPAL: attacker}),
        )
    # setting or removing the landing-zone tag key, in any spelling (IAM tag keys are case-insensitive)
    tagging = sorted(
        {a.full for s in PROTECTED_SERVICES for a in action_db.actions_of_service(s) if TAG_KEYS.lower() in a.keys}
    )
    for group in run.groups(tagging):
        enc = run.prover.encoder.for_action(group[0])
        kv = enc.request.key(TAG_KEYS)
        hit = [z3.InRe(v, _caseless(g.LANDING_ZONE_TAG)) for v in kv.values]
        where = z3.And(kv.present, z3.Or([z3.And(kv.active(i), h) for i, h in enumerate(hit)]))
        run.check(
            f"the landing-zone tag key (any spelling): {group[0]}",
            z3.And(enc.action_premise(), where, not_exempt(enc, None)),
            z3.Not(enc.allowed(gr)),
            [gr],
            Request(group[0], "*", {PRINCIPAL: attacker, TAG_KEYS: [g.LANDING_ZONE_TAG.upper()]}),
            group,
        )
    return run.done(
        "P3",
        start,
        note=f"from the protected-resource inventory; every action the IAM action database does not rate Read or "
        "List (its access levels, not the SCP's exempt list), other than the reviewed use actions; an action the "
        "database does not list is a read when its verb's every listed action is; "
        f"non-exempt: aws:PrincipalARN not like {', '.join(exempt)}; {skipped_tag} (action, entry) pairs without "
        "aws:ResourceTag support are left to the name patterns",
    )


def _legit_requests(plan: Plan, mode: str) -> list[tuple[str, Request]]:
    out: dict[tuple[str, str, str], tuple[str, Request]] = {}
    for case in cases_for(plan):
        expected = case.expected if mode == "scp" else case.expected_boundary
        if expected == ALLOW:
            req = Request(case.action, case.resource, case.request_context())
            out.setdefault(
                (req.action.lower(), req.resource, json.dumps(req.context, sort_keys=True)), (case.case, req)
            )
    if mode == "scp":
        for attack in attacks_for(plan)[0]:
            legit = attack.legit
            req = Request(legit.action, legit.resource, legit.request_context())
            label = f"red-team neighbour: {attack.legit_path}"
            out.setdefault((req.action.lower(), req.resource, json.dumps(req.context, sort_keys=True)), (label, req))
    return list(out.values())


def _describes(key: str) -> bool:
    """A key that says what the request asks for (tags, tier, retention mode): absent unless a row names it."""
    return key.startswith(("aws:resourcetag/", "aws:requesttag/")) or key == TAG_KEYS.lower() or key in DESCRIBING_KEYS


def _p4(run: _Run) -> PropertyResult:
    start = time.perf_counter()
    gr = run.inputs.guardrails
    for label, req in _legit_requests(run.inputs.plan, run.inputs.mode):
        enc = run.prover.encoder.for_action(req.action)
        fixed = [enc.action_premise(), enc.request.resource == z3.StringVal(req.resource)]
        named = {k.lower() for k in req.context}
        service, _, name = req.action.lower().partition(":")
        known = next((a for a in action_db.actions_of_service(service) if a.name.lower() == name), None)
        for k, kv in enc.request.keys.items():
            if k in named:
                continue
            describes = (
                k.startswith(("aws:resourcetag/", "aws:requesttag/")) or k == TAG_KEYS.lower() or k in DESCRIBING_KEYS
            )
            never_sent = not k.startswith("aws:") and known is not None and not action_db.key_applies(k, known)
            if describes or never_sent:
                fixed.append(z3.Not(kv.present))
        for key, value in req.context.items():
            values = list(value) if isinstance(value, list | tuple) else [str(value)]
            if key.lower() not in enc.request.keys:
                continue  # a key no policy names cannot change the decision
            fixed_kv = enc.request.key(key)
            count = z3.BoolVal(True) if fixed_kv.count is None else fixed_kv.count == len(values)
            fixed.append(
                z3.And(fixed_kv.present, count, *[fixed_kv.values[i] == z3.StringVal(v) for i, v in enumerate(values)])
            )
        run.check(label, z3.And(fixed), enc.allowed(gr), [gr], req)
    return run.done(
        "P4",
        start,
        note="each legitimate request of the standard cases and red-team neighbours; keys it does not name vary "
        "freely, except resource/request tags, aws:TagKeys, the service tier and data retention mode keys (they say "
        "which resource and what is asked: absent as the row states) and service keys the IAM action database does "
        "not list for the action (never sent)",
    )


def _p5(run: _Run) -> PropertyResult:
    start = time.perf_counter()
    inputs = run.inputs
    plan = inputs.plan
    if not inputs.invokers:
        return PropertyResult("P5", PROPERTIES["P5"], (), 0.0, applies=False, note="no invoker role in the assembly")
    regions = _inference_regions(plan)
    compliant = sorted(plan.config.compliant_regions)
    fm_regions = list(compliant)
    if plan.config.allow_global_inference:
        fm_regions.append("")
        fm_regions += [
            r
            for mr in plan.routing.models
            for rt in mr.compliant_routes
            if rt.kind is PathKind.GLOBAL_PROFILE
            for r in rt.destination_regions
        ]
    models_ok = [
        f"arn:aws:bedrock:{r}::foundation-model/{m}" for r in sorted(set(fm_regions)) for m in _allowed_models(plan)
    ]
    models_ok += [f"arn:aws:bedrock:{r}:*:inference-profile/{p}" for r in compliant for p in _allowed_profiles(plan)]
    models_ok += [f"arn:aws:bedrock:{r}:*:application-inference-profile/*" for r in compliant]
    models_ok += [f"arn:aws:bedrock:{r}:*:model-invocation-job/*" for r in compliant]
    mantle = _mantle_models(plan)
    ceiling = (*g.INVOKER_CEILING_ACTIONS, "iam:PassRole")
    layers = [inputs.guardrails] + ([inputs.boundary] if inputs.boundary and inputs.mode == "scp" else [])

    def obligation(enc: Encoder, identity: Guard, label: str, witness: Request, members: Sequence[str]) -> None:
        bedrock = enc.action_in([f"{p}:*" for p in BEDROCK_PREFIXES])
        compliant_request = z3.And(
            enc.action_in(ceiling),
            z3.Implies(bedrock, enc.one_of(REGION, regions)),
            z3.Implies(enc.action_in(g.MODEL_ACTIONS), enc.resource_in(models_ok)),
            z3.Implies(
                enc.action_in(g.MANTLE_MODEL_ACTIONS), enc.one_of(MANTLE_KEY, mantle) if mantle else z3.BoolVal(False)
            ),
        )
        via_endpoint = enc.request.key(SOURCE_VPCE).present
        endpoint_ok = z3.Or([enc.allowed(e) for e in inputs.endpoints]) if inputs.endpoints else z3.BoolVal(False)
        effective = z3.And(
            enc.allowed(identity), *[enc.allowed(x) for x in layers], z3.Implies(via_endpoint, endpoint_ok)
        )
        run.check(
            label,
            enc.action_premise(),
            z3.Implies(effective, compliant_request),
            [identity, *layers, *inputs.endpoints],
            witness,
            members,
        )

    for identity in inputs.invokers:
        who = identity.name.removeprefix("identity ")
        # an action no Allow of the identity policy matches is not allowed: only the ones it names are proof
        # obligations (each database action of a wildcard, and the prefix's unknown actions symbolically)
        concrete: set[str] = set()
        prefixes: set[str] = set()
        symbolic = False
        for name, doc in identity.documents:
            for stmt in policy_statements(name, dict(doc)):
                if stmt.effect != "Allow":
                    continue
                if stmt.action_element != "Action":
                    symbolic = True
                    continue
                for pattern in stmt.actions:
                    service, _, rest = pattern.lower().partition(":")
                    if "*" not in pattern and "?" not in pattern:
                        concrete.add(pattern.lower())
                    elif "*" in service or "?" in service or not rest:
                        symbolic = True
                    else:
                        concrete.update(a.full.lower() for a in action_db.expand(pattern))
                        prefixes.add(service)
        for group in run.groups(sorted(concrete)):
            enc = run.prover.encoder.for_action(group[0])
            obligation(enc, identity, f"{who}: {group[0]}", Request(group[0], "*", {}), group)
        for prefix in sorted(prefixes):
            enc = run.prover.encoder.for_other(prefix, run.known(prefix))
            obligation(
                enc,
                identity,
                f"{who}: any {prefix}: action not in the action database",
                Request(f"{prefix}:{UNLISTED}", "*", {}),
                (),
            )
        if symbolic:
            obligation(
                run.prover.encoder,
                identity,
                f"{who}: any action (a wildcard service or NotAction in an Allow)",
                Request("sts:getcalleridentity", "*", {}),
                (),
            )
    return run.done(
        "P5",
        start,
        note="per action the invoker's identity policy allows (database actions of its wildcards grouped by the "
        "statements they match, unknown actions of a prefix symbolically); the endpoint policies apply to requests "
        "that carry aws:SourceVpce (any endpoint)",
    )


def _single_value_outside(enc: Encoder, key: str, allowed: Sequence[str]) -> z3.BoolRef:
    """The request carries ``key`` with one value, and that value is none of ``allowed``."""
    kv = enc.request.key(key)
    single = z3.BoolVal(True) if kv.count is None else kv.count == 1
    return z3.And(kv.present, single, *[kv.values[0] != z3.StringVal(v) for v in allowed])


def _p6_api_keys(run: _Run, gr: Guard) -> bool:
    """The API-key obligations of ``policy_guardrails.api_keys`` (api-keys-permissions.html; the statements of
    :func:`landing_zone.policies.guardrails.api_key_statements`); False when the settings deny no API-key use."""
    settings = run.inputs.plan.config.policy_guardrails
    short_term = settings.api_keys == "short-term-only"
    governs = False
    if short_term or settings.deny_api_key_creation:
        governs = True
        enc = run.prover.encoder.for_action(API_KEY_CREATION)
        run.check(
            f"{API_KEY_CREATION} for a Bedrock service (service name bedrock*)",
            z3.And(enc.action_premise(), enc.value_like(CREDENTIAL_SERVICE_KEY, ["bedrock*"])),
            z3.Not(enc.allowed(gr)),
            [gr],
            Request(API_KEY_CREATION, "*", {CREDENTIAL_SERVICE_KEY: "bedrock.amazonaws.com"}),
        )
    for action in g.BEARER_ACTIONS:
        enc = run.prover.encoder.for_action(action)
        if not short_term:
            if settings.deny_bearer_token_calls:
                governs = True
                run.check(
                    f"{action} (api_keys: none)",
                    enc.action_premise(),
                    z3.Not(enc.allowed(gr)),
                    [gr],
                    Request(action, "*", {}),
                )
            continue
        governs = True
        key = g.BEARER_TYPE_KEYS[action]
        run.check(
            f"{action} with a key that is not short-term",
            z3.And(enc.action_premise(), z3.Not(enc.equals(key, "SHORT_TERM"))),
            z3.Not(enc.allowed(gr)),
            [gr],
            Request(action, "*", {key: "LONG_TERM"}),
        )
        run.check(
            f"{action} by a principal not in api_key_principal_arns",
            z3.And(enc.action_premise(), z3.Not(enc.value_like(PRINCIPAL, settings.api_key_principal_arns))),
            z3.Not(enc.allowed(gr)),
            [gr],
            Request(action, "*", {key: "SHORT_TERM", PRINCIPAL: "arn:aws:iam::111122223333:role/not-listed"}),
        )
    return governs


def _p6(run: _Run) -> PropertyResult:
    start = time.perf_counter()
    gr = run.inputs.guardrails
    settings = run.inputs.plan.config.policy_guardrails
    tiers = sorted(settings.allowed_service_tiers)
    governs_tiers = not set(SERVICE_TIERS) <= set(tiers)
    # the AgentCore denies are SCP statements only (the invoker ceiling leaves AgentCore out of the boundary)
    governs_agentcore = settings.agentcore_controls and run.inputs.mode == "scp"
    governs_api_keys = _p6_api_keys(run, gr)
    if not governs_tiers and not governs_agentcore and not governs_api_keys:
        return PropertyResult(
            "P6",
            PROPERTIES["P6"],
            (),
            0.0,
            applies=False,
            note="every service tier allowed, no AgentCore control and no API-key deny in these guardrails",
        )
    if governs_tiers:
        for actions, key in ((RUNTIME_INVOKE_ACTIONS, SERVICE_TIER_KEY), (MANTLE_INVOKE_ACTIONS, MANTLE_TIER_KEY)):
            for action in actions:
                enc = run.prover.encoder.for_action(action)
                run.check(
                    f"{action} on a service tier outside {tiers}",
                    z3.And(enc.action_premise(), _single_value_outside(enc, key, tiers)),
                    z3.Not(enc.allowed(gr)),
                    [gr],
                    Request(action, "*", {key: "priority" if "priority" not in tiers else "flex"}),
                )
    if governs_agentcore:
        for action in g.AGENTCORE_GATEWAY_ACTIONS:
            enc = run.prover.encoder.for_action(action)
            run.check(
                f"{action} with GatewayAuthorizerType NONE",
                z3.And(enc.action_premise(), enc.equals(GATEWAY_AUTHORIZER_KEY, "NONE")),
                z3.Not(enc.allowed(gr)),
                [gr],
                Request(action, "*", {GATEWAY_AUTHORIZER_KEY: "NONE"}),
            )
        for action in g.AGENTCORE_VPC_ACTIONS:
            enc = run.prover.encoder.for_action(action)
            run.check(
                f"{action} without subnets or security groups",
                z3.And(enc.action_premise(), enc.absent(AGENTCORE_SUBNETS_KEY), enc.absent(AGENTCORE_SG_KEY)),
                z3.Not(enc.allowed(gr)),
                [gr],
                Request(action, "*", {}),
            )
    note = (
        "every principal, every Region and resource; a request that names no tier runs on the default tier (no key: "
        "not denied, by design)"
        + ("" if governs_agentcore else "; AgentCore: not in these guardrails (SCPs only), not proven here")
    )
    return run.done("P6", start, note=note)


# Two halves of about equal solve time (bench/prove_bench.py): with two cores, ``prove_all(jobs=2)`` runs one per
# process (the solver is single-threaded; a counterexample, a timeout or an error is the same in either process).
_HALVES = (("P2", "P1", "P6", "PO1"), ("P4", "P3", "P5", "PO2", "PO3"))
_FORKED: ProofInputs | None = None  # the inputs a forked worker proves (set in the parent before the fork)


def _prove_half(properties: tuple[str, ...], timeout_ms: int) -> tuple[PropertyResult, ...]:
    assert _FORKED is not None
    return prove_all(_FORKED, timeout_ms=timeout_ms, properties=properties).properties


def prove_all(
    inputs: ProofInputs,
    *,
    timeout_ms: int = 60_000,
    properties: Sequence[str] | None = None,
    focus: Sequence[ParsedStatement] | None = None,
    prover: Prover | None = None,
    jobs: int = 1,
) -> ProofReport:
    """P1-P6 over one set of policies (ProofError, exit 2, when an element is not supported).  ``jobs=2``: the
    properties in two forked processes (Linux), each with its own solver."""
    wanted = tuple(pid for pid in PROPERTIES if properties is None or pid in properties)
    if jobs > 1 and focus is None and prover is None and len(wanted) > 1 and _can_fork():
        import multiprocessing

        global _FORKED
        _FORKED = inputs
        halves = [tuple(p for p in half if p in wanted) for half in _HALVES]
        try:
            with multiprocessing.get_context("fork").Pool(len(halves)) as pool:
                parts = pool.starmap(_prove_half, [(h, timeout_ms) for h in halves if h])
        finally:
            _FORKED = None
        by_id = {r.id: r for part in parts for r in part}
        return ProofReport(inputs.source, inputs.mode, tuple(by_id[pid] for pid in wanted))
    try:
        if prover is None:
            prover = Prover(symbolic_request(inputs), timeout_ms=timeout_ms)
        run = _Run(inputs, prover, focus=tuple(focus) if focus is not None else None)  # parses every statement
        steps: dict[str, Callable[[], PropertyResult]] = {
            "P1": lambda: _p1(run),
            "P2": lambda: _p2(run),
            "P3": lambda: _p3(run),
            "P4": lambda: _p4(run),
            "P5": lambda: _p5(run),
            "P6": lambda: _p6(run),
            **perimeter_steps(run, PropertyResult, _describes),
        }
        results = []
        for pid in wanted:
            run.current = pid
            results.append(steps[pid]())
    except UnsupportedPolicyElement as exc:
        raise ProofError(str(exc)) from None
    return ProofReport(inputs.source, inputs.mode, tuple(results))


def default_jobs() -> int:
    """Processes for :func:`prove_all`: two when the machine has two cores or more."""
    return min(2, os.cpu_count() or 1)


def _can_fork() -> bool:
    import multiprocessing
    import threading

    # forking a process with other threads running can deadlock; pytest-xdist workers and the CLI have none
    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def prove_assembly(
    assembly_dir: Path | str,
    plan: Plan,
    *,
    timeout_ms: int = 10_000,
    properties: Sequence[str] | None = None,
) -> ProofReport:
    """P1-P6 of a synthesized assembly, for the review report: ``report.to_dict()`` lists per property its status
    (holds | fails | not-proven | disagreement | not-applicable) and per obligation not holding its status
    (fails | timeout | vacuous), time and counterexample as a ``simulate`` command.  Raises :class:`ProofError`
    (``unsupported: <element> in <policy>``) when a policy cannot be encoded."""
    return prove_all(
        inputs_from_assembly(Path(assembly_dir), plan),
        timeout_ms=timeout_ms,
        properties=properties,
        jobs=default_jobs(),
    )


# ------------------------------------------------------------------------------------------------- the review

# Obligations a reviewer accepted as not proven (a timeout, say), each with a reason: like checkov-skips.yaml.
ACKNOWLEDGEMENTS_FILE = Path(__file__).with_name("proof-acknowledgements.yaml")
# A directory where proof reports are kept, keyed by everything they depend on (the policies proven, the
# configuration, the prover's and the properties' code, the action database, z3's version, the timeout): the tests
# set it (a proof of every example takes minutes); unset, every proof runs.
PROOF_CACHE_ENV = "LZ_PROOF_CACHE"
_ASSEMBLY_MARKER = "<<assembly>>"
# What the review still rests on that is a sample, not a proof (named in the report next to the proven properties).
SAMPLED = (
    "decision cases: standard requests with their expected decisions (section Decision matrix)",
    "red-team pairs: attacks and their legitimate neighbours (section Threat model)",
)


@dataclass(frozen=True)
class Acknowledgement:
    property: str
    obligation: str  # an fnmatch pattern over the obligation's label
    reason: str

    def covers(self, pid: str, label: str) -> bool:
        return pid == self.property and fnmatch.fnmatchcase(label, self.obligation)


def load_acknowledgements(path: Path = ACKNOWLEDGEMENTS_FILE) -> tuple[Acknowledgement, ...]:
    import yaml

    if not path.is_file():
        return ()
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    out = []
    for i, item in enumerate(raw.get("acknowledgements") or []):
        if not isinstance(item, dict) or not all(
            isinstance(item.get(k), str) and item[k] for k in ("property", "obligation", "reason")
        ):
            raise ProofError(
                f"{path.name}: acknowledgements[{i}] needs non-empty strings property, obligation and reason; got {item!r}"
            )
        if item["property"] not in PROPERTIES:
            raise ProofError(
                f"{path.name}: acknowledgements[{i}].property is {item['property']!r}; allowed: {', '.join(PROPERTIES)}"
            )
        out.append(Acknowledgement(item["property"], item["obligation"], item["reason"]))
    return tuple(out)


def _import_closure(module: str, root: Path) -> list[Path]:
    """The source files of ``module`` and of every ``landing_zone`` module it imports, transitively (static: read
    from the import statements, so the set does not depend on what else the process has loaded)."""
    import re as _re

    # `import landing_zone.x` and `from landing_zone.x import a, b` (parenthesised too), at any indentation
    pattern = _re.compile(
        r"^\s*(?:import (landing_zone[\w.]*)|from (landing_zone[\w.]*) import (\([^)]*\)|[^\n]*))", _re.M
    )

    def source(name: str) -> Path | None:
        base = root.parent.joinpath(*name.split("."))
        return next((p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()), None)

    seen: dict[str, Path] = {}
    todo = [module]
    while todo:
        name = todo.pop()
        path = source(name)
        if name in seen or path is None:
            continue
        seen[name] = path
        parts = name.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]  # the parent packages run first
        for plain, package, names in pattern.findall(path.read_text(encoding="utf-8")):
            if plain:
                todo.append(plain)
                continue
            todo.append(package)
            for item in names.strip("()").replace("\n", " ").split(","):
                if item.split():
                    todo.append(f"{package}.{item.split()[0]}")
    return sorted(seen.values())


@functools.cache
def _source_digest() -> str:
    """What the proofs' code is: z3's version, the source of every module the proofs import (transitively) and the
    data files of the package (the catalogs).  A change elsewhere (the renderers, verify, the CLI) keeps the cache."""
    import hashlib
    import importlib.metadata

    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(importlib.metadata.version("z3-solver").encode())
    code = [*_import_closure(__name__, root), *_import_closure("landing_zone.review.mutations", root)]
    for path in sorted({*code, *root.rglob("*.yaml"), *root.rglob("*.json")}):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_path(
    inputs: ProofInputs, timeout_ms: int, properties: Sequence[str] | None, kind: str = "proofs"
) -> Path | None:
    """Where ``$LZ_PROOF_CACHE`` keeps a result of ``kind`` over these inputs (None: no cache)."""
    import hashlib
    import os

    directory = os.environ.get(PROOF_CACHE_ENV)
    if not directory:
        return None
    guards = [inputs.guardrails, inputs.boundary, *inputs.invokers, *inputs.endpoints]
    key = {
        "code": _source_digest(),
        "config": inputs.plan.config.model_dump(mode="json"),
        "policies": [(g.name, g.mode, [[[n, d] for n, d in level] for level in g.levels]) for g in guards if g],
        "mode": inputs.mode,
        "timeout": timeout_ms,
        "properties": list(properties or PROPERTIES),
    }
    digest = hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[:32]
    return Path(directory) / f"{kind}-{digest}.json"


def proofs_section(
    inputs: ProofInputs,
    *,
    timeout_ms: int = 10_000,
    properties: Sequence[str] | None = None,
    acknowledgements: Sequence[Acknowledgement] | None = None,
) -> dict[str, Any]:
    """The review's section "Proofs": per property its status (holds | fails | not-proven | disagreement |
    not-applicable), the obligations not holding with their counterexamples, and which of them a reviewer
    acknowledged (``acknowledged``: the reason).  ``error`` is set when the policies cannot be encoded."""
    acks = load_acknowledgements() if acknowledgements is None else tuple(acknowledgements)
    cache = cache_path(inputs, timeout_ms, properties)
    data: dict[str, Any] | None = None
    # the assembly's path is not part of the key (a copy proves the same): kept as a marker in the stored report
    here = json.dumps(inputs.assembly or "")[1:-1]
    if cache is not None and cache.is_file():
        try:
            data = json.loads(cache.read_text(encoding="utf-8").replace(_ASSEMBLY_MARKER, here))
            data["source"] = inputs.source
        except (OSError, ValueError):
            data = None
    start = time.perf_counter()
    if data is None:
        try:
            data = prove_all(inputs, timeout_ms=timeout_ms, properties=properties, jobs=default_jobs()).to_dict()
        except ProofError as exc:
            data = {
                "source": inputs.source,
                "mode": inputs.mode,
                "all_hold": False,
                "properties": [],
                "error": str(exc),
            }
        data["seconds"] = round(time.perf_counter() - start, 2)
        # a timeout (or the solver giving up) says how loaded the machine was, not what the policies are: never kept
        undecided = any(
            item.get("status") in ("timeout", "gave-up") for prop in data["properties"] for item in prop["not_holding"]
        )
        if cache is not None and not undecided:
            cache.parent.mkdir(parents=True, exist_ok=True)
            staging = cache.with_suffix(f".{os.getpid()}.tmp")
            text = json.dumps(data)
            staging.write_text(text.replace(here, _ASSEMBLY_MARKER) if here else text, encoding="utf-8")
            staging.replace(cache)
    used: set[int] = set()
    for prop in data["properties"]:
        for item in prop["not_holding"]:
            hit = next((i for i, a in enumerate(acks) if a.covers(prop["id"], item["label"])), None)
            if hit is not None and item["status"] != "fails":  # a counterexample is never acknowledged away
                item["acknowledged"] = acks[hit].reason
                used.add(hit)
        open_items = [i for i in prop["not_holding"] if "acknowledged" not in i]
        prop["acknowledged"] = prop["status"] == "not-proven" and not open_items
    data["acknowledgements"] = [
        {"property": a.property, "obligation": a.obligation, "reason": a.reason, "used": i in used}
        for i, a in enumerate(acks)
    ]
    data["proven"] = [p["id"] for p in data["properties"] if p["status"] == "holds"]
    data["sampled"] = list(SAMPLED)
    data["timeout_ms"] = timeout_ms
    return data


def proofs_for_assembly(assembly_dir: Path | str, plan: Plan, **kwargs: Any) -> dict[str, Any]:
    """:func:`proofs_section` of a synthesized assembly (a missing guardrail policy is the section's ``error``)."""
    try:
        inputs = inputs_from_assembly(Path(assembly_dir), plan)
    except ProofError as exc:
        return {
            "source": str(assembly_dir),
            "mode": "",
            "all_hold": False,
            "properties": [],
            "error": str(exc),
            "acknowledgements": [],
            "proven": [],
            "sampled": list(SAMPLED),
        }
    return proofs_section(inputs, **kwargs)
