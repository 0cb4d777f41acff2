"""Properties of the governed perimeter (``prove``: PO1-PO3), proven for every request like P1-P6.

Inside the perimeter (the governed accounts: :mod:`landing_zone.core.perimeter`) the properties are P1-P6
(:mod:`landing_zone.prove.proofs`), proven over every SCP of the assembly.  Outside it — an account under a shared
target of ``organization.target_ids`` that the landing zone does not govern — the SCPs that bind it are only those
the plan attaches to the shared targets (the perimeter SCP and the ``outside_perimeter`` opt-ins), and the
properties are:

* **PO1 no allow-listed model outside** — a principal whose ``aws:PrincipalAccount`` is not a governed account (and,
  with the member baseline, whose ``aws:PrincipalOrgPaths`` is under none of its OUs) is denied every action that
  uses a model and is authorised on a foundation model (IAM action database) on an allowed model's
  foundation-model ARN, in any Region or none; every Mantle action naming an allowed model's Mantle name; and Mantle
  inference that names no model.  Every invocation path is authorised on the foundation model: a system or
  application profile's legs in each destination Region (Amazon Bedrock user guide, "Prerequisites for inference
  profiles": https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-prereq.html), a batch job, and
  an agent, flow or knowledge base through its service role (a role of the account), so the claim on the model's ARN
  covers runtime, profiles, batch and the Bedrock features that call models; Mantle is the other endpoint.  Not
  covered: services that call models with a service-linked role (SCPs do not apply to those), and a request with no
  ``aws:PrincipalAccount`` (AWS sets it on every request).
* **PO2 the perimeter SCP spares the governed accounts** — every request of a principal of a governed account is
  allowed by the SCPs that bind outside only: they take nothing from P1-P6, and the review counts them there.
* **PO3 not over-blocking outside** — the red-team's goal-6 neighbours (the sibling's own other model, CDKToolkit,
  invocation logging, data retention, model-calling services) are allowed by the SCPs that bind outside, for every
  value of the keys they do not fix, unless an ``outside_perimeter`` opt-in says otherwise.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import z3

from landing_zone.core.catalog.action_space import load_action_space
from landing_zone.policies.evaluator import Request
from landing_zone.policies.scp_layout import BINDS_OUTSIDE, BINDS_PERIMETER, ScpSet
from landing_zone.prove.prover import Encoder, Guard
from landing_zone.tables.attacks import attacks_for

__all__ = ["PERIMETER_PROPERTIES", "perimeter_steps"]

PERIMETER_PROPERTIES: dict[str, str] = {
    "PO1": "outside the perimeter: no principal of an account the landing zone does not govern can invoke an "
    "allow-listed model (runtime, profiles, batch, Mantle)",
    "PO2": "the perimeter SCP never denies a principal of a governed account",
    "PO3": "outside the perimeter: a sibling account's own models, stacks, logging and retention stay allowed",
}

ACCOUNT_KEY = "aws:PrincipalAccount"
ORG_PATHS_KEY = "aws:PrincipalOrgPaths"
MANTLE_KEY = "bedrock-mantle:Model"
REGION = "aws:RequestedRegion"
_TWELVE_DIGITS = z3.Loop(z3.Range("0", "9"), 12, 12)
_SIBLING = "999999999999"


def _scps(run: Any) -> ScpSet | None:
    scps: ScpSet | None = run.inputs.plan.policies.scps
    return scps


def _guard(run: Any, name: str, binds: Sequence[str]) -> Guard:
    """The assembly's SCPs that the plan's layout says bind ``binds`` (FullAWSAccess added, one level)."""
    scps = _scps(run)
    assert scps is not None
    names = {p.name for p in scps.policies if p.binds in binds}
    documents = [(n, d) for n, d in run.inputs.guardrails.levels[0] if n in names]
    return Guard.scps(name, documents)


def _not_applicable(result: Callable[..., Any], pid: str, note: str) -> Any:
    """``result``: the result type P1-P6 share (``landing_zone.prove.proofs.PropertyResult``)."""
    return result(pid, PERIMETER_PROPERTIES[pid], (), 0.0, applies=False, note=note)


def _applies(run: Any) -> str | None:
    """Why PO1-PO3 do not apply (no shared target: every account under a target is governed), or None."""
    scps = _scps(run)
    if run.inputs.mode != "scp" or scps is None:
        return "single-account mode: no SCP, no account outside the perimeter"
    if not scps.perimeter.shared_targets:
        return "every target is governed (a governed account or a member-baseline OU): no account outside the perimeter"
    return None


def _outside_principal(enc: Encoder, run: Any) -> z3.BoolRef:
    """The request's principal is of an account outside the perimeter (twelve digits, not governed; not under a
    member-baseline OU)."""
    perim = run.inputs.plan.policies.scps.perimeter
    kv = enc.request.key(ACCOUNT_KEY)
    parts = [kv.present, z3.InRe(kv.values[0], _TWELVE_DIGITS), z3.Not(enc.one_of(ACCOUNT_KEY, perim.accounts))]
    if perim.ous:
        paths = enc.request.key(ORG_PATHS_KEY)
        count = z3.BoolVal(True) if paths.count is None else paths.count == 1
        parts += [paths.present, count, z3.Not(enc.value_like(ORG_PATHS_KEY, perim.org_path_patterns))]
    return z3.And(parts)


def _models(run: Any) -> tuple[list[str], list[str]]:
    plan = run.inputs.plan
    models = sorted({mr.model.id for mr in plan.routing.models})
    mantle = sorted({mr.model.mantle_name for mr in plan.routing.models if mr.model.mantle_regions})
    return models, [m for m in mantle if m]


def _po1(run: Any, result: Callable[..., Any]) -> Any:
    start = time.perf_counter()
    if (why := _applies(run)) is not None:
        return _not_applicable(result, "PO1", why)
    guard = _guard(run, "outside", (BINDS_OUTSIDE, "organization"))
    models, mantle = _models(run)
    actions = load_action_space().foundation_model_actions
    for model in models:
        arns = [f"arn:aws:bedrock:*::foundation-model/{model}"]
        for group in run.groups([a.lower() for a in actions]):
            enc = run.prover.encoder.for_action(group[0])
            witness = Request(group[0], f"arn:aws:bedrock:xx-any-1::foundation-model/{model}", {ACCOUNT_KEY: _SIBLING})
            run.check(
                f"{group[0]} on {model} (any Region, or none) by a principal outside the perimeter",
                z3.And(enc.action_premise(), enc.resource_in(arns), _outside_principal(enc, run)),
                z3.Not(enc.allowed(guard)),
                [guard],
                witness,
                group,
            )
    known = run.known("bedrock-mantle")
    for name in mantle:
        enc = run.prover.encoder.for_other("bedrock-mantle", [])
        run.check(
            f"any bedrock-mantle: action naming {name} by a principal outside the perimeter",
            z3.And(enc.action_premise(), enc.one_of(MANTLE_KEY, [name]), _outside_principal(enc, run)),
            z3.Not(enc.allowed(guard)),
            [guard],
            Request("bedrock-mantle:CreateInference", "*", {ACCOUNT_KEY: _SIBLING, MANTLE_KEY: name}),
        )
    for action in [a for a in known if a.endswith(":createinference")]:
        enc = run.prover.encoder.for_action(action)
        run.check(
            f"{action} naming no model, by a principal outside the perimeter",
            z3.And(enc.action_premise(), enc.absent(MANTLE_KEY), _outside_principal(enc, run)),
            z3.Not(enc.allowed(guard)),
            [guard],
            Request(action, "*", {ACCOUNT_KEY: _SIBLING}),
        )
    note = (
        f"{len(actions)} model actions authorised on a foundation model (IAM action database) x {len(models)} "
        f"allowed model(s), {len(mantle)} Mantle name(s); every path to a model is authorised on its foundation "
        "model (profiles' legs, batch, agents' service roles); not covered: service-linked roles (no SCP applies)"
    )
    return run.done("PO1", start, note=note)


def _po2(run: Any, result: Callable[..., Any]) -> Any:
    start = time.perf_counter()
    if (why := _applies(run)) is not None:
        return _not_applicable(result, "PO2", why)
    guard = _guard(run, "perimeter", (BINDS_OUTSIDE,))
    perim = run.inputs.plan.policies.scps.perimeter
    for prefix in ("bedrock", "bedrock-mantle"):
        enc = run.prover.encoder.for_other(prefix, [])
        run.check(
            f"any {prefix}: action of a principal of a governed account",
            z3.And(enc.action_premise(), enc.one_of(ACCOUNT_KEY, perim.accounts)),
            enc.allowed(guard),
            [guard],
            Request(f"{prefix}:InvokeModel", "*", {ACCOUNT_KEY: perim.accounts[0]}),
        )
    note = (
        "the SCPs that bind outside only, against any action of the prefixes they name (every other action they do "
        f"not name); governed accounts: {', '.join(perim.accounts)}"
        + (f"; member-baseline OUs {', '.join(perim.ous)} are spared by aws:PrincipalOrgPaths" if perim.ous else "")
    )
    return run.done("PO2", start, note=note)


def _fixed(enc: Encoder, req: Request, describing: Callable[[str], bool]) -> list[z3.BoolRef]:
    """The request as stated: its keys pinned; keys that say what is asked (tags, tier, retention) absent."""
    fixed = [enc.action_premise(), enc.request.resource == z3.StringVal(req.resource)]
    named = {k.lower() for k in req.context}
    fixed += [z3.Not(kv.present) for k, kv in enc.request.keys.items() if k not in named and describing(k)]
    for key, value in req.context.items():
        if key.lower() not in enc.request.keys:
            continue
        values = list(value) if isinstance(value, list | tuple) else [str(value)]
        kv = enc.request.key(key)
        count = z3.BoolVal(True) if kv.count is None else kv.count == len(values)
        fixed.append(z3.And(kv.present, count, *[kv.values[i] == z3.StringVal(v) for i, v in enumerate(values)]))
    return fixed


def _po3(run: Any, result: Callable[..., Any], describing: Callable[[str], bool]) -> Any:
    start = time.perf_counter()
    if (why := _applies(run)) is not None:
        return _not_applicable(result, "PO3", why)
    guard = _guard(run, "outside", (BINDS_OUTSIDE, "organization"))
    for case in attacks_for(run.inputs.plan, outside=True)[0]:
        if not case.outside:
            continue
        legit = case.legit
        req = Request(legit.action, legit.resource, legit.request_context())
        enc = run.prover.encoder.for_action(req.action)
        run.check(
            f"red-team neighbour: {case.legit_path}",
            z3.And(_fixed(enc, req, describing)),
            enc.allowed(guard),
            [guard],
            req,
        )
    return run.done(
        "PO3",
        start,
        note="each goal-6 neighbour of the red-team table (the opt-ins off), against the SCPs that bind outside; keys "
        "it does not name vary freely, except tags and the tier and retention keys (absent as the row states)",
    )


def perimeter_steps(
    run: Any, result: Callable[..., Any], describing: Callable[[str], bool]
) -> Mapping[str, Callable[[], Any]]:
    """PO1-PO3 for :func:`landing_zone.prove.proofs.prove_all`: ``run`` its run, ``result`` its PropertyResult,
    ``describing`` which keys P4 holds absent when a request does not name them (tags, tier, retention mode)."""
    return {
        "PO1": lambda: _po1(run, result),
        "PO2": lambda: _po2(run, result),
        "PO3": lambda: _po3(run, result, describing),
    }


# the SCPs P1-P6 are proven over: every one of the assembly (BINDS_PERIMETER, the opt-ins and, sparing the governed
# accounts as PO2 proves, the perimeter SCP)
INSIDE_BINDS = (BINDS_PERIMETER, "organization", BINDS_OUTSIDE)
