"""Properties P1-P5 of the deployed policies, proven for every request (``python -m landing_zone prove``).

The policies are read from the synthesized cloud assembly (what deploys); the properties are stated from the
configuration and the routing decision (what was asked for), never from the policies themselves:

* **P1 Region confinement** — every ``bedrock:``, ``bedrock-mantle:`` and ``bedrock-agentcore:`` request whose
  ``aws:RequestedRegion`` is not compliant is denied by the guardrails: for *any* action of the prefix (which
  covers every action of the IAM action database and every action added later).  When it fails, each database
  action is checked on its own to list them all.
* **P2 model allow-list** — each action the IAM action database lists with a required model resource
  (:data:`MODEL_RESOURCE_TYPES`), except removals and reads of metadata (:data:`NOT_MODEL_USE`), is denied on a
  model outside the allow-list, from a compliant Region: a foundation model that is not allowed, a system
  inference profile of one, and any custom / provisioned / imported / marketplace model or prompt router; and
  every Mantle action that carries ``bedrock-mantle:Model`` is denied for a model that is not allowed on Mantle.
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

Each obligation is answered ``holds``, ``fails`` (a concrete request, printed as a ``simulate`` command and
replayed through the evaluator: prover and evaluator must agree) or ``vacuous`` (its premise admits no request:
not a proof).  A property holds when every obligation holds.
"""

from __future__ import annotations

import json
import re
import shlex
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import z3

from landing_zone.assembly import Assembly, load_assembly
from landing_zone.assembly.intrinsics import resolve_document, template_resolver
from landing_zone.core.routing import PathKind
from landing_zone.errors import LandingZoneError
from landing_zone.plan import Plan
from landing_zone.policies import guardrails as g
from landing_zone.policies.evaluator import Request, UnsupportedPolicyElement
from landing_zone.policies.prover import Guard, ProofResult, Prover, SymbolicRequest
from landing_zone.review import action_db
from landing_zone.review.cases import ALLOW, cases_for
from landing_zone.review.redteam import attacks_for

__all__ = [
    "MODEL_RESOURCE_TYPES",
    "NOT_MODEL_USE",
    "PROPERTIES",
    "ProofInputs",
    "ProofReport",
    "Protected",
    "PropertyResult",
    "inputs_from_assembly",
    "prove_all",
    "protected_targets",
]

PROPERTIES: dict[str, str] = {
    "P1": "Region confinement: every Bedrock, Mantle and AgentCore request outside the compliant Regions is denied",
    "P2": "model allow-list: every action that uses a model is denied on a model outside the allow-list",
    "P3": "tamper protection: no non-exempt principal can change a protected resource",
    "P4": "not over-blocking: legitimate requests are allowed for every value of the keys they do not fix",
    "P5": "invoker effective permissions allow only compliant inference on allowed models",
}

REGION = "aws:RequestedRegion"
PRINCIPAL = "aws:PrincipalARN"
SOURCE_VPCE = "aws:SourceVpce"
PROFILE_KEY = "bedrock:InferenceProfileArn"
MANTLE_KEY = "bedrock-mantle:Model"
TAG_KEY = f"aws:ResourceTag/{g.LANDING_ZONE_TAG}"
TAG_KEYS = "aws:TagKeys"
BEDROCK_PREFIXES = ("bedrock", "bedrock-mantle", "bedrock-agentcore")

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


class ProofError(LandingZoneError):
    """The policies cannot be proven about: an unsupported element, or a missing policy (exit code 2)."""


@dataclass(frozen=True)
class Protected:
    """A P3 target: ``actions`` on ``resources`` (ARN patterns), or on any resource that carries ``tag`` (key,
    value), or that set/remove a tag key equal to ``tag_key`` (compared ignoring case when ``ignore_case``)."""

    label: str
    actions: tuple[str, ...]
    resources: tuple[str, ...] = ()
    tag: tuple[str, str] | None = None
    tag_key: str | None = None
    ignore_case: bool = False


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


