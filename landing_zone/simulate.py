"""Answer "would the guardrails allow this request?" for reviewers, with the deciding statement.

The guardrails are what the configuration deploys: with an ``organization`` block the service control policies
(evaluated with FullAWSAccess, as AWS Organizations does); in single-account mode the invoker roles'
permissions boundary ``<name>-invoker-boundary`` (no SCP is deployed there, and the boundary binds the invoker
roles only).  They are taken from the synthesized cloud assembly (``--assembly cdk.out``: exactly as deployed) or
compiled from the configuration (the same builders the stacks use).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from landing_zone.assembly import Assembly, AssemblyError, load_assembly
from landing_zone.assembly.intrinsics import resolve_document, template_resolver
from landing_zone.errors import LandingZoneError
from landing_zone.plan import Plan
from landing_zone.policies.evaluator import FULL_AWS_ACCESS, Decision, Request, evaluate, evaluate_scp_levels

__all__ = [
    "Arn",
    "Guardrails",
    "guardrails_from_assembly",
    "guardrails_from_plan",
    "parse_arn",
    "parse_context",
    "simulate",
]

BOUNDARY_SUFFIX = "-invoker-boundary"


@dataclass(frozen=True)
class Guardrails:
    """The policies a request is evaluated against, and how: SCPs (with FullAWSAccess) or a permissions boundary."""

    mode: Literal["scp", "boundary"]
    policies: tuple[tuple[str, dict[str, Any]], ...]
    source: str
    # each SCP's attachment targets (as the layout decided), in the order of ``policies``; None: all apply
    targets: tuple[tuple[str, ...], ...] | None = None

    def applying(self, account: str | None) -> tuple[tuple[str, dict[str, Any]], ...]:
        """The SCPs on the path of ``account``: those attached to it, and those attached to a root or OU (the
        account is taken to be below it); an SCP attached nowhere is evaluated too.  ``account`` None: all."""
        if self.targets is None or account is None:
            return self.policies
        return tuple(
            policy
            for policy, targets in zip(self.policies, self.targets, strict=True)
            if not targets or account in targets or any(not t.isdigit() for t in targets)
        )

    @property
    def description(self) -> str:
        if self.mode == "scp":
            return f"{self.source}: service control policies, evaluated together with FullAWSAccess"
        return (
            f"{self.source}: the invoker roles' permissions boundary (single-account mode: no SCP is deployed; the "
            "boundary binds the invoker roles only, and ALLOW means it does not stop the request — the role's "
            "identity policy must still grant it)"
        )


def guardrails_from_plan(plan: Plan) -> Guardrails:
    """The guardrails the configuration deploys: the plan's documents, the ones the stacks render."""
    cfg = plan.config
    source = "guardrails compiled from the configuration"
    if cfg.organization is not None:
        scps = plan.policies.scp_set
        named = tuple((p.name, p.document) for p in scps.policies)
        return Guardrails("scp", named, source, tuple(p.targets for p in scps.policies))
    boundary = plan.policies.boundary
    return Guardrails("boundary", ((f"{cfg.name}{BOUNDARY_SUFFIX}", boundary),), source)


def guardrails_from_assembly(path: Path) -> Guardrails:
    """The SCPs of the assembly; without any, the invoker boundary (single-account mode)."""
    assembly = load_assembly(path)
    scps: list[tuple[str, dict[str, Any]]] = []
    targets: list[tuple[str, ...]] = []
    for res in assembly.resources("AWS::Organizations::Policy"):
        if res.prop("Type") == "SERVICE_CONTROL_POLICY":
            content = res.prop("Content")
            scps.append(
                (res.prop("Name", res.logical_id), json.loads(content) if isinstance(content, str) else content)
            )
            targets.append(tuple(t for t in res.prop("TargetIds") or [] if isinstance(t, str)))
    if scps:
        return Guardrails("scp", tuple(scps), f"SCPs in {path}", tuple(targets))
    boundaries = _boundaries(assembly)
    if boundaries:
        return Guardrails("boundary", tuple(boundaries), f"permissions boundary in {path}")
    raise AssemblyError(
        f"--assembly {path}: no service control policy and no invoker permissions boundary (*{BOUNDARY_SUFFIX}) found"
    )


def _boundaries(assembly: Assembly) -> list[tuple[str, dict[str, Any]]]:
    found = []
    for res in assembly.resources("AWS::IAM::ManagedPolicy"):
        name = res.prop("ManagedPolicyName")
        if isinstance(name, str) and name.endswith(BOUNDARY_SUFFIX):
            resolve = template_resolver(
                res.stack.template, account=res.stack.account or "123456789012", region=res.stack.region or "us-east-1"
            )
            found.append((name, resolve_document(res.prop("PolicyDocument"), resolve)))
    return found


@dataclass(frozen=True)
class Arn:
    """The parts of an ARN (IAM user guide, "Identify AWS resources with Amazon Resource Names (ARNs)",
    https://docs.aws.amazon.com/IAM/latest/UserGuide/reference-arns.html): Region and account may be empty."""

    partition: str
    service: str
    region: str
    account: str
    resource: str


_ARN_PART = re.compile(r"[a-z0-9-]+")
_ACCOUNT = re.compile(r"\d{12}|aws")  # 'aws': AWS managed policies (arn:aws:iam::aws:policy/...)


