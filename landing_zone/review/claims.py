"""The first screen's claims, control by control: what enforces each, for whom, and how sure we are (issue 34).

Every claim is derived from the plan (the documents the stacks render) and the proofs, never from prose:

* ``enforced_by`` — the statements that carry it, found by their content (an ``aws:RequestedRegion`` deny, a
  ``NotResource`` of foundation models, an ``aws:SourceVpce`` condition, ...), with the layer each sits in: ``scp``
  (every principal of the governed accounts but the exempt roles), ``boundary`` and ``identity`` (the invoker roles
  only), ``endpoint`` (requests through the landing zone's endpoints only), ``account-setting`` (a configuration the
  landing zone writes, e.g. invocation logging), ``budget-action`` (the kill switch, attached to the invoker roles);
* ``binds`` — ``all-principals`` when a layer that binds every principal carries it, else ``invoker-roles``, else
  ``none`` (a blocking finding, ``LZ-CLAIM-UNENFORCED``);
* ``evidence`` — ``proven`` (a property of the proofs holds), ``sampled`` (decision cases only) or ``configured``
  (nothing evaluates it: it is a setting);
* ``violation`` — the request an account administrator would make to break the claim, replayed through the
  simulator against the same guardrails (``simulated``): a claim said to bind every principal that the simulator
  allows to an administrator is contradicted (``LZ-CLAIM-CONTRADICTED``, blocking). The tests replay the same
  request against the synthesized templates.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from landing_zone.core.routing import PathKind
from landing_zone.plan import Plan
from landing_zone.review.findings import Finding, finding
from landing_zone.review.rules import BLOCKING, define
from landing_zone.simulate import Guardrails, guardrails_from_plan, simulate

__all__ = [
    "ALL_PRINCIPALS",
    "Layer",
    "INVOKER_ROLES",
    "NONE",
    "claim_findings",
    "claims_section",
    "layers",
]

ALL_PRINCIPALS = "all-principals"
INVOKER_ROLES = "invoker-roles"
NONE = "none"

# the property of the proofs (prove/proofs.py PROPERTIES) that covers a claim, and what the property leaves out
PROOF_OF = {"regions": "P1", "models": "P2", "tamper": "P3"}
PROOF_SCOPE = {
    "regions": "P1 is about the Region a request is made in (aws:RequestedRegion), not where a profile processes it: "
    "where data is processed follows from the routing (the profile's destinations, section Residency)",
    "source-regions": "not a property of the proofs: sampled by the decision cases and the red-team pairs",
    "tamper": "service-linked roles and the management account are never bound by SCPs",
    "data-retention": "outside the proofs: P6 covers service tiers, AgentCore and API keys, not the data-retention "
    "denies; sampled by the decision cases and the red-team pairs",
}
ADMIN = "arn:aws:iam::{account}:role/AccountAdministrator"
UNLISTED_MODEL = "example.model-not-allow-listed-v1"


@dataclass(frozen=True)
class Layer:
    """One policy that can carry a claim, with whom it binds."""

    kind: str  # scp, boundary, identity, endpoint, budget-action
    name: str
    document: Mapping[str, Any]
    binds: str  # ALL_PRINCIPALS or INVOKER_ROLES (endpoint: requests through the endpoint, counted as invokers')


def layers(plan: Plan) -> list[Layer]:
    """Every policy of the plan that confines invocation, with whom it binds."""
    p = plan.policies
    out: list[Layer] = []
    guardrails = guardrails_from_plan(plan)
    if guardrails.mode == "scp":
        out += [Layer("scp", name, doc, ALL_PRINCIPALS) for name, doc in guardrails.policies]
    out.append(Layer("boundary", f"{plan.config.name}-invoker-boundary", p.boundary, INVOKER_ROLES))
    for app, inv in sorted(p.invokers.items()):
        out.append(Layer("identity", f"invoker role of {app}", inv.permissions, INVOKER_ROLES))
    for service, doc in sorted(p.endpoints.items()):
        out.append(Layer("endpoint", f"VPC endpoint {service}", doc, INVOKER_ROLES))
    if p.kill_switch is not None:
        out.append(Layer("budget-action", f"{plan.config.name}-kill-switch", p.kill_switch, INVOKER_ROLES))
    return out


def _list(value: Any) -> list[str]:
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, (list, tuple)) else [str(value)]


def _keys(stmt: Mapping[str, Any]) -> set[str]:
    return {k.lower() for op in (stmt.get("Condition") or {}).values() for k in op}


def _values(stmt: Mapping[str, Any], key: str) -> set[str]:
    return {
        v
        for op in (stmt.get("Condition") or {}).values()
        for k, vs in op.items()
        if k.lower() == key
        for v in _list(vs)
    }


def _acts_on(stmt: Mapping[str, Any], action: str) -> bool:
    if "NotAction" in stmt:
        return not any(fnmatch.fnmatchcase(action.lower(), a.lower()) for a in _list(stmt["NotAction"]))
    return any(fnmatch.fnmatchcase(action.lower(), a.lower()) for a in _list(stmt.get("Action")))


def _statements(layer: Layer) -> Iterable[Mapping[str, Any]]:
    st = layer.document.get("Statement") or []
    return [st] if isinstance(st, Mapping) else st


def _carriers(all_layers: Sequence[Layer], test: Any, *, kinds: Iterable[str] | None = None) -> list[dict[str, str]]:
    wanted = set(kinds) if kinds is not None else None
    return [
        {"kind": layer.kind, "policy": layer.name, "sid": str(stmt.get("Sid", "")), "binds": layer.binds}
        for layer in all_layers
        if wanted is None or layer.kind in wanted
        for stmt in _statements(layer)
        if test(stmt)
    ]


def _region_deny(regions: Iterable[str]) -> Any:
    wanted = set(regions)

    def test(stmt: Mapping[str, Any]) -> bool:
        return (
            stmt.get("Effect") == "Deny"
            and _acts_on(stmt, "bedrock:InvokeModel")
            and "aws:requestedregion" in _keys(stmt)
            # "unspecified": the Region-less evaluation of a global profile's leg (global-cross-region-inference.html)
            and _values(stmt, "aws:requestedregion") - {"unspecified"} == wanted
        )

    return test


def _source_deny(sources: Iterable[str]) -> Any:
    wanted = set(sources)

    def test(stmt: Mapping[str, Any]) -> bool:
        if stmt.get("Effect") != "Deny" or not _acts_on(stmt, "bedrock:InvokeModel"):
            return False
        if _values(stmt, "aws:requestedregion") == wanted:
            return True
        pinned = {r.split(":")[3] for r in _list(stmt.get("NotResource")) if r.count(":") >= 5}
        return bool(pinned) and pinned - {"*", ""} == wanted

    return test


def _model_deny(stmt: Mapping[str, Any]) -> bool:
    """A deny of every model but some: a NotResource naming models (not ``foundation-model/*``), or Mantle's key."""
    if stmt.get("Effect") != "Deny":
        return False
    fm = any("foundation-model/" in r and not r.endswith("foundation-model/*") for r in _list(stmt.get("NotResource")))
    return (fm and _acts_on(stmt, "bedrock:InvokeModel")) or "bedrock-mantle:model" in _keys(stmt)


def _endpoint_condition(stmt: Mapping[str, Any]) -> bool:
    return bool(_keys(stmt) & {"aws:sourcevpce", "aws:sourcevpc"})


def _names(stmt: Mapping[str, Any], action: str) -> bool:
    """The statement's Action names the action itself or by a pattern narrower than ``service:*``."""
    return any(
        fnmatch.fnmatchcase(action.lower(), a.lower()) and not a.endswith(":*") and a != "*"
        for a in _list(stmt.get("Action"))
    )


def _logging_tamper(stmt: Mapping[str, Any]) -> bool:
    return stmt.get("Effect") == "Deny" and _names(stmt, "bedrock:DeleteModelInvocationLoggingConfiguration")


def _kill_switch(stmt: Mapping[str, Any]) -> bool:
    return stmt.get("Effect") == "Deny" and _acts_on(stmt, "bedrock:InvokeModel")


def _tamper(stmt: Mapping[str, Any]) -> bool:
    return stmt.get("Effect") == "Deny" and "aws:principalarn" in _keys(stmt) and _acts_on(stmt, "iam:DeleteRole")


def _binds(carriers: Sequence[Mapping[str, str]]) -> str:
    if any(c["binds"] == ALL_PRINCIPALS for c in carriers):
        return ALL_PRINCIPALS
    return INVOKER_ROLES if carriers else NONE


def _binds_text(binds: str, plan: Plan) -> str:
    org = plan.config.organization
    if binds == ALL_PRINCIPALS and org is not None:
        return (
            f"every principal of the accounts under {', '.join(org.target_ids) or 'NO target'} except the exempt "
            "roles (section Who can change what); never the management account or service-linked roles"
        )
    if binds == INVOKER_ROLES:
        return (
            "only the landing zone's invoker roles (their identity policies, boundary and endpoint policies): any "
            "other principal of the account is not bound"
        )
    return "nobody: no policy carries it"


def _evidence(claim_id: str, proofs: Mapping[str, Any] | None, sampled: bool) -> tuple[str, str]:
    prop = PROOF_OF.get(claim_id)
    if prop and proofs:
        status = next((p["status"] for p in proofs.get("properties", []) if p["id"] == prop), None)
        if status == "holds":
            return "proven", f"{prop} holds for every request (section Proofs)"
        if status is not None:
            return "sampled", f"{prop} {status}: sampled by the decision cases only"
    if prop and proofs is None:
        return "sampled", f"{prop} not run (--no-proofs): sampled by the decision cases only"
    if sampled:
        return "sampled", "decision cases and red-team pairs only (no property of the proofs covers it)"
    return "configured", "a setting the landing zone writes; nothing evaluates it (verify reads it back)"


@dataclass(frozen=True)
class _Ctx:
    plan: Plan
    account: str
    region: str
    outside: str | None  # a Region outside compliant_regions
    compliant_not_source: str | None
    # an allowed path's inference request in a source Region: (action, resource, context); runtime first, else Mantle
    invoke: tuple[str, str, dict[str, str]] | None


def _ctx(plan: Plan) -> _Ctx:
    c = plan.config
    account = next(iter(sorted(a.id for a in c.accounts)), c.deployment_account)
    region = c.source_regions[0]
    known = sorted({r for mr in plan.routing.models for rt in mr.routes for r in rt.destination_regions})
    outside = next((r for r in known if r not in c.compliant_regions), None)
    compliant_not_source = next((r for r in sorted(c.compliant_regions) if r not in c.source_regions), None)
    requests: list[tuple[int, tuple[str, str, dict[str, str]]]] = []
    for mr in plan.routing.models:
        for rt in mr.compliant_routes:
            if region not in rt.source_regions:
                continue
            if rt.kind is PathKind.MANTLE:
                project = f"arn:aws:bedrock-mantle:{region}:{account}:project/proj_a1b2c3"
                requests.append((2, ("bedrock-mantle:CreateInference", project, {"bedrock-mantle:Model": mr.model.id})))
            elif rt.profile_id:
                profile = f"arn:aws:bedrock:{region}:{account}:inference-profile/{rt.profile_id}"
                requests.append((0, ("bedrock:InvokeModel", profile, {})))
            else:
                requests.append(
                    (1, ("bedrock:InvokeModel", f"arn:aws:bedrock:{region}::foundation-model/{mr.model.id}", {}))
                )
    invoke = min(requests, key=lambda r: r[0])[1] if requests else None
    return _Ctx(plan, account, region, outside, compliant_not_source, invoke)


def _violation(
    ctx: _Ctx, what: str, action: str, resource: str, region: str, expect: str, **context: str
) -> dict[str, Any]:
    return {
        "what": what,
        "principal": ADMIN.format(account=ctx.account),
        "action": action,
        "resource": resource,
        "region": region,
        "context": dict(context),
        "denied_if_all_principals": expect == "deny",
    }


def _claim(
    claim_id: str,
    text: str,
    carriers: list[dict[str, str]],
    plan: Plan,
    evidence: tuple[str, str],
    violation: dict[str, Any] | None,
    not_covered: Sequence[str] = (),
    what_the_configuration_does: str = "",
) -> dict[str, Any]:
    binds = _binds(carriers)
    return {
        "id": claim_id,
        "claim": text,
        "enforced_by": carriers,
        "binds": binds,
        "binds_text": _binds_text(binds, plan),
        "evidence": evidence[0],
        "evidence_text": evidence[1],
        "not_covered": list(not_covered),
        "what_the_configuration_does": what_the_configuration_does,
        "violation": violation,
    }


def _inference_claims(
    plan: Plan, all_layers: Sequence[Layer], proofs: Mapping[str, Any] | None, ctx: _Ctx
) -> list[dict[str, Any]]:
    c = plan.config
    out = []
    model = plan.routing.models[0].model.id if plan.routing.models else UNLISTED_MODEL
    out.append(
        _claim(
            "regions",
            f"Bedrock, Mantle and AgentCore requests only in {', '.join(sorted(c.compliant_regions))}",
            _carriers(all_layers, _region_deny(c.compliant_regions)),
            plan,
            _evidence("regions", proofs, True),
            _violation(
                ctx,
                f"invoke {model} in {ctx.outside}, outside the compliant Regions",
                "bedrock:InvokeModel",
                f"arn:aws:bedrock:{ctx.outside}::foundation-model/{model}",
                ctx.outside,
                "deny",
            )
            if ctx.outside
            else None,
            [PROOF_SCOPE["regions"]]
            + (
                [
                    "allow_global_inference is true: a global profile started here may be processed in any commercial "
                    "Region (section Residency)"
                ]
                if c.allow_global_inference
                else []
            ),
        )
    )
    out.append(
        _claim(
            "source-regions",
            f"inference started only from {', '.join(c.source_regions)}",
            _carriers(all_layers, _source_deny(c.source_regions)),
            plan,
            _evidence("source-regions", proofs, True),
            _violation(
                ctx,
                f"invoke {model} directly in {ctx.compliant_not_source}, compliant but not a source Region",
                "bedrock:InvokeModel",
                f"arn:aws:bedrock:{ctx.compliant_not_source}::foundation-model/{model}",
                ctx.compliant_not_source,
                "deny",
            )
            if ctx.compliant_not_source
            else None,
            [PROOF_SCOPE["source-regions"]],
        )
    )
    out.append(
        _claim(
            "models",
            f"only the allow-listed models: {', '.join(sorted({mr.model.id for mr in plan.routing.models}))}",
            _carriers(all_layers, _model_deny),
            plan,
            _evidence("models", proofs, True),
            _violation(
                ctx,
                "invoke a model outside the allow-list in a source Region",
                "bedrock:InvokeModel",
                f"arn:aws:bedrock:{ctx.region}::foundation-model/{UNLISTED_MODEL}",
                ctx.region,
                "deny",
            ),
        )
    )
    return out


def _endpoint_claim(plan: Plan, all_layers: Sequence[Layer], ctx: _Ctx) -> dict[str, Any] | None:
    if not plan.config.access.require_vpc_endpoint:
        return None
    carriers = _carriers(all_layers, _endpoint_condition)
    endpoints = sorted(plan.policies.endpoints)
    carriers += [
        {"kind": "endpoint", "policy": f"VPC endpoint {s}", "sid": "", "binds": INVOKER_ROLES} for s in endpoints
    ]
    return _claim(
        "vpc-endpoint",
        "calls only through the landing zone's VPC endpoints",
        carriers,
        plan,
        ("sampled", "decision cases of the invoker policies only; no property of the proofs covers it"),
        _violation(
            ctx,
            "invoke an allowed path from outside any VPC endpoint (no aws:SourceVpce)",
            ctx.invoke[0],
            ctx.invoke[1],
            ctx.region,
            "deny",
            **ctx.invoke[2],
        )
        if ctx.invoke
        else None,
        [
            "principals other than the invoker roles (an account administrator, any other role) may call Bedrock "
            "from anywhere: no SCP carries aws:SourceVpce (docs/THREAT_MODEL.md)",
            "the endpoint policies confine what passes through the endpoints, not what goes around them",
        ],
    )


def _logging_claim(plan: Plan, all_layers: Sequence[Layer], ctx: _Ctx) -> dict[str, Any]:
    c = plan.config
    il = c.invocation_logging
    carriers = _carriers(all_layers, _logging_tamper, kinds=("scp", "boundary"))
    if il.enabled:
        carriers.insert(
            0,
            {
                "kind": "account-setting",
                "policy": f"model invocation logging of each account in {c.home_region}",
                "sid": "",
                "binds": ALL_PRINCIPALS,
            },
        )
    mantle = sorted(
        {
            f"{rt.model_id} on bedrock-mantle in {region}"
            for mr in plan.routing.models
            for rt in mr.compliant_routes
            if rt.kind is PathKind.MANTLE
            for region in rt.source_regions
            if region in c.source_regions
        }
    )
    not_covered = [f"Mantle (allowed path, never captured by invocation logging): {m}" for m in mantle]
    not_covered += [
        "batch jobs: records are the job's own S3 output; this review does not claim invocation logging covers them",
        f"Regions other than {c.home_region}: logging is configured there only (inference can start nowhere else)",
    ]
    does = (
        "Mantle: allow-listed models only (bedrock-mantle:Model denies), its token metrics (AWS/BedrockMantle) feed "
        "the spend alarms; log prompts and responses in the application if you need them (docs/STACKS.md)"
        if mantle
        else "no Mantle path is allowed: nothing uncaptured runs"
    )
    return _claim(
        "invocation-logging",
        "model invocation logging on" if il.enabled else "model invocation logging OFF",
        carriers if il.enabled else [],
        plan,
        ("configured", "an account setting the landing zone writes; its removal is denied to non-exempt principals"),
        _violation(
            ctx,
            "switch off invocation logging",
            "bedrock:DeleteModelInvocationLoggingConfiguration",
            "*",
            ctx.region,
            "deny",
        ),
        not_covered,
        does,
    )


def _kill_switch_claim(plan: Plan, all_layers: Sequence[Layer], ctx: _Ctx) -> dict[str, Any] | None:
    if not plan.config.cost.kill_switch:
        return None
    return _claim(
        "kill-switch",
        "spend stopped at the monthly budget (kill switch)",
        _carriers(all_layers, _kill_switch, kinds=("budget-action",)),
        plan,
        ("configured", "a budget action; billing data lags hours, so spend continues until it fires"),
        _violation(
            ctx,
            "keep invoking with another role after the budget action fired",
            ctx.invoke[0],
            ctx.invoke[1],
            ctx.region,
            "allow",
            **ctx.invoke[2],
        )
        if ctx.invoke
        else None,
        ["principals other than the invoker roles: the deny is attached to the invoker roles only"],
    )


def _retention_deny(stmt: Mapping[str, Any]) -> bool:
    return stmt.get("Effect") == "Deny" and (
        _names(stmt, "bedrock:PutAccountDataRetention") or _names(stmt, "bedrock-mantle:PutAccountDataRetention")
    )


def _retention_claim(plan: Plan, all_layers: Sequence[Layer], ctx: _Ctx) -> dict[str, Any] | None:
    mode = plan.config.data_retention.mode
    if mode is None:
        return None
    carriers = _carriers(all_layers, _retention_deny, kinds=("scp", "boundary"))
    carriers.insert(
        0,
        {
            "kind": "account-setting",
            "policy": f"the account's data retention mode in {plan.config.home_region}",
            "sid": "",
            "binds": ALL_PRINCIPALS,
        },
    )
    return _claim(
        "data-retention",
        f"data retention mode {mode}",
        carriers,
        plan,
        ("sampled", PROOF_SCOPE["data-retention"]),
        _violation(
            ctx,
            "change the account's data retention mode",
            "bedrock:PutAccountDataRetention",
            "*",
            ctx.region,
            "deny",
            **{"bedrock:DataRetentionMode": "default"},
        ),
        [
            f"compliant Regions other than {plan.config.home_region} keep their own mode (inference cannot start "
            "there)",
            PROOF_SCOPE["data-retention"],
        ],
    )


def _tamper_claim(
    plan: Plan, all_layers: Sequence[Layer], proofs: Mapping[str, Any] | None, ctx: _Ctx
) -> dict[str, Any]:
    role = f"arn:aws:iam::{ctx.account}:role/{plan.config.name}-invoker-x"
    return _claim(
        "tamper",
        "the landing zone's resources cannot be changed but by the exempt roles",
        _carriers(all_layers, _tamper, kinds=("scp",)),
        plan,
        _evidence("tamper", proofs, True),
        _violation(ctx, "delete a landing-zone role", "iam:DeleteRole", role, ctx.region, "deny"),
        [PROOF_SCOPE["tamper"]],
    )


def claims_section(
    plan: Plan,
    proofs: Mapping[str, Any] | None,
    guardrails: Guardrails | None = None,
    all_layers: Sequence[Layer] | None = None,
) -> list[dict[str, Any]]:
    """The headline claims, each with what enforces it, for whom, the evidence and the simulator's decision on the
    request that would break it (``simulated``: allow / deny, against ``guardrails``, default the plan's).
    ``all_layers``: the policies that carry the claims (default: the plan's, :func:`layers`)."""
    all_layers = layers(plan) if all_layers is None else all_layers
    ctx = _ctx(plan)
    claims = [
        *_inference_claims(plan, all_layers, proofs, ctx),
        _endpoint_claim(plan, all_layers, ctx),
        _logging_claim(plan, all_layers, ctx),
        _kill_switch_claim(plan, all_layers, ctx),
        _retention_claim(plan, all_layers, ctx),
        _tamper_claim(plan, all_layers, proofs, ctx) if plan.config.organization is not None else None,
    ]
    rails = guardrails or guardrails_from_plan(plan)
    out = []
    for claim in claims:
        if claim is None:
            continue
        v = claim["violation"]
        claim["simulated_for"] = (
            "a non-exempt administrator of a governed account, against the SCPs"
            if rails.mode == "scp"
            else "an invoker role, against its permissions boundary (single-account mode: the boundary binds the "
            "invoker roles only; an administrator of the account is bound by nothing the landing zone deploys)"
        )
        if v is not None and rails.mode != "scp":
            v["principal"] = f"arn:aws:iam::{ctx.account}:role/{plan.config.name}-invoker-app"
        if v is not None:
            sim = simulate(
                action=v["action"],
                resource=v["resource"],
                region=v["region"],
                principal_arn=v["principal"],
                context=v["context"],
                guardrails=rails,
            )
            claim["simulated"] = "allow" if sim.decision.allowed else "deny"
            claim["simulated_by"] = sim.as_dict()["deciding_statements"]
        else:
            claim["simulated"] = None
            claim["simulated_by"] = []
        out.append(claim)
    return out


CLAIM_UNENFORCED = define(
    "LZ-CLAIM-UNENFORCED",
    BLOCKING,
    "A headline claim has no enforcement",
    "A claim of the first screen (section What is enforced, for whom) that no statement of the plan carries.",
    "The first screen would state a guarantee nothing delivers. Add the control, or turn the option off so that the "
    "claim is not made.",
)

CLAIM_CONTRADICTED = define(
    "LZ-CLAIM-CONTRADICTED",
    BLOCKING,
    "A claim said to bind every principal is broken by an account administrator in the simulator",
    "The request that would break the claim, made by a non-exempt administrator of a governed account, is allowed "
    "by the guardrails although the claim is said to bind every principal.",
    "The claim overstates what the guardrails enforce: fix the guardrails or the derivation of the claim (review/"
    "claims.py). It cannot be acknowledged.",
)


def claim_findings(claims: Sequence[Mapping[str, Any]]) -> list[Finding]:
    out = []
    for c in claims:
        if c["binds"] == NONE:
            out.append(finding(CLAIM_UNENFORCED, f"{c['claim']}: no statement of the plan carries it", element=c["id"]))
        elif (
            c["binds"] == ALL_PRINCIPALS
            and c.get("simulated") == "allow"
            and c["violation"]["denied_if_all_principals"]
        ):
            out.append(
                finding(
                    CLAIM_CONTRADICTED,
                    f"{c['claim']}: {c['violation']['what']} is allowed to {c['violation']['principal']}",
                    element=c["id"],
                )
            )
    return out