@dataclass(frozen=True)
class Obligation:
    label: str
    result: ProofResult
    command: str | None = None  # the counterexample as a simulate command line

    def as_dict(self) -> dict[str, Any]:
        r = self.result
        out: dict[str, Any] = {"label": self.label, "status": r.status, "seconds": round(r.seconds, 4)}
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

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "mode": self.mode,
            "all_hold": self.all_hold,
            "properties": [p.as_dict() for p in self.properties],
        }

    def text(self) -> str:
        lines = [f"prove: {self.source}"]
        for p in self.properties:
            lines.append(
                f"{p.id} {p.status.upper():<14} {p.seconds:6.2f} s  {len(p.obligations):4d} obligation(s)  {p.title}"
            )
            if p.note:
                lines.append(f"   note: {p.note}")
            for o in p.obligations:
                if o.result.status == "holds":
                    continue
                lines.append(f"   {o.result.status}: {o.label}{' — ' + o.result.reason if o.result.reason else ''}")
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


def _of_format(resource: z3.SeqRef, arn_format: str, tag: str) -> tuple[z3.BoolRef, z3.SeqRef]:
    """``resource`` is an ARN of the format (a concatenation: easier for z3 than a regular expression); returns the
    constraint and the last variable (the resource ID).  Region and Account may be empty and hold no ':'; the other
    variables are non-empty, the last one may hold ':' (model IDs such as ``x.y-v2:0`` do)."""
    no_colon = z3.Star(z3.Diff(z3.AllChar(z3.ReSort(z3.StringSort())), z3.Re(":")))
    fmt = arn_format.replace("${Partition}", "aws")
    pieces: list[z3.SeqRef] = []
    constraints: list[z3.BoolRef] = []
    pos = 0
    matches = list(re.finditer(r"\$\{([^}]*)\}", fmt))
    last: z3.SeqRef = z3.StringVal("")
    for i, m in enumerate(matches):
        if fmt[pos : m.start()]:
            pieces.append(z3.StringVal(fmt[pos : m.start()]))
        var = z3.String(f"{tag}:{i}:{m.group(1)}")
        if m.group(1) not in ("Region", "Account"):
            constraints.append(z3.Length(var) > 0)
        if i + 1 < len(matches):
            constraints.append(z3.InRe(var, no_colon))
        pieces.append(var)
        last = var
        pos = m.end()
    if fmt[pos:]:
        pieces.append(z3.StringVal(fmt[pos:]))
    whole = pieces[0] if len(pieces) == 1 else z3.Concat(*pieces)
    return z3.And(resource == whole, *constraints), last


def _arn_format_re(arn_format: str) -> z3.ReRef:
    """A resource type's ARN format as a regular expression: variables are non-empty and colon-free (Region and
    Account may be empty, as in the Region-less foundation model)."""
    no_colon = z3.Union(z3.Range("!", "9"), z3.Range(";", "~"))
    parts: list[z3.ReRef] = []
    pos = 0
    fmt = arn_format.replace("${Partition}", "aws")
    for m in re.finditer(r"\$\{([^}]*)\}", fmt):
        if fmt[pos : m.start()]:
            parts.append(z3.Re(fmt[pos : m.start()]))
        parts.append(z3.Star(no_colon) if m.group(1) in ("Region", "Account") else z3.Plus(no_colon))
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

    def check(
        self,
        label: str,
        premise: z3.BoolRef,
        claim: z3.BoolRef,
        guards: Sequence[Guard],
        witness: Request | None = None,
    ) -> ProofResult:
        result = self.prover.check(premise, claim, guards=guards, witness=witness)
        command = None
        if result.counterexample is not None:
            canonical = _canonical(result.counterexample)
            result = ProofResult(result.status, result.seconds, canonical, result.replay, result.reason)
            command = simulate_command(canonical, self.inputs.assembly)
        self.obligations.append(Obligation(label, result, command))
        return result

    def done(self, pid: str, start: float, *, note: str = "") -> PropertyResult:
        out = PropertyResult(pid, PROPERTIES[pid], tuple(self.obligations), time.perf_counter() - start, note=note)
        self.obligations = []
        return out


# ------------------------------------------------------------------------------------------------- properties