def parse_arn(text: str) -> tuple[Arn | None, str]:
    """``(Arn, "")`` for ``arn:partition:service:region:account:resource``, else ``(None, what is wrong)``."""
    parts = text.split(":", 5)
    if len(parts) != 6 or parts[0] != "arn":
        return None, "not an ARN: expected arn:PARTITION:SERVICE:REGION:ACCOUNT:RESOURCE (six parts)"
    _, partition, service, region, account, resource = parts
    for name, value in (("partition", partition), ("service", service)):
        if not _ARN_PART.fullmatch(value):
            return None, f"the {name} {value!r} is not lower-case letters, digits and '-'"
    if region and not _ARN_PART.fullmatch(region):
        return None, f"the Region {region!r} is not a Region code"
    if account and not _ACCOUNT.fullmatch(account):
        return None, f"the account {account!r} is not a 12-digit account ID"
    if not resource:
        return None, "the resource part is empty"
    return Arn(partition, service, region, account, resource), ""


def parse_context(pairs: Sequence[str]) -> dict[str, str | list[str]]:
    """``key=value`` pairs; a value with commas becomes a multivalued key."""
    context: dict[str, str | list[str]] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise LandingZoneError(f"--context {pair!r}: expected KEY=VALUE, e.g. bedrock:InferenceProfileArn=arn:...")
        if key.lower() in {k.lower() for k in context}:
            raise LandingZoneError(f"--context {pair!r}: the key {key!r} is given twice (keys are case-insensitive)")
        context[key] = value.split(",") if "," in value else value
    return context


@dataclass(frozen=True)
class Simulation:
    request: Request
    decision: Decision
    guardrails: Guardrails
    warnings: tuple[str, ...] = ()  # what about the request as given may not be what was meant

    def as_dict(self) -> dict[str, Any]:
        return {
            "action": self.request.action,
            "resource": self.request.resource,
            "context": dict(self.request.context),
            "decision": self.decision.decision,
            "allowed": self.decision.allowed,
            "deciding_statements": [
                f"{m.policy_name}/{m.sid or '#' + str(m.index)}"
                for m in (self.decision.matched_denies if not self.decision.allowed else self.decision.matched_allows)
            ],
            "explanation": self.decision.explain(),
            "mode": self.guardrails.mode,
            "guardrails_from": self.guardrails.description,
            "warnings": list(self.warnings),
        }

    def text(self) -> str:
        d = self.as_dict()
        lines = [
            f"request:  {d['action']} on {d['resource']}",
            f"context:  {json.dumps(d['context'], sort_keys=True)}",
            f"decision: {'ALLOW' if d['allowed'] else 'DENY'} ({d['decision'].replace('_', ' ')})",
            f"deciding: {', '.join(d['deciding_statements']) or 'no statement matched'}",
            f"from:     {d['guardrails_from']}",
        ]
        return "\n".join(lines)


def _principal_account(context: Mapping[str, object]) -> str | None:
    """The caller's account: ``aws:PrincipalAccount`` when given, else the account of ``aws:PrincipalARN``."""
    lowered = {k.lower(): v for k, v in context.items()}
    given = lowered.get("aws:principalaccount")
    if isinstance(given, str):
        return given
    arn = lowered.get("aws:principalarn")
    if isinstance(arn, str) and len(arn.split(":")) > 4 and re.fullmatch(r"\d{12}", arn.split(":")[4]):
        return arn.split(":")[4]
    return None


def _spared_account(policies: Sequence[tuple[str, dict[str, Any]]]) -> str | None:
    """The first account a ``StringNotEquals aws:PrincipalAccount`` test of the policies spares (the perimeter SCP's
    governed accounts), or None."""
    for _, document in policies:
        for stmt in document.get("Statement", []):
            values = stmt.get("Condition", {}).get("StringNotEquals", {}).get("aws:PrincipalAccount")
            if values:
                return str(values[0] if isinstance(values, list) else values)
    return None


def simulate(
    *,
    action: str,
    resource: str,
    region: str | None,
    principal_arn: str | None,
    context: Mapping[str, str | list[str]],
    guardrails: Guardrails,
    warnings: Sequence[str] = (),
) -> Simulation:
    ctx: dict[str, str | Sequence[str] | bool | int] = dict(context)
    if region:
        ctx.setdefault("aws:RequestedRegion", region)
    if principal_arn:
        ctx.setdefault("aws:PrincipalARN", principal_arn)
    account = _principal_account(ctx)
    if account is None and guardrails.mode == "scp":
        # AWS sets aws:PrincipalAccount on every request: without a principal, one of a governed account (the first
        # the perimeter SCP spares), whose SCPs are the landing zone's guardrails; the request's context shows it
        account = _spared_account(guardrails.policies)
    if account and "aws:principalaccount" not in {k.lower() for k in ctx}:
        ctx["aws:PrincipalAccount"] = account
    request = Request(action=action, resource=resource, context=ctx)
    if guardrails.mode == "scp":
        applying = guardrails.applying(account)
        decision = evaluate_scp_levels([[("FullAWSAccess", FULL_AWS_ACCESS), *applying]], request)
    else:
        decision = evaluate(list(guardrails.policies), request)
    return Simulation(request=request, decision=decision, guardrails=guardrails, warnings=tuple(warnings))