def _p1(run: _Run) -> PropertyResult:
    start = time.perf_counter()
    enc, gr = run.prover.encoder, run.inputs.guardrails
    regions = _inference_regions(run.inputs.plan)
    outside = z3.And(enc.request.key(REGION).present, z3.Not(enc.one_of(REGION, regions)))
    denied = z3.Not(enc.allowed(gr))
    listed = 0
    for prefix in BEDROCK_PREFIXES:
        known = action_db.actions_of_service(prefix)
        listed += len(known)
        result = run.check(
            f"any {prefix}:* action ({len(known)} in the action database, and any other) outside the compliant Regions",
            z3.And(enc.action_in([f"{prefix}:*"]), outside),
            denied,
            [gr],
            Request(f"{prefix}:x", "*", {REGION: "xx-outside-1"}),
        )
        if result.status == "fails":  # list every database action that escapes, then the unlisted rest
            for action in known:
                e = enc.for_action(action.full)
                outside_a = z3.And(e.request.key(REGION).present, z3.Not(e.one_of(REGION, regions)))
                run.check(
                    f"{action.full} outside the compliant Regions",
                    z3.And(e.action_in([action.full]), outside_a),
                    z3.Not(e.allowed(gr)),
                    [gr],
                    Request(action.full, "*", {REGION: "xx-outside-1"}),
                )
            others = z3.And(enc.action_in([f"{prefix}:*"]), z3.Not(enc.action_in([a.full for a in known])), outside)
            run.check(
                f"any {prefix}:* action not in the action database, outside the compliant Regions", others, denied, [gr]
            )
    note = (
        f"{listed} action-database actions covered by the per-prefix proofs; a request without aws:RequestedRegion "
        "is not considered (AWS sets it on every request)"
    )
    return run.done("P1", start, note=note)


def _p2(run: _Run) -> PropertyResult:
    start = time.perf_counter()
    plan = run.inputs.plan
    gr = run.inputs.guardrails
    home = plan.config.home_region
    models, profiles = _allowed_models(plan), _allowed_profiles(plan)
    db = {rt.name: rt for a in action_db.actions_of_service("bedrock") for rt in a.resource_types}
    for action in action_db.actions_of_service("bedrock"):
        if NOT_MODEL_USE.match(action.name):
            continue
        enc = run.prover.encoder.for_action(action.full)
        in_home = enc.equals(REGION, home)
        denied = z3.Not(enc.allowed(gr))
        for rt in action.resource_types:
            if rt.name not in MODEL_RESOURCE_TYPES or not rt.required:
                continue
            res = enc.request.resource
            fits = z3.InRe(res, _arn_format_re(db[rt.name].arn))
            if rt.name == "foundation-model":
                unlisted = z3.And([z3.Not(z3.SuffixOf(z3.StringVal("foundation-model/" + m), res)) for m in models])
                what = "a foundation model that is not allowed"
            elif rt.name == "inference-profile":
                unlisted = (
                    z3.And([z3.Not(z3.SuffixOf(z3.StringVal("/" + p), res)) for p in profiles])
                    if profiles
                    else z3.BoolVal(True)
                )
                unlisted = z3.And(unlisted, *[z3.Not(z3.SuffixOf(z3.StringVal("." + m), res)) for m in models])
                what = "a system inference profile of a model that is not allowed"
            else:
                unlisted = z3.BoolVal(True)
                what = f"any {rt.name} (not an allow-listed model)"
            resource_id = {"foundation-model": "not-allowed.model", "inference-profile": "xx.not-allowed.model"}
            witness = Request(
                action.full, _fill_format(db[rt.name].arn, home, resource_id.get(rt.name, "x")), {REGION: home}
            )
            run.check(
                f"{action.full} on {what}",
                z3.And(enc.action_in([action.full]), in_home, fits, unlisted),
                denied,
                [gr],
                witness,
            )
    mantle = _mantle_models(plan)
    for action in action_db.actions_of_service("bedrock-mantle"):
        if MANTLE_KEY.lower() not in action.keys:
            continue
        enc = run.prover.encoder.for_action(action.full)
        in_home = enc.equals(REGION, home)
        kv = enc.request.key(MANTLE_KEY)
        other_model = z3.And(
            kv.present, z3.Not(z3.Or([kv.values[0] == z3.StringVal(m) for m in mantle])) if mantle else z3.BoolVal(True)
        )
        run.check(
            f"{action.full} with bedrock-mantle:Model not allowed on Mantle",
            z3.And(enc.action_in([action.full]), in_home, other_model),
            z3.Not(enc.allowed(gr)),
            [gr],
            Request(action.full, "*", {REGION: home, MANTLE_KEY: "not-allowed.model"}),
        )
    note = (
        f"from {home}; model resource types {', '.join(MODEL_RESOURCE_TYPES)}; actions named {NOT_MODEL_USE.pattern} "
        "use no model and are left out"
    )
    return run.done("P2", start, note=note)


def protected_targets(plan: Plan) -> tuple[Protected, ...]:
    """What the SCPs protect today, as P3 targets (the named ARN patterns and the landing-zone tag).  A
    protected-resource inventory can replace this list: P3 takes any (actions, resources or tag) targets."""
    config = plan.config
    ex = g.exemptions(config)
    tagged = g.TAGGED_TAMPER_ACTIONS + (g.SELF_HOSTING_TAGGED_TAMPER_ACTIONS if config.self_hosting.enabled else ())
    iam_tags = tuple(a for a in g.TAG_ACTIONS if a.startswith("iam:"))
    return (
        Protected("protected roles (exemption names)", g.ROLE_TAKEOVER_ACTIONS, ex.protected_roles),
        Protected("resources the landing zone names", g.NAMED_TAMPER_ACTIONS, g.protected_resources(config)),
        Protected("resources carrying the landing-zone tag", tagged, tag=(TAG_KEY, config.name)),
        Protected("setting or removing the landing-zone tag", g.TAG_ACTIONS, tag_key=g.LANDING_ZONE_TAG),
        # IAM compares tag keys ignoring case (IAM User Guide, "Tagging IAM resources"): LANDING-ZONE is the same key.
        Protected(
            "the landing-zone tag of IAM roles/policies, any spelling",
            iam_tags,
            tag_key=g.LANDING_ZONE_TAG,
            ignore_case=True,
        ),
        Protected("account-level settings", g.ACCOUNT_SETTING_ACTIONS, ("*",)),
    )


def _p3(run: _Run, targets: Sequence[Protected]) -> PropertyResult:
    start = time.perf_counter()
    inputs = run.inputs
    if inputs.mode != "scp" or not inputs.plan.config.policy_guardrails.tamper_protection:
        why = (
            "single-account mode: no SCP binds an administrator" if inputs.mode != "scp" else "tamper_protection is off"
        )
        return PropertyResult("P3", PROPERTIES["P3"], (), 0.0, applies=False, note=why)
    gr = inputs.guardrails
    exempt = g.exemptions(inputs.plan.config).exempt
    attacker = "arn:aws:iam::999999999999:role/attacker"
    for t in targets:
        for action in t.actions:
            enc = run.prover.encoder.for_action(action)
            not_exempt = z3.And(enc.request.key(PRINCIPAL).present, z3.Not(enc.value_like(PRINCIPAL, list(exempt))))
            context: dict[str, str | list[str]] = {PRINCIPAL: attacker}
            resource = "arn:aws:x"
            if t.tag is not None:
                where = enc.equals(t.tag[0], t.tag[1])
                context[t.tag[0]] = t.tag[1]
            elif t.tag_key is not None:
                kv = enc.request.key(TAG_KEYS)
                want = t.tag_key
                want = t.tag_key
                if t.ignore_case:
                    hit = [
                        z3.InRe(v, z3.Concat(*[z3.Union(z3.Re(c.lower()), z3.Re(c.upper())) for c in want]))
                        for v in kv.values
                    ]
                else:
                    hit = [v == z3.StringVal(want) for v in kv.values]
                where = z3.And(kv.present, z3.Or([z3.And(kv.active(i), h) for i, h in enumerate(hit)]))
                context[TAG_KEYS] = [want.upper() if t.ignore_case else want]
            else:
                where = enc.resource_in(t.resources)
                resource = t.resources[0].replace("*", "x").replace("?", "x")
            witness = Request(action.replace("*", "x").replace("?", "x"), resource, context)
            run.check(
                f"{t.label}: {action}",
                z3.And(enc.action_in([action]), where, not_exempt),
                z3.Not(enc.allowed(gr)),
                [gr],
                witness,
            )
    return run.done("P3", start, note=f"non-exempt: aws:PrincipalARN not like {', '.join(exempt)}")


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


def _p4(run: _Run) -> PropertyResult:
    start = time.perf_counter()
    gr = run.inputs.guardrails
    for label, req in _legit_requests(run.inputs.plan, run.inputs.mode):
        enc = run.prover.encoder.for_action(req.action)
        fixed = [enc.action_in([req.action]), enc.request.resource == z3.StringVal(req.resource)]
        named = {k.lower() for k in req.context}
        service, _, name = req.action.lower().partition(":")
        known = next((a for a in action_db.actions_of_service(service) if a.name.lower() == name), None)
        for k, kv in enc.request.keys.items():
            if k in named:
                continue
            describes = k.startswith(("aws:resourcetag/", "aws:requesttag/")) or k == TAG_KEYS.lower()
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
        "freely, except resource/request tags and aws:TagKeys (they say which resource and what change: absent as "
        "the row states) and service keys the IAM action database does not list for the action (never sent)",
    )


def _p5(run: _Run) -> PropertyResult:
    start = time.perf_counter()
    inputs = run.inputs
    plan = inputs.plan
    if not inputs.invokers:
        return PropertyResult("P5", PROPERTIES["P5"], (), 0.0, applies=False, note="no invoker role in the assembly")
    enc = run.prover.encoder
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
    bedrock = enc.action_in([f"{p}:*" for p in BEDROCK_PREFIXES])
    compliant_request = z3.And(
        enc.action_in(ceiling),
        z3.Implies(bedrock, enc.one_of(REGION, regions)),
        z3.Implies(enc.action_in(g.MODEL_ACTIONS), enc.resource_in(models_ok)),
        z3.Implies(
            enc.action_in(g.MANTLE_MODEL_ACTIONS), enc.one_of(MANTLE_KEY, mantle) if mantle else z3.BoolVal(False)
        ),
    )
    layers = [inputs.guardrails] + ([inputs.boundary] if inputs.boundary and inputs.mode == "scp" else [])
    via_endpoint = enc.request.key(SOURCE_VPCE).present
    endpoint_ok = z3.Or([enc.allowed(e) for e in inputs.endpoints]) if inputs.endpoints else z3.BoolVal(False)
    for identity in inputs.invokers:
        effective = z3.And(
            enc.allowed(identity), *[enc.allowed(x) for x in layers], z3.Implies(via_endpoint, endpoint_ok)
        )
        run.check(
            f"{identity.name.removeprefix('identity ')}: identity ∩ boundary ∩ guardrails ∩ endpoint",
            z3.BoolVal(True),
            z3.Implies(effective, compliant_request),
            [identity, *layers, *inputs.endpoints],
            Request("sts:getcalleridentity", "*", {}),
        )
    return run.done(
        "P5", start, note="the endpoint policies apply to requests that carry aws:SourceVpce (any endpoint)"
    )


def prove_all(
    inputs: ProofInputs, *, targets: Sequence[Protected] | None = None, timeout_ms: int = 60_000
) -> ProofReport:
    """P1-P5 over one set of policies (ProofError, exit 2, when an element is not supported)."""
    docs = [*inputs.guardrails.documents, *(d for x in inputs.invokers for d in x.documents)]
    docs += [d for x in inputs.endpoints for d in x.documents]
    if inputs.boundary is not None:
        docs += inputs.boundary.documents
    extra = [REGION, PRINCIPAL, SOURCE_VPCE, PROFILE_KEY, MANTLE_KEY, TAG_KEY, TAG_KEYS]
    for _, req in _legit_requests(inputs.plan, inputs.mode):
        extra += list(req.context)
    try:
        prover = Prover(SymbolicRequest.for_documents(docs, extra_keys=extra), timeout_ms=timeout_ms)
        run = _Run(inputs, prover)
        steps: list[Callable[[], PropertyResult]] = [
            lambda: _p1(run),
            lambda: _p2(run),
            lambda: _p3(run, protected_targets(inputs.plan) if targets is None else targets),
            lambda: _p4(run),
            lambda: _p5(run),
        ]
        results = tuple(step() for step in steps)
    except UnsupportedPolicyElement as exc:
        raise ProofError(str(exc)) from None
    return ProofReport(inputs.source, inputs.mode, results)
